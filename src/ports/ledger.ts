/**
 * Credits in integer micro-USD. A charge is reserved before the work (the balance drops at once,
 * never below zero), then committed on success or released on failure.
 */

export type Reservation = { ok: true; id: string } | { ok: false; balance: number };

export interface Ledger {
  /** Atomically takes `amount` from the balance if it covers it. */
  reserve(orgId: string, amount: number, reference: string): Promise<Reservation>;
  /** Makes a reservation a charge. Idempotent. */
  commit(reservationId: string): Promise<void>;
  /** Gives a reservation back to the balance. Idempotent; a committed one stays committed. */
  release(reservationId: string): Promise<void>;
  /** Adds credit; returns the new balance. */
  credit(orgId: string, amount: number, note: string): Promise<number>;
  balance(orgId: string): Promise<number | undefined>;
  /** Releases reservations older than `olderThan` still pending (a crash between reserve and settle). */
  releaseStale(olderThan: number): Promise<number>;
}
