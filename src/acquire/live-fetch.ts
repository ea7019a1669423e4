/**
 * RawPage -> ExtractedPage for one URL, now: robots.txt, the SSRF-safe client, the content type
 * (HTML/XHTML, plain text), the charset, main-content extraction, and bot-challenge detection. Every
 * failure becomes a row of the error table.
 */
import { withoutControls } from '../core/controls.js';
import { ServiceError } from '../core/errors.js';
import { pageLanguage } from '../core/language.js';
import { normalizeMediaType } from '../core/media-type.js';
import { publishedTooLate } from '../core/time.js';
import { normalizeUrl } from '../core/url.js';
import type { LiveFetcher, LivePage } from '../ports/live-fetcher.js';
import type { NewVersion } from '../ports/page-store.js';
import { looksBlocked, redirectedToConsent } from './challenge.js';
import { decodeText } from './charset.js';
import { extractHtml } from './extract/index.js';
import { feedToMarkdown, isFeedXml } from './extract/feed.js';
import { fenced } from './extract/markdown.js';
import { AcquireError, createHttpClient, type HttpClient, type RawResponse, statusFailure } from './http-client.js';
import { pdfToText } from './pdf.js';
import { RobotsCache } from './robots.js';

export interface LiveFetchOptions {
  allowPrivateNetwork: boolean;
  userAgent: string;
  /** The token matched in robots.txt User-agent lines. */
  robotsAgent: string;
  timeoutMs?: number;
  maxBytes?: number;
  /** Turns the response into a page; pageFromResponse on this thread unless given (the server's reader threads). */
  read?: ReadPage;
}

/** A fetched response to a page: pageFromResponse, here or on another thread. */
export type ReadPage = (res: RawResponse, signal?: AbortSignal) => Promise<LivePage>;

export function toServiceError(e: AcquireError): ServiceError {
  switch (e.code) {
    case 'url_not_allowed':
      return new ServiceError('url_not_allowed', `URL not allowed: ${e.message}`, { param: 'url' });
    case 'timeout':
      return new ServiceError('origin_timeout', 'The origin did not answer in time');
    case 'http_status':
      return new ServiceError('origin_error', `The origin answered ${e.status}`, { body: { origin_status: e.status } });
    default:
      return new ServiceError('origin_error', `The origin could not be fetched: ${e.message}`);
  }
}

/**
 * Text that is data or code, by its type, and the language its code block is marked with: an
 * agent reads an API's JSON, a feed, a stylesheet or a CSV as it is, in a fence.
 */
const DATA_TYPES: Record<string, string> = {
  'application/json': 'json',
  'application/ld+json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/rss+xml': 'xml',
  'application/atom+xml': 'xml',
  'text/csv': 'csv',
  'text/css': 'css',
  'text/javascript': 'js',
  'application/javascript': 'js',
  'application/yaml': 'yaml',
  'text/yaml': 'yaml',
  'application/toml': 'toml',
};

function dataLanguage(type: string): string | undefined {
  return DATA_TYPES[type] ?? (type.endsWith('+json') ? 'json' : type.endsWith('+xml') ? 'xml' : undefined);
}

const UNTYPED = new Set(['application/octet-stream', 'binary/octet-stream', 'application/x-download', 'application/download', 'application/force-download']);

/** Feeds' own types; a feed served as `application/xml` or `text/xml` is known by its root element. */
const FEED_TYPES = new Set(['application/rss+xml', 'application/atom+xml', 'application/rdf+xml']);
const XML_TYPES = new Set(['application/xml', 'text/xml']);

/**
 * Whether an answer is a page that `pageFromResponse` reads (HTML, text, PDF), by its type or its
 * first bytes. A feed is read too, by a live fetch, but is no page: a crawl and an import store the
 * pages it lists, not the list.
 */
export const isPage = (r: RawResponse): boolean => {
  const kind = contentKind(r);
  return kind !== undefined && kind !== 'feed';
};

