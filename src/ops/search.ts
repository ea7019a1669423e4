/** The search operation, tier-blind: a validated request in, the spec's response out. */
import { deadline } from '../core/deadline.js';
import type { SearchRequest, SearchResponse, SearchResult } from '../core/requests.js';
import { nearDuplicates, nearInSize, nearShingles } from '../core/near-duplicate.js';
import { SCAN_LIMIT } from '../core/passages.js';
import { hasPhrase, wordKey } from '../core/phrase.js';
import { cachedStem, joinedCompounds, queryReadings, queryTerms, STOP_WORDS, termWord, words } from '../core/text.js';
import { isStorableTime, toIso } from '../core/time.js';
import { hostInSite, parseSiteFilter, urlAuthority } from '../core/url.js';
import { fileTypeOf, inUrlItem, pageMatches, parseWebql, positiveWords, type UrlItem, type WebqlNode } from '../core/webql.js';
import type { IndexQuery, IndexStore } from '../ports/index-store.js';
import type { PageStore, ResultVersion } from '../ports/page-store.js';
import { type FetchDeps, storeLivePage } from './fetch-page.js';
import { inTitle, pageSnippet, shortDescription, SnippetQuery } from './snippet.js';

export interface SearchDeps extends FetchDeps {
  index: IndexStore;
  pages: PageStore;
  /** realtime_content: one deadline for all the live fetches of a search. */
  realtimeDeadlineMs?: number;
}

const REALTIME_CONCURRENCY = 4;

/**
 * realtime_content: each result's page is fetched live (robots and SSRF rules as for live fetch, a
 * few at a time, one overall deadline); a fresh page gives the snippet and acquired_at and is stored
 * as a new version; a result whose fetch fails or is too late keeps its indexed snippet.
 */
async function refresh(deps: SearchDeps, results: SearchResult[], query: SnippetQuery, snippetMaxLength: number, gone?: AbortSignal): Promise<void> {
  if (!deps.live) return;
  const limit = deadline(deps.realtimeDeadlineMs ?? 10_000, gone);
  const signal = limit.signal;
  let next = 0;
  const worker = async () => {
    while (next < results.length && !signal.aborted) {
      const r = results[next++]!;
      try {
        const page = await deps.live!.fetch(r.url, { signal });
        if (signal.aborted) return;
        await storeLivePage(deps, page, r.url);
        const { snippet } = pageSnippet(page.content, undefined, query, snippetMaxLength, { title: r.title });
        if (snippet) r.snippet = snippet;
        r.acquired_at = toIso(page.fetchedAt);
      } catch {
        // keeps the indexed snippet
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(REALTIME_CONCURRENCY, results.length) }, worker)).finally(limit.clear);
}

/** Whether a page's description only repeats its title, or part of it (`og:description` set to the headline): it says nothing more. */
const repeatsTitle = (description: string, title: string | undefined) => title !== undefined && inTitle(description, title);

/**
 * The descriptions that two or more of the results share: a site's one for all its pages ("News and
 * views from ..."), a template's. Said of every page, they say nothing of each.
 */
function sharedDescriptions(versions: readonly ResultVersion[]): Set<string> | undefined {
  let shared: Set<string> | undefined;
  const seen = new Set<string>();
  for (const v of versions) {
    if (!v.description) continue;
    if (seen.has(v.description)) (shared ??= new Set()).add(v.description);
    else seen.add(v.description);
  }
  return shared;
}

function toResult(v: ResultVersion, query: SnippetQuery, snippetMaxLength: number, shared: Set<string> | undefined): SearchResult {
  // A description that repeats the title, or that other pages of its host or other results share,
  // gives way to the page's opening text, as none does.
  const own = v.description && !v.sharedDescription && !shared?.has(v.description) && shortDescription(v.description);
  const description = own && !repeatsTitle(own, v.title) ? own : '';
  const title = v.title?.trim() || v.url;
  const page = pageSnippet(v.content, v.passages, query, snippetMaxLength, { describe: !description, title });
  const result: SearchResult = { title, url: v.url, description: description || page.description };
  const snippet = page.snippet;
  if (snippet) result.snippet = snippet;
  // A time out of range (stored before imports refused such times) is not available, not a 500.
  if (v.publishedAt !== undefined && isStorableTime(v.publishedAt)) result.published_at = toIso(v.publishedAt);
  if (isStorableTime(v.acquiredAt)) result.acquired_at = toIso(v.acquiredAt);
  return result;
}

