/**
 * webql answered by the engine (README "webql"). The engine has no positions and no fields of its
 * own (one weighted frequency per term and document), so a webql query runs in two steps:
 *
 * 1. Candidates from the engine (`allMatches`): the documents the request's filters accept (with a
 *    top-level `site:` among them, `narrowerSite`) that hold any word of the expression's positive
 *    text items (every accepted document when one without any of them could match: fields only,
 *    or items made only of stop words, which the engine does not index), each with its BM25 score
 *    and which of the expression's words it holds, excluded ones included. A document that lacks
 *    a word every match must hold (`mayMatch`) is dropped there, and so is one whose filter of
 *    pairs (pair-filter.ts) lacks a pair of words side by side of a phrase every match holds
 *    (MatchRequest `phrases`). The candidates of a top-level
 *    `filetype:`, `lang:` or `url:` are those of its versions when the store looks them up (few
 *    enough: IndexQuery `fileType`, `inLanguage`, `underUrl`).
 *    A word every match holds in its title must be held at least the title's weight of times
 *    (`titleTerms`, MatchRequest `floors`): the pages holding it in their text alone, fewer
 *    times, are none. So must a stop word it holds there, as a title's stop words are terms of
 *    their own (`stopTerm`): `title:"to be or not to be"` read every page before.
 * 2. In rank order, in batches, the expression is decided from the terms each candidate holds and
 *    its URL where they tell (`decide`: a lacking word fails its item, and so does a phrase whose
 *    pair the candidate's filter of pairs lacks; one word held but not in the URL is in the text).
 *    The segments keep a filter of each URL's words (`urlMask`), which
 *    tells most words' absence from the URL without a read; the candidates left are read from
 *    the page store, and decided from their URL and language, else on the stored version
 *    (`matches`): a text item's words, stemmed, must stand side by side in the title, the
 *    description or the content (the title only with `title:`); site, url, inurl and lang against
 *    the page's URL and the version's language; filetype against the URL and the media type the
 *    version was served as. It stops once `limit` versions matched, or once
 *    `WEBQL_READS_MAX` candidates or `WEBQL_READ_CHARS_MAX` characters of their texts were read
 *    (the matches among them answer). With many
 *    candidates ranked by some words, the best few are listed and read first, from the engine's
 *    top k of those words (`WEBQL_BEST_FIRST`), and the whole listing only when they fall short.
 *    With a top-level `inurl:`, once reading has gone on long (`PAGES_PER_READ`), the pages whose
 *    URL holds its text are looked up (`inUrl`) and only their candidates read on: a rare text
 *    among many candidates read them all (2.8 s at 1M for `expression inurl:/doc/0`). So are
 *    the versions of a top-level `lang:` or `url:` that were too many to keep the candidates to.
 *
 * Ranking, as before the engine served webql: BM25 over the words of the top-level items that are
 * text alone (terms, phrases, their OR groups and exclusions), and over the words that only rank
 * (a standard query's beside its quoted phrases); an expression without such words lists the
 * newest versions first.
 */
import { performance } from 'node:perf_hooks';
import { domainToUnicode } from 'node:url';
import { stemHash } from '../../core/passages.js';
import { hasPhrase, wordKey } from '../../core/phrase.js';
import { cachedStem, indexTerms, STOP_WORDS, stopTerm, termPrefix, termWord } from '../../core/text.js';
import { reverseHost } from '../../core/url.js';
import { pageMatches, type WebqlNode } from '../../core/webql.js';
import type { IndexHit } from '../../ports/index-store.js';
import { hostOfMatch, type Matches, type MatchRequest, type Newest, phrasesRuledOut, urlMaskOf } from './engine.js';
import { phrasePairs } from './pair-filter.js';
import { lowerBound } from './segment.js';

/** What the check of a version reads: `title`, `description` and `content` empty unless read with them (`read(ids, true)`). */
export interface WebqlVersion {
  id: number;
  url: string;
  revHost: string;
  /** The media type the version was served as (`pageMatches`), null when it was stored before they were kept. */
  mediaType: string | null;
  lang: string | null;
  title: string;
  description: string;
  content: string;
}

export interface WebqlDeps {
  /** The engine's candidates (`allMatches`, which lets the event loop turn as it goes); only those of the versions `only` (ascending), when given. */
  matches(request: MatchRequest, only?: Float64Array): Promise<Matches>;
  /**
   * The engine's top `k` for the stems `terms` among the versions the filters accept (`searchTopK`),
   * best first; undefined where the store would rather list every candidate.
   */
  best(terms: readonly string[], k: number): Promise<IndexHit[] | undefined>;
  /**
   * The versions of the `k` newest documents the filters accept that hold the stem `held` (any,
   * without it), and of any other such acquired as late as the k-th (`newestAccepted`), for a query
   * with no ranking word; undefined where the store would rather list every candidate.
   */
  newest(k: number, held?: string): Promise<Newest | undefined>;
  /** Lets the event loop turn between reads; rejects once the query's caller has gone (IndexQuery `stopped`), and the query ends there. */
  turn(): Promise<void>;
  /** The documents that hold a stem. */
  df(stem: string): number;
  /** The documents under a reversed host (`reverseHost`) and its subdomains, the deleted and superseded counted. */
  siteDocs(revHost: string): number;
  /**
   * The versions (ascending) a `lang:`, `url:`, `inurl:` or `filetype:` item may match, when the
   * store's lookups find few (those a top-level one keeps the candidates to: `inLanguage`; of
   * `inurl:`, only while the pages' URLs are in memory); undefined when they are many, or for
   * another item.
   */
  itemVersions(item: WebqlNode): Float64Array | undefined;
  /**
   * How many documents hold every one of these stems (the deleted and superseded counted) and may
   * hold every one of these pairs of words side by side (their filters of pairs); once past `max`,
   * or on course to pass twice it (`heldByAll`), Infinity.
   */
  together(stems: readonly string[], max: number, pairs?: readonly number[]): number;
  /** About how many documents hold a stem at least `floor` times (a sample of its postings). */
  heldAtLeast(stem: string, floor: number): number;
  /**
   * What a word in a version's title adds to the weighted frequency of its term (the engine's
   * title weight, rounded down as the postings keep frequencies): a version whose title holds a
   * word has at least that of its term.
   */
  titleWeight: number;
  /**
   * The least that a word in a version's title, description or content adds to the weighted
   * frequency of its term (the smallest of those fields' weights above 0): a version holding a
   * phrase with a word twice holds its term at least twice that, rounded down (`floorsOf`).
   */
  textWeight: number;
  /**
   * The versions of these ids that still exist, in any order. A read with the texts but not
   * `withUrl` leaves `url` and `revHost` empty and `mediaType` null (the page is not looked up);
   * one without the texts is for the URL, media type and language, and reads them whatever
   * `withUrl` says.
   */
  read(ids: readonly number[], withText: boolean, withUrl: boolean): WebqlVersion[];
  /**
   * The ids of the versions whose language is `tag` or under it (`en`: `en-gb`), or undefined when
   * there are more than `max` or `matches` is already kept to them.
   */
  inLanguage(tag: string, max: number): Set<number> | undefined;
  /**
   * The ids of the versions whose page's URL is under `url:prefix` (`urlPrefixes`), or undefined
   * when there are more than `max` or `matches` is already kept to them.
   */
  underUrl(prefix: string, max: number): Set<number> | undefined;
  /**
   * The ids of the versions whose page's URL may hold `text` (`inurl:`): every one that does, and
   * any other the store cannot rule out cheaply (a superset; each is still checked). Costs a scan
   * of the pages, unless the store holds their URLs in memory.
   */
  inUrl(text: string): Promise<Set<number>>;
  /** The number of pages, for when a scan of them (`inUrl`) costs less than reading on (asked only with a top-level `inurl:`). */
  pages(): number;
  /** The most candidates read (WEBQL_READS_MAX). */
  readsMax: number;
  /** The most characters of text read (WEBQL_READ_CHARS_MAX). */
  readCharsMax: number;
  /** When the best candidates are read first (WEBQL_BEST_FIRST). */
  bestFirst: BestFirst;
  /**
   * Asks another thread (the search helper, over its own connection to the same file) to check
   * `job`'s candidates with this one, each thread claiming groups of them in turn (`checkClaimed`);
   * undefined when none can take it now (none, or a batch too small to pay for the message:
   * engine-index-store.ts ASIDE_MIN). The promise settles when that thread is done with the job;
   * it rejects when that thread failed, and the candidates it left are checked here.
   */
  checkAside?(job: CheckJob): Promise<void> | undefined;
  /**
   * False (for tests): this thread claims none of a job `checkAside` took, and waits for the other
   * thread to check them all (up to a minute), so that thread's checks are what a test compares.
   */
  claimsHere?: boolean;
}

