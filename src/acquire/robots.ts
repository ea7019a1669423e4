/**
 * robots.txt (RFC 9309) with the `robots-parser` package, cached per origin. 2xx: the rules apply;
 * 4xx but 429: no rules (everything allowed); 429, 5xx or unreachable: everything disallowed for a
 * short while. A file over 500 KiB is read to its last whole line within them (RFC 9309 2.5).
 */
import { createRequire } from 'node:module';
import { AcquireError, type HttpClient } from './http-client.js';

const require = createRequire(import.meta.url);
const robotsParser = require('robots-parser') as (url: string, body: string) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
};

export interface RobotsVerdict {
  allowed: boolean;
  crawlDelaySeconds?: number;
}

interface Entry {
  rules?: ReturnType<typeof robotsParser>;
  /** No usable robots.txt: true = allow everything, false = disallow everything. */
  blanket?: boolean;
  expires: number;
}

export interface RobotsCacheOptions {
  client: HttpClient;
  /** The product token matched against User-agent lines. */
  agent: string;
  ttlMs?: number;
  unreachableTtlMs?: number;
  now?: () => number;
}

const MAX_ROBOTS_BYTES = 500 * 1024;

/**
 * Percent-encoded unreserved characters (letters, digits, `-._~`) written as themselves, as RFC 9309
 * 2.2.2 compares paths: `Disallow: /%7Ejoe` then holds for `/~joe`. robots-parser unifies the case
 * of escapes and the encoding of other characters, but not these; reserved ones (`%2F`) stay as they are.
 */
const unreservedDecoded = (s: string) =>
  s.replace(/%([0-9A-Fa-f]{2})/g, (m, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(c) ? c : m;
  });

export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry>>();

  constructor(private readonly o: RobotsCacheOptions) {}

  private async load(origin: string): Promise<Entry> {
    const now = (this.o.now ?? Date.now)();
    const ttl = this.o.ttlMs ?? 3_600_000;
    try {
      // RFC 9309: a file over 500 KiB is parsed to there (here to its last whole line before), not refused.
      const res = await this.o.client.get(`${origin}/robots.txt`, { maxBytes: MAX_ROBOTS_BYTES, truncate: true });
      if (res.status >= 200 && res.status < 300) {
        const text = res.body.toString('utf8');
        const whole = res.truncated ? text.slice(0, text.lastIndexOf('\n') + 1) : text;
        return { rules: robotsParser(`${origin}/robots.txt`, unreservedDecoded(whole)), expires: now + ttl };
      }
      // 429 asks the crawler to come back later, as a 5xx does; other 4xx say there are no rules.
      if (res.status >= 400 && res.status < 500 && res.status !== 429) return { blanket: true, expires: now + ttl };
      return { blanket: false, expires: now + (this.o.unreachableTtlMs ?? 300_000) };
    } catch (e) {
      // The origin itself cannot be reached (or may not be): that is the caller's failure to report,
      // not a robots decision, and it is not cached.
      if (e instanceof AcquireError && (e.code === 'url_not_allowed' || e.code === 'connection_failed' || e.code === 'dns_failure' || e.code === 'timeout')) throw e;
      return { blanket: false, expires: now + (this.o.unreachableTtlMs ?? 300_000) };
    }
  }

  private async entry(origin: string): Promise<Entry> {
    const cached = this.entries.get(origin);
    if (cached && cached.expires > (this.o.now ?? Date.now)()) return cached;
    let p = this.pending.get(origin);
    if (!p) {
      p = this.load(origin).finally(() => this.pending.delete(origin));
      this.pending.set(origin, p);
    }
    const e = await p;
    this.entries.set(origin, e);
    return e;
  }

  async check(url: string): Promise<RobotsVerdict> {
    const e = await this.entry(new URL(url).origin);
    if (e.blanket !== undefined) return { allowed: e.blanket };
    const allowed = e.rules!.isAllowed(unreservedDecoded(url), this.o.agent) !== false;
    const delay = e.rules!.getCrawlDelay(this.o.agent);
    return delay === undefined ? { allowed } : { allowed, crawlDelaySeconds: delay };
  }

  async sitemaps(origin: string): Promise<string[]> {
    const e = await this.entry(origin);
    return e.rules?.getSitemaps() ?? [];
  }
}