/** The most `site:` or `-site:` operators of a standard query that are read, each; a query with more of either reads those as words. */
export const SITE_OPERATORS_MAX = 20;

/** The host a `site:` or `-site:` operator names: a bare host, or a URL's host. */
function operatorHost(value: string): string | undefined {
  const host = parseSiteFilter(value);
  if (host || !/^https?:\/\//i.test(value)) return host;
  try {
    return parseSiteFilter(new URL(value).hostname);
  } catch {
    return undefined;
  }
}

/** What a standard query's site operators ask (`siteInQuery`). */
export interface QuerySites {
  /** The query without them. */
  text: string;
  /** The sites its pages must be of (one of them, or a subdomain of one); empty when the request's `site` is none of them. */
  sites?: string[];
  /** The sites left out. */
  exclude?: string[];
}

/** `host` narrowed by the request's `site`: the narrower of the two, or undefined when they are different sites. */
function narrowed(host: string, site: string | undefined): string | undefined {
  if (site === undefined || hostInSite(host, site)) return host;
  return hostInSite(site, host) ? site : undefined;
}

/**
 * The site operators of a standard query, as people and models write them: the sites it keeps to
 * with `site:` (`site:docs.python.org asyncio`; two or more: a page of any,
 * `site:a.org OR site:b.org`) and those it leaves out with `-site:` (`-site:pinterest.com`), and the
 * query without them. With the request's `site` too, each site named is narrowed by it (the
 * narrower of the two), and one of another site is dropped: none left finds nothing. Each operator
 * that names a host is read (`site:` a URL gives its host); one that names none stays a word of the
 * query, and so do all the `site:`s (or `-site:`s) when there are more than `SITE_OPERATORS_MAX`.
 * Undefined, and the query read as it is, when none is read or when nothing else is left to search for.
 */
export function siteInQuery(query: string, site: string | undefined): QuerySites | undefined {
  const spans: [number, number][] = [];
  const read = (pattern: RegExp): string[] => {
    const found = [...query.matchAll(pattern)];
    const hosts: string[] = [];
    if (found.length > SITE_OPERATORS_MAX) return hosts;
    for (const m of found) {
      const host = operatorHost(m[1]!);
      if (!host) continue;
      hosts.push(host);
      spans.push([m.index, m.index + m[0].length]);
    }
    return hosts;
  };
  const named = read(/(?:^|\s)site:(\S+)/gi);
  const exclude = read(/(?:^|\s)-site:(\S+)/gi);
  if (spans.length === 0) return undefined;
  spans.sort((a, b) => a[0] - b[0]);
  let text = '';
  let at = 0;
  for (const [from, to] of spans) {
    text += `${query.slice(at, from)} `;
    at = to;
  }
  text = (text + query.slice(at)).replace(/\s+/g, ' ').trim();
  if (queryReadings(text).terms.length === 0) return undefined;
  const out: QuerySites = { text };
  if (exclude.length > 0) out.exclude = exclude;
  if (named.length > 0) out.sites = [...new Set(named.map((h) => narrowed(h, site)).filter((h) => h !== undefined))];
  return out;
}

/** The most `-word`s and `-"phrase"`s of a standard query that are read; a query with more reads them as words. */
export const EXCLUDED_WORDS_MAX = 20;

/** A standard query's `-word`: a hyphen opening a word of letters (not `-5`, not `-site:`). */
const EXCLUDED_WORD_RE = /(?:^|\s)-(\p{L}[^\s:"]*)(?=\s|$)/gu;

/** A standard query's `-"phrase"`: a hyphen opening a quoted phrase. */
const EXCLUDED_PHRASE_RE = /(?:^|\s)-"([^"]*)"(?=\s|$)/gu;

/** What a standard query leaves out (`exclusionsInQuery`). */
export interface QueryExclusions {
  /** The query without them. */
  text: string;
  /** Terms whose pages are left out (IndexQuery `excludeTerms`). */
  exclude: string[];
  /** Phrases (their words, as `words()` reads them) whose pages are left out. */
  phrases: string[][];
}

/**
 * What a standard query leaves out, as people and models write queries: each `-word` (`jaguar
 * -car`) as a term, each `-"phrase"` (`python -"python 2"`) as its words side by side, and the query
 * without them; a page holding one is no result. A `-compound` (`-e-mail`) leaves out both its
 * readings, the phrase of its words and its joined word (`email`), as webql's bare word. Any
 * other `-word` or one-word `-"word"` that is no single term (a stop word, `-U.S.`) stays words of the query, as before;
 * undefined, and the query read as it is, when none is read, when there are more than
 * `EXCLUDED_WORDS_MAX`, or when nothing else is left to search for.
 */
export function exclusionsInQuery(query: string): QueryExclusions | undefined {
  // Each term left out costs a pass over its postings in every segment, each phrase a check of the
  // pages read: a query of hundreds (2,000 characters of `-ab`) would read most of the index. Past
  // the cap they are words, as before.
  const count = (query.match(EXCLUDED_WORD_RE) ?? []).length + (query.match(EXCLUDED_PHRASE_RE) ?? []).length;
  if (count > EXCLUDED_WORDS_MAX) return undefined;
  const exclude: string[] = [];
  const phrases: string[][] = [];
  const term = (word: string) => {
    const terms = queryTerms(word);
    return terms.length === 1 && termWord(terms[0]!) === terms[0] ? terms[0] : undefined;
  };
  const excludeTerm = (t: string) => {
    if (!exclude.includes(t)) exclude.push(t);
  };
  const excludePhrase = (ws: readonly string[]) => {
    if (!phrases.some((p) => p.join(' ') === ws.join(' '))) phrases.push([...ws]);
  };
  const text = query
    .replace(EXCLUDED_PHRASE_RE, (whole, phrase: string) => {
      const ws = words(phrase);
      const t = ws.length === 1 ? term(phrase) : undefined;
      if (ws.length > 1) excludePhrase(ws);
      else if (t !== undefined) excludeTerm(t);
      else return whole;
      return ' ';
    })
    .replace(EXCLUDED_WORD_RE, (whole, word: string) => {
      const t = term(word);
      if (t !== undefined) {
        excludeTerm(t);
        return ' ';
      }
      const joined = joinedCompounds(word);
      const ws = words(word);
      if (joined === undefined || ws.length < 2) return whole;
      excludePhrase(ws);
      const other = term(joined);
      if (other !== undefined) excludeTerm(other);
      return ' ';
    });
  if (exclude.length === 0 && phrases.length === 0) return undefined;
  const rest = text.replace(/\s+/g, ' ').trim();
  return queryReadings(rest).terms.length === 0 ? undefined : { text: rest, exclude, phrases };
}

/** A standard query's quoted phrase: a quote opening a word, closed before a space, a bracket, a punctuation mark or the end. */
const PHRASE_RE = /(?<![^\s(])"([^"]*)"(?![^\s),.;:!?])/gu;