/**
 * Candidates to read and check (`checkCandidates`), as data another thread can take
 * (`WebqlDeps.checkAside`): typed arrays, posted to the helper in a quarter of the time arrays of
 * numbers took (15 against 40-60 us a batch, ad hoc), and the claims and verdicts in shared memory.
 */
export interface CheckJob {
  node: WebqlNode;
  /** The terms the engine was asked for, which the bits of `held` are (`planTexts`). */
  terms: readonly string[];
  /** Whether the reads look up the page's URL (`WebqlDeps.read`). */
  withUrl: boolean;
  ids: Float64Array;
  /** Each candidate's terms held (`Matches.held`), and its URL filter's low and high words (`urlMaskOf`). */
  held: Int32Array;
  lo: Uint32Array;
  hi: Uint32Array;
  /** Shared: the next candidate to claim, and the candidates done (checked, or left UNCHECKED by a failure). */
  state: Int32Array;
  /** Shared: each candidate's verdict (`Checked`), UNCHECKED until one is made. */
  verdicts: Int8Array;
  /** Shared: the characters of text the other thread read. */
  chars: Float64Array;
}

/** What `checkCandidates` found: each candidate's 1 (a match), 0 (no match) or -1 (gone since the segments were built), and the characters of text read. */
export interface Checked {
  verdicts: Int8Array;
  chars: number;
}

/** A candidate of a shared job no thread has checked. */
const UNCHECKED = 2;
const NEXT = 0;
const DONE = 1;
/**
 * The candidates a thread claims at a time from a shared job: a read of 16 rows (about 0.15 ms),
 * so the serving thread, done with its claims, waits at most that long for the helper's last.
 */
const CLAIM = 16;
/** The longest the serving thread waits for the helper's last claim before checking it itself (WebqlDeps `claimsHere` false: a minute). */
const CLAIM_WAIT_MS = 20;

/**
 * A job of the candidates `is` (best first) of `found`-like arrays, with URL filters `masks`; its
 * state, verdicts and characters in shared memory when another thread may take it (`shared`).
 */
function checkJob(
  node: WebqlNode,
  terms: readonly string[],
  withUrl: boolean,
  ids: Float64Array,
  held: Int32Array,
  is: readonly number[],
  masks: readonly [number, number][],
  shared: boolean,
): CheckJob {
  const buffer = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  return {
    node,
    terms,
    withUrl,
    ids: Float64Array.from(is, (i) => ids[i]!),
    held: Int32Array.from(is, (i) => held[i]!),
    lo: Uint32Array.from(masks, (m) => m[0]),
    hi: Uint32Array.from(masks, (m) => m[1]),
    state: new Int32Array(buffer(8)),
    verdicts: new Int8Array(buffer(is.length)).fill(UNCHECKED),
    chars: new Float64Array(buffer(8)),
  };
}

/**
 * Reads the candidates [from, to) of `job` and decides each, as a batch of webql's reads does:
 * first read with their texts when some item cannot be decided without them (`textItems`), else
 * without, and decided from their URL and language where that tells; then the texts of those
 * left, and the whole check.
 */
export function checkCandidates(read: WebqlDeps['read'], job: CheckJob, plans: Plans = planTexts(job.node, job.terms), from = 0, to = job.ids.length): Checked {
  const { node, ids, held, lo, hi, withUrl } = job;
  const text = textItems(node);
  const rows = new Map<number, VersionWords>();
  let chars = 0;
  const readRows = (ks: number[], withText: boolean) => {
    if (ks.length === 0) return;
    for (const v of read(ks.map((k) => ids[k]!), withText, withUrl)) {
      rows.set(v.id, new VersionWords(v));
      if (withText) chars += v.title.length + v.description.length + v.content.length;
    }
  };
  const all = Array.from({ length: to - from }, (_, k) => from + k);
  readRows(all, text.undecidable);
  const decided = all.map((k) => {
    const w = rows.get(ids[k]!);
    return w && decide(node, w, held[k]!, lo[k]!, hi[k]!, plans);
  });
  if (text.any && !text.undecidable) readRows(all.filter((k, n) => decided[n] === undefined && rows.has(ids[k]!)), true);
  const verdicts = new Int8Array(all.length);
  for (const [n, k] of all.entries()) {
    let d = decided[n];
    if (d === undefined) {
      const w = rows.get(ids[k]!);
      if (!w) {
        verdicts[n] = -1;
        continue;
      }
      d = matches(node, w, plans, held[k]!);
    }
    verdicts[n] = d ? 1 : 0;
  }
  return { verdicts, chars };
}

/**
 * Checks `job`'s candidates a group at a time (CLAIM), each group claimed from the shared state,
 * which the other thread claims from too, until none is left; each verdict goes to the shared
 * verdicts and each group done is counted (and waited-for threads woken). `there`: this is the
 * other thread, whose characters read the job keeps. Returns how many candidates were checked
 * here and the characters read. A group whose check throws is counted done but left UNCHECKED,
 * and the error thrown.
 */
export function checkClaimed(read: WebqlDeps['read'], job: CheckJob, plans: Plans = planTexts(job.node, job.terms), there = false): { checked: number; chars: number } {
  const n = job.ids.length;
  const { state } = job;
  let checked = 0;
  let chars = 0;
  for (;;) {
    const from = Atomics.add(state, NEXT, CLAIM);
    if (from >= n) return { checked, chars };
    const to = Math.min(n, from + CLAIM);
    try {
      const part = checkCandidates(read, job, plans, from, to);
      job.verdicts.set(part.verdicts, from);
      checked += to - from;
      chars += part.chars;
      if (there) job.chars[0] = chars;
    } finally {
      Atomics.add(state, DONE, to - from);
      Atomics.notify(state, DONE);
    }
  }
}

/** The filter of a candidate when no item uses one: `decide` reads it only for one-word items. */
const NO_MASK: [number, number] = [0, 0];

/**
 * Candidates checked by the first read; each read after doubles, up to the largest. The event loop
 * turns between reads, so the largest bounds how long one holds it: 1,024 random versions with
 * their texts took 27.8 ms at 1M (median of 20, warm; 1.5 s cold), 256 took 5.0 ms (ad hoc).
 */
const FIRST_READ = 32;
const LARGEST_READ = 256;
/**
 * The most candidates taken between turns of the event loop when their terms and URLs decide them
 * (no read): about 2 ms of deciding. Taken 256 at a time, the 700,000 candidates of `cells
 * promotes -cell` (none matches) turned the loop 2,700 times.
 */
const DECIDED_MAX = 8_192;
/**
 * A top-level `inurl:` is looked up (`inUrl`, a scan of the pages), and a `lang:` or `url:` of
 * many versions (`inLanguage`, `underUrl`, about 1 us a version), once the candidates read (not
 * those decided without a read) without filling the page outnumber the pages divided by this: a
 * candidate read and checked costs about as much as scanning 75 pages' URLs (at 1M, timed ad hoc:
 * 2.7 s for the 435,802 candidates of `expression inurl:/doc/0`, 6.3 us each, against 84 ms for
 * the scan), so reading first costs at most about twice what the better of the two would have.
 */
