/**
 * Credit ledger. The cached `orgs.balance` and the entries move in one transaction, so at every
 * moment balance = sum(entries) - sum(pending reservations); the CHECK keeps it from going negative.
 */
import type { Ledger, Reservation } from '../../ports/ledger.js';
import { newId } from './accounts.js';
import type { Db } from './database.js';

export class SqliteLedger implements Ledger {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      take: db.prepare<[number, string, number]>('UPDATE orgs SET balance = balance - ? WHERE id = ? AND balance >= ?'),
      give: db.prepare<[number, string]>('UPDATE orgs SET balance = balance + ? WHERE id = ?'),
      balance: db.prepare<[string], { balance: number }>('SELECT balance FROM orgs WHERE id = ?'),
      insertReservation: db.prepare(
        "INSERT INTO reservations (id, org_id, amount, reference, state, created_at) VALUES (?, ?, ?, ?, 'pending', ?)",
      ),
      settle: db.prepare<[string, number, string]>(
        "UPDATE reservations SET state = ?, settled_at = ? WHERE id = ? AND state = 'pending'",
      ),
      reservation: db.prepare<[string], { org_id: string; amount: number; reference: string }>(
        'SELECT org_id, amount, reference FROM reservations WHERE id = ?',
      ),
      entry: db.prepare('INSERT INTO ledger_entries (org_id, amount, kind, reference, created_at) VALUES (?, ?, ?, ?, ?)'),
      stale: db.prepare<[number], { id: string }>(
        "SELECT id FROM reservations WHERE state = 'pending' AND created_at < ?",
      ),
    };
  }

  async reserve(orgId: string, amount: number, reference: string): Promise<Reservation> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError('amount must be a positive integer');
    return this.db
      .transaction((): Reservation => {
        if (this.s.take.run(amount, orgId, amount).changes === 0) {
          return { ok: false, balance: this.s.balance.get(orgId)?.balance ?? 0 };
        }
        const id = newId('res');
        this.s.insertReservation.run(id, orgId, amount, reference, Date.now());
        return { ok: true, id };
      })
      .immediate();
  }

  async commit(reservationId: string): Promise<void> {
    this.db
      .transaction(() => {
        if (this.s.settle.run('committed', Date.now(), reservationId).changes === 0) return;
        const r = this.s.reservation.get(reservationId)!;
        this.s.entry.run(r.org_id, -r.amount, 'charge', r.reference, Date.now());
      })
      .immediate();
  }

  private releaseOne(reservationId: string): boolean {
    if (this.s.settle.run('released', Date.now(), reservationId).changes === 0) return false;
    const r = this.s.reservation.get(reservationId)!;
    this.s.give.run(r.amount, r.org_id);
    return true;
  }

  async release(reservationId: string): Promise<void> {
    this.db.transaction(() => this.releaseOne(reservationId)).immediate();
  }

  async credit(orgId: string, amount: number, note: string): Promise<number> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError('amount must be a positive integer');
    return this.db
      .transaction(() => {
        if (this.s.give.run(amount, orgId).changes === 0) throw new RangeError(`unknown organization ${orgId}`);
        this.s.entry.run(orgId, amount, 'credit', note, Date.now());
        return this.s.balance.get(orgId)!.balance;
      })
      .immediate();
  }

  async balance(orgId: string): Promise<number | undefined> {
    return this.s.balance.get(orgId)?.balance;
  }

  async releaseStale(olderThan: number): Promise<number> {
    return this.db
      .transaction(() => this.s.stale.all(olderThan).filter((r) => this.releaseOne(r.id)).length)
      .immediate();
  }
}