/**
 * The phrases a standard query quotes (`"garbage collector" tuning`), as people and models write
 * queries: each of two words or more, one of them no stop word (their words, as `words()` reads
 * them), and the query without them. A quoted word, or stop words alone (`"to be"`), stay words of
 * the query; undefined when none is read.
 */
export function phrasesInQuery(query: string): { phrases: string[][]; rest: string } | undefined {
  const phrases: string[][] = [];
  const rest = query.replace(PHRASE_RE, (whole, phrase: string) => {
    const ws = words(phrase);
    if (ws.length < 2 || ws.every((w) => STOP_WORDS.has(w))) return whole;
    phrases.push(ws);
    return ' ';
  });
  return phrases.length === 0 ? undefined : { phrases, rest: rest.replace(/\s+/g, ' ').trim() };
}

/** A field item of webql that a page's title, URL or media type alone decides: `title:`, `inurl:`, `filetype:`. */
type FieldNode = UrlItem | Extract<WebqlNode, { kind: 'text' }>;

/** What a standard query's field operators ask (`fieldsInQuery`). */
export interface QueryFields {
  /** The query without them. */
  text: string;
  /** Its `intitle:`s, as webql's `title:` items: what a page's title must hold. */
  titleItems: FieldNode[];
  /** Its `inurl:`s and `filetype:`s, as webql's items: what a page's URL (or, for a `filetype:`, the type it was served as) must match. */
  urls: UrlItem[];
  /** Its `-intitle:`s, `-inurl:`s and `-filetype:`s: what a page's title, URL or type must not. */
  notItems: FieldNode[];
  /** The words of its `intitle:`s, as written. */
  titles: string;
}