const PAGES_PER_READ = 64;

/**
 * A query listing many candidates (the postings of its rarest required word, or of all its words),
 * ranked by some words, reads the best of them first, in tiers: the best 64 where it lists more than
 * 16,384, then the best 256 (more than 32,768), then 2,048 (more than 131,072), then all. Listing
 * every one and scoring it with every word was most of such a query's time (`(cells OR promotes)
 * cell` lists 741,116 at 1M), and the first reads fill the page of most. With a phrase or a field,
 * whose best candidates fail more often, only when ranked by at most `words` words, or when one word
 * is all a match must hold (a `title:` word's pages counted as those holding it as often as its
 * floor, from a sample): with two or more, the listing is their common pages, which may be few, and
 * the top k of a long query's words (a standard query's claim beside its quoted phrase) cost more
 * than the listing it spared. `npm run bench:webql-tiers` at 1M (100 claims' queries, totals of
 * each query's median of 3, in ms): `(a OR b) c` 1,591 without tiers, 448 with the top 128 alone,
 * 332 with 64, 292 with the three tiers here; `a b -c` 1,046, 647, 501 and 512; `a inurl:` 2,919,
 * 633, 2,253 and 608; `title:a b` 519, 455, 462 and 323. With no limit on the ranking words,
 * standard `"a b"` claims 1,939 without, 2,558 with, `intitle:"a b"` claims p99 21.6 and 41.2 ms.
 */
export const WEBQL_BEST_FIRST: BestFirst = {
  tiers: [
    { from: 16_384, k: 64 },
    { from: 32_768, k: 256 },
    { from: 131_072, k: 2_048 },
  ],
  words: 4,
  few: 1_024,
};

/** When a webql query reads its best candidates first, and how many (WEBQL_BEST_FIRST). */
export interface BestFirst {
  /**
   * The best `k` first where more than `from` candidates are listed (the postings of the rarest
   * required word, or of all the words), then the next tier's, ascending.
   */
  tiers: readonly { from: number; k: number }[];
  /** With a phrase or a field, the most ranking words it does for. */
  words: number;
  /**
   * With several words every match holds, each on more pages than the first tier's `from`: none
   * of the tiers when at most this many pages hold them all (`WebqlDeps.together`, counted up to
   * it). Reading them all costs at most about this many reads, where the tiers' top k of the
   * ranking words, over pages that mostly hold one of them, rarely fill the page: at 1M,
   * `"presence appearance" sites` lists 756 of the 68,447 pages of its rarest word, and took
   * 18-24 ms instead of 67-118 asked once among other queries (`npm run bench:random-queries --
   * --seed 4`; warm, asked again and again, 17-26 ms either way, ad hoc). Counting costs about a
   * pass over the rarest word's list (0.6 ms a query on average there, by a timer, ad hoc). Much higher, the tiers were left out
   * for phrases of two words side by side on some of the few thousand pages holding both, which
   * the first tier's pages fill (bench:webql-tiers' `phrase "a b"`, p50 4.7 ms with 1,024 and 6.9
   * with 16,384, 4.8 with 0).
   */
  few: number;
}

/**
 * The most candidates a query reads the stored version of (those decided from their words and URL
 * alone are not counted); past them it ends with the matches found, the best of the candidates
 * read. The index holds a page's stop words only in its title, so `"to be or not to be"` has every
 * page as a candidate, and with no page holding it read every page: 9.2 s at 1M (before the
 * filters of pairs, which now leave it the pages whose filters hold its pairs). A read with the
 * texts costs 9-13 us there, so this bounds a query's reads near half a second; the slowest phrase
 * of bench:webql's shapes read 14,000 before those filters.
 */
export const WEBQL_READS_MAX = 50_000;

/**
 * The most characters of text (titles, descriptions and contents) a query reads; past them it ends
 * as past `WEBQL_READS_MAX`. A read's cost grows with its page: a page of 20 kB costs 0.1-0.3 ms
 * to read and look through for a phrase, so over pages of that size the reads' bound alone let a
 * phrase of two common words that are rarely side by side take 12-14 s at 60,000 pages
 * (docs/BENCHMARKS.md, "The fifty-eighth session"). This bound is about
 * what 50,000 of the 1M benchmark's pages hold (about 1,300 characters with their titles and
 * descriptions), so it ends a query over such pages where the other would, and over larger pages
 * after as much reading.
 */
export const WEBQL_READ_CHARS_MAX = 64_000_000;

type TextNode = Extract<WebqlNode, { kind: 'text' }>;

/**
 * The terms the engine indexes for a URL's text (`urlText`): its words, a slug's hyphenated words
 * not joined as a page's compounds are (engine-index-store's `fieldsOf` says the same).
 */
export function urlTerms(text: string): string[] {
  return indexTerms(text, false);
}

/**
 * The text of a URL that the engine indexes (engine-index-store's `fieldsOf`): without its scheme,
 * an internationalized host in its own letters (xn--wgv71a119e.jp is 日本語.jp) and each run of
 * percent-escapes that is UTF-8 decoded (/wiki/Stra%C3%9Fe is /wiki/Straße), so a URL's words are
 * those a person reads in it, not the hex of its bytes. A run that is not UTF-8 stays as it is.
 */
