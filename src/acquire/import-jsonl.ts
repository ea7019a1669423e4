/**
 * `websearch import file.jsonl`: one page per line, `{url, html | markdown, title?, description?,
 * author?, published_at?, acquired_at?, lang?, media_type?}` (`lang` defaults to the HTML's, else
 * a guess; `media_type`, the type the page was served as, to `text/html` for an `html` line). Lines are validated first and written in batches, each
 * batch one transaction, so a bad line is skipped with its number and nothing is half-written.
 *
 * Given `read` (the reader threads' `readQueued`), HTML lines are extracted on those threads, with
 * their limits of time and heap per page (and their check for bot challenges), up to `inFlight` at
 * once, while this thread reads the next lines and writes batches, in the file's order.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { withoutControls } from '../core/controls.js';
import { normalizeLangTag } from '../core/language.js';
import { normalizeMediaType } from '../core/media-type.js';
import { lineText } from '../core/passages.js';
import { acquiredTooLate, isStorableTime, publishedTooLate } from '../core/time.js';
import { AUTHOR_MAX, cutAtWord, TITLE_MAX } from '../core/text.js';
import { normalizeUrl } from '../core/url.js';
import type { LivePage } from '../ports/live-fetcher.js';
import type { NewVersion, PageStore } from '../ports/page-store.js';
import { looksBlocked } from './challenge.js';
import { extractHtml } from './extract/index.js';
import type { PageMetadata } from './extract/metadata.js';
import { parseLooseTime } from './html-time.js';
import { InOrder } from './in-order.js';
import { languageOf, type ReadPage } from './live-fetch.js';

export interface ImportSummary {
  imported: number;
  unchanged: number;
  /** Lines of pages the operator removed (websearch pages remove): not stored. */
  removed: number;
  failed: number;
  failures: { line: number; reason: string }[];
}

export interface ImportOptions {
  now?: () => number;
  batchSize?: number;
  /** Called after every batch with the running totals. */
  onProgress?: (summary: ImportSummary, lines: number) => void;
  /** At most this many failures are kept with their reasons (all are counted). */
  maxFailuresKept?: number;
  /** Reads HTML lines as fetched pages (the reader threads' `readQueued`); extracted on this thread without it. */
  read?: ReadPage;
  /** HTML lines being read at once with `read` (default 8). */
  inFlight?: number;
}

const FIELDS = new Set(['url', 'html', 'markdown', 'title', 'description', 'author', 'published_at', 'acquired_at', 'lang', 'media_type']);
const MAX_LINE_CHARS = 20_000_000;

function optionalText(o: Record<string, unknown>, name: string): string | undefined {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new Error(`${name} must be a string`);
  return withoutControls(v).trim() || undefined;
}

/**
 * ISO 8601 date/timestamp, or Unix seconds as a number, in years 0000-9999 (a time past JavaScript's
 * range, such as 1e300 seconds, would fail every search that finds the page).
 */
function optionalTime(o: Record<string, unknown>, name: string): number | undefined {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  const t = typeof v === 'number' && Number.isFinite(v) ? Math.round(v * 1000) : typeof v === 'string' ? parseLooseTime(v) : undefined;
  if (t === undefined || !isStorableTime(t)) throw new Error(`${name} must be an ISO 8601 date or timestamp, or Unix seconds, in years 0000-9999`);
  return t;
}

/**
 * A markdown page's title when the line names none: its first line, when that is a level-1 heading
 * (`# Title`, closing hashes dropped) of at most TITLE_MAX characters (a longer first line is no title: a page that is one long line), as plain text. An
 * HTML page without a title element takes its first <h1> likewise (extract/metadata.ts).
 */