/** The most field operators of a standard query that are read (`intitle:`, `inurl:`, `filetype:`, each or with `-`); a query with more reads them as words. */
export const FIELD_OPERATORS_MAX = 20;

/**
 * A standard query's `intitle:`, `inurl:` or `filetype:` (`ext:`), a `-` before it or not, and its
 * value: a quoted phrase or what runs to the next space.
 */
const FIELD_OPERATOR_RE = /(?:^|\s)(-?)(intitle|inurl|filetype|ext):(?:"([^"]*)"|([^\s"]+))/giu;

/**
 * The field operators of a standard query, as people and models write them: each `intitle:word`
 * or `intitle:"two words"` as the words its pages' titles must hold (side by side, as webql's
 * `title:`), each `inurl:text` as text their URLs must hold (webql's `inurl:`), each
 * `filetype:pdf` (or `ext:pdf`) as the type their URLs must name their file by or they were
 * served as (webql's `filetype:`), and each of them with a `-` before it (`-inurl:pinterest`) as
 * what their titles, URLs or types must not hold; with the words of the titles asked for, which
 * rank the pages too, and the query without them. One whose value has no word (or names no type)
 * stays words of the query; undefined, and the query read as it is, when none is read, when there
 * are more than `FIELD_OPERATORS_MAX`, or when no word is left to rank by.
 */
export function fieldsInQuery(query: string): QueryFields | undefined {
  const found = [...query.matchAll(FIELD_OPERATOR_RE)];
  if (found.length === 0 || found.length > FIELD_OPERATORS_MAX) return undefined;
  const titleItems: FieldNode[] = [];
  const urls: UrlItem[] = [];
  const notItems: FieldNode[] = [];
  const titles: string[] = [];
  const text = query
    .replace(FIELD_OPERATOR_RE, (whole, minus: string, name: string, quoted: string | undefined, bare: string | undefined) => {
      const value = (quoted ?? bare!).trim();
      const field = name.toLowerCase();
      let item: FieldNode;
      if (field === 'intitle') {
        const ws = words(value);
        if (ws.length === 0) return whole;
        item = { kind: 'text', words: ws, field: 'title' };
      } else if (field === 'inurl') {
        if (value === '') return whole;
        item = inUrlItem(value);
      } else {
        const ext = fileTypeOf(value);
        if (!ext) return whole;
        item = { kind: 'filetype', ext };
      }
      if (minus) notItems.push(item);
      else if (item.kind !== 'text') urls.push(item);
      else {
        titleItems.push(item);
        titles.push(value);
      }
      return ' ';
    })
    .replace(/\s+/g, ' ')
    .trim();
  if (titleItems.length + urls.length + notItems.length === 0 || queryTerms(`${text} ${titles.join(' ')}`).length === 0) return undefined;
  return { text, titleItems, urls, notItems, titles: titles.join(' ') };
}

/** What the index is asked for a standard query, and what the search checks itself. */
export type StandardWords = Pick<IndexQuery, 'terms' | 'alternative' | 'excludeTerms' | 'webql' | 'rankTerms'> & {
  /** Phrases left out (their words) that the search checks on the stored pages: the engine keeps no positions. */
  excludePhrases?: string[][];
  /** `inurl:` and `filetype:` items that the search checks on the stored pages, as webql's. */
  requireFields?: UrlItem[];
  /** `-intitle:`, `-inurl:` and `-filetype:` items that the search checks on the stored pages. */
  excludeFields?: FieldNode[];
};

const textNode = (ws: readonly string[]): WebqlNode => ({ kind: 'text', words: [...ws] });