export function urlText(url: string): string {
  let text = url.replace(/^https?:\/\//, '');
  if (text.includes('xn--')) {
    const { hostname } = new URL(url); // a stored URL is normalized (core/url.ts): no user info, so the host comes first
    text = text.replace(hostname, domainToUnicode(hostname) || hostname);
  }
  return text.includes('%') ? text.replace(ESCAPES_RE, decodeEscapes) : text;
}
const ESCAPES_RE = /(?:%[0-9a-f]{2})+/gi;

function decodeEscapes(run: string): string {
  try {
    return decodeURIComponent(run);
  } catch {
    return run;
  }
}

/** A stem's two bits in a URL filter (`urlMask`), as its low and high word. */
function urlBits(stem: string): [number, number] {
  const h = stemHash(stem);
  const bits: [number, number] = [0, 0];
  for (const at of [h & 63, (h >>> 6) & 63]) bits[at >>> 5]! |= 1 << at;
  return bits;
}

/**
 * The terms of a URL as a 64-bit Bloom filter of two bits a stem (segment.ts `SegmentDoc.urlMask`):
 * a stem whose bits are not both set is not among them. A URL gives a handful of terms, so about
 * one stem in 30 that it lacks finds both set. With one bit of 32, words every URL of a site holds
 * (`doc`, `www`) took a bit each, and a query word that shared one was never decided that way:
 * `cell` shares `doc`'s (the benchmark's URLs).
 */
export function urlMask(url: string): [number, number] {
  const mask: [number, number] = [0, 0];
  for (const t of urlTerms(urlText(url))) {
    const [lo, hi] = urlBits(t);
    mask[0] |= lo;
    mask[1] |= hi;
  }
  return mask;
}

/** A text item's words as the engine indexes them: stemmed, stop words left out. */
function indexedStems(node: TextNode): string[] {
  return node.words.filter((w) => !STOP_WORDS.has(w)).map(cachedStem);
}

/**
 * The stems of the words of the positive text items (`excluded` false) or of the excluded ones,
 * in first-seen order, each once; `under` is true below a `-`.
 */
function itemStems(node: WebqlNode, out: string[], excluded: boolean, under = false): string[] {
  switch (node.kind) {
    case 'text':
      if (under === excluded) for (const s of indexedStems(node)) if (!out.includes(s)) out.push(s);
      break;
    case 'not':
      itemStems(node.child, out, excluded, true);
      break;
    case 'and':
    case 'or':
      for (const c of node.children) itemStems(c, out, excluded, under);
      break;
    default:
  }
  return out;
}

/** The items of the expression's top level: an AND's children, or the expression alone. */
export function topItems(node: WebqlNode): readonly WebqlNode[] {
  return node.kind === 'and' ? node.children : [node];
}

/**
 * What every match holds of what `of` says a positive text item holds: each item's of an AND, what
 * every item of an OR holds; nothing of an exclusion or a field but text.
 */
function everyMatchHolds(node: WebqlNode, of: (item: TextNode) => string[]): string[] {
  switch (node.kind) {
    case 'text':
      return of(node);
    case 'and':
      return [...new Set(node.children.flatMap((c) => everyMatchHolds(c, of)))];
    case 'or': {
      const [first, ...rest] = node.children.map((c) => everyMatchHolds(c, of));
      return first!.filter((s) => rest.every((r) => r.includes(s)));
    }
    default:
      return [];
  }
}

/** The pairs of words side by side (`TextPlan.pairs`) every match holds: those of the phrases every way of matching needs. */
function requiredPairs(node: WebqlNode, plans: Plans): number[] {
  return everyMatchHolds(node, (item) => plans.get(item)!.pairs.map(String)).map(Number);
}

/** The stems every match holds: those of the positive text items every way of matching needs. */
function requiredStems(node: WebqlNode): string[] {
  return everyMatchHolds(node, indexedStems);
}

/**
 * Terms every match holds in its title: of a `title:` item its words' stems, and its stop words
 * as a title's are terms (`stopTerm`), which no other field gives.
 */
function titleTerms(node: WebqlNode): string[] {
  return everyMatchHolds(node, (item) => (item.field === 'title' ? [...new Set(item.words.map((w) => (STOP_WORDS.has(w) ? stopTerm(w) : cachedStem(w))))] : []));
}

/**
 * The floors of the terms every match holds (MatchRequest `floors`): how often at least, in the
 * weighted frequency the postings keep. A text item is held in one field, each of its words adding
 * that field's weight to its term: a `title:` item's (its stop words as a title's terms,
 * `stopTerm`) the title's weight, another's at least the smallest text weight. So a term the item
 * holds k times has a floor of k times that weight, rounded down, kept when above 1: a common
 * word's pages mostly hold it once, in their text alone, and are no candidates (`title:rate`,
 * `"side by side"`, `"deletion deleting"` whose words stem alike: it read every page holding
 * `delet`, 400 ms at 1M). Of an AND the highest of its items', of an OR the lowest of those every
 * item has; none of an exclusion or another field.
 */
function floorsOf(node: WebqlNode, titleWeight: number, textWeight: number): Map<string, number> {
  switch (node.kind) {
    case 'text': {
      const title = node.field === 'title';
      const counts = new Map<string, number>();
      const held = title ? node.words.map((w) => (STOP_WORDS.has(w) ? stopTerm(w) : cachedStem(w))) : indexedStems(node);
      for (const t of held) counts.set(t, (counts.get(t) ?? 0) + 1);
      const out = new Map<string, number>();
      for (const [t, k] of counts) {
        const floor = Math.floor(k * (title ? titleWeight : textWeight));
        if (floor > 1) out.set(t, floor);
      }
      return out;
    }
    case 'and': {
      const out = new Map<string, number>();
      for (const c of node.children) for (const [t, f] of floorsOf(c, titleWeight, textWeight)) out.set(t, Math.max(f, out.get(t) ?? 0));
      return out;
    }
    case 'or': {
      const [first, ...rest] = node.children.map((c) => floorsOf(c, titleWeight, textWeight));
      const out = new Map<string, number>();
      for (const [t, f] of first!) {
        let least = f;
        for (const r of rest) least = Math.min(least, r.get(t) ?? 0);
        if (least > 1) out.set(t, least);
      }
      return out;
    }
    default:
      return new Map();
  }
}

/** What every match holds one of (`leadsOf`): a stem, a page under a host (reversed), or one of some versions, and how many postings and pages those are. */
interface Leads {
  stems: string[];
  sites: string[];
  versions: Float64Array[];
  postings: number;
}

/**
 * Stems of which every match holds one, and their postings together: of a text item its rarest
 * word, of an AND its cheapest item's, of an OR every item's (`e-mail`, `"e mail" OR email`:
 * `mail` or `email`); undefined when a match may hold none (an exclusion, a field but `title:`, an
 * item of stop words alone). With `more`, the hosts of `site:` and `url:` items (`itemHost`) lead
 * too, their pages counted as postings (`(lime OR site:a.test) (fig OR url:https://b.test/)`: a
 * match holds `fig` or is on b.test), and so do the versions of other `url:`, and of `inurl:`,
 * `lang:` and `filetype:` items when the store finds them few (`itemVersions`); without, such an
 * item is one a match may hold none for.
 */
function leadsOf(node: WebqlNode, df: (stem: string) => number, more?: Pick<WebqlDeps, 'siteDocs' | 'itemVersions'>): Leads | undefined {
  switch (node.kind) {
    case 'text': {
      let best: string | undefined;
      let postings = Infinity;
      for (const s of indexedStems(node)) {
        const d = df(s);
        if (d < postings) [best, postings] = [s, d];
      }
      return best === undefined ? undefined : { stems: [best], sites: [], versions: [], postings };
    }
    case 'site':
    case 'url':
    case 'inurl':
    case 'lang':
    case 'filetype': {
      if (more === undefined) return undefined;
      const host = itemHost(node);
      if (host !== undefined) return { stems: [], sites: [host], versions: [], postings: more.siteDocs(host) };
      const versions = more.itemVersions(node);
      return versions === undefined ? undefined : { stems: [], sites: [], versions: [versions], postings: versions.length };
    }
    case 'and': {
      let best: Leads | undefined;
      for (const c of node.children) {
        const l = leadsOf(c, df, more);
        if (l !== undefined && (best === undefined || l.postings < best.postings)) best = l;
      }
      return best;
    }
    case 'or': {
      const stems = new Set<string>();
      const sites = new Set<string>();
      const versions: Float64Array[] = [];
      let postings = 0;
      for (const c of node.children) {
        const l = leadsOf(c, df, more);
        if (l === undefined) return undefined;
        for (const s of l.stems) stems.add(s);
        for (const h of l.sites) sites.add(h);
        versions.push(...l.versions);
        postings += l.postings;
      }
      return { stems: [...stems], sites: [...sites], versions, postings };
    }
    default:
      return undefined;
  }
}

/**
 * The reversed host (`reverseHost`) of a `site:` every match must be under, when the expression
 * has one at its top level and it is under `requested` (the request's own site, if any): the
 * engine's filter can then take it instead, inside the traversal.
 */
export function narrowerSite(node: WebqlNode, requested: string | undefined): string | undefined {
  for (const c of topItems(node)) {
    if (c.kind !== 'site') continue;
    const rev = reverseHost(c.host);
    if (requested === undefined || rev.startsWith(requested)) return rev;
  }
  return undefined;
}

/**
 * The reversed hosts of an OR of `site:` items alone at the expression's top level (`(site:a.test
 * OR site:b.test) cells`): every match is under one of them, which the engine's filter can take
 * (EngineFilter `anyRevSites`), as it takes a request's sites.
 */
export function eitherSites(node: WebqlNode): string[] | undefined {
  for (const c of topItems(node)) {
    if (c.kind === 'or' && c.children.every((s) => s.kind === 'site')) return c.children.map((s) => itemHost(s)!);
  }
  return undefined;
}

/** The items of an expression (text, site, url, inurl, filetype, lang), under its groups and exclusions. */
function leaves(node: WebqlNode): Exclude<WebqlNode, { kind: 'and' | 'or' | 'not' }>[] {
  switch (node.kind) {
    case 'not':
      return leaves(node.child);
    case 'and':
    case 'or':
      return node.children.flatMap(leaves);
    default:
      return [node];
  }
}

/** Whether a node is text alone: terms, phrases, their groups and exclusions, no field. */
function textOnly(node: WebqlNode): boolean {
  return leaves(node).every((item) => item.kind === 'text' && item.field === undefined);
}

/** Whether a node has a text item, and whether it has one that only the stored text can ever find true (`decide`). */
function textItems(node: WebqlNode): { any: boolean; undecidable: boolean } {
  const texts = leaves(node).filter((item) => item.kind === 'text');
  return {
    any: texts.length > 0,
    undecidable: texts.some((t) => t.field !== undefined || t.words.length !== 1 || STOP_WORDS.has(t.words[0]!)),
  };
}

/** Whether some item of the expression is decided on the page's URL: `site:`, `url:`, `inurl:`, `filetype:`. */
function looksAtUrl(node: WebqlNode): boolean {
  return leaves(node).some((item) => item.kind === 'site' || item.kind === 'url' || item.kind === 'inurl' || item.kind === 'filetype');
}

/** What the checks need of a text item, made once per search (`planTexts`). */
interface TextPlan {
  /** Its words as `hasPhrase` compares them (`wordKey`). */
  phrase: string[];
  /** The bits (bit j: `terms[j]`, for the first 31) of its indexed words. */
  need: number;
  /** Its one indexed word, when it is one word with no field and that word has a bit: holding it outside the URL decides the item. */
  word: string | undefined;
  /** That word's bits in a URL filter (`urlMask`), low and high word. */
  urlBits: [number, number];
  /** Its pairs of words side by side (pair-filter.ts `phrasePairs`), when it has some and is one of the first 31 such items. */
  pairs: number[];
  /** Its bit among the items with pairs (`phrasesRuledOut`), 0 for none. */
  pairBit: number;
}

type Plans = ReadonlyMap<TextNode, TextPlan>;

/** The plan of every text item of the expression, given the terms the engine is asked for. */
function planTexts(node: WebqlNode, terms: readonly string[], plans = new Map<TextNode, TextPlan>()): Map<TextNode, TextPlan> {
  switch (node.kind) {
    case 'text': {
      const stems = indexedStems(node);
      let need = 0;
      let known = stems.length > 0;
      for (const s of stems) {
        const j = terms.indexOf(s);
        if (j < 0 || j >= 31) known = false;
        else need |= 1 << j;
      }
      const word = known && node.field === undefined && node.words.length === 1 ? stems[0] : undefined;
      const phrase = node.words.map(wordKey);
      const paired = [...plans.values()].filter((p) => p.pairBit !== 0).length;
      const pairs = phrase.length > 1 && paired < 31 ? phrasePairs(phrase) : [];
      plans.set(node, { phrase, need, word, urlBits: word === undefined ? [0, 0] : urlBits(word), pairs, pairBit: pairs.length > 0 ? 1 << paired : 0 });
      break;
    }
    case 'not':
      planTexts(node.child, terms, plans);
      break;
    case 'and':
    case 'or':
      for (const c of node.children) planTexts(c, terms, plans);
      break;
    default:
  }
  return plans;
}

/**
 * Whether what every match must satisfy (an AND's items, nested ANDs' too) contradicts itself: a
 * text item and the exclusion of words it holds side by side, anywhere or in its field (`cells
 * -cell`, `"heart attack" -attack`, `title:cell -cell`; not `cell -title:cell`). No version can
 * match (`matches`: the item's field holds its words, so they hold the excluded run), but the
 * listing would decide every candidate of the item's words to find that out: `cells promotes
 * -cell`, a claim's first three words in bench:webql, took 125-180 ms at 1M for no result.
 */
function contradicts(node: WebqlNode, plans: Plans): boolean {
  const items = conjuncts(node);
  const held = items.filter((i): i is TextNode => i.kind === 'text');
  return items.some((i) => {
    if (i.kind !== 'not' || i.child.kind !== 'text') return false;
    const { field } = i.child;
    const run = plans.get(i.child)!.phrase;
    return run.length > 0 && held.some((h) => (field === undefined || field === h.field) && holdsRun(plans.get(h)!.phrase, run));
  });
}

/** The items of an AND, those of the ANDs among them in their place; any other node is its own one item. */
function conjuncts(node: WebqlNode): WebqlNode[] {
  return node.kind === 'and' ? node.children.flatMap(conjuncts) : [node];
}

/** Whether `run` is in `phrase`, its words side by side. */
function holdsRun(phrase: readonly string[], run: readonly string[]): boolean {
  for (let i = 0; i + run.length <= phrase.length; i++) {
    let k = 0;
    while (k < run.length && phrase[i + k] === run[k]) k++;
    if (k === run.length) return true;
  }
  return false;
}

/**
 * `mayMatch` as a test of the terms a document holds (`TextPlan.need` bits) and of the phrases its
 * filter of pairs rules out (`TextPlan.pairBit` bits): false only when a document holding just
 * those cannot match. A positive text item needs every indexed word of it (the engine's terms of a
 * version include its title, description and content, so this never drops a match; every positive
 * word is one of the terms), and every pair of words side by side of it (the filters hold those of
 * the title, description and content, whatever their weights); fields and exclusions are decided
 * on the stored version.
 */
function mayMatch(node: WebqlNode, plans: Plans): (held: number, ruledOut: number) => boolean {
  switch (node.kind) {
    case 'text': {
      const { need, pairBit } = plans.get(node)!;
      return (held, ruledOut) => (held & need) === need && (ruledOut & pairBit) === 0;
    }
    // Loops rather than every() and some(), whose callbacks were a closure made per call: called for
    // every match (741,116 for `(cells OR promotes) cell` at 1M), they made about 140 MB a query, and
    // the collector's work took it from about 54 ms to 80-300 (1 MB after; the heap profiler's
    // samples and timings, ad hoc).
    case 'and': {
      const parts = node.children.map((c) => mayMatch(c, plans));
      return (held, ruledOut) => {
        for (let i = 0; i < parts.length; i++) if (!parts[i]!(held, ruledOut)) return false;
        return true;
      };
    }
    case 'or': {
      const parts = node.children.map((c) => mayMatch(c, plans));
      return (held, ruledOut) => {
        for (let i = 0; i < parts.length; i++) if (parts[i]!(held, ruledOut)) return true;
        return false;
      };
    }
    default:
      return () => true;
  }
}

/** A version being checked, with its URL's text and terms made once and only if asked for. */
class VersionWords {
  /** The URL's text (`urlText`) and, when it is all ASCII, that text lowercased. */
  private url: { text: string; ascii?: string } | undefined;
  private urlStems: Set<string> | undefined;

  constructor(readonly v: WebqlVersion) {}

  /**
   * Whether the engine indexed `stem` from the URL (engine-index-store's `fieldsOf`: `urlText`).
   * A Porter stem but for its last character is a prefix of its word, so an ASCII URL text without
   * that prefix has no word of that stem, and most are answered without analysing the text.
   */
  urlHas(stem: string): boolean {
    const url = (this.url ??= asciiOrNot(urlText(this.v.url)));
    // (A number's word may group its digits with commas; its term does not.)
    if (url.ascii !== undefined && !/[0-9]/.test(stem) && !url.ascii.includes(termPrefix(stem))) return false;
    this.urlStems ??= new Set(urlTerms(url.text));
    return this.urlStems.has(stem);
  }
}

function asciiOrNot(text: string): { text: string; ascii?: string } {
  return /[\u0080-\uffff]/.test(text) ? { text } : { text, ascii: text.toLowerCase() };
}

const FIELDS = ['title', 'description', 'content'] as const;

/** What the URL of a page under `url:prefix` starts with: the prefix, or without a scheme either. */
export function urlPrefixes(prefix: string): string[] {
  return /^https?:\/\//i.test(prefix) ? [prefix] : [`http://${prefix}`, `https://${prefix}`];
}

/**
 * Whether the stored version matches the expression; a text item lacking one of its indexed words
 * (`held`, as in `decide`) is false without a scan of the text (an OR's other reading of a compound).
 */
function matches(node: WebqlNode, w: VersionWords, plans: Plans, held: number): boolean {
  switch (node.kind) {
    case 'and':
      return node.children.every((c) => matches(c, w, plans, held));
    case 'or':
      return node.children.some((c) => matches(c, w, plans, held));
    case 'not':
      return !matches(node.child, w, plans, held);
    case 'text': {
      const { phrase, need } = plans.get(node)!;
      if ((held & need) !== need) return false;
      return node.field === 'title' ? hasPhrase(w.v.title, phrase) : FIELDS.some((f) => hasPhrase(w.v[f], phrase));
    }
    case 'site':
      return w.v.revHost.startsWith(reverseHost(node.host));
    case 'url':
      return urlPrefixes(node.prefix).some((p) => w.v.url.startsWith(p));
    case 'inurl':
    case 'filetype':
      return pageMatches(node, w.v.url, w.v.mediaType ?? undefined);
    case 'lang':
      return w.v.lang !== null && (w.v.lang === node.tag || w.v.lang.startsWith(`${node.tag}-`));
  }
}

/**
 * `matches` from the terms the version holds (`held`), its URL's filter (`lo`, `hi`), the phrases
 * its filter of pairs rules out (`ruledOut`: `TextPlan.pairBit`s) and, when read
 * (`w`), its URL and language: undefined where only more can tell. A text item lacking an indexed
 * word anywhere is false; one word, no field, held but not in the URL is true (so in its title,
 * description or content), which the filter tells without a read for most words. The engine indexes
 * title, description, content and URL words, all of them, with the analysis `hasPhrase` and
 * `VersionWords.urlHas` use. Without a read, a `lang:`, `url:`, `inurl:` or `filetype:` item is
 * false where `outside` says the version is not among the item's.
 */
function decide(
  node: WebqlNode,
  w: VersionWords | undefined,
  held: number,
  lo: number,
  hi: number,
  plans: Plans,
  host?: string,
  ruledOut = 0,
  outside?: (item: WebqlNode) => boolean,
): boolean | undefined {
  switch (node.kind) {
    case 'and': {
      let all: boolean | undefined = true;
      for (const c of node.children) {
        const d = decide(c, w, held, lo, hi, plans, host, ruledOut, outside);
        if (d === false) return false;
        if (d === undefined) all = undefined;
      }
      return all;
    }
    case 'or': {
      let any: boolean | undefined = false;
      for (const c of node.children) {
        const d = decide(c, w, held, lo, hi, plans, host, ruledOut, outside);
        if (d === true) return true;
        if (d === undefined) any = undefined;
      }
      return any;
    }
    case 'not': {
      const d = decide(node.child, w, held, lo, hi, plans, host, ruledOut, outside);
      return d === undefined ? undefined : !d;
    }
    case 'text': {
      const { need, word, urlBits: bits, pairBit } = plans.get(node)!;
      if ((held & need) !== need || (ruledOut & pairBit) !== 0) return false;
      if (word === undefined) return undefined;
      if ((lo & bits[0]) !== bits[0] || (hi & bits[1]) !== bits[1]) return true;
      return w !== undefined && !w.urlHas(word) ? true : undefined;
    }
    // A site: is its host alone, and a url: with a whole host holds no page of another host:
    // both told from the segment's host of the version (`host`), without a read.
    case 'site':
      if (w === undefined && host !== undefined) return host.startsWith(itemHost(node)!);
      break;
    case 'url': {
      const whole = w === undefined && host !== undefined ? itemHost(node) : undefined;
      if (whole !== undefined && host !== whole) return false;
      if (w === undefined && outside?.(node)) return false;
      break;
    }
    // A version outside the few a lookup found for the item (`itemVersions`, a superset of its
    // matches) is no match, without a read.
    case 'lang':
    case 'inurl':
    case 'filetype':
      if (w === undefined && outside?.(node)) return false;
      break;
  }
  return w === undefined ? undefined : matches(node, w, plans, held);
}

/** Whether `sorted` (ascending) holds `x`. */
function holds(sorted: Float64Array, x: number): boolean {
  const at = lowerBound(sorted, x);
  return at < sorted.length && sorted[at] === x;
}

/** The ids in any of `lists` (each ascending), ascending and each once. */
function unionOf(lists: readonly Float64Array[]): Float64Array {
  if (lists.length === 1) return lists[0]!;
  const all = new Float64Array(lists.reduce((n, l) => n + l.length, 0));
  let n = 0;
  for (const l of lists) {
    all.set(l, n);
    n += l.length;
  }
  all.sort();
  let kept = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[kept++] = all[i]!;
  return all.subarray(0, kept);
}

const itemHosts = new WeakMap<WebqlNode, string | undefined>();

/**
 * The reversed host (`reverseHost`) of a `site:` item, which its pages' hosts start with; of a
 * `url:` item, the host every page under it has (`urlPrefixes`) when the prefix names it whole:
 * lower-case ASCII letters, digits, dots and hyphens up to a `/`, `:`, `?` or `#`, else undefined
 * (`url:host9`, which `host95.example` is under too; a host in another form). Made once per item.
 */
function itemHost(node: WebqlNode): string | undefined {
  if (itemHosts.has(node)) return itemHosts.get(node);
  let out: string | undefined;
  if (node.kind === 'site') out = reverseHost(node.host);
  else if (node.kind === 'url') {
    const m = /^(?:https?:\/\/)?([a-z0-9.-]+)[/:?#]/.exec(node.prefix);
    out = m ? reverseHost(m[1]!) : undefined;
  }
  itemHosts.set(node, out);
  return out;
}

/**
 * Candidates (indexes into the engine's arrays) taken best first from a binary heap: most are never
 * taken. Best: the higher `key`, then the lower id (`idOrder` 1) or the higher (-1).
 */
class Ranked {
  size: number;

  constructor(
    private readonly heap: Int32Array,
    private readonly key: Float64Array,
    private readonly ids: Float64Array,
    private readonly idOrder: 1 | -1,
  ) {
    this.size = heap.length;
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** Keeps only the candidates `keep` accepts. */
  retain(keep: (i: number) => boolean): void {
    const h = this.heap;
    let n = 0;
    for (let k = 0; k < this.size; k++) if (keep(h[k]!)) h[n++] = h[k]!;
    this.size = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.down(i);
  }

  take(): number {
    const h = this.heap;
    const top = h[0]!;
    if (--this.size > 0) {
      h[0] = h[this.size]!;
      this.down(0);
    }
    return top;
  }

  private better(a: number, b: number): boolean {
    const ka = this.key[a]!;
    const kb = this.key[b]!;
    return ka > kb || (ka === kb && this.idOrder * this.ids[a]! < this.idOrder * this.ids[b]!);
  }

  private down(i: number): void {
    const h = this.heap;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const c = l + 1 < n && this.better(h[l + 1]!, h[l]!) ? l + 1 : l;
      if (!this.better(h[c]!, h[i]!)) return;
      const t = h[c]!;
      h[c] = h[i]!;
      h[i] = t;
      i = c;
    }
  }
}

/**
 * The versions that match `node`, best first, at most `limit`. Between reads the event loop turns,
 * so requests that came in meanwhile are not held up by a query that reads many candidates (seconds
 * at 1M for some shapes); the candidates were all found before the first read, and a version gone
 * since is skipped.
 */
export async function searchWebql(deps: WebqlDeps, node: WebqlNode, limit: number, rankTerms: readonly string[] = []): Promise<IndexHit[]> {
  if (limit <= 0) return [];
  const items = topItems(node);
  // The ranking words first: those of the top-level items that are text alone, and those that only rank (IndexQuery `rankTerms`).
  const ranking = itemStems({ kind: 'and', children: items.filter(textOnly) }, [], false);
  for (const t of rankTerms) if (!ranking.includes(cachedStem(t))) ranking.push(cachedStem(t));
  const positive = itemStems(node, [...ranking], false);
  const terms = itemStems(node, [...positive], true);
  const plans = planTexts(node, terms);
  if (contradicts(node, plans)) return [];
  const keep = mayMatch(node, plans);
  // The terms every match holds in its title: a title's stop words among them are asked for
  // after the others (to be held, not to rank), so `title:"to be"` has candidates of its own.
  const titled = deps.titleWeight > 0 ? titleTerms(node) : [];
  const titleStops = titled.filter((t) => t !== termWord(t));
  terms.push(...titleStops);
  // Whether a page holding none of the terms may match (`(lime OR site:a.test) fig`).
  const wordless = keep(0, 0) && titleStops.length === 0;
  // The versions of the lang:, url:, inurl: and filetype: items inside groups and exclusions,
  // where the store's lookups find few (those of the top level keep the candidates to them
  // already), asked once: a candidate outside them is decided without a read (`outside`, below),
  // and they lead where a page holding no word may match (`leadsOf`).
  const known = new Map<WebqlNode, Float64Array | undefined>();
  const top = new Set(topItems(node));
  for (const item of leaves(node)) {
    if (!top.has(item) && (item.kind === 'lang' || item.kind === 'url' || item.kind === 'inurl' || item.kind === 'filetype')) known.set(item, deps.itemVersions(item));
  }
  const versionsOf = (item: WebqlNode) => (known.has(item) ? known.get(item) : deps.itemVersions(item));
  // The stems every match holds one of: where they have fewer postings than the usual way, an OR
  // of items of several words (a bare compound read both ways) walks one word of each item.
  // Where a page holding none may match, those and the pages of the hosts of its `site:` and
  // `url:` items (`leadsOf`), when there are some: `(lime OR site:a.test) (fig OR
  // url:https://b.test/)` listed every page the filters accept, and read them newest first
  // (300 ms at 1M, bench:random-queries). Otherwise every page is a candidate (`everyDoc`).
  const led = wordless ? leadsOf(node, deps.df, { siteDocs: deps.siteDocs, itemVersions: versionsOf }) : leadsOf(node, deps.df);
  const everyDoc = wordless && led === undefined;
  const leads = led?.stems;
  // A word every match holds in its title, or that a phrase holds more than once, is held at
  // least that many times its field's weight (`floorsOf`).
  const floorOf = floorsOf(node, deps.titleWeight, deps.textWeight);
  const floors = floorOf.size > 0 ? floorOf : undefined;
  const required = [...requiredStems(node), ...titleStops];
  // The pairs of the phrases a candidate's filter of pairs may rule out, by their bits (`TextPlan.pairBit`):
  // the engine keeps no candidate that lacks a pair of a phrase every match holds (`keep`), and one
  // lacking a pair of another phrase has it decided without a read (`decide`).
  const phrases = [...plans.values()].filter((p) => p.pairBit !== 0).map((p) => p.pairs);
  const request: MatchRequest = {
    terms,
    scored: ranking.length,
    probed: terms.length - positive.length,
    everyDoc,
    required,
    keep,
    ...(leads && { leads }),
    ...(wordless && led && { leadSites: led.sites }),
    ...(wordless && led && led.versions.length > 0 && { leadVersions: unionOf(led.versions) }),
    ...(floors && { floors }),
    ...(phrases.length > 0 && { phrases }),
  };
  // A top-level inurl:, lang: or url: is looked up only when reading has gone on long
  // (PAGES_PER_READ), and always before the reads' bound (past 3.2M pages, a sixty-fourth of them
  // is more); then only the candidates it holds are read on. A lang: or url: of few versions kept
  // the candidates to them already (`matches`), and is not looked up again.
  const lookups = items.flatMap((item): ((max: number) => Promise<Set<number> | undefined>)[] => {
    if (item.kind === 'inurl') return [() => deps.inUrl(item.text)];
    if (item.kind === 'lang') return [(max) => Promise.resolve(deps.inLanguage(item.tag, max))];
    if (item.kind === 'url') return [(max) => Promise.resolve(deps.underUrl(item.prefix, max))];
    return [];
  });
  let readBeforeScan = lookups.length > 0 ? Math.min(Math.max(FIRST_READ, Math.floor(deps.pages() / PAGES_PER_READ)), Math.floor(deps.readsMax / 2)) : Infinity;
  // The versions those lookups found, which every candidate read after them is one of; those
  // that found too many for the candidates of a tier of the best (below) are asked again for the next.
  const lookedUp: Set<number>[] = [];
  let pending = lookups;

  // When the texts will mostly be needed (phrases, `title:`), each batch is read with them at once;
  // otherwise without, and the texts only of the candidates that their URL, language and terms
  // leave undecided (a word also in the URL).
  const text = textItems(node);
  // The URL filters are looked up only when some item can use them (one word, no field); the
  // URLs are read only then or for a site:, url: or inurl: (a third of a read with the texts).
  const filtered = [...plans.values()].some((p) => p.word !== undefined);
  const withUrl = filtered || looksAtUrl(node);
  // The segments' hosts decide a site: or url: item, where the expression has one (`decide`).
  const hosted = leaves(node).some((item) => item.kind === 'site' || item.kind === 'url');
  // `(lang:en OR title:aids) urease` read every page of `urease` for its language: 58-114 ms at 1M.
  let candidate = 0;
  const outside =
    [...known.values()].some((v) => v !== undefined)
      ? (item: WebqlNode) => {
          const versions = known.get(item);
          return versions !== undefined && !holds(versions, candidate);
        }
      : undefined;
  const hits: IndexHit[] = [];
  let reads = 0;
  let chars = 0;
  const readOut = () => reads >= deps.readsMax || chars >= deps.readCharsMax;

  /** Reads the candidates of `found` that `take` takes, best first, until enough match or the reads' bound. */
  const readOn = async (found: Matches, take: (i: number) => boolean): Promise<void> => {
    const { versionIds: ids, scores, acquiredAt, held } = found;
    const candidates = new Int32Array(found.count);
    let count = 0;
    for (let i = 0; i < found.count; i++) if (take(i) && lookedUp.every((within) => within.has(ids[i]!))) candidates[count++] = i;
    // By score, ties to the lower id; with no ranking words, the newest first, ties to the higher id.
    const ranked = ranking.length > 0 ? new Ranked(candidates.subarray(0, count), scores, ids, 1) : new Ranked(candidates.subarray(0, count), acquiredAt, ids, -1);
    /**
     * The verdicts (`Checked`) of the candidates `is` (best first) with URL filters `ms`, with
     * another thread when one takes them: both claim groups of them in turn until none is left,
     * then this one waits for the other's last group (CLAIM_WAIT_MS at most) and checks what it
     * left. So a helper that is slow, busy or gone never makes a batch take longer than this
     * thread alone would, but for the wait.
     */
    const check = (is: number[], ms: [number, number][]): Int8Array => {
      const job = checkJob(node, terms, withUrl, ids, held, is, ms, deps.checkAside !== undefined);
      const aside = deps.checkAside?.(job);
      if (!aside) {
        const all = checkCandidates(deps.read, job, plans);
        chars += all.chars;
        return all.verdicts;
      }
      aside.catch(() => {}); // the helper's failure: what it left is checked below
      const n = is.length;
      const claims = deps.claimsHere ?? true;
      try {
        if (claims) chars += checkClaimed(deps.read, job, plans).chars;
      } catch (e) {
        Atomics.store(job.state, NEXT, n); // none left for the helper to claim
        throw e;
      }
      const until = performance.now() + (claims ? CLAIM_WAIT_MS : 60_000);
      for (let done = Atomics.load(job.state, DONE); done < n; done = Atomics.load(job.state, DONE)) {
        const left = until - performance.now();
        if (left <= 0) break;
        Atomics.wait(job.state, DONE, done, left);
      }
      const verdicts = Int8Array.from(job.verdicts);
      chars += job.chars[0]!;
      // The runs the other thread left (whole groups: it failed, or was still on them), checked here.
      for (let k = verdicts.indexOf(UNCHECKED); k >= 0; k = verdicts.indexOf(UNCHECKED, k)) {
        let end = k + 1;
        while (end < n && verdicts[end] === UNCHECKED) end++;
        const left = checkCandidates(deps.read, job, plans, k, end);
        verdicts.set(left.verdicts, k);
        chars += left.chars;
        k = end;
      }
      return verdicts;
    };
    let looked = false;
    for (let size = FIRST_READ; ranked.size > 0 && hits.length < limit && !readOut(); size = Math.min(size * 2, LARGEST_READ)) {
      if (size > FIRST_READ) await deps.turn();
      if (readBeforeScan <= 0 && !looked) {
        looked = true;
        const left: typeof lookups = [];
        for (const lookUp of pending) {
          const within = await lookUp(ranked.size);
          if (!within) {
            left.push(lookUp);
            continue;
          }
          lookedUp.push(within);
          ranked.retain((i) => within.has(ids[i]!));
        }
        pending = left;
        if (pending.length === 0) readBeforeScan = Infinity;
        if (ranked.size === 0) break;
      }
      // Candidates taken best first, each decided from the terms held and the URL's filter where
      // they tell, until `size` of them are left to read (or DECIDED_MAX taken, or as many decided
      // matches as the page still lacks): only those are read, and decided from their URL and
      // language, else on their text.
      const batch: number[] = [];
      const masks: [number, number][] = [];
      const decided: (boolean | undefined)[] = [];
      const unread: number[] = [];
      // (Up to the lookups' turn; past it, when some are left for the next tier, as many as the size.)
      const room = readBeforeScan > 0 ? Math.min(size, readBeforeScan) : size;
      for (let sure = 0; ranked.size > 0 && unread.length < room && batch.length < DECIDED_MAX && hits.length + sure < limit; ) {
        const i = ranked.take();
        const mask = filtered ? urlMaskOf(found, i) : NO_MASK;
        const out = phrases.length > 0 ? phrasesRuledOut(found, i, phrases) : 0;
        candidate = ids[i]!;
        const d = decide(node, undefined, held[i]!, mask[0], mask[1], plans, hosted ? hostOfMatch(found, i) : undefined, out, outside);
        if (d === undefined) unread.push(batch.length);
        else if (d) sure++;
        batch.push(i);
        masks.push(mask);
        decided.push(d);
      }
      readBeforeScan -= unread.length;
      reads += unread.length;
      const verdicts = check(unread.map((k) => batch[k]!), unread.map((k) => masks[k]!));
      for (const [n, k] of unread.entries()) decided[k] = verdicts[n]! < 0 ? undefined : verdicts[n] === 1;
      for (const [k, i] of batch.entries()) {
        if (!decided[k]) continue; // no match, or gone since the segments were built
        hits.push({ versionId: ids[i]!, score: scores[i]! });
        if (hits.length === limit) break;
      }
    }
  };

  // Many candidates, ranked: the best of them first (`bestFirst`), the engine's top k of the
  // ranking words among the pages the filters accept, listed as the whole listing would list them
  // (the same scores). Every candidate scoring above the k-th's is among them; if those do not
  // fill the page, the next tier's are read on from there (a score at most the k-th's), and last
  // the whole listing's.
  // (A `title:` word's pages are those holding it as often as its floor: a common word's are many, most words' few.)
  const listed = (t: string) => (floors?.has(t) ? deps.heldAtLeast(t, floors.get(t)!) : deps.df(t));
  const { tiers, words, few } = deps.bestFirst;
  // With a phrase or a field, only when few words rank, or one word (as often as its floor) is all
  // a match must hold, so the listing is about that long: with more, their common pages may be few.
  // Always when every page is a candidate (`("a of b" OR is OR "c d")` listed all of them
  // before its first read: 135-236 ms at 1M).
  // Also when a ranking word decides a match alone: a page holding it and none of the other words
  // matches without a read (an OR's bare word: `((efficiency OR "articles which" OR pathogenic) OR
  // inhibits)`, which listed every page of its five words before its first read): the best
  // candidates mostly hold one and need no read.
  const decisive = ranking.some((_, j) => j < 31 && decide(node, undefined, 1 << j, 0, 0, plans) === true);
  const tiered = ranking.length > 0 && (everyDoc || decisive || !text.undecidable || ranking.length <= words || required.length === 1);
  // With no ranking word, the newest first (below).
  const newestFirst = ranking.length === 0;
  // The candidates' listing is about the shortest of what every match holds: its rarest required
  // word, else the leads when taken (allMatches), else every positive word's pages (every page with `everyDoc`).
  const any = positive.reduce((n, t) => n + deps.df(t), 0);
  const each = everyDoc ? Infinity : required.length > 0 ? Math.min(...required.map(listed)) : led !== undefined && (wordless || led.postings < any) ? led.postings : any;
  // Several words every match holds, each on many pages, but few pages holding them all: those
  // few are the listing, and no tier is read (`BestFirst.few`).
  const distinct = [...new Set(required)];
  const counted = (tiered || (newestFirst && !everyDoc)) && distinct.length > 1 && tiers.length > 0 && each > tiers[0]!.from;
  // (Holding them all, and the pairs of words of the phrases every match holds.)
  const together = counted ? deps.together(distinct, few, requiredPairs(node, plans)) : Infinity;
  const listing = together <= few ? together : each;
  // The score at and under which the candidates are still to be read.
  let below = Infinity;
  for (const { from, k } of tiered ? tiers : []) {
    if (listing <= from) break;
    const best = await deps.best(ranking, k);
    if (!best) break;
    // The k-th's score, raised by far more than the two ways of summing can differ (with fewer
    // than k, every page scoring above 0 is among them).
    const bar = best.length === k ? best.at(-1)!.score * (1 + 1e-9) : 0;
    const first = await deps.matches(request, Float64Array.from(best, (h) => h.versionId).sort());
    const above = below;
    await readOn(first, (i) => first.scores[i]! > bar && first.scores[i]! <= above);
    below = bar;
    if (hits.length >= limit || readOut()) return hits;
    // Every candidate with a ranking word was among them: only those without are left.
    if (bar === 0) break;
  }
  // No ranking word, and every page a candidate (`be`, `-cell the`), or many holding a word every
  // match holds (`title:cell`) or one of its leads (`title:result OR accumulate`, which listed
  // every page of both before the first read: 60-100 ms at 1M): the newest of them first, in the
  // same tiers, the k newest pages the filters accept (`newest`) that hold the rarest word every
  // match holds (any, without one) listed as the whole listing would list them. Every candidate
  // acquired at or after the k-th's time is among them; the next tier's are read on from before
  // it, and last the whole listing's.
  const rarest = required.length > 0 ? required.reduce((a, b) => (deps.df(b) < deps.df(a) ? b : a)) : undefined;
  let before = Infinity;
  for (const { from, k } of newestFirst ? tiers : []) {
    if (!everyDoc && listing <= from) break;
    const newest = await deps.newest(k, everyDoc ? undefined : rarest);
    if (!newest) break;
    const first = await deps.matches(request, newest.ids);
    const after = before;
    await readOn(first, (i) => first.acquiredAt[i]! >= newest.bar && first.acquiredAt[i]! < after);
    before = newest.bar;
    // (With every page the filters accept among them, none is left.)
    if (hits.length >= limit || readOut() || newest.bar === -Infinity) return hits;
  }
  const all = await deps.matches(request);
  await readOn(all, (i) => all.scores[i]! <= below && all.acquiredAt[i]! < before);
  return hits;
}
