/**
 * robots.txt (RFC 9309), parsed by the `robots-parser` package and matched by our own
 * `patternMatches`, cached per origin. 2xx: the rules apply;
 * 4xx but 429: no rules (everything allowed); 429, 5xx or unreachable: everything disallowed for a
 * short while. A file over 500 KiB is read to its last whole line within them (RFC 9309 2.5).
 */
import { createRequire } from 'node:module';
import { AcquireError, type HttpClient } from './http-client.js';
import { normalEscapes } from '../core/url.js';

const require = createRequire(import.meta.url);
const robotsParser = require('robots-parser') as (url: string, body: string) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
};

/** A rule as robots-parser (3.0) keeps it: its pattern with percent-encodings normalized. */
interface Rule {
  pattern: string;
  allow: boolean;
}

/**
 * Whether a robots.txt path pattern (`*` any characters, a final `$` the path's end) matches the
 * path, as RFC 9309 2.2.3 says: each literal part found in turn, the leftmost place being as good
 * as any for the parts after it. Linear in the path, where robots-parser's matcher takes time in
 * the product of the pattern's and the path's lengths: 500 KiB of rules such as `/*a*a*a$` made
 * one check of a 2,000-character URL take 2.4 s of the serving thread.
 */
export function patternMatches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const parts = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  const first = parts[0]!;
  if (!path.startsWith(first)) return false;
  if (parts.length === 1) return !anchored || path.length === first.length;
  let at = first.length;
  for (let k = 1; k < parts.length - 1; k++) {
    const found = path.indexOf(parts[k]!, at);
    if (found < 0) return false;
    at = found + parts[k]!.length;
  }
  const last = parts.at(-1)!;
  return anchored ? path.length - last.length >= at && path.endsWith(last) : path.indexOf(last, at) >= 0;
}

/** robots-parser's answer for `path` from a group's rules: the longest matching rule, allow on a tie; none: allowed. */
function allowedBy(rules: readonly Rule[], path: string): boolean {
  let best: Rule | undefined;
  for (const rule of rules) {
    if (best && rule.pattern.length < best.pattern.length) continue;
    if (best && rule.pattern.length === best.pattern.length && (best.allow || !rule.allow)) continue;
    if (patternMatches(rule.pattern, path)) best = rule;
  }
  return best?.allow ?? true;
}

/**
 * The rules robots-parser (3.0.1) parsed for a user agent: its `_rules` by lower-cased product token,
 * then `*`, as its own `isAllowed` picks them. Read from the parser so that parsing stays its own; a
 * test checks the answers against its `isAllowed` on made-up files, so a release that keeps them
 * elsewhere fails there.
 */
function groupFor(parsed: ReturnType<typeof robotsParser>, agent: string): readonly Rule[] {
  const rules = (parsed as unknown as { _rules: Record<string, Rule[] | undefined> })._rules;
  const token = agent.toLowerCase().split('/')[0]!.trim();
  return rules[token] ?? rules['*'] ?? [];
}

/**
 * The path robots-parser matches rules against: path and query, their escapes in the normal form
 * (core/url.ts `normalEscapes`: an unreserved character's as itself, others in upper case), as
 * the rules are read (`agentRules`).
 */
function robotsPath(url: string): string {
  const u = new URL(url);
  return normalEscapes(u.pathname + u.search);
}

export interface RobotsVerdict {
  allowed: boolean;
  crawlDelaySeconds?: number;
}

/** What a robots.txt says to our agent, taken from the parser once, when it is read. */
interface AgentRules {
  /** The rules of the group that applies to our agent. */
  group: readonly Rule[];
  crawlDelaySeconds?: number;
  sitemaps: string[];
}

interface Entry {
  rules?: AgentRules;
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
 * The rules are read with their escapes in the normal form (`normalEscapes`), percent-encoded
 * unreserved characters (letters, digits, `-._~`) as themselves, as RFC 9309 2.2.2 compares paths:
 * `Disallow: /%7Ejoe` then holds for `/~joe`. robots-parser unifies the case of escapes and the
 * encoding of other characters, but not these; reserved ones (`%2F`) stay escaped.
 */
function agentRules(origin: string, robotsTxt: string, agent: string): AgentRules {
  const parsed = robotsParser(`${origin}/robots.txt`, normalEscapes(robotsTxt));
  const delay = parsed.getCrawlDelay(agent);
  return { group: groupFor(parsed, agent), ...(delay !== undefined && { crawlDelaySeconds: delay }), sitemaps: parsed.getSitemaps() };
}

const urlAllowed = (rules: AgentRules, url: string) => allowedBy(rules.group, robotsPath(url));

/** A robots.txt's answer for a URL of its origin and an agent, as `RobotsCache.check` gives it (exported for tests). */
export function robotsAllows(robotsTxt: string, url: string, agent: string): boolean {
  return urlAllowed(agentRules(new URL(url).origin, robotsTxt, agent), url);
}

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
        return { rules: agentRules(origin, whole, this.o.agent), expires: now + ttl };
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
    const rules = e.rules!;
    const allowed = urlAllowed(rules, url);
    return rules.crawlDelaySeconds === undefined ? { allowed } : { allowed, crawlDelaySeconds: rules.crawlDelaySeconds };
  }

  async sitemaps(origin: string): Promise<string[]> {
    const e = await this.entry(origin);
    return e.rules?.sitemaps ?? [];
  }
}
