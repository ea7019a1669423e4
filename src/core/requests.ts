/**
 * Spec types (SPEC 2.1-2.3) and their validation at the edge. Raw input is either a JSON body
 * (typed values) or a query string (all strings); both go through the same rules.
 */
import { invalidParameter, ServiceError } from './errors.js';
import { queryReadings } from './text.js';
import { periodStart, resolveBound, resolveQueryTime } from './time.js';
import { normalizeUrl, parseSiteFilter } from './url.js';

export const SEARCH_MODES = ['standard', 'webql', 'realtime_content'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export const LIMITS = {
  queryMaxChars: 2000,
  snippetMin: 180,
  snippetMax: 10_000,
  snippetDefault: 500,
  maxResultsMin: 1,
  maxResultsMax: 50,
  maxResultsDefault: 10,
  maxCharsMin: 1,
  maxCharsMax: 1_000_000,
  maxCharsDefault: 50_000,
  promptMaxChars: 2000,
  urlMaxChars: 8192,
} as const;

export interface SearchRequest {
  /** Trimmed. */
  query: string;
  /** Characters trimmed from the query's start, so webql errors point into the query as sent. */
  queryOffset?: number;
  mode: SearchMode;
  site?: string;
  acquiredAfter?: number;
  acquiredBefore?: number;
  publishedAfter?: number;
  publishedBefore?: number;
  queryTime?: number;
  snippetMaxLength: number;
  maxResults: number;
  /**
   * A standard query without the date operators read off it (`after:2020`, which narrowed the
   * published window), when it had any: what is searched. `query` stays the query as sent.
   */
  text?: string;
}

export interface SearchResult {
  title: string;
  url: string;
  description: string;
  snippet?: string;
  published_at?: string;
  acquired_at?: string;
}

export interface SearchResponse {
  query: string;
  results: SearchResult[];
}

export interface FetchRequest {
  url: string;
  maxChars: number;
  live: boolean;
  prompt?: string;
}

export interface FetchResponse {
  url: string;
  title?: string;
  description?: string;
  author?: string;
  content: string;
  published_at?: number;
}

export type RawInput = Record<string, unknown>;

const SEARCH_FIELDS = new Set([
  'query',
  'mode',
  'site',
  'acquired_after',
  'acquired_before',
  'published_after',
  'published_before',
  'query_time',
  'snippet_max_length',
  'max_results',
]);
const FETCH_FIELDS = new Set(['url', 'max_chars', 'live', 'prompt']);

function checkObject(input: unknown): RawInput {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ServiceError('invalid_parameter', 'The request body must be a JSON object, sent with Content-Type: application/json');
  }
  return input as RawInput;
}

function rejectUnknown(input: RawInput, known: Set<string>, ignored: readonly string[]): void {
  for (const key of Object.keys(input)) {
    if (!known.has(key) && !ignored.includes(key)) throw invalidParameter(key, `Unknown parameter: ${key}`);
  }
}

function optionalString(input: RawInput, name: string): string | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidParameter(name, `${name} must be a string`);
  return v;
}

