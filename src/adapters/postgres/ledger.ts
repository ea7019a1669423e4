/**
 * Credit ledger on the shared database. As in the SQLite ledger, `orgs.balance` and the entries
 * move in one transaction (balance = sum(entries) - sum(pending reservations)), and the CHECK keeps
 * it from going below zero. Reservations are always rows here: the machines sharing the database
 * must all see them.
 *
 * The balance is taken by one conditional UPDATE (`balance >= amount`): PostgreSQL locks the row,
 * so concurrent reservations on any machine queue on it and never overdraw.
 */
import { ServiceError } from '../../core/errors.js';
import type { Ledger, Reservation } from '../../ports/ledger.js';
import { newId } from '../sqlite/accounts.js';
import { inTransaction, type PgPool } from './database.js';

const SETTLE = "UPDATE reservations SET state = $1, settled_at = $2 WHERE id = $3 AND state = 'pending' RETURNING org_id, amount, reference";

/** Reservations of unknown outcome remembered at most (a long outage under load); past it, a pending one is left to the stale sweep. */
const UNKNOWN_MAX = 100_000;
/** Statements a reservation is tried in while its refusals report a balance that covers it (`reserve`). */
const RESERVE_ATTEMPTS = 3;

/** Where a process keeps the reservations of unknown outcome beyond its memory (this machine's SQLite file). */
export interface UnsettledList {
  add(id: string): void;
  remove(id: string): void;
  all(): string[];
}

export class PgLedger implements Ledger {
  /**
   * Reservations whose commit met a lost connection: the statement may have been applied before
   * the connection went, and no one can tell from here. The request was answered as failed (503),
   * so `releaseStale` settles each as not charged once the database answers (`settleUnknown`).
   * Also kept in `kept` (the machine's file) when given, and taken from it at start: a
   * process killed before settling them leaves them to the next one.
   */
  private readonly unknown = new Set<string>();

  constructor(
    private readonly pool: PgPool,
    private readonly kept?: UnsettledList,
  ) {
    for (const id of kept?.all() ?? []) this.unknown.add(id);
  }

