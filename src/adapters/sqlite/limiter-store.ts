/**
 * Fixed-window counters in the SQLite file, shared by every process on the machine (the server's
 * workers). Each consume is one immediate transaction, so checks and increments are atomic
 * across processes. Expired windows are deleted now and then.
 */
import type { ConsumeResult, LimiterStore, WindowSpec } from '../../ports/limiter-store.js';
import type { Db } from './database.js';

export class SqliteLimiterStore implements LimiterStore {
  private nextSweep = 0;
  private readonly stmts;
  private readonly consumeTx;

  constructor(private readonly db: Db) {
    this.stmts = {
      get: db.prepare<[string], { count: number; reset_at: number }>('SELECT count, reset_at FROM rate_windows WHERE id = ?'),
      put: db.prepare<[string, number, number]>(
        'INSERT INTO rate_windows (id, count, reset_at) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET count = excluded.count, reset_at = excluded.reset_at',
      ),
      sweep: db.prepare<[number]>('DELETE FROM rate_windows WHERE reset_at <= ?'),
    };
    this.consumeTx = db.transaction((windows: readonly WindowSpec[], now: number): ConsumeResult => {
      const current = windows.map((w) => {
        const id = `${w.key}|${w.windowMs}`;
        const row = this.stmts.get.get(id);
        const fresh = !row || row.reset_at <= now;
        return {
          id,
          spec: w,
          count: fresh ? 0 : row.count,
          resetAt: fresh ? Math.floor(now / w.windowMs) * w.windowMs + w.windowMs : row.reset_at,
        };
      });
      const allowed = current.every((c) => c.count < c.spec.limit);
      if (allowed) {
        for (const c of current) this.stmts.put.run(c.id, ++c.count, c.resetAt);
      }
      return { allowed, windows: current.map((c) => ({ limit: c.spec.limit, count: c.count, resetAt: c.resetAt })) };
    });
  }

  async consume(windows: readonly WindowSpec[], now: number): Promise<ConsumeResult> {
    if (now >= this.nextSweep) {
      this.nextSweep = now + 60_000;
      this.stmts.sweep.run(now);
    }
    return this.consumeTx.immediate(windows, now);
  }
}
