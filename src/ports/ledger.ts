/**
 * Credits in integer micro-USD. A charge is reserved before the work (the balance available drops
 * at once, never below zero), then committed on success or released on failure.
 *
 * Where a reservation lives is the adapter's choice: a row every process sees (several server
 * processes on one database), or a hold in this process's memory, charged in one write at commit
 * (one process: half the writes). Held in memory, a reservation is not seen by another process, so
 * a commit can find the balance spent meanwhile by another one: it then charges nothing and says so.
 */

export type Reservation = { ok: true; id: string } | { ok: false; balance: number };

export interface Ledger {
  /** Atomically takes `amount` from the balance available if it covers it. */
  reserve(orgId: string, amount: number, reference: string): Promise<Reservation>;
  /**
   * Makes a reservation a charge. False when the balance no longer covers it (a reservation held in
   * memory, the balance spent by another process): nothing is charged and the reservation is gone.
   * Idempotent: a reservation already settled, or unknown, is left as it is (true).
   */
  commit(reservationId: string): Promise<boolean>;
  /** Gives a reservation back to the balance. Idempotent; a committed one stays committed. */
  release(reservationId: string): Promise<void>;
  /** Adds credit; returns the new balance. */
  credit(orgId: string, amount: number, note: string): Promise<number>;
  /** The balance available: credits less charges less this process's (or, shared, every process's) pending reservations. */
  balance(orgId: string): Promise<number | undefined>;
  /**
   * Releases stored reservations older than `olderThan` still pending (a crash between reserve and
   * settle), and, on a shared database, settles as not charged the reservations whose commit met a
   * lost connection in this process (applied or not: the request was answered as failed). Returns
   * how many it settled.
   */
  releaseStale(olderThan: number): Promise<number>;
  /** How many reservations of this process wait for `releaseStale` to settle them (a commit that met an outage); none when absent. */
  unsettled?(): number;
}
