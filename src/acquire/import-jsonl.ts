/**
 * `websearch import file.jsonl`: one page per line, `{url, html | markdown, title?, description?,
 * author?, published_at?, acquired_at?, lang?}` (`lang` defaults to the HTML's, else a guess). Lines are validated first and written in batches, each
 * batch one transaction, so a bad line is skipped with its number and nothing is half-written.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { normalizeLangTag, pageLanguage } from '../core/language.js';
import { lineText } from '../core/passages.js';
import { normalizeUrl } from '../core/url.js';
import type { NewVersion, PageStore } from '../ports/page-store.js';
import { extractHtml } from './extract/index.js';
import type { PageMetadata } from './extract/metadata.js';
import { parseLooseTime } from './html-time.js';

export interface ImportSummary {
  imported: number;
  unchanged: number;
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
}

const FIELDS = new Set(['url', 'html', 'markdown', 'title', 'description', 'author', 'published_at', 'acquired_at', 'lang']);
const MAX_LINE_CHARS = 20_000_000;
/** A first line longer than this is not taken for a title (a page that is one long line). */
const MAX_HEADING_TITLE = 1_000;

function optionalText(o: Record<string, unknown>, name: string): string | undefined {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new Error(`${name} must be a string`);
  return v.trim() || undefined;
}

/** ISO 8601 date/timestamp, or Unix seconds as a number. */
function optionalTime(o: Record<string, unknown>, name: string): number | undefined {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return Math.round(v * 1000);
  if (typeof v === 'string') {
    const t = parseLooseTime(v);
    if (t !== undefined) return t;
  }
  throw new Error(`${name} must be an ISO 8601 date or timestamp, or Unix seconds`);
}

/**
 * A markdown page's title when the line names none: its first line, when that is a level-1 heading
 * (`# Title`, closing hashes dropped) of at most MAX_HEADING_TITLE characters, as plain text. An
 * HTML page without a title element takes its first <h1> likewise (extract/metadata.ts).
 */
export function markdownTitle(markdown: string): string | undefined {
  for (let start = 0; ; ) {
    const end = markdown.indexOf('\n', start);
    const line = markdown.slice(start, end < 0 ? markdown.length : end);
    if (line.trim() !== '') {
      // Without its closing hashes, still `#` and a space: `#   ##` is an empty heading.
      const heading = line.length > MAX_HEADING_TITLE ? '' : line.replace(/[^\S\n]+#+[^\S\n]*$/, '');
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

/** One JSONL line to a version; throws with the reason when the line is unusable. */
export function lineToVersion(line: string, now: number): NewVersion {
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
  const extracted: Partial<PageMetadata> & { content: string } = html !== undefined ? extractHtml(html, url) : markdownPage(markdown!);
  if (!extracted.content.trim()) throw new Error('the page has no text content');

  const version: NewVersion = {
    url,
    content: extracted.content,
    acquiredAt: optionalTime(rec, 'acquired_at') ?? now,
    searchable: true,
  };
  const title = optionalText(rec, 'title') ?? extracted.title;
  const description = optionalText(rec, 'description') ?? extracted.description;
  const author = optionalText(rec, 'author') ?? extracted.author;
  const publishedAt = optionalTime(rec, 'published_at') ?? extracted.publishedAt;
  if (title !== undefined) version.title = title;
  if (description !== undefined) version.description = description;
  if (author !== undefined) version.author = author;
  if (publishedAt !== undefined) version.publishedAt = publishedAt;
  const declared = optionalText(rec, 'lang');
  if (declared !== undefined && normalizeLangTag(declared) === undefined) throw new Error('lang must be a language tag such as en or pt-BR');
  const lang = pageLanguage(declared ?? extracted.lang, extracted.content);
  if (lang !== undefined) version.lang = lang;
  return version;
}

export async function importJsonl(pages: PageStore, path: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const now = options.now ?? Date.now;
  const batchSize = options.batchSize ?? 500;
  const keep = options.maxFailuresKept ?? 1000;
  const summary: ImportSummary = { imported: 0, unchanged: 0, failed: 0, failures: [] };
  const fail = (line: number, reason: string) => {
    summary.failed++;
    if (summary.failures.length < keep) summary.failures.push({ line, reason });
  };

  const raw = createReadStream(path);
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let batch: NewVersion[] = [];
  let lineNo = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    for (const outcome of await pages.putVersions(batch)) {
      if (outcome.status === 'added') summary.imported++;
      else summary.unchanged++;
    }
    batch = [];
    options.onProgress?.(summary, lineNo);
  };
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    if (line.length > MAX_LINE_CHARS) {
      fail(lineNo, `line longer than ${MAX_LINE_CHARS} characters`);
      continue;
    }
    try {
      batch.push(lineToVersion(line, now()));
    } catch (e) {
      fail(lineNo, (e as Error).message);
      continue;
    }
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return summary;
}