/** What a standard query leaves out (its `-word`s, `-"phrase"`s and fields with a `-`), as webql's exclusions. */
function leftOutItems(words: Pick<StandardWords, 'excludeTerms' | 'excludePhrases' | 'excludeFields'>): WebqlNode[] {
  const items = [...(words.excludeTerms ?? []).map((t) => textNode([t])), ...(words.excludePhrases ?? []).map(textNode), ...(words.excludeFields ?? [])];
  return items.map((child) => ({ kind: 'not', child }));
}

/**
 * A standard query's words as the index is asked for them: its `-word`s left out
 * (`exclusionsInQuery`), and a hyphenated compound also read as its joined word (a page scores the
 * better reading: `queryReadings`); with the phrases it leaves out, the `inurl:`s and
 * `filetype:`s it keeps to and the fields it leaves out (`-intitle:`, `-inurl:`, `-filetype:`:
 * `fieldsInQuery`), which the search checks on the stored pages. A query that quotes a phrase
 * (`phrasesInQuery`) or asks for a title (`intitle:`) is asked as a webql expression instead: the
 * pages holding every phrase and field and none of what is left out, ranked by all its words (the
 * others and the titles' as `rankTerms`), so a phrase, a field and the exclusions are decided
 * exactly, on every page. `terms` are the words results are expected to hold (for snippets).
 */
export function standardWords(text: string): StandardWords {
  const left = exclusionsInQuery(text);
  const fields = fieldsInQuery(left?.text ?? text);
  const rest = fields?.text ?? left?.text ?? text;
  const titles = fields?.titles ?? '';
  const quoted = phrasesInQuery(rest);
  // A title asked for is decided as webql decides `title:`, on every page of its words. Checked on
  // the ranked pages instead, as an `inurl:` is, it read up to 1,000 of them, as few of a query's
  // best pages hold its words in their title: a version that did so was slower in bench:webql's
  // intitle: shapes (never committed).
  if (quoted || titles) {
    const children = [
      ...(quoted?.phrases ?? []).map(textNode),
      ...(fields?.titleItems ?? []),
      ...(fields?.urls ?? []),
      ...leftOutItems({ excludeTerms: left?.exclude, excludePhrases: left?.phrases, excludeFields: fields?.notItems }),
    ];
    // The words of a title asked for rank as the query's other words do (a phrase's rank as webql's).
    const rankTerms = queryTerms(`${quoted?.rest ?? rest} ${titles}`).filter((t) => termWord(t) === t);
    return { terms: queryTerms(`${rest} ${titles}`), webql: children.length === 1 ? children[0]! : { kind: 'and', children }, ...(rankTerms.length > 0 && { rankTerms }) };
  }
  const { terms, alternative } = queryReadings(rest);
  return {
    terms,
    ...(alternative && { alternative }),
    ...(left && left.exclude.length > 0 && { excludeTerms: left.exclude }),
    ...(left && left.phrases.length > 0 && { excludePhrases: left.phrases }),
    ...(fields && fields.urls.length > 0 && { requireFields: fields.urls }),
    ...(fields && fields.notItems.length > 0 && { excludeFields: fields.notItems }),
  };
}

/**
 * What each query stem is worth to a snippet's sentence: its inverse document frequency over the
 * index, the rarest's 1 (`SnippetQuery`). A sentence holding only `patientenakte` then comes before
 * one holding only `über`, where both counted one. Undefined (all worth 1) where the index keeps no
 * statistics.
 */
function snippetWeights(index: IndexStore, stems: readonly string[]): number[] | undefined {
  if (!index.idf || stems.length < 2) return undefined;
  const idfs = index.idf(stems);
  const most = Math.max(...idfs);
  return most > 0 ? idfs.map((x) => x / most) : undefined;
}

/**
 * How many times a search asks the engine again, for twice as many each time, for the ranks its
 * repeated pages took (`withoutRepeats`): 10 results asked, up to 143 read, so a wire story run by
 * a hundred sites still leaves room for other pages.
 */
const DUPLICATE_ROUNDS = 3;

