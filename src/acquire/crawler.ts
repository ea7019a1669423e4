/**
 * The crawler. The frontier lives in the database (a crawl is identified by its seeds and scope, so
 * running the same command again resumes it). Hosts are polite one by one (robots.txt Crawl-delay,
 * or a default delay) while different hosts are fetched in parallel. Pages go through the same
 * RawPage -> ExtractedPage path as live fetch; unchanged content adds no version; a refresh uses
 * conditional requests.
 */
import { createHash } from 'node:crypto';
import { RE2JS } from 're2js';
import { ServiceError } from '../core/errors.js';
import { normalizeUrl } from '../core/url.js';
import type { CrawlFrontier, FrontierItem } from '../ports/crawl-frontier.js';
import type { NewVersion, PageStore, StoredVersion } from '../ports/page-store.js';
import { AcquireError, type HttpClient, statusFailure } from './http-client.js';
import { isFeed, isPage, mediaType, pageFromResponse, type ReadPage, versionOf } from './live-fetch.js';
import type { RobotsCache } from './robots.js';
import { readSitemaps } from './sitemap.js';

export interface CrawlOptions {
  seeds: string[];
  /** Pages visited to an end, over all runs of the crawl: stored, unchanged, not modified or failed. */
  maxPages: number;
  maxDepth: number;
  scope: 'same-site' | 'any-site';
  /** Only URLs this pattern finds anything in are crawled (`urlPattern`). */
  include?: UrlPattern;
  /** URLs this pattern finds anything in are not crawled. */
  exclude?: UrlPattern;
  concurrency: number;
  /** Minimum milliseconds between two requests to one host (robots.txt Crawl-delay wins when longer). */
  delayMs: number;
  /** Done pages fetched longer ago than this are fetched again (conditionally). */
  refreshOlderThanMs?: number;
  sitemaps: boolean;
  /**
   * The longest the crawl waits for a host (default 10 minutes): before a page is tried again (a
   * `Retry-After` of a day, or of 3,000 years, would otherwise hold the crawl and the page's host
   * until then), and between two requests (the pages of a host whose robots.txt asks for a longer
   * Crawl-delay are skipped).
   */
  maxWaitMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: CrawlProgress) => void;
}

export interface CrawlProgress {
  done: number;
  queued: number;
  failed: number;
  skipped: number;
  stored: number;
  unchanged: number;
  notModified: number;
  pagesPerSecond: number;
}

export interface CrawlDeps {
  client: HttpClient;
  robots: RobotsCache;
  frontier: CrawlFrontier;
  pages: PageStore;
  /** Turns a response into a page: pageFromResponse on this thread unless given (reader threads). */
  read?: ReadPage;
  now?: () => number;
}

/** A stored version captured again, unchanged, at `acquiredAt`. */
function capturedAgain(v: StoredVersion, acquiredAt: number): NewVersion {
  const { url, title, description, author, content, publishedAt, lang, searchable } = v;
  return { url, title, description, author, content, publishedAt, lang, searchable, acquiredAt };
}

/** A page the crawl leaves alone (its redirect leads out of scope or where robots.txt forbids). */
class Skipped extends Error {}

const MAX_ATTEMPTS = 3;
const MAX_WAIT_MS = 600_000;

/** The registrable-ish site of a host: its last two labels (three for common second-level suffixes). */
export function siteOf(host: string): string {
  const labels = host.split('.');
  const n = /^(co|com|net|org|gov|ac|edu)$/.test(labels.at(-2) ?? '') && labels.length > 2 ? 3 : 2;
  return labels.slice(-n).join('.');
}

/** A test of a URL, with the text it was made from (which names the crawl, `crawlIdOf`). */
export interface UrlPattern {
  readonly source: string;
  test(url: string): boolean;
}

/**
 * An operator's `--include` or `--exclude`, matched in time linear in the URL (RE2's syntax, by
 * re2js). The URLs it is matched against are the web's: a pattern JavaScript's backtracking engine
 * takes exponential time on (`(a+)+$`) would let one crafted link stop the crawl, as RE2 cannot.
 * Throws `SyntaxError` with the parser's words for what RE2 has no way to match in linear time
 * (lookarounds, backreferences) as for any other error.
 */
export function urlPattern(source: string): UrlPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source);
  } catch (e) {
    throw new SyntaxError((e as Error).message);
  }
  return { source, test: (url) => compiled.test(url) };
}

/**
 * A pattern's text as crawl ids have held it since patterns were JavaScript's: `RegExp`'s `source`
 * (`/` escaped), so that a crawl begun by an older release resumes. Compiling takes no time to
 * speak of, whatever the pattern; only matching could.
 */
function idText(p: UrlPattern | undefined): string {
  if (!p) return '';
  try {
    return new RegExp(p.source).source;
  } catch {
    return p.source;
  }
}

