/**
 * Usage rows are kept for `WEBSEARCH_USAGE_RETENTION_DAYS` (README): a row per request, with the
 * caller's address, grows a database by 164 bytes a request with its index for ever otherwise
 * (measured on the soak benchmark's 2.3 million rows: 0.7 GB a day at 50 requests a second). `serve` deletes older rows a minute after it starts and
 * then daily, a few thousand at a time with the serving thread free in between. The ledger, the
 * x402 payments and the storefront outbox are records of money and are not touched.
 */
import type { LogFn } from '../core/log.js';
import type { Clock } from '../core/time.js';
import type { UsageStore } from '../ports/usage-store.js';

/** Rows deleted in one statement: a few milliseconds of the serving thread. */
export const USAGE_PRUNE_ROWS = 5_000;
const DAY_MS = 24 * 3600 * 1000;
/** The first prune comes this long after the start: a restart need not wait a day for one, nor slow its first minute. */
const FIRST_PRUNE_MS = 60_000;

/** Deletes the rows of requests made before `before`, in steps; answers how many went. */
export async function pruneUsage(usage: UsageStore, before: number, isStopped: () => boolean = () => false): Promise<number> {
  let total = 0;
  while (!isStopped()) {
    const n = await usage.prune(before, USAGE_PRUNE_ROWS);
    total += n;
    if (n < USAGE_PRUNE_ROWS) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return total;
}

export interface UsageRetention {
  /** Stops the timer and waits for a prune under way to end its step. */
  stop(): Promise<void>;
}

/** Prunes the rows older than `retentionMs` after `firstMs`, then every `everyMs`; a failure is logged and tried again at the next. */
export function startUsageRetention(
  usage: UsageStore,
  retentionMs: number,
  clock: Clock,
  log: LogFn,
  timing: { firstMs: number; everyMs: number } = { firstMs: FIRST_PRUNE_MS, everyMs: DAY_MS },
): UsageRetention {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = pruneUsage(usage, clock.now() - retentionMs, () => stopped).then(
      (rows) => {
        if (rows > 0) log('info', 'usage pruned', { rows, olderThanDays: retentionMs / DAY_MS });
      },
      (e: unknown) => log('error', 'usage not pruned; tried again at the next prune', { err: String(e) }),
    );
  };
  let timer = setTimeout(function tick() {
    run();
    timer = setTimeout(tick, timing.everyMs).unref();
  }, timing.firstMs).unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