function optionalInteger(input: RawInput, name: string, min: number, max: number): number | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) n = Number(v.trim());
  else throw invalidParameter(name, `${name} must be an integer from ${min} to ${max}`);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw invalidParameter(name, `${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

function optionalBoolean(input: RawInput, name: string): boolean | undefined {
  const v = input[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === '1') return true;
    if (s === 'false' || s === '0') return false;
  }
  throw invalidParameter(name, `${name} must be true or false`);
}

function optionalBound(input: RawInput, name: string, side: 'after' | 'before', base: number): number | undefined {
  const v = optionalString(input, name);
  return v === undefined ? undefined : resolveBound(name, v.trim(), side, base);
}

export interface ParseOptions {
  /** Request time, the base of relative deltas when query_time is absent. */
  now: number;
  /** Parameter names that belong to the access tier (e.g. `service_title`) and are not the operation's. */
  ignore?: readonly string[];
}

export function parseSearchRequest(raw: unknown, options: ParseOptions): SearchRequest {
  const input = checkObject(raw);
  rejectUnknown(input, SEARCH_FIELDS, options.ignore ?? []);

  const rawQuery = input.query;
  if (typeof rawQuery !== 'string') throw invalidParameter('query', 'query is required and must be a string');
  const query = rawQuery.trim();
  if (query.length === 0) throw invalidParameter('query', 'query must not be empty');
  if (query.length > LIMITS.queryMaxChars) {
    throw invalidParameter('query', `query must be at most ${LIMITS.queryMaxChars} characters`);
  }

  const mode = optionalString(input, 'mode') ?? 'standard';
  if (!(SEARCH_MODES as readonly string[]).includes(mode)) {
    throw invalidParameter('mode', `mode must be one of ${SEARCH_MODES.join(', ')}`);
  }

  const req: SearchRequest = {
    query,
    mode: mode as SearchMode,
    snippetMaxLength:
      optionalInteger(input, 'snippet_max_length', LIMITS.snippetMin, LIMITS.snippetMax) ?? LIMITS.snippetDefault,
    maxResults:
      optionalInteger(input, 'max_results', LIMITS.maxResultsMin, LIMITS.maxResultsMax) ?? LIMITS.maxResultsDefault,
  };

  const leading = rawQuery.length - rawQuery.trimStart().length;
  if (leading > 0) req.queryOffset = leading;

  const site = optionalString(input, 'site');
  if (site !== undefined) {
    const host = parseSiteFilter(site);
    if (!host) throw invalidParameter('site', 'site must be a bare host name such as example.com (no scheme, path or port)');
    req.site = host;
  }

  const queryTime = optionalString(input, 'query_time');
  if (queryTime !== undefined) req.queryTime = resolveQueryTime(queryTime.trim());
  const base = req.queryTime ?? options.now;

  // Only the bounds given become properties (no `delete` afterwards, which would leave `req` a slow dictionary object).
  const acquiredAfter = optionalBound(input, 'acquired_after', 'after', base);
  if (acquiredAfter !== undefined) req.acquiredAfter = acquiredAfter;
  const acquiredBefore = optionalBound(input, 'acquired_before', 'before', base);
  if (acquiredBefore !== undefined) req.acquiredBefore = acquiredBefore;
  const publishedAfter = optionalBound(input, 'published_after', 'after', base);
  if (publishedAfter !== undefined) req.publishedAfter = publishedAfter;
  const publishedBefore = optionalBound(input, 'published_before', 'before', base);
  if (publishedBefore !== undefined) req.publishedBefore = publishedBefore;

  if (req.acquiredAfter !== undefined && req.acquiredBefore !== undefined && req.acquiredAfter > req.acquiredBefore) {
    throw invalidParameter('acquired_after', 'acquired_after is later than acquired_before');
  }
  if (
    req.publishedAfter !== undefined &&
    req.publishedBefore !== undefined &&
    req.publishedAfter > req.publishedBefore
  ) {
    throw invalidParameter('published_after', 'published_after is later than published_before');
  }
  if (req.mode !== 'webql') {
    const dates = datesInQuery(query, base);
    if (dates) {
      req.text = dates.text;
      // The narrower bound of the field's and the operators'; a window left empty finds nothing.
      if (dates.after !== undefined) req.publishedAfter = Math.max(dates.after, req.publishedAfter ?? dates.after);
      if (dates.before !== undefined) req.publishedBefore = Math.min(dates.before, req.publishedBefore ?? dates.before);
    }
  }
  return req;
}

/** A standard query's date operator: `after:` or `before:` and its value, at the query's start or after a space. */
const DATE_OPERATOR_RE = /(?:^|\s)(after|before):(\S+)/gi;

/**
 * The date operators of a standard query, as people and models write them (`tariffs after:2019`,
 * `after:2019-11 before:2019-12-15`): the publication times they keep to, as inclusive bounds like
 * the request's fields, and the query without them. An operator names a year, a month, a day, a
 * timestamp or a relative delta (`after:7d`, counted back from `base`), and the two read as half of
 * a span each: `after:X` from the start of X on, `before:X` up to the start of X, so that
 * `after:2019 before:2020` is 2019. Several of one kind keep the narrowest. An operator whose value
 * is none of these stays a word of the query; undefined, and the query read as it is, when none is
 * read or nothing else is left to search for.
 */
export function datesInQuery(query: string, base: number): { text: string; after?: number; before?: number } | undefined {
  let after: number | undefined;
  let before: number | undefined;
  const text = query
    .replace(DATE_OPERATOR_RE, (whole: string, side: string, value: string) => {
      const start = periodStart(value, base);
      if (start === undefined) return whole;
      if (side.toLowerCase() === 'after') after = Math.max(start, after ?? start);
      else before = Math.min(start - 1, before ?? start - 1);
      return ' ';
    })
    .replace(/\s+/g, ' ')
    .trim();
  if ((after === undefined && before === undefined) || queryReadings(text).terms.length === 0) return undefined;
  return { text, ...(after !== undefined && { after }), ...(before !== undefined && { before }) };
}

export function parseFetchRequest(raw: unknown, options: Pick<ParseOptions, 'ignore'> = {}): FetchRequest {
  const input = checkObject(raw);
  rejectUnknown(input, FETCH_FIELDS, options.ignore ?? []);

  const rawUrl = input.url;
  if (typeof rawUrl !== 'string' || rawUrl.trim() === '') {
    throw invalidParameter('url', 'url is required and must be a URL-encoded absolute URL');
  }
  if (rawUrl.length > LIMITS.urlMaxChars) throw invalidParameter('url', `url must be at most ${LIMITS.urlMaxChars} characters`);
  const given = withScheme(rawUrl.trim());
  let parsed: URL;
  try {
    parsed = new URL(given);
  } catch {
    throw invalidParameter('url', 'url must be an absolute URL such as https://example.com/page');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ServiceError('url_not_allowed', 'Only http and https URLs can be fetched', { param: 'url' });
  }
  const url = normalizeUrl(given);
  if (!url) throw invalidParameter('url', 'url must be an absolute http(s) URL');

  const req: FetchRequest = {
    url,
    maxChars: optionalInteger(input, 'max_chars', LIMITS.maxCharsMin, LIMITS.maxCharsMax) ?? LIMITS.maxCharsDefault,
    live: optionalBoolean(input, 'live') ?? false,
  };
  const prompt = optionalString(input, 'prompt');
  if (prompt !== undefined) {
    if (prompt.trim().length === 0 || prompt.length > LIMITS.promptMaxChars) {
      throw invalidParameter('prompt', `prompt must be 1 to ${LIMITS.promptMaxChars} characters`);
    }
    req.prompt = prompt;
  }
  return req;
}

/**
 * A URL written without its scheme, as people and models write them (`example.com/page`,
 * `www.example.com:8080/`), with https put before it; anything else as it is. Only what starts with
 * a host of two or more labels, the last of letters, is taken so: `localhost/x` and `/relative`
 * stay errors.
 */
function withScheme(raw: string): string {
  return !raw.includes('://') && /^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,63}(:\d{1,5})?([/?#]|$)/i.test(raw) ? `https://${raw}` : raw;
}

/** Cuts to at most `max` UTF-16 code units without splitting a surrogate pair. */
export function truncateChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}
