/** Fixed-window counters in process memory (one process). Expired windows are swept lazily. */
import type { ConsumeResult, LimiterStore, WindowSpec } from '../../ports/limiter-store.js';

interface Counter {
  count: number;
  resetAt: number;
}

export class MemoryLimiterStore implements LimiterStore {
  private readonly counters = new Map<string, Counter>();
  private nextSweep = 0;

  async consume(windows: readonly WindowSpec[], now: number): Promise<ConsumeResult> {
    this.sweep(now);
    const current = windows.map((w) => {
      const id = `${w.key}|${w.windowMs}`;
      let c = this.counters.get(id);
      if (!c || c.resetAt <= now) {
        c = { count: 0, resetAt: Math.floor(now / w.windowMs) * w.windowMs + w.windowMs };
        this.counters.set(id, c);
      }
      return { spec: w, counter: c };
    });
    const allowed = current.every(({ spec, counter }) => counter.count < spec.limit);
    if (allowed) for (const { counter } of current) counter.count++;
    return {
      allowed,
      windows: current.map(({ spec, counter }) => ({ limit: spec.limit, count: counter.count, resetAt: counter.resetAt })),
    };
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + 60_000;
    for (const [id, c] of this.counters) if (c.resetAt <= now) this.counters.delete(id);
  }
}
