/**
 * Fixed-window counters in PostgreSQL, for several machines without Redis. One call of the
 * migration's `consume_rate_windows` checks and counts all of a request's windows atomically (its
 * rows locked in id order): if any is full, none is counted. A window's id names its start, as the
 * Redis store's keys do; expired windows are deleted now and then.
 */
import type { ConsumeResult, LimiterStore, WindowSpec } from '../../ports/limiter-store.js';
import type { PgPool } from './database.js';

/** Kept past the window's end, so a clock a little behind another machine's still finds it. */
const EXPIRY_SLACK_MS = 5000;

export class PgLimiterStore implements LimiterStore {
  private nextSweep = 0;

  constructor(private readonly pool: PgPool) {}

  async consume(windows: readonly WindowSpec[], now: number): Promise<ConsumeResult> {
    const resets = windows.map((w) => Math.floor(now / w.windowMs) * w.windowMs + w.windowMs);
    const ids = windows.map((w, i) => `${w.key}|${w.windowMs}|${resets[i]}`);
    if (now >= this.nextSweep) {
      this.nextSweep = now + 60_000;
      await this.pool.query('DELETE FROM rate_windows WHERE expires_at <= $1', [now]);
    }
    const { rows } = await this.pool.query<{ allowed: boolean; counts: number[] }>('SELECT allowed, counts FROM consume_rate_windows($1, $2, $3)', [
      ids,
      windows.map((w) => w.limit),
      resets.map((r) => r + EXPIRY_SLACK_MS),
    ]);
    const { allowed, counts } = rows[0]!;
    return { allowed, windows: windows.map((w, i) => ({ limit: w.limit, count: counts[i]!, resetAt: resets[i]! })) };
  }
}
