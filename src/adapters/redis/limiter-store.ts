/**
 * Fixed-window counters in Redis, shared by every machine. One Lua script checks and counts all
 * of a request's windows atomically (Redis runs a script alone): if any is full, none is counted.
 * A window's key names its start, and expires a little after its end.
 */
import type { ConsumeResult, LimiterStore, WindowSpec } from '../../ports/limiter-store.js';
import { type RedisClient, storeError } from './redis.js';

/**
 * KEYS: one per window. ARGV: the limits, then the TTLs in ms, in KEYS' order.
 * Returns 1 or 0 (counted or not), then each window's count after.
 */
const CONSUME = `
local n = #KEYS
local counts = {}
local allowed = 1
for i = 1, n do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  counts[i] = c
  if c >= tonumber(ARGV[i]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, n do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[n + i]) end
  end
end
table.insert(counts, 1, allowed)
return counts
`;

/** Kept past the window's end, so a clock a little behind another machine's still finds it. */
const EXPIRY_SLACK_MS = 5000;

export class RedisLimiterStore implements LimiterStore {
  constructor(
    private readonly redis: RedisClient,
    /** Prepended to every key (tests, or several services on one Redis). */
    private readonly prefix = 'websearch:rl:',
  ) {}

  async consume(windows: readonly WindowSpec[], now: number): Promise<ConsumeResult> {
    const resets = windows.map((w) => Math.floor(now / w.windowMs) * w.windowMs + w.windowMs);
    const keys = windows.map((w, i) => `${this.prefix}${w.key}|${w.windowMs}|${resets[i]}`);
    const args = [...windows.map((w) => w.limit), ...resets.map((r) => r - now + EXPIRY_SLACK_MS)];
    const [allowed, ...counts] = (await this.redis.eval(CONSUME, keys.length, ...keys, ...args).catch(storeError)) as number[];
    return {
      allowed: allowed === 1,
      windows: windows.map((w, i) => ({ limit: w.limit, count: counts[i]!, resetAt: resets[i]! })),
    };
  }
}