export function crawlIdOf(o: Pick<CrawlOptions, 'seeds' | 'scope' | 'include' | 'exclude' | 'maxDepth'>): string {
  const key = JSON.stringify([[...o.seeds].sort(), o.scope, idText(o.include), idText(o.exclude), o.maxDepth]);
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export async function crawl(deps: CrawlDeps, o: CrawlOptions): Promise<CrawlProgress & { crawlId: string }> {
  const now = deps.now ?? Date.now;
  const crawlId = crawlIdOf(o);
  const seeds = o.seeds.map((s) => normalizeUrl(s)).filter((s): s is string => s !== undefined);
  const sites = new Set(seeds.map((s) => siteOf(new URL(s).hostname)));
  const inScope = (url: string) => {
    const host = new URL(url).hostname;
    if (o.scope === 'same-site' && !sites.has(siteOf(host))) return false;
    if (o.include && !o.include.test(url)) return false;
    if (o.exclude?.test(url)) return false;
    return true;
  };
  const item = (url: string, depth: number) => ({ url, host: new URL(url).host, depth });

  await deps.frontier.enqueue(crawlId, seeds.map((s) => item(s, 0)), now(), o.maxDepth);
  if (o.refreshOlderThanMs !== undefined) await deps.frontier.requeueOlderThan(crawlId, now() - o.refreshOlderThanMs, now());
  if (o.sitemaps) {
    for (const origin of new Set(seeds.map((s) => new URL(s).origin))) {
      let roots: string[] = [];
      try {
        roots = await deps.robots.sitemaps(origin);
      } catch {
        roots = [];
      }
      const listed = await readSitemaps(deps.client, [...roots, `${origin}/sitemap.xml`], o.maxPages * 2);
      const urls = listed.map((u) => normalizeUrl(u)).filter((u): u is string => u !== undefined && inScope(u));
      await deps.frontier.enqueue(crawlId, urls.map((u) => item(u, 1)), now(), o.maxDepth);
    }
  }

  const p: CrawlProgress = { done: 0, queued: 0, failed: 0, skipped: 0, stored: 0, unchanged: 0, notModified: 0, pagesPerSecond: 0 };
  const started = now();
  const hostFree = new Map<string, number>();
  const maxWaitMs = o.maxWaitMs ?? MAX_WAIT_MS;
  const busyHosts = new Set<string>();
  const counts = await deps.frontier.counts(crawlId);
  // Every page visited to an end counts, a failed one too: a site full of broken links costs no more requests.
  let budget = Math.max(0, o.maxPages - counts.done - counts.failed);

  const report = async () => {
    const c = await deps.frontier.counts(crawlId);
    p.queued = c.queued;
    p.done = c.done;
    p.failed = c.failed;
    p.skipped = c.skipped;
    p.pagesPerSecond = Math.round(((p.stored + p.unchanged + p.notModified) / Math.max(1, now() - started)) * 10_000) / 10;
    o.onProgress?.({ ...p });
  };

  async function visit(it: FrontierItem): Promise<void> {
    try {
      const verdict = await deps.robots.check(it.url);
      if (!verdict.allowed) {
        await deps.frontier.markSkipped(crawlId, it.url, 'disallowed by robots.txt');
        return;
      }
      // A host that asks for longer between requests than the crawl ever waits is not crawled: to
      // honour a day's Crawl-delay would hold the crawl for days, and to shorten it would be impolite.
      const crawlDelayMs = (verdict.crawlDelaySeconds ?? 0) * 1000;
      if (crawlDelayMs > maxWaitMs) {
        const asked = Number.isFinite(crawlDelayMs) ? `${verdict.crawlDelaySeconds} s` : 'a Crawl-delay too large to count';
        await deps.frontier.markSkipped(crawlId, it.url, `robots.txt asks for ${asked} between requests, longer than the crawl waits (${maxWaitMs / 1000} s)`);
        return;
      }
      hostFree.set(it.host, now() + Math.max(o.delayMs, crawlDelayMs));
      // Conditional only when refreshing a page this crawl already has: a new crawl needs the body for
      // its links. Nor when the page as stored has no media type (stored by a release before types
      // were kept): a 304 says none, and the answer in full gives the version its type. The page as
      // stored is read once, for that and for a 304's capture of it; stored under another URL (a
      // redirect's or a canonical one), it is not found here, asked for conditionally, and not captured.
      let validators = it.doneAt !== undefined ? await deps.frontier.validators(it.url) : undefined;
      const known = validators ? await deps.pages.latest(it.url) : undefined;
      if (known && known.mediaType === undefined) validators = undefined;
      const headers: Record<string, string> = {};
      if (validators?.etag) headers['if-none-match'] = validators.etag;
      if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
      // A redirect is followed only within the crawl's scope and robots.txt's rules, as a link is.
      const beforeRedirect = async (target: URL) => {
        const url = normalizeUrl(target.href);
        if (!url || !inScope(url)) throw new Skipped(`redirects out of the crawl's scope, to ${target.href}`);
        if (!(await deps.robots.check(url)).allowed) throw new Skipped(`redirects to ${url}, which robots.txt disallows`);
      };
      const res = await deps.client.get(it.url, { headers, signal: o.signal, beforeRedirect });
      if (res.status === 304) {
        p.notModified++;
        // The page as stored is confirmed at this instant: a capture of it, so that its place in the
        // URL's timeline holds when an older capture comes in later (a WARC import, say).
        if (known) await deps.pages.putVersion(capturedAgain(known, res.fetchedAt));
        await deps.frontier.saveValidators(it.url, { ...validators, fetchedAt: res.fetchedAt });
        await deps.frontier.markDone(crawlId, it.url, now());
        budget--;
        return;
      }
      const failure = statusFailure(res);
      if (failure) throw failure;
      // A link to an image, a script or data: no page, and no failure of the crawl's. A feed is no
      // page either, but its entries' pages are followed, as a sitemap's are.
      const feed = isFeed(res);
      if (!isPage(res) && !feed) throw new Skipped(`not a page (${mediaType(res) || 'no content type'})`);
      const page = await (deps.read ?? pageFromResponse)(res); // a page being read ends; the crawl stops after it
      // A canonical link on the same site names the page's identity; a foreign one is ignored.
      const canonical = page.canonicalUrl && normalizeUrl(page.canonicalUrl);
      const identity = canonical && siteOf(new URL(canonical).hostname) === siteOf(new URL(page.url).hostname) ? canonical : page.url;
      if (page.content.trim() && !feed) {
        const out = await deps.pages.putVersion(versionOf(page, { url: identity, searchable: !page.noindex }));
        // Nor are its links followed: a site removed is not crawled on from its pages.
        if (out.status === 'removed') throw new Skipped('removed from the index by the operator (websearch pages remove)');
        if (out.status === 'added') p.stored++;
        else p.unchanged++;
      }
      await deps.frontier.saveValidators(it.url, { etag: page.etag, lastModified: page.lastModified, fetchedAt: res.fetchedAt });
      await deps.frontier.markDone(crawlId, it.url, now());
      budget--;
      // Found closer while it was fetched (the frontier lowered its depth): its links are followed from there.
      const depth = it.depth < o.maxDepth ? it.depth : ((await deps.frontier.depth(crawlId, it.url)) ?? it.depth);
      if (depth < o.maxDepth) {
        const links = [...page.links, ...(canonical && canonical !== it.url ? [canonical] : [])].filter(inScope);
        // Links robots.txt disallows are never queued (the rules are cached per origin).
        const allowed: string[] = [];
        for (const l of links) {
          try {
            if ((await deps.robots.check(l)).allowed) allowed.push(l);
          } catch {
            allowed.push(l); // an unreachable host is found out when its page is visited
          }
        }
        await deps.frontier.enqueue(crawlId, allowed.map((l) => item(l, depth + 1)), now(), o.maxDepth);
      }
    } catch (e) {
      if (e instanceof Skipped) {
        await deps.frontier.markSkipped(crawlId, it.url, e.message);
        return;
      }
      const err = e instanceof AcquireError ? e : undefined;
      const message = e instanceof Error ? e.message : String(e);
      if (err && err.kind !== 'permanent' && it.attempts + 1 < MAX_ATTEMPTS) {
        const wait = Math.min(maxWaitMs, err.kind === 'throttled' ? (err.retryAfterSeconds ?? 60) * 1000 : 2 ** it.attempts * 5_000);
        await deps.frontier.retryLater(crawlId, it.url, now() + wait, message);
        if (err.kind === 'throttled') hostFree.set(it.host, now() + wait);
      } else if (e instanceof AcquireError || e instanceof ServiceError) {
        await deps.frontier.markFailed(crawlId, it.url, message);
        budget--;
      } else {
        throw e;
      }
    }
  }

  const running = new Set<Promise<void>>();
  let lastReport = 0;
  while (!o.signal?.aborted) {
    if (budget - running.size <= 0) break;
    const due = await deps.frontier.due(crawlId, now(), 500);
    const t = now();
    const ready = due.filter((d) => !busyHosts.has(d.host) && (hostFree.get(d.host) ?? 0) <= t);
    const picked: FrontierItem[] = [];
    const hosts = new Set<string>();
    for (const d of ready) {
      if (picked.length >= Math.min(o.concurrency - running.size, budget - running.size)) break;
      if (hosts.has(d.host)) continue;
      hosts.add(d.host);
      picked.push(d);
    }
    for (const it of picked) {
      busyHosts.add(it.host);
      const job = visit(it).finally(() => {
        busyHosts.delete(it.host);
        running.delete(job);
      });
      running.add(job);
    }
    if (now() - lastReport >= 1000) {
      lastReport = now();
      await report();
    }
    if (picked.length === 0) {
      if (running.size > 0) {
        await Promise.race([...running, new Promise((r) => setTimeout(r, 50))]);
        continue;
      }
      const next = await deps.frontier.nextDueAt(crawlId);
      if (next === undefined && due.length === 0) break;
      const soonest = Math.min(next ?? Infinity, ...due.map((d) => hostFree.get(d.host) ?? 0));
      await new Promise((r) => setTimeout(r, Math.max(5, Math.min(1000, soonest - now()))));
    }
  }
  await Promise.all(running);
  await report();
  return { ...p, crawlId };
}