/**
 * The most pages a search reads, in rank order, for results that hold none of the query's
 * `-"phrase"`s and whose title and URL match its fields that are checked so (`inurl:`,
 * `filetype:`, and those with a `-`): when the best 2,000 leave fewer than asked for, the query is
 * asked again as a webql expression (`exactQuery`), which decides every page of its words. That
 * lists every page of a long query's words (about 250 ms at 1M); reading on to the 2,000th costs a
 * search that deep and the pages read (bench:webql's one claim whose best 1,000 all held its
 * `-"a b"` found its tenth result at the 1,031st: the shape's p99 249 ms at a bound of 1,000, 94
 * at 2,000, the other checked shapes unchanged; docs/BENCHMARKS.md).
 */
export const CHECKED_CANDIDATES_MAX = 2_000;

/**
 * Whether a version's title, description or content holds one of `phrases` (`hasPhrase`). A
 * content cut where snippets stop reading (`SCAN_LIMIT`) that does not hold one is read whole.
 */
async function holdsPhrase(pages: PageStore, v: ResultVersion, phrases: readonly (readonly string[])[]): Promise<boolean> {
  const holds = (text: string | undefined) => text !== undefined && phrases.some((p) => hasPhrase(text, p));
  if (holds(v.title) || holds(v.description) || holds(v.content)) return true;
  if (v.content.length < SCAN_LIMIT) return false;
  const whole = (await pages.history(v.url)).find((h) => h.id === v.id);
  return holds(whole?.content);
}

/** Whether a version's title holds a `title:` item's words side by side, or its URL and media type match a URL item, as webql decides them. */
function fieldHolds(field: FieldNode, v: ResultVersion): boolean {
  return field.kind === 'text' ? v.title !== undefined && hasPhrase(v.title, field.words.map(wordKey)) : pageMatches(field, v.url, v.mediaType);
}

/**
 * The versions without those that repeat one ranked above them:
 * - the same title and the same content: a page under another URL (`http` and `https`, a tracking
 *   or paging parameter, a mirror), which a reader could not tell apart but by its address.
 *   Contents are compared only when their lengths and titles are the same;
 * - a near-duplicate (core/near-duplicate.ts: their fingerprints agree in half their slots, and
 *   their texts are alike in length), on another host, or on the same host with the same title: a
 *   wire story or a press release on several sites, each with its own byline and footer. Pages of
 *   one host with other titles are kept apart: a site's pages made from one template differ in
 *   what they are about. A page that quotes another at length, with as much of its own, is kept.
 * At most `max` are kept: those ranked below are not compared.
 */
function withoutRepeats(versions: ResultVersion[], max: number): ResultVersion[] {
  if (versions.length < 2) return versions;
  const seen = new Map<string, ResultVersion[]>();
  const kept: ResultVersion[] = [];
  /** The versions kept that have a fingerprint, with their titles and hosts. */
  const printed: Printed[] = [];
  for (const v of versions) {
    const title = v.title?.trim() ?? '';
    const key = `${v.content.length}:${title}`;
    const same = seen.get(key);
    if (same?.some((u) => u.content === v.content)) continue;
    const print = v.near && { near: v.near, title, host: urlAuthority(v.url), content: v.content };
    if (print && printed.some((u) => nearRepeat(u, print))) continue;
    if (same) same.push(v);
    else seen.set(key, [v]);
    if (print) printed.push(print);
    if (kept.push(v) === max) break;
  }
  return kept;
}

/** A result's fingerprint, trimmed title, host and text, as `withoutRepeats` compares them. */
interface Printed {
  near: Uint8Array;
  title: string;
  host: string;
  content: string;
  /** Its text's shingles, counted when its fingerprint first agrees with another's. */
  shingles?: number;
}

/** Whether `v` is a near-duplicate of `u` ranked above it, on another host or under the same title (`withoutRepeats`). */
function nearRepeat(u: Printed, v: Printed): boolean {
  if (!nearDuplicates(u.near, v.near) || (u.title !== v.title && u.host === v.host)) return false;
  u.shingles ??= nearShingles(u.content);
  v.shingles ??= nearShingles(v.content);
  return nearInSize(u.shingles, v.shingles);
}

