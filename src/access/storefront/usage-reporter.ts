/**
 * Drains the usage outbox to the storefront's usage API: at most one worker sends a given report
 * at a time (a lease), a report is marked sent only after a 2xx, failures back off exponentially
 * (1 s doubling to 5 min). The storefront deduplicates on the idempotency key (zc-request-id), so a
 * crash between its 2xx and our mark cannot charge twice.
 */
import type { StorefrontApi, UsageOutbox } from '../../ports/storefront.js';

export interface UsageReporter {
  /** Sends what is due now; resolves when this pass is over. */
  drain(): Promise<number>;
  /** Asks for a pass soon (after a success was recorded). */
  kick(): void;
  stop(): Promise<void>;
}

const LEASE_MS = 30_000;
const MAX_BACKOFF_MS = 5 * 60_000;

export function createUsageReporter(
  outbox: UsageOutbox,
  api: StorefrontApi,
  options: { intervalMs?: number; now?: () => number; onError?: (e: unknown) => void } = {},
): UsageReporter {
  const now = options.now ?? Date.now;
  let running: Promise<number> | undefined;
  let stopped = false;

  async function pass(): Promise<number> {
    let sent = 0;
    for (;;) {
      const items = await outbox.claimDue(now(), 50, LEASE_MS);
      if (items.length === 0) return sent;
      for (const item of items) {
        let ok = false;
        let error = 'usage API answered a non-2xx status';
        try {
          ok = await api.reportUsage({ idempotencyKey: item.requestId, agentId: item.agentId, usage: item.usage });
        } catch (e) {
          error = `${(e as Error).name}: ${(e as Error).message}`;
        }
        if (ok) {
          await outbox.markSent(item.requestId, now());
          sent++;
        } else {
          const backoff = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(20, item.attempts - 1));
          await outbox.markFailed(item.requestId, now() + backoff, error);
        }
      }
    }
  }

  const drain = (): Promise<number> => {
    if (!running) {
      running = pass()
        .catch((e: unknown) => {
          options.onError?.(e);
          return 0;
        })
        .finally(() => {
          running = undefined;
        });
    }
    return running;
  };

  const timer = setInterval(() => {
    if (!stopped) void drain();
  }, options.intervalMs ?? 1000);
  timer.unref();

  return {
    drain,
    kick() {
      if (!stopped) setImmediate(() => void drain());
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