  async reserve(orgId: string, amount: number, reference: string): Promise<Reservation> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError('amount must be a positive integer');
    const id = newId('res');
    for (let attempt = 1; ; attempt++) {
      const got = await this.reserveOnce(id, orgId, amount, reference);
      // A refusal reports the balance read in the statement's snapshot, from before a reservation
      // that took it meanwhile (the refusal saw that one): one that seems to cover the amount is
      // tried again, and the next statement sees what the other took.
      if (got.ok || got.balance < amount || attempt === RESERVE_ATTEMPTS) return got;
    }
  }

  /** One statement: the balance is taken and the reservation written together, or neither. */
  private async reserveOnce(id: string, orgId: string, amount: number, reference: string): Promise<Reservation> {
    const { rows } = await this.pool.query<{ taken: boolean; balance: number | null }>(
      `WITH taken AS (
         UPDATE orgs SET balance = balance - $2 WHERE id = $1 AND balance >= $2 RETURNING id
       ), written AS (
         INSERT INTO reservations (id, org_id, amount, reference, state, created_at)
         SELECT $3, id, $2, $4, 'pending', $5 FROM taken RETURNING id
       )
       SELECT EXISTS (SELECT 1 FROM written) AS taken, (SELECT balance FROM orgs WHERE id = $1) AS balance`,
      [orgId, amount, id, reference, Date.now()],
    );
    const row = rows[0]!;
    return row.taken ? { ok: true, id } : { ok: false, balance: row.balance ?? 0 };
  }

  async commit(reservationId: string): Promise<boolean> {
    // One statement (one round trip): the reservation settles and its charge is entered, or neither.
    try {
      await this.pool.query(
        `WITH settled AS (${SETTLE})
         INSERT INTO ledger_entries (org_id, amount, kind, reference, created_at) SELECT org_id, -amount, 'charge', reference, $2 FROM settled`,
        ['committed', Date.now(), reservationId],
      );
    } catch (e) {
      // Not the database's refusal (that rolls the statement back) but a lost or refused connection.
      if (e instanceof ServiceError && e.code === 'store_unavailable' && this.unknown.size < UNKNOWN_MAX) {
        this.unknown.add(reservationId);
        this.kept?.add(reservationId);
      }
      throw e;
    }
    return true;
  }

  async release(reservationId: string): Promise<void> {
    await releaseOne(this.pool, reservationId);
  }

  async credit(orgId: string, amount: number, note: string): Promise<number> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError('amount must be a positive integer');
    return inTransaction(this.pool, async (c) => {
      const { rows } = await c.query<{ balance: number }>('UPDATE orgs SET balance = balance + $1 WHERE id = $2 RETURNING balance', [amount, orgId]);
      if (!rows[0]) throw new RangeError(`unknown organization ${orgId}`);
      await c.query("INSERT INTO ledger_entries (org_id, amount, kind, reference, created_at) VALUES ($1, $2, 'credit', $3, $4)", [
        orgId,
        amount,
        note,
        Date.now(),
      ]);
      return rows[0].balance;
    });
  }

  async balance(orgId: string): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ balance: number }>('SELECT balance FROM orgs WHERE id = $1', [orgId]);
    return rows[0]?.balance;
  }

  unsettled(): number {
    return this.unknown.size;
  }

  /** Also settles, first, the reservations whose commit's outcome this process could not tell (`unknown`). */
  async releaseStale(olderThan: number): Promise<number> {
    const settled = await this.settleUnknown();
    return settled + (await this.releaseOld(olderThan));
  }

  /**
   * Settles each reservation of unknown outcome as not charged: given back while still pending,
   * refunded (state `refunded`, a `refund` entry) when its commit had been applied. The row is
   * locked and read first, so a commit still running on the server is waited for, not missed.
   * Stops at the first failure (the database still away), keeping what is left for the next sweep.
   */
  private async settleUnknown(): Promise<number> {
    let settled = 0;
    for (const id of [...this.unknown]) {
      await inTransaction(this.pool, async (c) => {
        const { rows } = await c.query<{ state: string; org_id: string; amount: number; reference: string }>(
          'SELECT state, org_id, amount, reference FROM reservations WHERE id = $1 FOR UPDATE',
          [id],
        );
        const r = rows[0];
        if (r === undefined || (r.state !== 'pending' && r.state !== 'committed')) return;
        const now = Date.now();
        await c.query('UPDATE reservations SET state = $1, settled_at = $2 WHERE id = $3', [r.state === 'pending' ? 'released' : 'refunded', now, id]);
        await c.query('UPDATE orgs SET balance = balance + $1 WHERE id = $2', [r.amount, r.org_id]);
        if (r.state === 'committed') {
          await c.query("INSERT INTO ledger_entries (org_id, amount, kind, reference, created_at) VALUES ($1, $2, 'refund', $3, $4)", [r.org_id, r.amount, r.reference, now]);
        }
        settled++;
      });
      this.unknown.delete(id);
      this.kept?.remove(id);
    }
    return settled;
  }

  private async releaseOld(olderThan: number): Promise<number> {
    // One statement: the reservations settle and their organizations get the sums back, or nothing moves.
    // A reservation another machine settles meanwhile is locked by its UPDATE and skipped here once settled.
    const { rows } = await this.pool.query<{ released: number }>(
      `WITH settled AS (
         UPDATE reservations SET state = 'released', settled_at = $2 WHERE state = 'pending' AND created_at < $1 RETURNING org_id, amount
       ), sums AS (
         SELECT org_id, sum(amount)::bigint AS amount, count(*)::int AS n FROM settled GROUP BY org_id
       ), given AS (
         UPDATE orgs SET balance = orgs.balance + sums.amount FROM sums WHERE orgs.id = sums.org_id RETURNING sums.n
       )
       SELECT coalesce(sum(n), 0)::int AS released FROM given`,
      [olderThan, Date.now()],
    );
    return rows[0]!.released;
  }
}

/** Gives a pending reservation back, in one statement; false when it was not pending (settled meanwhile, or unknown). */
async function releaseOne(pool: PgPool, reservationId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `WITH settled AS (${SETTLE})
     UPDATE orgs SET balance = orgs.balance + settled.amount FROM settled WHERE orgs.id = settled.org_id`,
    ['released', Date.now(), reservationId],
  );
  return rowCount === 1;
}
