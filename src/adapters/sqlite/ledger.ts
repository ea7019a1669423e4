/**
 * Credit ledger. The cached `orgs.balance` and the entries move in one transaction, so at every
 * moment balance = sum(entries) - sum(stored pending reservations); the CHECK keeps it from going
 * negative.
 *
 * Reservations are stored (`reservations: 'database'`: a row each, which every process on the
 * database sees; `serve --workers N`) or held in this process (`'memory'`: one server process,
 * the default). Stored, a keyed request makes two write transactions (the reservation takes the
 * balance, the commit adds the charge's entry); held, one (the commit takes the balance and adds
 * the entry), and a crash leaves nothing pending. A held reservation is not seen by another
 * process: if one spends the balance meanwhile, the commit finds it short and charges nothing.
 *
 * Each transaction is a function made once here (better-sqlite3 builds a new wrapper at every
 * `db.transaction` call), and a settlement reads the reservation back from its own UPDATE
 * (RETURNING) instead of looking it up again.
 */
import type { Ledger, Reservation } from '../../ports/ledger.js';
import { newId } from './accounts.js';
import type { Db } from './database.js';

export interface SqliteLedgerOptions {
  /** Where reservations live: rows every process sees (the default), or this process's memory. */
  reservations?: 'database' | 'memory';
}

interface Held {
  orgId: string;
  amount: number;
  reference: string;
}

interface Settled {
  org_id: string;
  amount: number;
  reference: string;
}

export class SqliteLedger implements Ledger {
  private readonly s;
  private readonly tx;
  /** Held reservations by id, and their sum by organization (`reservations: 'memory'`). */
  private readonly held: Map<string, Held> | undefined;
  private readonly heldByOrg = new Map<string, number>();

  constructor(db: Db, options: SqliteLedgerOptions = {}) {
    if (options.reservations === 'memory') this.held = new Map();
    const s = {
      take: db.prepare<[number, string, number]>('UPDATE orgs SET balance = balance - ? WHERE id = ? AND balance >= ?'),
      give: db.prepare<[number, string]>('UPDATE orgs SET balance = balance + ? WHERE id = ?'),
      balance: db.prepare<[string], { balance: number }>('SELECT balance FROM orgs WHERE id = ?'),
      insertReservation: db.prepare<[string, string, number, string, number]>(
        "INSERT INTO reservations (id, org_id, amount, reference, state, created_at) VALUES (?, ?, ?, ?, 'pending', ?)",
      ),
      settle: db.prepare<[string, number, string], Settled>(
        "UPDATE reservations SET state = ?, settled_at = ? WHERE id = ? AND state = 'pending' RETURNING org_id, amount, reference",
      ),
      entry: db.prepare<[string, number, string, string, number]>(
        'INSERT INTO ledger_entries (org_id, amount, kind, reference, created_at) VALUES (?, ?, ?, ?, ?)',
      ),
      stale: db.prepare<[number], { id: string }>("SELECT id FROM reservations WHERE state = 'pending' AND created_at < ?"),
    };
    this.s = s;
    /** Gives a stored pending reservation back; false when it was not pending. */
    const releaseOne = (reservationId: string): boolean => {
      const r = s.settle.get('released', Date.now(), reservationId);
      if (!r) return false;
      s.give.run(r.amount, r.org_id);
      return true;
    };
    this.tx = {
      reserve: db.transaction((orgId: string, amount: number, reference: string): Reservation => {
        if (s.take.run(amount, orgId, amount).changes === 0) return { ok: false, balance: s.balance.get(orgId)?.balance ?? 0 };
        const id = newId('res');
        s.insertReservation.run(id, orgId, amount, reference, Date.now());
        return { ok: true, id };
      }),
      commit: db.transaction((reservationId: string): void => {
        const r = s.settle.get('committed', Date.now(), reservationId);
        if (r) s.entry.run(r.org_id, -r.amount, 'charge', r.reference, Date.now());
      }),
      /** A held reservation's charge: false, and nothing written, when the balance no longer covers it. */
      charge: db.transaction((orgId: string, amount: number, reference: string): boolean => {
        if (s.take.run(amount, orgId, amount).changes === 0) return false;
        s.entry.run(orgId, -amount, 'charge', reference, Date.now());
        return true;
      }),
      release: db.transaction(releaseOne),
      credit: db.transaction((orgId: string, amount: number, note: string): number => {
        if (s.give.run(amount, orgId).changes === 0) throw new RangeError(`unknown organization ${orgId}`);
        s.entry.run(orgId, amount, 'credit', note, Date.now());
        return s.balance.get(orgId)!.balance;
      }),
      releaseStale: db.transaction((olderThan: number): number => s.stale.all(olderThan).filter((r) => releaseOne(r.id)).length),
    };
  }

  async reserve(orgId: string, amount: number, reference: string): Promise<Reservation> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError('amount must be a positive integer');
    if (!this.held) return this.tx.reserve.immediate(orgId, amount, reference);
    // Read and hold with nothing in between: no other request of this process can come between.
    const available = (this.s.balance.get(orgId)?.balance ?? 0) - (this.heldByOrg.get(orgId) ?? 0);
    if (available < amount) return { ok: false, balance: Math.max(available, 0) };
    const id = newId('res');
    this.held.set(id, { orgId, amount, reference });
    this.heldByOrg.set(orgId, (this.heldByOrg.get(orgId) ?? 0) + amount);
    return { ok: true, id };
  }

  async commit(reservationId: string): Promise<boolean> {
    const held = this.unhold(reservationId);
    if (held) return this.tx.charge.immediate(held.orgId, held.amount, held.reference);
    this.tx.commit.immediate(reservationId);
    return true;
  }

  async release(reservationId: string): Promise<void> {
    if (!this.unhold(reservationId)) this.tx.release.immediate(reservationId);
  }

  /** Takes a held reservation out of this process's holds (it is then charged or given back). */
  private unhold(reservationId: string): Held | undefined {
    const held = this.held?.get(reservationId);
    if (!held) return undefined;
    this.held!.delete(reservationId);
    const rest = this.heldByOrg.get(held.orgId)! - held.amount;
    if (rest === 0) this.heldByOrg.delete(held.orgId);
    else this.heldByOrg.set(held.orgId, rest);
    return held;
  }

  async credit(orgId: string, amount: number, note: string): Promise<number> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError('amount must be a positive integer');
    return Math.max(this.tx.credit.immediate(orgId, amount, note) - (this.heldByOrg.get(orgId) ?? 0), 0);
  }

  async balance(orgId: string): Promise<number | undefined> {
    const stored = this.s.balance.get(orgId)?.balance;
    // Below zero only when another process spent what this one holds: those commits will find it short.
    return stored === undefined ? undefined : Math.max(stored - (this.heldByOrg.get(orgId) ?? 0), 0);
  }

  async releaseStale(olderThan: number): Promise<number> {
    return this.tx.releaseStale.immediate(olderThan);
  }
}