/** Whether an answer is a feed (RSS, Atom): read by `pageFromResponse`, its links its entries' pages. */
export const isFeed = (r: RawResponse): boolean => contentKind(r) === 'feed';

function contentKind(r: RawResponse): 'html' | 'text' | 'pdf' | 'feed' | undefined {
  const type = mediaType(r);
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/plain' || type === 'text/markdown') return 'text';
  if (type === 'application/pdf') return 'pdf';
  if (FEED_TYPES.has(type) || (XML_TYPES.has(type) && isFeedXml(r.body.subarray(0, 4096).toString('latin1')))) return 'feed';
  // No type, or one that says only "bytes" (object stores serve PDFs so): the bytes say what they are.
  if (!type || UNTYPED.has(type)) {
    const head = r.body.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
    if (head.startsWith('%pdf-')) return 'pdf';
    if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'html';
  }
  return undefined;
}

/** An answer's media type, lowercased, without its parameters (`text/html; charset=utf-8` -> `text/html`). */
export const mediaType = (r: RawResponse) => (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/** The answer's `X-Robots-Tag`, lowercased, and whether it says noindex. */
const robotsHeader = (r: RawResponse) => (r.headers['x-robots-tag'] ?? '').toLowerCase();
const headerNoindex = (r: RawResponse) => /\b(noindex|none)\b/.test(robotsHeader(r));

/** The language a page is stored with: made on the reader thread that read it (`LivePage.language`), else here. */
export function languageOf(page: Pick<LivePage, 'lang' | 'content' | 'language'>): string | undefined {
  return page.language !== undefined ? (page.language ?? undefined) : pageLanguage(page.lang, page.content);
}

/** The version to store for a fetched page (live fetch, crawl and WARC import all store it this way). */
export function versionOf(page: LivePage, o: { url?: string; acquiredAt?: number; searchable: boolean }): NewVersion {
  return {
    url: o.url ?? page.url,
    title: page.title,
    description: page.description,
    author: page.author,
    publishedAt: page.publishedAt,
    content: page.content,
    acquiredAt: o.acquiredAt ?? page.fetchedAt,
    lang: languageOf(page),
    searchable: o.searchable,
    ...(page.mediaType ? { mediaType: page.mediaType } : {}),
    ...(page.passages ? { passages: page.passages } : {}),
    ...(page.near ? { near: page.near } : {}),
  };
}

/**
 * The media type an answer was read as: its Content-Type's (a longer or stranger one than
 * `normalizeMediaType` keeps: none), or, when that says none or only "bytes", what its bytes were
 * read as (`contentKind`: a PDF, HTML), or undefined.
 */
function servedAs(r: RawResponse): string | undefined {
  const type = mediaType(r);
  if (type && !UNTYPED.has(type)) return normalizeMediaType(type);
  const kind = contentKind(r);
  return kind === 'pdf' ? 'application/pdf' : kind === 'html' ? 'text/html' : undefined;
}

type Base = Pick<LivePage, 'url' | 'fetchedAt' | 'etag' | 'lastModified' | 'lang' | 'mediaType'>;

/** What every page read from a response holds of it: its URL, time, validators, Content-Language and media type. */
function baseOf(r: RawResponse, url: string): Base {
  const base: Base = { url, fetchedAt: r.fetchedAt };
  const served = servedAs(r);
  if (served) base.mediaType = served;
  // The document's own <html lang> wins over the header.
  if (r.headers['content-language']) base.lang = r.headers['content-language'];
  if (r.headers.etag) base.etag = r.headers.etag;
  if (r.headers['last-modified']) base.lastModified = r.headers['last-modified'];
  return base;
}

/** A text answer as a page: as it is, or, when `language` is given, in a code block marked with it. */
function textPage(r: RawResponse, language: string | undefined): LivePage {
  const text = withoutControls(decodeText(r.body, r.headers['content-type'], false)).trim();
  return { ...baseOf(r, normalizeUrl(r.url) ?? r.url), content: language && text ? fenced(text, language) : text, noindex: headerNoindex(r), links: [] };
}

/**
 * A feed as markdown (`feedToMarkdown`), its links its entries' pages (a crawl follows them, as a
 * sitemap's); XML that is no feed after all (its root says otherwise), in a code block.
 */
function feedPage(r: RawResponse, url: string): LivePage {
  const feed = feedToMarkdown(decodeText(r.body, r.headers['content-type'], false), url);
  if (!feed) return textPage(r, 'xml');
  const links = /\b(nofollow|none)\b/.test(robotsHeader(r)) ? [] : feed.links;
  const page: LivePage = { ...baseOf(r, url), content: withoutControls(feed.content).trim(), noindex: headerNoindex(r), links };
  for (const k of ['title', 'description', 'lang'] as const) {
    const v = feed[k] && withoutControls(feed[k]).trim();
    if (v) page[k] = v;
  }
  return page;
}

/**
 * A live fetch's answer that is text but no page (an API's JSON, a feed, a CSV, a script, any other
 * `text/*`), or undefined: read as it is, data in a code block marked with its language. Only a live
 * fetch reads these, since its caller asked for that URL; a crawl and a WARC import store a site's
 * pages, not its scripts and stylesheets. No markup is parsed: it is read on the calling thread.
 */
export function textAnswer(r: RawResponse): LivePage | undefined {
  if (contentKind(r) === 'feed') return undefined; // read as markup, on a reader thread
  const type = mediaType(r);
  const language = dataLanguage(type);
  if (language !== undefined) return textPage(r, language);
  return type.startsWith('text/') && contentKind(r) === undefined ? textPage(r, undefined) : undefined;
}

/** Turns a response into a page; exported for the crawler and WARC import, which have their own bytes. */
export async function pageFromResponse(r: RawResponse): Promise<LivePage> {
  const kind = contentKind(r);
  if (!kind) {
    throw new ServiceError('origin_error', `Unsupported content type ${r.headers['content-type'] ?? '(none)'}: HTML, XHTML, text (a live fetch: JSON, XML, CSV and other text too) and PDF are read`);
  }
  const url = normalizeUrl(r.url) ?? r.url;
  if (redirectedToConsent(r.requestedUrl, r.url)) {
    throw new ServiceError('origin_blocked', `The origin sent the request to a consent page (${new URL(r.url).hostname}), not the page`);
  }
  if (kind === 'pdf') {
    let pdf;
    try {
      pdf = await pdfToText(new Uint8Array(r.body));
    } catch (e) {
      throw new ServiceError('origin_error', `The PDF could not be read: ${(e as Error).message}`);
    }
    const page: LivePage = { ...baseOf(r, url), content: pdf.content, noindex: headerNoindex(r), links: [] };
    if (pdf.title) page.title = pdf.title;
    if (pdf.author) page.author = pdf.author;
    return page;
  }
  if (kind === 'text') return textPage(r, undefined);
  if (kind === 'feed') return feedPage(r, url);
  const text = decodeText(r.body, r.headers['content-type'], true);
  const base = baseOf(r, url);
  const page = extractHtml(text, url);
  if (looksBlocked(r.status, text, page.content.length)) {
    throw new ServiceError('origin_blocked', 'The origin answered with a bot challenge or a login wall');
  }
  const out: LivePage = {
    ...base,
    content: page.content,
    noindex: page.noindex || headerNoindex(r),
    links: /\b(nofollow|none)\b/.test(robotsHeader(r)) ? [] : page.links,
  };
  for (const k of ['title', 'description', 'author', 'publishedAt', 'canonicalUrl', 'lang', 'refreshUrl'] as const) {
    if (page[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = page[k];
  }
  if (out.publishedAt !== undefined && publishedTooLate(out.publishedAt, r.fetchedAt)) delete out.publishedAt;
  return out;
}

/**
 * Fetches under way by URL, joined by whoever asks for the same URL meanwhile: ten callers of one
 * page at once (a link shared in a chat, overlapping realtime_content searches) make one request to
 * its origin, not ten. A caller that goes away leaves the others theirs; the request itself is
 * stopped when the last of them has gone.
 */
export class SharedFetches<T> {
  private readonly running = new Map<string, Running<T>>();

  /** How many fetches are under way. */
  get size(): number {
    return this.running.size;
  }

  /** How many callers wait for the fetch of `key`. */
  waiting(key: string): number {
    return this.running.get(key)?.waiting ?? 0;
  }

  run(key: string, signal: AbortSignal | undefined, start: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const entry = this.running.get(key) ?? this.start(key, start);
    entry.waiting++;
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        if (--entry.waiting === 0) {
          entry.stop.abort(signal!.reason);
          if (this.running.get(key) === entry) this.running.delete(key);
        }
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', leave, { once: true });
      entry.result.then(
        (value) => {
          signal?.removeEventListener('abort', leave);
          entry.waiting--;
          resolve(value);
        },
        (e: unknown) => {
          signal?.removeEventListener('abort', leave);
          entry.waiting--;
          reject(e as Error);
        },
      );
    });
  }

  private start(key: string, start: (signal: AbortSignal) => Promise<T>): Running<T> {
    const stop = new AbortController();
    const result = start(stop.signal);
    const entry: Running<T> = { result, stop, waiting: 0 };
    const done = () => {
      if (this.running.get(key) === entry) this.running.delete(key);
    };
    result.then(done, done);
    this.running.set(key, entry);
    return entry;
  }
}

interface Running<T> {
  result: Promise<T>;
  stop: AbortController;
  waiting: number;
}

/** Refreshes followed after a page's own redirects (each of which the HTTP client limits to 5). */
const MAX_REFRESHES = 2;

export function createLiveFetcher(o: LiveFetchOptions, client?: HttpClient): LiveFetcher & { robots: RobotsCache; client: HttpClient; shared: SharedFetches<LivePage> } {
  const http = client ?? createHttpClient({ allowPrivateNetwork: o.allowPrivateNetwork, userAgent: o.userAgent, timeoutMs: o.timeoutMs, maxBytes: o.maxBytes });
  const robots = new RobotsCache({ client: http, agent: o.robotsAgent });
  const read = o.read ?? pageFromResponse;

  /** The page at `url`, and on where its refresh sends the reader (a moved page's stub), at most MAX_REFRESHES times. */
  const fetchOnce = async (url: string, signal: AbortSignal): Promise<LivePage> => {
    let page = await fetchPage(url, signal);
    for (let hop = 0; page.refreshUrl !== undefined && hop < MAX_REFRESHES; hop++) page = await fetchPage(page.refreshUrl, signal);
    return page;
  };

  const fetchPage = async (url: string, signal: AbortSignal): Promise<LivePage> => {
    try {
      if (!(await robots.check(url)).allowed) {
        throw new ServiceError('blocked_by_robots', "The origin's robots.txt does not allow fetching this URL");
      }
      // A redirect may lead somewhere robots.txt forbids: checked before it is followed.
      const beforeRedirect = async (target: URL) => {
        if (!(await robots.check(target.href)).allowed) {
          throw new ServiceError('blocked_by_robots', "The origin's robots.txt does not allow fetching the redirect target");
        }
      };
      const res = await http.get(url, { signal, beforeRedirect });
      const failed = statusFailure(res);
      if (failed) {
        const text = res.body.toString('utf8', 0, Math.min(res.body.length, 200_000));
        if (looksBlocked(res.status, text, 0)) throw new ServiceError('origin_blocked', 'The origin answered with a bot challenge or a login wall');
        throw failed;
      }
      return textAnswer(res) ?? (await read(res, signal));
    } catch (e) {
      if (e instanceof AcquireError) throw toServiceError(e);
      throw e;
    }
  };

  const shared = new SharedFetches<LivePage>();
  return {
    robots,
    client: http,
    shared,
    fetch: (url, options = {}) => shared.run(url, options.signal, (signal) => fetchOnce(url, signal)),
    close: () => http.close(),
  };
}