/**
 * The best `max` versions the index ranks for `asked`, without the repeats of one ranked above
 * (`withoutRepeats`) and, with `passes`, without those it refuses (a `-"phrase"` or a `-intitle:`
 * held, an `inurl:` or a `filetype:` not): the ranks they took are filled from further down,
 * asking the index for twice as many each time (and as many as are missing), at most
 * DUPLICATE_ROUNDS times for repeats, and up to CHECKED_CANDIDATES_MAX for a check. `cut`: fewer
 * were found than asked for because the check's bound was reached.
 */
async function ranked(
  deps: SearchDeps,
  asked: Omit<IndexQuery, 'limit'>,
  max: number,
  passes?: (v: ResultVersion) => boolean | Promise<boolean>,
): Promise<{ versions: ResultVersion[]; cut: boolean }> {
  const read = new Map<number, ResultVersion | undefined>();
  let versions: ResultVersion[] = [];
  for (let limit = max, round = 0; ; round++) {
    const hits = await deps.index.search({ ...asked, limit });
    const ids = hits.slice(0, limit).map((h) => h.versionId);
    const fresh = await deps.pages.getVersions(ids.filter((id) => !read.has(id)));
    for (const v of fresh) read.set(v.id, !passes || (await passes(v)) ? v : undefined);
    versions = withoutRepeats(ids.flatMap((id) => read.get(id) ?? []), max);
    if (versions.length >= max || hits.length < limit) return { versions, cut: false };
    if (passes ? limit >= CHECKED_CANDIDATES_MAX : round === DUPLICATE_ROUNDS) return { versions, cut: passes !== undefined };
    const missing = max - versions.length;
    const passed = passes ? ids.reduce((n, id) => (read.get(id) ? n + 1 : n), 0) : ids.length;
    limit = Math.min(CHECKED_CANDIDATES_MAX, nextDepth(limit, passed, missing));
  }
}

/**
 * How many pages the next round of `ranked` asks the index for, after `limit` of which `passed`
 * passed its check and `missing` results are still wanted: twice as many and the missing (a round
 * of repeats; a check most pages pass), or as deep as the share that passed says the missing lie,
 * twice that; eight times as many when none passed. Each round is a search of its own, and
 * a long query's costs much the same at 10 as at 300 (an inurl: a tenth of the URLs hold went to 10,
 * 30, 70, 148, 299: 19, 23, 26, 30 and 33 ms), so a check that few pages pass goes there in two.
 */
export function nextDepth(limit: number, passed: number, missing: number): number {
  const doubled = 2 * limit + missing;
  if (passed === 0) return Math.max(doubled, 8 * limit);
  return Math.max(doubled, Math.ceil(limit + (2 * missing * limit) / passed));
}

/**
 * A standard query whose pages are checked (`StandardWords`) as a webql expression (`(a OR b OR
 * ...) inurl:x -"x y" -c`): a page of any of its words (either reading's) that holds its fields
 * and none of what is left out. Undefined for a query of stop words alone, which webql would
 * answer by reading every page.
 */
function exactQuery(words: StandardWords): WebqlNode | undefined {
  const terms = [...new Set([...words.terms, ...(words.alternative ?? [])])];
  if (terms.some((t) => termWord(t) !== t)) return undefined;
  const any: WebqlNode = terms.length === 1 ? textNode(terms) : { kind: 'or', children: terms.map((t) => textNode([t])) };
  return { kind: 'and', children: [any, ...(words.requireFields ?? []), ...leftOutItems(words)] };
}

/**
 * A standard query's words with the index's correction of each that no page holds, or few do
 * (IndexStore `corrections`: `tarrifs` asks for `tariff` too), as people and models misspell words:
 * a word of no page adds nothing to a ranking, and one of a few pages less than what was meant.
 * The word stays asked for, so the pages holding it as written are found. A query answered as
 * webql (a quoted phrase, `intitle:`) is asked as written, as webql's are.
 */
function spelledRight(index: IndexStore, words: StandardWords): StandardWords {
  if (words.webql || !index.corrections) return words;
  const plain = [...new Set([...words.terms, ...(words.alternative ?? [])])].filter((t) => termWord(t) === t);
  const fixes = index.corrections(plain);
  const fixed = new Map(plain.flatMap((t, i) => (fixes[i] === undefined ? [] : [[t, fixes[i]] as const])));
  if (fixed.size === 0) return words;
  const fix = (terms: readonly string[]) => [...new Set(terms.flatMap((t) => [t, fixed.get(t) ?? t]))];
  return { ...words, terms: fix(words.terms), ...(words.alternative && { alternative: fix(words.alternative) }) };
}

