/** Rate-limit policy: pure functions over the counts a LimiterStore returns (STYLE 7). */
import { ServiceError } from '../core/errors.js';
import type { ConsumeResult, WindowState } from '../ports/limiter-store.js';

export const SECOND = 1000;
export const HOUR = 3_600_000;

export const DEFAULT_LIMITS = {
  keyedPerSecond: 50,
  keylessPerSecond: 10,
  keylessPerHour: 1000,
} as const;

/**
 * The subject of a per-IP limit: an IPv4 address (an IPv4-mapped IPv6 one as its IPv4 form), or an
 * IPv6 address's /64, which is what one subscriber is given: counted per address, a client could
 * take a new one from its 2^64 for every request.
 */
export function ipLimitKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') ? (tail ? tail.split(':') : []) : [];
  // An embedded IPv4 tail (`::ffff:0:1.2.3.4`) stands for two groups.
  const rightGroups = right.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - rightGroups)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => (Number.parseInt(g, 16) || 0).toString(16)).join(':')}::/64`;
}

function secondsUntil(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}

/** The window closest to exhaustion: fewest remaining; on a tie the one that resets last. */
export function tightestWindow(windows: readonly WindowState[]): WindowState {
  let tight = windows[0]!;
  for (const w of windows.slice(1)) {
    const rw = w.limit - w.count;
    const rt = tight.limit - tight.count;
    if (rw < rt || (rw === rt && w.resetAt > tight.resetAt)) tight = w;
  }
  return tight;
}

export function rateLimitHeaders(result: ConsumeResult, now: number): Record<string, string> {
  const w = tightestWindow(result.windows);
  return {
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(Math.max(0, w.limit - w.count)),
    'x-ratelimit-reset': String(secondsUntil(w.resetAt, now)),
  };
}

/** Seconds until every exhausted window has room again. */
export function retryAfterSeconds(result: ConsumeResult, now: number): number {
  const exhausted = result.windows.filter((w) => w.count >= w.limit);
  return Math.max(1, ...exhausted.map((w) => secondsUntil(w.resetAt, now)));
}

export function rateLimitedError(result: ConsumeResult, now: number, headers: Record<string, string> = {}): ServiceError {
  const retry = retryAfterSeconds(result, now);
  return new ServiceError('rate_limited', `Rate limit exceeded; retry in ${retry} s`, {
    headers: { ...headers, 'retry-after': String(retry) },
  });
}