export function markdownTitle(markdown: string): string | undefined {
  for (let start = 0; ; ) {
    const end = markdown.indexOf('\n', start);
    const line = markdown.slice(start, end < 0 ? markdown.length : end);
    if (line.trim() !== '') {
      // Without its closing hashes, still `#` and a space: `#   ##` is an empty heading.
      const heading = line.length > TITLE_MAX ? '' : line.replace(/[^\S\n]+#+[^\S\n]*$/, '');
      return /^ {0,3}#[^\S\n]/.test(heading) ? lineText(heading) || undefined : undefined;
    }
    if (end < 0) return undefined;
    start = end + 1;
  }
}

/** A markdown line's page as `extractHtml` gives an HTML line's: its content, and its title when its first line names one. */
function markdownPage(markdown: string): Partial<PageMetadata> & { content: string } {
  return { content: markdown, title: markdownTitle(markdown) };
}

/** A line's fields, checked: its page still to be extracted (html) or taken as it is (markdown). */
interface Line {
  url: string;
  html?: string;
  markdown?: string;
  acquiredAt: number;
  title?: string;
  description?: string;
  author?: string;
  publishedAt?: number;
  lang?: string;
  mediaType?: string;
}

/** One JSONL line to a version; throws with the reason when the line is unusable. */
export function lineToVersion(line: string, now: number): NewVersion {
  return lineToPage(parseLine(line, now));
}

/** The line's fields; throws with the reason when one is wrong. */
function parseLine(line: string, now: number): Line {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    throw new Error('not valid JSON');
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new Error('not a JSON object');
  const rec = o as Record<string, unknown>;
  const unknown = Object.keys(rec).filter((k) => !FIELDS.has(k));
  if (unknown.length > 0) throw new Error(`unknown field(s): ${unknown.join(', ')}`);
  if (typeof rec.url !== 'string') throw new Error('url is required');
  const url = normalizeUrl(rec.url);
  if (!url) throw new Error('url must be an absolute http(s) URL');
  const html = optionalText(rec, 'html');
  const markdown = optionalText(rec, 'markdown');
  if (html === undefined && markdown === undefined) throw new Error('html or markdown is required');
  if (html !== undefined && markdown !== undefined) throw new Error('give html or markdown, not both');
  const acquiredAt = optionalTime(rec, 'acquired_at') ?? now;
  if (acquiredTooLate(acquiredAt, now)) throw new Error('acquired_at is more than a day after now');
  const l: Line = { url, acquiredAt };
  if (html !== undefined) l.html = html;
  if (markdown !== undefined) l.markdown = markdown;
  const title = optionalText(rec, 'title');
  const description = optionalText(rec, 'description');
  const author = optionalText(rec, 'author');
  const publishedAt = optionalTime(rec, 'published_at');
  const lang = optionalText(rec, 'lang');
  if (lang !== undefined && normalizeLangTag(lang) === undefined) throw new Error('lang must be a language tag such as en or pt-BR');
  const media = optionalText(rec, 'media_type');
  const mediaType = media === undefined ? undefined : normalizeMediaType(media);
  if (media !== undefined && mediaType === undefined) throw new Error('media_type must be a media type such as application/pdf');
  if (title !== undefined) l.title = cutAtWord(title, TITLE_MAX);
  if (description !== undefined) l.description = description;
  if (author !== undefined) l.author = cutAtWord(author, AUTHOR_MAX);
  if (publishedAt !== undefined) l.publishedAt = publishedAt;
  if (lang !== undefined) l.lang = lang;
  const served = mediaType ?? (html !== undefined ? 'text/html' : undefined);
  if (served !== undefined) l.mediaType = served;
  return l;
}

/** The version of a line and its extracted page: the line's own fields win over the page's. */
function toVersion(l: Line, extracted: Partial<PageMetadata> & Pick<LivePage, 'content' | 'passages' | 'near' | 'language'>): NewVersion {
  if (!extracted.content.trim()) throw new Error('the page has no text content');
  const version: NewVersion = { url: l.url, content: extracted.content, acquiredAt: l.acquiredAt, searchable: true };
  const title = l.title ?? extracted.title;
  const description = l.description ?? extracted.description;
  const author = l.author ?? extracted.author;
  // The line's own time is the user's word; one the page gives itself later than a day after it was acquired is dropped, as for a fetched page.
  const found = extracted.publishedAt;
  const publishedAt = l.publishedAt ?? (found !== undefined && !publishedTooLate(found, l.acquiredAt) ? found : undefined);
  if (title !== undefined) version.title = title;
  if (description !== undefined) version.description = description;
  if (author !== undefined) version.author = author;
  if (publishedAt !== undefined) version.publishedAt = publishedAt;
  // The line's own language (checked to be a tag), else the page's (made on the reader thread that read it, if one did).
  const lang = l.lang !== undefined ? normalizeLangTag(l.lang) : languageOf(extracted);
  if (lang !== undefined) version.lang = lang;
  if (l.mediaType !== undefined) version.mediaType = l.mediaType;
  if (extracted.passages) version.passages = extracted.passages;
  if (extracted.near) version.near = extracted.near;
  return version;
}

/** A line's version, its page extracted on this thread (refused as the reader threads refuse a bot challenge). */
function lineToPage(l: Line): NewVersion {
  if (l.markdown !== undefined) return toVersion(l, markdownPage(l.markdown));
  const page = extractHtml(l.html!, l.url);
  if (looksBlocked(200, l.html!, page.content.length)) throw new Error('The page is a bot challenge or a login wall');
  return toVersion(l, page);
}

export async function importJsonl(pages: PageStore, path: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const now = options.now ?? Date.now;
  const batchSize = options.batchSize ?? 500;
  const keep = options.maxFailuresKept ?? 1000;
  const summary: ImportSummary = { imported: 0, unchanged: 0, removed: 0, failed: 0, failures: [] };
  const fail = (line: number, reason: string) => {
    summary.failed++;
    if (summary.failures.length < keep) summary.failures.push({ line, reason });
  };

  const raw = createReadStream(path);
  // Through pipeline: a gzip file cut short fails the lines' stream (pipe would leave it waiting).
  const input = path.endsWith('.gz') ? pipeline(raw, createGunzip(), () => {}) : raw;
  let unreadable: unknown;
  input.on('error', (e: Error) => (unreadable = e));
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let batch: NewVersion[] = [];
  let lineNo = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    for (const outcome of await pages.putVersions(batch)) {
      if (outcome.status === 'added') summary.imported++;
      else if (outcome.status === 'removed') summary.removed++;
      else summary.unchanged++;
    }
    batch = [];
    options.onProgress?.(summary, lineNo);
  };
  /** Lines on their way to versions, by line number, into the batch in the file's order (or failed with their reason). */
  const pending = new InOrder<NewVersion, number>(options.read ? (options.inFlight ?? 8) : 1, async (line, outcome) => {
    if ('error' in outcome) return fail(line, (outcome.error as Error).message);
    batch.push(outcome.value);
    if (batch.length >= batchSize) await flush();
  });
  try {
    for await (const text of lines) {
      lineNo++;
      // A byte order mark before the first line (Windows editors and PowerShell write one) is no part of its JSON.
      const line = lineNo === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      if (line.trim() === '') continue;
      if (line.length > MAX_LINE_CHARS) {
        fail(lineNo, `line longer than ${MAX_LINE_CHARS} characters`);
        continue;
      }
      let l: Line;
      try {
        l = parseLine(line, now());
      } catch (e) {
        fail(lineNo, (e as Error).message);
        continue;
      }
      const read = options.read;
      const version =
        l.html !== undefined && read
          ? read({ requestedUrl: l.url, url: l.url, status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(l.html), fetchedAt: l.acquiredAt }).then((page) =>
              toVersion(l, page),
            )
          : Promise.resolve().then(() => lineToPage(l));
      await pending.push(lineNo, version);
    }
  } catch (e) {
    if (e !== unreadable) throw e;
    // The lines read so far are stored; the rest of the file is one failure, at the line it stops in.
    fail(lineNo + 1, `the file stops being readable here: ${(e as Error).message} (is it cut short?)`);
  }
  await pending.drain();
  await flush();
  return summary;
}