/**
 * `signal` stops realtime_content's live fetches early (the caller went away); `gone` says the
 * caller went away, and a search that reads in turns of the event loop (webql's reads, a standard
 * query's asked again as webql) stops at the next with `client_closed_request`.
 */
export async function search(deps: SearchDeps, req: SearchRequest, signal?: AbortSignal, gone?: () => boolean): Promise<SearchResponse> {
  // A webql syntax error is a 400 here, after the tier admitted the call; the tier releases the reservation.
  const webql = req.mode === 'webql' ? parseWebql(req.query, req.queryOffset) : undefined;
  // webql reads its own `site:`; a standard query's `site:` is its site filter, its `-site:`s sites
  // left out (its `after:` and `before:` were read at the edge, into the published window).
  const text = req.text ?? req.query;
  const named = webql ? undefined : siteInQuery(text, req.site);
  if (named?.sites?.length === 0) return { query: req.query, results: [] };
  const standard: StandardWords = webql ? { terms: positiveWords(webql), webql } : spelledRight(deps.index, standardWords(named?.text ?? text));
  const { excludePhrases, requireFields, excludeFields, ...words } = standard;
  const fileType = requireFields?.find((f) => f.kind === 'filetype');
  const notFileType = excludeFields?.find((f) => f.kind === 'filetype');
  const inUrl = requireFields?.find((f) => f.kind === 'inurl');
  // A phrase left out, as `hasPhrase` reads it: its words' keys.
  const leftOut = excludePhrases?.map((ws) => ws.map(wordKey));
  const passes =
    leftOut || requireFields || excludeFields
      ? async (v: ResultVersion) =>
          (requireFields ?? []).every((f) => pageMatches(f, v.url, v.mediaType)) &&
          !(excludeFields ?? []).some((f) => fieldHolds(f, v)) &&
          !(leftOut && (await holdsPhrase(deps.pages, v, leftOut)))
      : undefined;
  const asked = {
    ...words,
    // One site named is the site filter; several, the sites a page must be of one of (each narrowed by the field's).
    site: named?.sites?.length === 1 ? named.sites[0] : req.site,
    ...(named?.sites && named.sites.length > 1 && { anySites: named.sites }),
    ...(named?.exclude && { excludeSites: named.exclude }),
    acquiredAfter: req.acquiredAfter,
    acquiredBefore: req.acquiredBefore,
    publishedAfter: req.publishedAfter,
    publishedBefore: req.publishedBefore,
    queryTime: req.queryTime,
    // The index keeps to a filetype:'s pages, to a -filetype:'s others, or to an inurl:'s, where it can look them up (the check still decides).
    ...(fileType && { fileType: fileType.ext }),
    ...(notFileType && { notFileType: notFileType.ext }),
    ...(inUrl && { inUrl: inUrl.text }),
    ...(gone && { stopped: gone }),
  };
  const first = await ranked(deps, asked, req.maxResults, passes);
  // The best CHECKED_CANDIDATES_MAX left fewer than asked for: the query is asked again as webql
  // asks it, every page of its words decided, so no page that passes the check is missed.
  const exact = first.cut ? exactQuery(standard) : undefined;
  let versions = exact ? (await ranked(deps, { ...asked, webql: exact, excludeTerms: undefined, alternative: undefined }, req.maxResults)).versions : first.versions;
  if (versions.length > req.maxResults) versions = versions.slice(0, req.maxResults);
  // The engine stemmed the same terms just now; a title's stop word is looked for in the text as the word it is.
  const stems = [...words.terms, ...(words.alternative ?? [])].map((t) => cachedStem(termWord(t)));
  const query = new SnippetQuery(stems, snippetWeights(deps.index, stems));
  const shared = sharedDescriptions(versions);
  const results = versions.map((v) => toResult(v, query, req.snippetMaxLength, shared));
  if (req.mode === 'realtime_content') await refresh(deps, results, query, req.snippetMaxLength, signal);
  return { query: req.query, results };
}
