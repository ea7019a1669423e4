/**
 * The IndexStore of the product: our engine (engine.ts) over segments built from the SQLite page
 * store, which stays the source of truth.
 *
 * Keeping up: every insert, update or delete of a version appends its id to `index_log` (triggers,
 * migration 6). Before a search the store reads the log past the last sequence it applied: new
 * searchable versions become a new segment; versions it holds get their changed columns
 * (superseded, moved earlier, made unsearchable) patched in place. Segments merge in tiers
 * (`mergeTiers`, `startMerge`): small ones are joined at once, larger ones made again without
 * their deleted documents in a worker thread while searches go on over them. `rebuild()` builds everything
 * again. Each process (worker) keeps its own copy and follows the same log, so several workers
 * serve one database consistently. Within a process, with two search threads, a helper thread
 * searches half of each segment over the same memory (search-helper.ts), and reads and checks
 * part of a large batch of a webql query's candidates over its own connection to the file.
 *
 * webql queries are answered by the same segments: the engine finds the candidates, and the
 * stored versions decide phrases and fields (webql-search.ts).
 */
import { setImmediate as turn } from 'node:timers/promises';
import type { Statement } from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import { isDiskFull, ServiceError } from '../../core/errors.js';
import type { LogFn } from '../../core/log.js';
import { mediaTypesOf } from '../../core/media-type.js';
import { ANALYSIS_VERSION, bestOfReadings, cachedStem, compoundTerms, indexTerms, stem, titleStopTerms } from '../../core/text.js';
import { reverseHost } from '../../core/url.js';
import type { IndexHit, IndexQuery, IndexStore } from '../../ports/index-store.js';
import type { WebqlNode } from '../../core/webql.js';
import { type Db, openDatabase } from '../sqlite/database.js';
import { acquiredOrderOf, allMatches, type DocRange, MATCH_STEP, type EngineFilter, exhaustive, heldAtLeast, heldByAll, idf, membersBytes, mergeHits, newestAccepted, NO_MORE, ORDER_FROM, type SearchableSegment, SharedFloor, searchable, searchTopK, siteDocCount, type Statistics, timeShare, updateGone } from './engine.js';
import { SearchHelper } from './search-helper.js';
import { editsAllowed, nearestTerms, oneEditAway } from './spelling.js';
import { LOCK_WAIT_MS, loadIndex, saveIndex } from './segment-files.js';
import { startWorker } from '../worker.js';
import { PageUrls } from './page-urls.js';
import { webqlReader } from './webql-rows.js';
import { eitherSites, narrowerSite, searchWebql, topItems, urlMask, urlPrefixes, urlText, type BestFirst, type CheckJob, WEBQL_BEST_FIRST, WEBQL_READ_CHARS_MAX, WEBQL_READS_MAX, type WebqlDeps } from './webql-search.js';
import { compacted, concatSegments, docOf, inIdOrder, newArray, type Place, placed, prefixEnd, SegmentBuilder, type SegmentData, type SegmentDoc, shareSegment, termAt, termCount, termNumber } from './segment.js';

export interface EngineWeights {
  title: number;
  description: number;
  content: number;
  url: number;
}

/** Integers (frequencies are stored as integers). Chosen on the SciFact train split: docs/BENCHMARKS.md. */
export const ENGINE_WEIGHTS: EngineWeights = { title: 3, description: 1, content: 1, url: 1 };

/**
 * Segments merge in tiers, as a log-structured merge does: a segment of fewer than MERGE_BASE
 * documents is in tier 0, and each tier above holds MERGE_FACTOR times larger ones. When a tier
 * has MERGE_FACTOR segments, they and every smaller segment are merged into one, so each document
 * is rebuilt about once per tier (log4 of the index's size) and there are at most
 * MERGE_FACTOR - 1 segments per tier (more while merges are under way). A merge of up to
 * JOIN_MERGE documents joins the parts' postings as they are, at once (a few ms; deleted
 * documents stay, flagged, until a later merge); a larger one makes them again without the
 * deleted documents, from their own postings (segment.ts `compacted`) or, when their version ids
 * overlap, from the page store, in a worker thread, up to MAX_MERGES at a time (in-memory databases: at once, as a worker
 * cannot open them; and at once while more than MAX_SEGMENTS segments wait for busy workers).
 */
const MERGE_FACTOR = 4;
const MERGE_BASE = 16;
const JOIN_MERGE = 1_024;
const MAX_MERGES = 2;
/** More new versions than this at one refresh are built in a worker thread (`buildFresh`). */
const FRESH_SYNC = 512;
/**
 * index_log is pruned after a save, up to the saved sequence but keeping the last KEEP_LOG rows
 * (about 1.2 MB), so that a process that has fallen behind by less still catches up from the log;
 * and only when at least PRUNE_STEP rows can go, so that a prune (one delete) is rare.
 */
const KEEP_LOG = 100_000;
const PRUNE_STEP = 100_000;
/**
 * A batch of new versions built in a worker thread (an import, a crawl's burst) is saved with the
 * rest when the log has grown by this many rows since the last save: without it, only a merge in a
 * thread saved, so one large import (which merges with nothing) was built again from the log at
 * every start until some later merge, and its rows were never pruned. Changes applied on the
 * serving thread are saved likewise (`saveIfDue`).
 */
const SAVE_EVERY = 100_000;
/** How long a process behind the floor waits for the saved index's folder (another process's save) before rebuilding instead; the serving thread waits. */
const RELOAD_WAIT_MS = 10_000;
const MAX_SEGMENTS = 32;

function tierOf(docCount: number, base: number): number {
  return docCount < base ? 0 : Math.floor(Math.log(docCount / base) / Math.log(MERGE_FACTOR)) + 1;
}

/** The segments to merge now, if any: those of the lowest tier that holds MERGE_FACTOR segments, and all smaller ones. */
export function mergeTiers(datas: readonly SegmentData[], base = MERGE_BASE): SegmentData[] | undefined {
  const counts = new Map<number, number>();
  for (const d of datas) {
    const tier = tierOf(d.docCount, base);
    counts.set(tier, (counts.get(tier) ?? 0) + 1);
  }
  const full = [...counts].filter(([, n]) => n >= MERGE_FACTOR).map(([tier]) => tier);
  if (full.length === 0) return undefined;
  const top = Math.min(...full);
  return datas.filter((d) => tierOf(d.docCount, base) <= top);
}

/** `parts` with documents, in version-id order, when their ids follow each other without overlapping (segment.ts `inIdOrder`); else undefined. */
function idOrdered(parts: readonly SegmentData[]): SegmentData[] | undefined {
  const sorted = parts.filter((d) => d.docCount > 0).sort((a, b) => a.versionIds[0]! - b.versionIds[0]!);
  return inIdOrder(sorted) ? sorted : undefined;
}

/** One segment of `parts`' documents, their postings copied as they are; undefined unless their version ids follow each other without overlapping. */
function joinInOrder(parts: readonly SegmentData[]): SegmentData | undefined {
  const sorted = idOrdered(parts);
  return sorted && sorted.length > 0 ? concatSegments(sorted, false) : undefined;
}

/** `compacted` of `parts` (in version-id order) in a worker thread (compact-worker.ts), as `buildInWorker` builds. */
function compactInWorker(parts: readonly SegmentData[], shared: boolean): { result: Promise<SegmentData | undefined>; worker: Worker } {
  const worker = startWorker(import.meta.url, 'compact-worker', { parts, shared });
  return { result: segmentFrom(worker, 'compaction'), worker };
}

/** The segment a worker thread sends (null: none), past any message saying what it gathered (`Gathered`). */
function segmentFrom(worker: Worker, what: string): Promise<SegmentData | undefined> {
  return new Promise<SegmentData | undefined>((resolve, reject) => {
    worker.on('message', (m: SegmentData | null | Gathered) => {
      if (!isGathered(m)) resolve(m ?? undefined);
    });
    worker.once('error', reject);
    // (After its message, a no-op; before it, e.g. terminated while starting, the exit code may be 0.)
    worker.once('exit', (code) => reject(new Error(`engine ${what} worker exited with ${code} before it sent a segment`)));
  });
}

/** The version ids of the documents of `parts` not deleted, ascending. */
function liveIds(parts: readonly SegmentData[]): Float64Array {
  const ids: number[] = [];
  for (const d of parts) for (let i = 0; i < d.docCount; i++) if (d.deleted[i] === 0) ids.push(d.versionIds[i]!);
  return Float64Array.from(ids).sort();
}

/** The rows of these version ids that are searchable, in the order of `ids` (the others left out). */
function* searchableRows(byId: { get(id: number): Row | undefined }, ids: Iterable<number>): Generator<Row> {
  for (const id of ids) {
    const row = byId.get(id);
    if (row && row.searchable === 1) yield row;
  }
}

/** Rows in ascending id order, only those whose id is in `ids` (ascending). */
function* onlyIds<R extends { id: number }>(rows: Iterable<R>, ids: Float64Array): Generator<R> {
  let p = 0;
  for (const r of rows) {
    while (p < ids.length && ids[p]! < r.id) p++;
    if (p === ids.length) return;
    if (ids[p] === r.id) yield r;
  }
}

/** The columns of a version that a later write can change. */
interface VersionState {
  searchable: number;
  acquired_at: number;
  superseded_at: number | null;
}

/** Sets a document's changing columns from its row (undefined: the version is gone). */
function patchColumns(seg: SegmentData, doc: number, state: VersionState | undefined): void {
  if (!state || state.searchable !== 1) {
    seg.deleted[doc] = 1;
  } else {
    seg.deleted[doc] = 0;
    seg.acquiredAt[doc] = state.acquired_at;
    seg.supersededAt[doc] = state.superseded_at ?? Infinity;
  }
}

/** A batch of new versions being built in a worker thread (`buildFresh`). */
interface FreshBuild {
  ids: Float64Array;
  /** The log sequence applied before this batch: a save made meanwhile records no later one. */
  from: number;
  /** Versions of the batch whose rows changed while it was built. */
  dirty: Set<number>;
  worker: Worker;
  generation: number;
  done: Promise<void>;
}

interface Row {
  id: number;
  url: string;
  rev_host: string;
  title: string | null;
  description: string | null;
  content: string;
  acquired_at: number;
  superseded_at: number | null;
  published_at: number | null;
  searchable: number;
}

const COLUMNS = `v.id, p.url, p.rev_host, v.title, v.description, v.content, v.acquired_at, v.superseded_at,
  v.published_at, v.searchable`;

/**
 * A version's fields with their weights, in the order they are analysed, whether the field's stop
 * words are terms too (the title's: text.ts `stopTerm`), whether its hyphenated compounds are
 * (text.ts `compoundWord`: every field's but the URL's, whose slugs would make a term of each),
 * and whether its pairs of words go into the document's filter of pairs (pair-filter.ts: the
 * fields webql looks for a phrase in, whatever their weight).
 */
export function fieldsOf(row: Row, w: EngineWeights): [string | null, number, boolean, boolean, boolean][] {
  return [
    [row.title, w.title, true, true, true],
    [row.description, w.description, false, true, true],
    [row.content, w.content, false, true, true],
    [urlText(row.url), w.url, false, false, false],
  ];
}

function metaOf(row: Row): Omit<SegmentDoc, 'terms' | 'length'> {
  return {
    versionId: row.id,
    acquiredAt: row.acquired_at,
    supersededAt: row.superseded_at ?? Infinity,
    publishedAt: row.published_at ?? Number.NaN,
    revHost: row.rev_host,
    urlMask: urlMask(row.url),
  };
}

/** A version analysed into a segment document (what `SegmentBuilder.addFields` does without the map; tests compare them). */
export function analyse(row: Row, w: EngineWeights): SegmentDoc {
  const terms = new Map<string, number>();
  let length = 0;
  for (const [text, weight, stops, compounds] of fieldsOf(row, w)) {
    if (!text || weight === 0) continue;
    const ts = indexTerms(text, false);
    length += ts.length;
    for (const t of ts) terms.set(t, (terms.get(t) ?? 0) + weight);
    // A compound's joined word is a term, but not part of the length (the words it joins are).
    if (compounds) for (const t of compoundTerms(text)) terms.set(t, (terms.get(t) ?? 0) + weight);
    // A title's stop words are terms, but not part of its length: every other query scores as before.
    if (stops) for (const t of titleStopTerms(text)) terms.set(t, (terms.get(t) ?? 0) + weight);
  }
  return { ...metaOf(row), terms, length };
}

/**
 * A turn of the event loop that rejects with `client_closed_request` once `stopped` says the
 * query's caller has gone: a webql query that reads for a second stops at its next turn, where it
 * would otherwise read on for an answer no one waits for.
 */
function turnUnless(stopped: (() => boolean) | undefined): () => Promise<void> {
  if (!stopped) return () => turn();
  return async () => {
    await turn();
    if (stopped()) throw new ServiceError('client_closed_request');
  };
}

/**
 * The least share of the pages a filter's time bounds may keep for webql to read its best
 * candidates first (`best`): at 1M, under a month of an acquired or published window (a 22nd, a
 * 120th of the pages) or a day, the listing is short and a top k finds its k late (`"stem cell"
 * transplantation` in an acquired month 10 ms against 5, `develops` in a day 3 against 1); under
 * a year (about half, a tenth), the best first (`develops` 5 against 20-21 in an acquired year;
 * medians, ad hoc: docs/BENCHMARKS.md, "The sixty-ninth session").
 */
const NARROW_TIME_SHARE = 1 / 16;

/** Whether a filter keeps a search to a site or some versions (most pages may be outside them). */
function keepsToPages(f: EngineFilter): boolean {
  return f.revSite !== undefined || f.anyRevSites !== undefined || f.onlyVersions !== undefined;
}

/** The ids in both of two ascending lists, ascending; all of `b` when there is no `a` (no list kept to yet). */
function bothOf(a: Float64Array | undefined, b: Float64Array): Float64Array {
  if (a === undefined) return b;
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out.push(a[i]!);
      i++;
      j++;
    }
  }
  return Float64Array.from(out);
}

/** The pages stored after one, in order, at most a number of them (-1: all). */
const PAGES_AFTER_SQL = 'SELECT id, url FROM pages WHERE id > ? ORDER BY id LIMIT ?';

/** Adds the pages stored after the last `urls` holds, at most `max` (-1: all); returns how many. */
function readUrls(after: Statement<[number, number], [number, string]>, urls: PageUrls, max: number): number {
  let n = 0;
  for (const [id, url] of after.iterate(urls.lastPage, max)) {
    urls.add(id, url);
    n++;
  }
  return n;
}

/**
 * The versions of the pages in a span of ids whose URL is LIKE a pattern (`inurl:`, escaped with a
 * backslash), or, with `orWide`, any URL outside ASCII. CROSS JOIN keeps SQLite to the pages' span
 * first (left to itself it walks the versions' index over the span and looks each page up: at 1M,
 * eight steps took 133 ms, the longest 18 ms, against 94 and 13 ms; ad hoc, warm).
 */
const inUrlSql = (orWide: boolean) =>
  `SELECT v.id FROM pages p CROSS JOIN versions v ON v.page_id = p.id
   WHERE p.id >= ? AND p.id < ? AND (p.url LIKE ? ESCAPE '\\'${orWide ? ' OR length(p.url) != octet_length(p.url)' : ''})`;
/** Pages whose URLs an `inurl:` scan reads between turns of the event loop (at 1M, eight steps of about 12 ms). */
const URL_SCAN_STEP = 131_072;
/**
 * The most versions of a file type (IndexQuery `fileType`) the engine keeps a search to. Above it
 * they are at least 5% of a million pages: a search's ranked pages, checked, soon hold ten of them.
 */
const FILE_TYPE_VERSIONS_MAX = 50_000;
/** File types (and `inurl:` texts) whose versions are kept at once (`versionsOfType`); past it the kept ones are dropped. */
const KEPT_TYPES = 16;
/**
 * The most pages whose URLs a search reads into memory itself (`caughtUpUrls`, about 30 ms); when
 * more are missing, they are read in turns of the event loop, for URLS_TURN_MS each (URLS_STEP at
 * a time), and the searches meanwhile are not narrowed by their `inurl:`. A search that reads in
 * turns (webql's, a phrase's) waits for one of those at each of its own: with 16,384 pages a turn
 * (about 28 ms at 1M), a phrase searched during the reading took 309-353 ms over HTTP, and 43-79
 * with 2 ms a turn (`npm run bench:start`).
 */
const URLS_AT_ONCE = 20_000;
const URLS_TURN_MS = 2;
const URLS_STEP = 1_024;

const BY_ID_SQL = `SELECT ${COLUMNS} FROM versions v JOIN pages p ON p.id = v.page_id WHERE v.id = ?`;
const RANGE_SQL = `SELECT ${COLUMNS} FROM versions v JOIN pages p ON p.id = v.page_id
  WHERE v.searchable = 1 AND v.id >= ? AND v.id <= ? ORDER BY v.id`;

/**
 * The segment of the searchable versions with ids in [lo, hi] (and in `ids`, when given); undefined
 * when there are none. Ids that are a small part of their range are read one by one, not by
 * scanning the range.
 */
export function buildRange(db: Db, lo: number, hi: number, weights: EngineWeights, ids?: Float64Array): SegmentData | undefined {
  return finished(rangeBuilder(db, lo, hi, weights, ids));
}

/** `buildRange` up to the builder's finish. */
export function rangeBuilder(db: Db, lo: number, hi: number, weights: EngineWeights, ids?: Float64Array): SegmentBuilder {
  if (ids && ids.length * 4 < hi - lo + 1) return builderOf(searchableRows(db.prepare<[number], Row>(BY_ID_SQL), ids), weights);
  const rows = db.prepare<[number, number], Row>(RANGE_SQL).iterate(lo, hi);
  return builderOf(ids ? onlyIds(rows, ids) : rows, weights);
}

/** A builder holding these (searchable) versions, in the order given. */
function builderOf(rows: Iterable<Row>, weights: EngineWeights): SegmentBuilder {
  const builder = new SegmentBuilder();
  for (const row of rows) builder.addFields(metaOf(row), fieldsOf(row, weights));
  return builder;
}

/** The builder's segment (its postings and filters of pairs written `into` shared buffers when given: `SegmentBuilder.finish`); undefined when it holds no version. */
export function finished(builder: SegmentBuilder, into?: { postings: Place; pairs: Place }): SegmentData | undefined {
  return builder.size > 0 ? builder.finish(into) : undefined;
}

/** Below this many versions one thread builds everything; above, both cores share the work. */
const PARALLEL_FROM = 50_000;
/**
 * A build from the page store is cut into parts of at most this many versions (two at least), and
 * at most BUILDERS of them are built at once (`buildInTurns`): what a builder holds while it
 * gathers grows with its part, so the build's peak memory is bounded by the part, not by the
 * store's size. At 1M versions, eight parts: the peak, while the last two gather beside the six
 * finished, was 917-952 MiB of RSS against 1,075-1,101 in four parts, in as long (docs/BENCHMARKS.md).
 */
const BUILD_PART = 125_000;
const BUILDERS = 2;
/**
 * With two search threads, a search is split when its expected work, the postings of its terms
 * plus a tenth of the largest segment's documents (windows, bitsets), is at least SPLIT_WORK, and
 * never below SPLIT_FROM documents in the largest segment. Under about a millisecond of search,
 * the message to the helper and back and waking the other core cost about what half the search
 * saves, and more at p99. Chosen from `npm run bench:engine-threads -- --every` (docs/BENCHMARKS.md):
 * at 100k documents, splitting every search took 1.15-1.75x the time under 100,000 postings,
 * 0.89x at 100-200k and 0.75x above; at 1M the split paid from about 100,000 postings.
 */
const SPLIT_WORK = 200_000;
const SPLIT_FROM = 50_000;
/**
 * This thread's share of a split search, as a share of the largest segment's documents (the
 * helper searches the rest of each segment): half while no other split search is under way, so a
 * caller's search ends soonest; BUSY_SPLIT_SHARE while one is. This thread also does every
 * request's own work (its HTTP, its versions, its snippets), which the helper cannot, so under
 * load it was the busier of the two and the helper waited. `npm run bench:serve-load` at 1M, 8
 * clients: 269-282 requests a second, p99 60-63 ms, in four runs, against 222-238 and 65-74 in six
 * with halves always; one client the same (187-203 requests a second against 193-213). 0.3 always
 * gave one client 168 (docs/BENCHMARKS.md, "The seventieth session").
 */
const SPLIT_SHARE = 0.5;
const BUSY_SPLIT_SHARE = 0.3;
/**
 * With two search threads, a batch of a webql query's candidates to read and check of at least
 * this many is shared with the helper, each thread claiming 16 at a time over its own connection
 * (webql-search.ts `checkClaimed`): the batches of 64, 128 and 256 candidates, not the first of
 * 32. A candidate read with its text and checked costs 9-11 us at 1M; the message and the other
 * core waking took 35-200 us on this host (ad hoc), so the helper's part of a batch of 32 would be
 * small. bench:webql-tiers' quoted phrases took 0.86-0.93x the time so (docs/BENCHMARKS.md).
 */
const ASIDE_MIN = 64;

/**
 * What the build reserves for each other part's postings and filters of pairs, in multiples of the
 * first part's (`buildInTurns`). The parts are cut at the versions' ranks, so each has as many
 * documents; at 1M generated documents two halves' postings words differed by 0.05% (29,902,866
 * and 29,918,960).
 */
const RESERVE = 2;

/**
 * The young generation of a build worker's heap, in MiB (V8's own is 48 here: two semi-spaces of
 * 16 and room for large objects). A builder allocates short-lived strings (each version's texts)
 * fast, so V8 grows its young generation to the largest, which each of the two builders gathering
 * at the build's peak held: at 1M documents `npm run bench:build` peaked at 891-914 MiB of RSS
 * with 48, 846-849 with 16 (840-873 with 8, in a trial). The smaller, the more its scavenges cost: one
 * builder of 125,000 versions spent 110 ms of about 10 s in them with semi-spaces of 16 MiB,
 * 147 with 5 (16 here gives 5.3) and 297 with 2.
 */
const BUILD_YOUNG_MB = 16;

/**
 * Builds the searchable versions with ids in [lo, hi] (and in `ids`) in a worker thread; `worker`
 * can be terminated. Taking `turns`, the worker reads its versions, sends how many words its
 * segment's postings and filters of pairs will take (`Gathered`), and finishes its segment only
 * once it is sent their places in buffers shared with the other parts (`buildInTurns`).
 */
function buildInWorker(
  path: string,
  lo: number,
  hi: number,
  weights: EngineWeights,
  ids?: Float64Array,
  turns?: boolean,
): { result: Promise<SegmentData | undefined>; worker: Worker; exited: Promise<void> } {
  const worker = startWorker(import.meta.url, 'build-worker', { path, lo, hi, weights, ids, turns }, { resourceLimits: { maxYoungGenerationSizeMb: BUILD_YOUNG_MB } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return { result: segmentFrom(worker, 'build'), worker, exited };
}

/** What a build worker taking turns says once it has gathered its versions: the words its postings and its filters of pairs will take. */
export interface Gathered {
  postingsWords: number;
  pairWords: number;
}

function isGathered(m: unknown): m is Gathered {
  return typeof m === 'object' && m !== null && 'postingsWords' in m;
}

/**
 * The segments of these id ranges, each built in a worker thread, BUILDERS at a time (part i
 * starts once part i - BUILDERS is done), and their finishes one at a time, in the parts' order: a
 * builder's finish lays out its segment's arrays while it still holds everything it gathered, and
 * two at once were the build's peak memory (1.16 GiB anonymous at 1M versions in two halves). So
 * a worker that has gathered its versions waits for its turn, which comes when the part before has
 * sent its segment and exited, its memory gone with its thread.
 *
 * Their postings and their filters of pairs go side by side into shared buffers (`SharedRun`), so
 * that their join uses them in place instead of holding copies (`concatSegments`; at 1M documents
 * 239 MB of postings and 143 MB of filters). Filters lie in the parts' order, which their join
 * needs (a document's filter ends where the next one's starts): hence turns in that order.
 */
async function buildInTurns(path: string, ranges: readonly (readonly [number, number])[], weights: EngineWeights): Promise<(SegmentData | undefined)[]> {
  const builds: ReturnType<typeof buildInWorker>[] = [];
  const needs: Gathered[] = [];
  const place: { postings: Place; pairs: Place }[] = [];
  const postings = new SharedRun(ranges.length);
  const pairs = new SharedRun(ranges.length);
  const turns = new Turns();
  const open = (i: number | undefined) => {
    if (i === undefined) return;
    place[i] = { postings: postings.place(needs[i]!.postingsWords), pairs: pairs.place(needs[i]!.pairWords) };
    builds[i]!.worker.postMessage(place[i]);
  };
  // A buffer sent between threads arrives as another object over the same memory: each segment's
  // postings and filters are made views of this thread's own, so that the join sees them side by side.
  const own = (seg: SegmentData | undefined, i: number) => {
    if (!seg) return seg;
    const { postingsWords, pairWords } = needs[i]!;
    if (seg.postings.length !== postingsWords || seg.pairBits.length !== pairWords) {
      throw new Error(`a build worker wrote ${seg.postings.length} postings and ${seg.pairBits.length} filter words, not ${postingsWords} and ${pairWords}`);
    }
    return { ...seg, postings: placed(place[i]!.postings, postingsWords, 'postings'), pairBits: placed(place[i]!.pairs, pairWords, 'filter') };
  };
  /** Part i built in a worker: its segment, once the worker has sent it and exited. */
  const build = async (i: number): Promise<SegmentData | undefined> => {
    const [lo, hi] = ranges[i]!;
    const b = (builds[i] = buildInWorker(path, lo, hi, weights, undefined, true));
    b.worker.on('message', (m) => {
      if (!isGathered(m)) return;
      needs[i] = m;
      open(turns.ready(i));
    });
    void b.exited.then(() => open(turns.exited(i)));
    const seg = await b.result;
    await b.exited;
    return own(seg, i);
  };
  // BUILDERS lanes, each building its parts one after another (part i starts once part i -
  // BUILDERS is done); after a failure no lane starts another.
  const segments: (SegmentData | undefined)[] = [];
  let failed = false;
  const lane = async (first: number) => {
    try {
      for (let i = first; i < ranges.length && !failed; i += BUILDERS) segments[i] = await build(i);
    } catch (err) {
      failed = true;
      throw err;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(BUILDERS, ranges.length) }, (_, k) => lane(k)));
    return segments;
  } catch (err) {
    for (const b of builds) void b?.worker.terminate();
    throw err;
  }
}

/**
 * A buffer in shared memory into which a build's parts write one of their arrays, one after
 * another in the order placed (`buildInTurns`). The first to be placed cannot wait to learn what
 * the others need (its finish runs while they still gather), so the buffer is its words and, for
 * each other part, RESERVE times as many again: address space, whose pages are committed only as
 * they are written. A part whose words do not fit in what is left gets a buffer of its own, and
 * the join copies (correct, but the old peak).
 */
class SharedRun {
  private words: Int32Array | undefined;
  private reserved = false;
  private end = 0;

  constructor(private readonly parts: number) {}

  place(length: number): Place {
    if (!this.reserved && length > 0) {
      this.reserved = true;
      this.words = sharedWords(length * (1 + RESERVE * (this.parts - 1)));
    }
    if (this.words && this.end + length <= this.words.length) {
      this.end += length;
      return { words: this.words, at: this.end - length };
    }
    return { words: newArray(Int32Array, length, true), at: 0 };
  }
}

/**
 * A buffer of this many words in shared memory (at most a segment's 2^32 - 1), or undefined when
 * it cannot be had: address space refused (a system that does not overcommit). Then each part gets
 * a buffer of its own and the join copies them.
 */
function sharedWords(words: number): Int32Array | undefined {
  try {
    return newArray(Int32Array, Math.min(words, 2 ** 32 - 1), true);
  } catch {
    return undefined;
  }
}

/**
 * Whose turn it is among workers 0, 1, 2, … that each say when they are ready and later exit
 * (`buildInTurns`): worker i's comes once it is ready and worker i - 1 has had its turn and exited.
 */
export class Turns {
  private readonly waiting = new Set<number>();
  private next = 0;
  private holding = false;

  /** Worker i is ready; returns it when its turn comes at once. */
  ready(i: number): number | undefined {
    this.waiting.add(i);
    return this.take();
  }

  /**
   * Worker i exited; returns whose turn comes now. A worker that exits before its turn (failing)
   * gives none up, and those after it wait (the build fails with it).
   */
  exited(i: number): number | undefined {
    this.waiting.delete(i);
    if (!this.holding || i !== this.next) return undefined;
    this.holding = false;
    this.next++;
    return this.take();
  }

  private take(): number | undefined {
    if (this.holding || !this.waiting.has(this.next)) return undefined;
    this.waiting.delete(this.next);
    this.holding = true;
    return this.next;
  }
}

export interface EngineOptions {
  weights?: EngineWeights;
  /** Where segments are saved (segment-files.ts); without it the engine lives in memory only and is built at every open. */
  dir?: string;
  /** Loads from `dir` but never writes there (the server's workers: the primary saves). */
  readOnly?: boolean;
  /** Stores with at least this many searchable versions are built on both cores. */
  parallelFrom?: number;
  /** Versions per part of such a build (BUILD_PART). */
  buildPart?: number;
  /**
   * 2: a search runs on two threads, this one and a helper (search-helper.ts), each over half of
   * every segment's documents, when the largest segment has at least `splitFrom` documents and the
   * search's expected work is at least `splitWork` (see SPLIT_WORK). 1 (the default): on this
   * thread alone.
   */
  searchThreads?: 1 | 2;
  splitFrom?: number;
  splitWork?: number;
  /** The fewest candidates of a webql read shared with the helper thread (ASIDE_MIN; 1 in tests). */
  asideMin?: number;
  /** The fewest documents of a segment with an acquired order for time-bounded queries, and a host order for sites (engine.ts ORDER_FROM; 1 in tests). */
  orderFrom?: number;
  /** Tests: the serving thread leaves every candidate of a shared read to the helper (webql-search.ts `claimsHere`). */
  asideOnly?: boolean;
  /** Tier 0 of the merges, and the largest merge done by joining (MERGE_BASE, JOIN_MERGE; smaller in tests, so worker merges and saves come often). */
  mergeBase?: number;
  joinMerge?: number;
  /** New versions built at once by a refresh; more are built in a worker thread (FRESH_SYNC). */
  freshSync?: number;
  /** Documents a webql query's candidates are gathered over between turns of the event loop (MATCH_STEP; smaller in tests). */
  matchStep?: number;
  /** Pages an `inurl:` scan reads between turns of the event loop (URL_SCAN_STEP; smaller in tests). */
  urlScanStep?: number;
  /** The most candidates a webql query reads (WEBQL_READS_MAX; smaller in tests). */
  webqlReadsMax?: number;
  /** The most characters of text a webql query reads (WEBQL_READ_CHARS_MAX; smaller in tests). */
  webqlReadCharsMax?: number;
  /** A save that would leave its disk less room than this is not made (WEBSEARCH_MIN_FREE_DISK_MB; 0: saves while they fit). */
  minFreeBytes?: number;
  /** When a webql query reads its best candidates first (WEBQL_BEST_FIRST; smaller in tests). */
  webqlBestFirst?: BestFirst;
  /** The most versions of a file type, or of the pages an `inurl:` names, a search is kept to (FILE_TYPE_VERSIONS_MAX; smaller in tests). */
  fileTypeMax?: number;
  /** Pages whose URLs a search reads into memory itself (URLS_AT_ONCE; smaller in tests). */
  urlsAtOnce?: number;
  /** How long each turn of the event loop reads the pages' URLs for when more are missing, in ms (URLS_TURN_MS; 0 in tests: URLS_STEP a turn). */
  urlsTurnMs?: number;
  /** index_log rows kept behind the newest, and the fewest a prune deletes (KEEP_LOG, PRUNE_STEP; smaller in tests). */
  keepLog?: number;
  pruneStep?: number;
  /** Log rows since the last save after which a batch built in a thread, or the changes applied on this one, save (SAVE_EVERY; smaller in tests). */
  saveEvery?: number;
  /** Where the engine reports what an operator should know (the search helper failing). */
  log?: LogFn;
}

/**
 * The other reading's distinct stems (IndexQuery `alternative`) in the order they are summed: those
 * it shares with the first reading in the first's order, then its own. A page holding none of its
 * own then scores no more by it than by the first to the last bit (each partial sum is one of the
 * first's with terms left out, and rounding is monotonic), as in exact arithmetic, so the better
 * reading of such a page is always the first; summed in another order, one scored 2 ulp above it
 * on SciFact. `own`: how many are its own (the last ones).
 */
export function readingOrder(first: readonly string[], other: readonly string[]): { terms: string[]; own: number } {
  const mine = new Set(other);
  const shared = [...new Set(first)].filter((t) => mine.has(t));
  const own = [...mine].filter((t) => !shared.includes(t));
  return { terms: [...shared, ...own], own: own.length };
}

/** How much likelier a word is than one an edit further from the query's misspelling (`corrections`), per edit. */
export const SPELLING_EDIT_ODDS = 20;
/**
 * The most words of one query corrected (`corrections`), the first it holds that no page does: a
 * correction not yet kept reads a twentieth of the dictionaries' terms (5-8 ms at 1M documents),
 * and a query of 2,000 characters of made-up words would read them hundreds of times over.
 */
export const SPELLING_WORDS_MAX = 4;
/**
 * The most pages a word may be on and still be taken for a misspelling (`corrections`): in a large
 * index most misspellings are on a few pages, and a word on more is a word.
 */
export const RARE_PAGES_MAX = 3;
/** How much likelier than a word on a few pages its correction must be (`corrections`): the word's pages against the correction's odds. */
export const RARE_ODDS = 10;
/**
 * How long the terms near a misspelt word are kept (`corrections`), in ms. Their pages are counted
 * anew at each query; a term new in the index is found near a word only once they are looked for
 * again. Kept across new segments: an index being crawled into publishes them every few seconds,
 * and each look reads a twentieth of the dictionaries.
 */
const SPELLED_FRESH_MS = 60_000;
/** The most misspelt words whose near terms are kept (`corrections`); past it they are forgotten and found again. */
const SPELLED_KEPT = 10_000;

export class EngineIndexStore implements IndexStore {
  private segments: SearchableSegment[] = [];
  /** Each misspelt word's terms near it (`corrections`) and when they were found. */
  private readonly spelled = new Map<string, { near: { term: string; edits: number; ask: string }[]; at: number }>();
  private applied = 0;
  /** Each file type's versions looked up, and each `inurl:`'s (`keptTypeLookup`), with the log sequence they hold for. */
  private readonly typeVersions = new Map<string, { seq: number; ids: Float64Array | undefined }>();
  /** The pages' URLs, lowercased (`versionsInUrl`), read on the first search with an `inurl:`. */
  private pageUrls?: PageUrls;
  /** A reading of `pageUrls` in turns of the event loop (`caughtUpUrls`). */
  private urlsFilling?: Promise<void>;
  private docCount = 0;
  private totalLength = 0;
  private readonly stmts;

  /** Whether `open` found saved segments (rather than building). */
  loadedFromDisk = false;
  /** Segment file names, for those on disk. */
  private names = new Map<SegmentData, string>();

  private readonly weights: EngineWeights;
  private readonly dir: string | undefined;
  private readonly parallelFrom: number;
  private readonly buildPart: number;
  private readonly saves: boolean;
  private readonly searchThreads: 1 | 2;
  private readonly splitFrom: number;
  private readonly splitWork: number;
  private readonly mergeBase: number;
  private readonly joinMerge: number;
  private readonly freshSync: number;
  private readonly matchStep: number;
  private readonly urlScanStep: number;
  private readonly webqlReadsMax: number;
  private readonly webqlReadCharsMax: number;
  private readonly minFreeBytes: number;
  private readonly webqlBestFirst: BestFirst;
  private readonly fileTypeMax: number;
  private readonly urlsAtOnce: number;
  private readonly urlsTurnMs: number;
  private readonly keepLog: number;
  private readonly pruneStep: number;
  private readonly saveEvery: number;
  /** The log sequence the folder's index was last saved (or loaded) at, by this process. */
  private savedAt = 0;
  private readonly log: LogFn;
  /** The helper thread, started when the engine opens or by the first search that splits, or by the first webql read it checks part of; none once closed. */
  private helper: SearchHelper | undefined;
  private closed = false;
  /** Documents in the largest segment: where a split search cuts each segment is a share of it (SPLIT_SHARE). */
  private largest = 0;
  /** Searches split between this thread and the helper (for tests and the benchmark). */
  splitSearches = 0;
  /** Of them, those begun while another was under way, this thread's share the smaller (BUSY_SPLIT_SHARE; for tests). */
  busySplits = 0;
  /** Split searches under way. */
  private splitting = 0;
  /** webql candidates checked on the helper thread (for tests and the benchmark). */
  asideChecks = 0;
  private readonly asideMin: number;
  private readonly orderFrom: number;
  private readonly asideOnly: boolean;
  /** Set once the helper failed a check (`checkAside`): the serving thread checks every candidate since. */
  private checksFailed = false;
  /** The helper's answers to checks not yet had (`checksSettled`). */
  private readonly pendingChecks = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    options: EngineOptions = {},
  ) {
    this.weights = options.weights ?? ENGINE_WEIGHTS;
    this.dir = options.dir;
    this.parallelFrom = options.parallelFrom ?? PARALLEL_FROM;
    this.buildPart = options.buildPart ?? BUILD_PART;
    this.saves = options.dir !== undefined && !options.readOnly;
    this.searchThreads = options.searchThreads ?? 1;
    this.splitFrom = options.splitFrom ?? SPLIT_FROM;
    this.splitWork = options.splitWork ?? SPLIT_WORK;
    this.asideMin = options.asideMin ?? ASIDE_MIN;
    this.orderFrom = options.orderFrom ?? ORDER_FROM;
    this.asideOnly = options.asideOnly ?? false;
    this.mergeBase = options.mergeBase ?? MERGE_BASE;
    this.joinMerge = options.joinMerge ?? JOIN_MERGE;
    this.freshSync = options.freshSync ?? FRESH_SYNC;
    this.matchStep = options.matchStep ?? MATCH_STEP;
    this.urlScanStep = options.urlScanStep ?? URL_SCAN_STEP;
    this.webqlReadsMax = options.webqlReadsMax ?? WEBQL_READS_MAX;
    this.webqlReadCharsMax = options.webqlReadCharsMax ?? WEBQL_READ_CHARS_MAX;
    this.minFreeBytes = options.minFreeBytes ?? 0;
    this.webqlBestFirst = options.webqlBestFirst ?? WEBQL_BEST_FIRST;
    this.fileTypeMax = options.fileTypeMax ?? FILE_TYPE_VERSIONS_MAX;
    this.urlsAtOnce = options.urlsAtOnce ?? URLS_AT_ONCE;
    this.urlsTurnMs = options.urlsTurnMs ?? URLS_TURN_MS;
    this.keepLog = options.keepLog ?? KEEP_LOG;
    this.pruneStep = options.pruneStep ?? PRUNE_STEP;
    this.saveEvery = options.saveEvery ?? SAVE_EVERY;
    this.log = options.log ?? (() => {});
    this.stmts = {
      maxSeq: db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM index_log'),
      floor: db.prepare<[], number>('SELECT seq FROM index_log_floor').pluck(),
      // Each version changed in a span of the log, with its changing columns (searchable null: gone).
      changed: db.prepare<[number, number], { version_id: number; searchable: number | null; acquired_at: number; superseded_at: number | null }>(
        `SELECT l.version_id, v.searchable, v.acquired_at, v.superseded_at
         FROM (SELECT DISTINCT version_id FROM index_log WHERE seq > ? AND seq <= ?) l
         LEFT JOIN versions v ON v.id = l.version_id ORDER BY l.version_id`,
      ),
      byId: db.prepare<[number], Row>(BY_ID_SQL),
      stateById: db.prepare<[number], VersionState>('SELECT searchable, acquired_at, superseded_at FROM versions WHERE id = ?'),
      // A batch of webql candidates, with their texts or without (webql-search.ts reads them only when its check needs them).
      webqlRead: webqlReader(db),
      // Served by versions_lang (migration 11): the tag itself, then the tags under it (from `en-` up to its `prefixEnd`, `en.`).
      inLanguage: db
        .prepare<[string, string, string, number], number>('SELECT id FROM versions WHERE lang IS NOT NULL AND (lang = ? OR (lang > ? AND lang < ?)) LIMIT ?')
        .pluck(),
      // Served by the URLs' unique index: a range of URLs, [from, to).
      underUrl: db
        .prepare<[string, string, number], number>('SELECT v.id FROM pages p JOIN versions v ON v.page_id = p.id WHERE p.url >= ? AND p.url < ? LIMIT ?')
        .pluck(),
      // A scan of the pages (webql-search's inUrl). LIKE folds the case of ASCII letters only, where
      // lowercasing in JavaScript folds every letter: K (U+212A) becomes k, and İ (U+0130) i with a
      // dot above. So a text with i, k or any character outside ASCII keeps every URL outside ASCII
      // too, which it may hold (the second statement, twice the cost: 170 against 85 ms at 1M).
      inUrl: db.prepare<[number, number, string], number>(inUrlSql(false)).pluck(),
      inUrlOrWide: db.prepare<[number, number, string], number>(inUrlSql(true)).pluck(),
      // Served by pages_url_type (migration 23) and versions_media_type (22), which holds every type but text/html.
      namedAs: db
        .prepare<[string, number], number>('SELECT v.id FROM pages p JOIN versions v ON v.page_id = p.id WHERE p.url_type = ? LIMIT ?')
        .pluck(),
      servedAs: db.prepare<[string, number], number>("SELECT id FROM versions WHERE media_type = ? AND media_type != 'text/html' LIMIT ?").pluck(),
      // The versions served as a type not in a list, or of none (versions_untyped, migration 24), whose URL names another type or none.
      servedOtherwise: db
        .prepare<[string, string, number], number>(
          `SELECT v.id FROM versions v INDEXED BY versions_media_type JOIN pages p ON p.id = v.page_id
           WHERE v.media_type != 'text/html' AND v.media_type NOT IN (SELECT value FROM json_each(?)) AND p.url_type IS NOT ? LIMIT ?`,
        )
        .pluck(),
      untyped: db
        .prepare<[string, number], number>(
          'SELECT v.id FROM versions v INDEXED BY versions_untyped JOIN pages p ON p.id = v.page_id WHERE v.media_type IS NULL AND p.url_type IS NOT ? LIMIT ?',
        )
        .pluck(),
      lastPage: db.prepare<[], number | null>('SELECT max(id) FROM pages').pluck(),
      // The pages stored after one, in order (limit -1: all of them), and the versions of some (versions_page_time).
      pagesAfter: db.prepare<[number, number], [number, string]>(PAGES_AFTER_SQL).raw(true),
      versionsOfPages: db.prepare<[string], number>('SELECT id FROM versions WHERE page_id IN (SELECT value FROM json_each(?))').pluck(),
    };
  }

  /** Bytes held by the segments' arrays and what is derived from them (the typed arrays, term dictionaries included; the hosts' strings not). */
  memoryBytes(): number {
    let n = 0;
    for (const { data, lengthCode, normOf, members } of this.segments) {
      n += lengthCode.byteLength + normOf.byteLength + membersBytes(members, data.docCount);
      for (const v of Object.values(data)) if (ArrayBuffer.isView(v)) n += v.byteLength;
    }
    return n;
  }

  /** Segments in use (for the benchmark and tests). */
  get segmentCount(): number {
    return this.segments.length;
  }

  /** The arrays of the segments in use (for tests). */
  get segmentData(): readonly SegmentData[] {
    return this.segments.map((s) => s.data);
  }

  /** Documents in the segments in use, gone ones included (for the benchmark). */
  get documentCount(): number {
    return this.docCount;
  }

  /** The segments in use and their statistics, as they are now (for the benchmarks that run the engine's functions on them). */
  inUse(): { segments: readonly SearchableSegment[]; stats: Statistics } {
    return { segments: this.segments, stats: this.statistics() };
  }

  /**
   * The collection's statistics for one search. A term's document frequency is summed over the
   * segments once and kept: a split search asks for it three times (whether to split, for the
   * helper, for the IDF).
   */
  private statistics(): Statistics {
    const segs = this.segments;
    const known = new Map<string, number>();
    return {
      docCount: this.docCount,
      avgLength: this.docCount > 0 ? this.totalLength / this.docCount : 0,
      df: (term) => {
        let df = known.get(term);
        if (df !== undefined) return df;
        df = 0;
        for (const s of segs) {
          const t = termNumber(s.data, term);
          if (t !== undefined) df += s.data.termDf[t]!;
        }
        known.set(term, df);
        return df;
      },
    };
  }

  private publish(datas: SegmentData[]): void {
    // With a helper thread, every segment's arrays in shared memory (those read from disk are already).
    if (this.searchThreads > 1) {
      datas = datas.map((d) => {
        const shared = shareSegment(d);
        if (shared !== d && this.purging.delete(d)) this.purging.add(shared);
        return shared;
      });
    }
    this.docCount = datas.reduce((n, d) => n + d.docCount, 0);
    this.totalLength = datas.reduce((n, d) => n + d.totalLength, 0);
    this.largest = datas.reduce((n, d) => Math.max(n, d.docCount), 0);
    const avg = this.docCount > 0 ? this.totalLength / this.docCount : 0;
    // A segment published before keeps its `gone` bits (kept up to date in place by `refresh`).
    const gone = new Map(this.segments.map((s) => [s.data, s.gone]));
    this.segments = datas.map((data) => searchable(data, avg, gone.get(data), undefined, acquiredOrderOf(data, this.orderFrom)));
    this.helper?.publish(this.segments, avg);
    // File names of segments no longer in use would keep them in memory.
    for (const d of this.names.keys()) if (!datas.includes(d)) this.names.delete(d);
    for (const d of this.purging) if (!datas.includes(d)) this.purging.delete(d);
  }

  private get signature(): string {
    return `engine-3 analysis-${ANALYSIS_VERSION} ${JSON.stringify(this.weights)}`;
  }

  /**
   * Loads the saved segments (then catches up with the log), or builds from the page store. Once;
   * the first search does it otherwise, so commands that never search never pay for it.
   */
  async open(): Promise<this> {
    this.opening ??= this.load();
    await this.opening;
    return this;
  }

  private opening: Promise<void> | undefined;

  private async load(): Promise<void> {
    const saved = this.dir ? loadIndex(this.dir, this.signature, this.searchThreads > 1, this.saves) : undefined;
    this.loadedFromDisk = saved !== undefined;
    if (saved) {
      this.takeSaved(saved);
      // Caught up before the store is used: the versions written since the save, even many (or,
      // when the log since the save was pruned, everything built again).
      this.refresh();
      await Promise.all([...this.building].map((b) => b.done));
      await this.recovering;
    } else {
      // Minutes for a large store (about 40 s at 1M pages): a store kept on disk says so, so that a
      // start that takes them (the first, or the first after a format change) is not a mystery.
      const started = performance.now();
      const say = this.dir !== undefined;
      if (say) this.log('info', 'building the search index from the page store (no saved index of this version)', { dir: this.dir });
      await this.buildAll();
      this.save(LOCK_WAIT_MS);
      if (say) this.log('info', 'search index built', { documents: this.docCount, ms: Math.round(performance.now() - started) });
    }
    // Started now rather than by the first search, which would wait for the thread to boot.
    this.helperForSplit();
  }

  /**
   * Saves the segments and the columns as of `applied` (only when every segment is one that is
   * saved whole), waiting up to `waitMs` for another process's save or load of the folder to end.
   * Not had in that time, the folder keeps the other process's index: a later save here, or the
   * next start applying the log from that index's sequence, makes up for it.
   */
  private save(waitMs: number): void {
    if (!this.saves || !this.dir) return;
    // Versions still being built in a worker are in no segment: the saved sequence stays before
    // them, so a restart applies them again (applying the log again is harmless for the rest).
    const applied = Math.min(this.applied, this.unbuiltFrom, ...[...this.building].filter((b) => b.generation === this.generation).map((b) => b.from));
    let outcome: ReturnType<typeof saveIndex>;
    try {
      const log = { floor: () => this.stmts.floor.get() ?? 0, saved: (at: number) => this.prune(at) };
      outcome = saveIndex(this.dir, this.segments.map((s) => s.data), this.names, applied, this.signature, waitMs, log, this.minFreeBytes);
    } catch (err) {
      // The index in memory serves as before; the folder keeps the last index saved whole, and the
      // log from there on (not pruned), which the next save, or the next start, applies again.
      const why = isDiskFull(err) ? 'the disk is full' : 'writing it failed';
      this.log('error', `search index not saved: ${why}; searches go on from memory`, { dir: this.dir, err: String(err) });
      return;
    }
    if (typeof outcome === 'object') {
      const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
      this.log('error', 'search index not saved: it would leave less room than is kept for charges and usage (WEBSEARCH_MIN_FREE_DISK_MB); searches go on from memory', {
        dir: this.dir,
        freeMib: mib(outcome.low.freeBytes),
        neededMib: mib(outcome.low.neededBytes),
      });
      return;
    }
    if (outcome === 'saved') this.savedAt = applied;
    if (outcome === 'locked') this.log('info', 'search index not saved: another process held its folder', { dir: this.dir });
    if (outcome === 'behind') this.log('info', 'search index not saved: the log it was built from has been pruned past it', { dir: this.dir });
  }

  /**
   * Deletes index_log's rows up to the sequence just saved at (`saved`, which holds everything they
   * say), keeping the last `keepLog`, when at least `pruneStep` can go: the log stays a bounded
   * size instead of 12 bytes for every change ever made. Run holding the saved folder's lock.
   * Without the memory map (`unmapped`): the log's pages lie spread among the versions' (each was
   * written with its version), and deleting 900,000 rows through the map brought the file around
   * them into the process (bench:search's build, which pruned them: 214 MiB of mapped pages at its
   * peak against 53).
   */
  private prune(saved: number): void {
    const floor = Math.min(saved, (this.stmts.maxSeq.get()?.seq ?? 0) - this.keepLog);
    const from = this.stmts.floor.get() ?? 0;
    if (floor - from < this.pruneStep) return;
    this.unmapped(false, (side) =>
      side.transaction(() => {
        side.prepare<[number]>('UPDATE index_log_floor SET seq = ?').run(floor);
        side.prepare<[number]>('DELETE FROM index_log WHERE seq <= ?').run(floor);
      })(),
    );
    this.log('info', 'index log pruned', { through: floor, rows: floor - from });
  }

  /** Whether the page store is a file (worker threads, and connections without the map, can open it). */
  private get onDisk(): boolean {
    return this.db.name !== ':memory:' && !this.db.memory;
  }

  /** `use` given a connection of its own that reads without the memory map (this one when the store is in memory). */
  private unmapped<T>(readonly: boolean, use: (db: Db) => T): T {
    const side = this.onDisk ? openDatabase({ path: this.db.name, readonly, mapped: false }) : this.db;
    try {
      return use(side);
    } finally {
      if (side !== this.db) side.close();
    }
  }

  /** Takes a saved index's segments, their files' names and its log sequence. */
  private takeSaved(saved: { segments: SegmentData[]; names: Map<SegmentData, string>; applied: number }): void {
    this.publish(saved.segments);
    this.names = saved.names;
    this.applied = saved.applied;
    this.savedAt = saved.applied;
  }

  /** Drops the batches of new versions under way (their results are then ignored), before the segments are replaced whole. */
  private dropBatches(): void {
    this.generation++;
    this.buildingIds.clear();
    this.unbuiltFrom = Infinity;
  }

  /** A build from the page store under way because the log this process needed was pruned (`behindFloor`); refreshes wait for it. */
  private recovering: Promise<void> | undefined;

  /**
   * The rows of index_log past `applied` were pruned (this process fell behind by more than
   * `keepLog` changes, or its saved index is older than the floor): takes the saved index, which a
   * prune never passes, and catches up from there. Without one (none, of another format, or its
   * folder held for RELOAD_WAIT_MS) everything is built again from the page store in the
   * background, and searches meanwhile are answered by the segments held.
   */
  private behindFloor(floor: number): void {
    const saved = this.dir ? loadIndex(this.dir, this.signature, this.searchThreads > 1, false, RELOAD_WAIT_MS) : undefined;
    if (saved && saved.applied >= floor) {
      // As a full build does: batches under way are of the segments replaced.
      this.dropBatches();
      this.takeSaved(saved);
      this.log('info', 'search index taken again from its folder: the log since this process last caught up was pruned', { floor });
      this.refresh();
      return;
    }
    this.log('warn', 'search index behind the pruned log, and no saved index past it: building it again from the page store', { floor });
    this.recovering = this.buildAll()
      .then(() => this.save(0))
      .catch((err: unknown) => this.log('error', 'engine rebuild after the log was pruned failed; the next search tries again', { err: String(err) }))
      .finally(() => (this.recovering = undefined));
  }

  /**
   * Everything from the page store. Large stores are cut into parts of as many versions each (at
   * most BUILD_PART, two at least), each built in a worker thread (`buildInTurns`, reading the
   * database through read(), so the table's pages stay out of the process's resident memory), and
   * the parts are joined.
   */
  private async buildAll(): Promise<void> {
    // New versions still being built are read again with everything else.
    this.dropBatches();
    const seq = this.stmts.maxSeq.get()?.seq ?? 0;
    // Counted and cut without the memory map: through the map, the scan of the searchable versions'
    // index brought in the pages around each of its pages as well, 213 MB of the file at 1M (where
    // the index's pages lie spread over it, as after bench:webql's FTS5 table), which then counted
    // in the process's RSS for as long as it ran.
    const { n, bounds } = this.unmapped(true, (side) => {
      const span = side.prepare<[], { n: number; lo: number | null; hi: number | null }>(
        'SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM versions WHERE searchable = 1',
      ).get()!;
      // Parts of as many versions each, cut at the versions' ranks (two at least).
      const count = span.n >= this.parallelFrom && this.onDisk ? Math.max(2, Math.ceil(span.n / this.buildPart)) : 1;
      const idAt = side.prepare<[number], { id: number }>('SELECT id FROM versions WHERE searchable = 1 ORDER BY id LIMIT 1 OFFSET ?');
      const cuts = Array.from({ length: count - 1 }, (_, k) => idAt.get(Math.floor((span.n * (k + 1)) / count))!.id);
      return { n: span.n, bounds: span.n > 0 ? [span.lo!, ...cuts, span.hi! + 1] : [] };
    });
    let seg: SegmentData | undefined;
    if (bounds.length > 2) {
      const parts = (await buildInTurns(this.db.name, bounds.slice(1).map((next, k) => [bounds[k]!, next - 1] as const), this.weights)).filter(
        (p): p is SegmentData => p !== undefined,
      );
      seg = parts.length > 1 ? concatSegments(parts, true, this.searchThreads > 1) : parts[0];
    } else if (n > 0) {
      seg = buildRange(this.db, bounds[0]!, bounds[1]! - 1, this.weights);
    }
    this.publish(seg ? [seg] : []);
    this.applied = seq;
  }

  /** Builds every segment again from the page store. */
  async rebuild(): Promise<void> {
    this.opening = Promise.resolve();
    // Versions written while building are in the log past the sequence read first; the next refresh applies them.
    await this.buildAll();
    this.names = new Map();
    this.save(LOCK_WAIT_MS);
  }

  private locate(versionId: number): { s: SearchableSegment; seg: SegmentData; doc: number } | undefined {
    for (const s of this.segments) {
      const doc = docOf(s.data, versionId);
      if (doc >= 0) return { s, seg: s.data, doc };
    }
    return undefined;
  }

  /** Applies the page store's changes since the last refresh. Cheap when there are none. */
  refresh(): void {
    if (this.recovering) return;
    const seq = this.stmts.maxSeq.get()?.seq ?? 0;
    if (seq <= this.applied) return;
    const changes = this.stmts.changed.all(this.applied, seq);
    // Read after the changes: a prune raises the floor and deletes in one transaction, so a floor
    // still at or below `applied` now means that none of the rows just read had been deleted.
    const floor = this.stmts.floor.get() ?? 0;
    if (floor > this.applied) return this.behindFloor(floor);
    const freshIds: number[] = [];
    for (const change of changes) {
      const id = change.version_id;
      const building = this.buildingIds.get(id);
      if (building) {
        building.dirty.add(id);
        continue;
      }
      const state = change.searchable === null ? undefined : (change as VersionState);
      const held = this.locate(id);
      if (held) {
        patchColumns(held.seg, held.doc, state);
        updateGone(held.s, held.doc);
        if (!state) this.toPurge(held.seg);
      } else if (state && state.searchable === 1) {
        freshIds.push(id);
      }
    }
    const from = this.applied;
    this.applied = seq;
    const inThread = freshIds.length > this.freshSync && this.onDisk;
    if (inThread) {
      this.buildFresh(freshIds, from);
    } else {
      const seg = this.segmentOf(freshIds);
      if (seg) this.publish([...this.segments.map((s) => s.data), seg]);
    }
    this.startMerge();
    if (!inThread) this.saveIfDue();
  }

  /** The log sequence at which `saveIfDue` last saved or tried to. */
  private saveTriedAt = 0;

  /**
   * Changes applied on this thread alone are saved once the log has grown by `saveEvery` rows since
   * the last save, when no merge or batch is under way in a thread (each saves, or may, when it
   * ends). New pages call for a merge in a thread every few thousand, and that merge saves; changes
   * to versions already held (made searchable, or moved earlier by an older capture) call for
   * none, so before this a store that only saw those was caught up from the log at every start and
   * its log never pruned. Tried once per `saveEvery` rows: a save refused (another process held the
   * folder) or held back (a batch that could not be built keeps the log from its start) is not
   * tried again at every refresh.
   */
  private saveIfDue(): void {
    if (this.merging.size > 0 || this.building.size > 0) return;
    if (this.applied - Math.max(this.savedAt, this.saveTriedAt) < this.saveEvery) return;
    this.saveTriedAt = this.applied;
    this.save(0);
  }

  /** The segment of those of these versions that are searchable now (read by id, in ascending order as a segment needs). */
  private segmentOf(ids: readonly number[]): SegmentData | undefined {
    return finished(builderOf(searchableRows(this.stmts.byId, [...ids].sort((a, b) => a - b)), this.weights));
  }

  /** New versions being built into a segment in a worker thread, by id. */
  private readonly buildingIds = new Map<number, FreshBuild>();
  private readonly building = new Set<FreshBuild>();
  /** Raised by every full build: fresh builds started before it are dropped. */
  private generation = 0;
  /** The log sequence before new versions that could not be built at all (saves keep it; a full build clears it). */
  private unbuiltFrom = Infinity;

  /**
   * Builds a large batch of new versions (more than `freshSync`: an import, a crawl's burst) in a
   * worker thread; the search that found them goes on without them, and they become searchable
   * when their segment is published. Changes logged for them meanwhile are noted (`dirty`) and
   * applied to the segment before it is published.
   */
  private buildFresh(ids: number[], from: number): void {
    const sorted = Float64Array.from(ids);
    const { result, worker } = buildInWorker(this.db.name, sorted[0]!, sorted[sorted.length - 1]!, this.weights, sorted);
    const build: FreshBuild = { ids: sorted, from, dirty: new Set(), worker, generation: this.generation, done: Promise.resolve() };
    build.done = result
      .catch((err: unknown) => {
        if (this.closed) throw err;
        // Built here instead, so that no version is left out.
        this.log('error', 'engine build of new versions failed in its thread; built on the serving thread', { err: String(err) });
        return buildRange(this.db, sorted[0]!, sorted[sorted.length - 1]!, this.weights, sorted);
      })
      .then((seg) => this.takeFresh(build, seg))
      .catch((err: unknown) => {
        this.forgetFresh(build);
        if (this.closed) return;
        // Saves keep the log from here on, so a restart applies these versions again.
        this.unbuiltFrom = Math.min(this.unbuiltFrom, build.from);
        this.log('error', 'engine could not build new versions; they become searchable after a restart', { err: String(err) });
      });
    this.building.add(build);
    for (const id of ids) this.buildingIds.set(id, build);
  }

  /** The batch is no longer under way (taken in, dropped or failed). */
  private forgetFresh(build: FreshBuild): void {
    this.building.delete(build);
    for (const id of build.ids) if (this.buildingIds.get(id) === build) this.buildingIds.delete(id);
  }

  private takeFresh(build: FreshBuild, seg: SegmentData | undefined): void {
    this.forgetFresh(build);
    if (this.closed || build.generation !== this.generation) return;
    // Versions not searchable when the worker read them, and searchable now, are read again.
    const missing: number[] = [];
    for (const id of build.dirty) {
      const doc = seg ? docOf(seg, id) : -1;
      if (doc < 0) {
        missing.push(id);
        continue;
      }
      const state = this.stmts.stateById.get(id);
      patchColumns(seg!, doc, state);
      if (!state) this.toPurge(seg!);
    }
    const more = this.segmentOf(missing);
    if (!seg && !more) return;
    this.publish([...this.segments.map((s) => s.data), ...(seg ? [seg] : []), ...(more ? [more] : [])]);
    this.startMerge();
    // A merge in a thread saves when it ends; if none is under way, a large enough backlog is saved now.
    if (this.merging.size === 0 && this.applied - this.savedAt >= this.saveEvery) this.save(0);
  }

  /** Merges under way in worker threads (their parts are disjoint). */
  private readonly merging = new Set<{ parts: SegmentData[]; worker: Worker; done: Promise<void> }>();

  /**
   * Segments that hold a version deleted from the page store (`websearch pages remove`), by a
   * process that saves: each is rebuilt alone, without it, and saved (`startMerge`), so that the
   * files on disk no longer hold the removed page's words and URL (a secret in a URL is a term
   * of the dictionary), as the page store overwrites its text. A version merely hidden or
   * superseded stays flagged until a merge, as before.
   */
  private readonly purging = new Set<SegmentData>();

  private toPurge(seg: SegmentData): void {
    if (this.saves) this.purging.add(seg);
  }
  /** No merge starts in a worker before this time (ms) after one failed. */
  private mergePausedUntil = 0;
  /** Merges done (for tests and the benchmark). */
  merges = 0;

  /**
   * Starts the merges the tiers call for (`mergeTiers`) among the segments no merge is working on.
   * The merged segment is made from the parts' own postings (segment.ts `compacted`) when their
   * version ids follow each other, else rebuilt from the page store, reading the parts' live
   * versions by id in one pass over their id range; either way the deleted documents drop out, and
   * searches go on over the parts meanwhile. Small merges are done at once; up to MAX_MERGES run in worker threads, so a long
   * merge of a high tier does not hold back the small segments that keep coming.
   */
  private startMerge(): void {
    for (;;) {
      if (this.closed) return;
      const busy = new Set([...this.merging].flatMap((m) => m.parts));
      const idle = this.segments.map((s) => s.data).filter((d) => !busy.has(d));
      // A segment to purge (`purging`) first, alone, made again without its deleted documents
      // (9-12 s at 1M documents, `npm run bench:removal`) and saved; then the tiers.
      const purge = idle.find((d) => this.purging.has(d));
      const parts = purge ? [purge] : mergeTiers(idle, this.mergeBase);
      if (!parts) return;
      const small = parts.reduce((n, d) => n + d.docCount, 0) <= this.joinMerge;
      // A join copies the parts' postings as they are, deleted documents' too: never a purge's.
      const joined = small && !purge ? joinInOrder(parts) : undefined;
      // (replaceMerged publishes, so the next turn of the loop sees the tiers after it.)
      if (joined) {
        if (!this.replaceMerged(parts, joined)) return;
        continue;
      }
      // Made from the parts' own postings when their ids do not overlap (most merges: new versions
      // take higher ids), else built again from the page store; either way without the deleted documents.
      const ordered = idOrdered(parts);
      const ids = ordered ? undefined : liveIds(parts);
      const lo = ids?.[0] ?? 0;
      const hi = ids?.[ids.length - 1] ?? 0;
      // At once also for a small purge, and when segments pile up beyond MAX_SEGMENTS with the
      // workers busy (or their answers not taken in: a caller that never lets the event loop turn).
      if (!this.onDisk || (purge && small) || (this.merging.size >= MAX_MERGES && this.segments.length > MAX_SEGMENTS)) {
        if (purge) this.purging.delete(purge);
        const merged = ordered ? compacted(ordered) : ids!.length > 0 ? buildRange(this.db, lo, hi, this.weights, ids) : undefined;
        if (!this.replaceMerged(parts, merged)) return;
        // The purged segment's files go with this save.
        if (purge) this.save(0);
        continue;
      }
      if (this.merging.size >= MAX_MERGES || Date.now() < this.mergePausedUntil) return;
      // Under way: marked again only by a removal meanwhile (`replaceMerged` then purges the result).
      if (purge) this.purging.delete(purge);
      const { result, worker } = ordered ? compactInWorker(ordered, this.searchThreads > 1) : buildInWorker(this.db.name, lo, hi, this.weights, ids);
      const started = performance.now();
      const merge = {
        parts,
        worker,
        done: result.then(
          (seg) => {
            this.merging.delete(merge);
            if (this.closed) return;
            // Saved after a merge in a worker (and a large batch: takeFresh): small merges are cheap to redo from the log after a restart.
            if (this.replaceMerged(parts, seg)) {
              // Not waiting: the event loop would stand still while another process saves.
              this.save(0);
              const ms = Math.round(performance.now() - started);
              if (purge) this.log('info', 'search segment rewritten without removed pages', { documents: purge.docCount, ms });
              else this.log('info', 'search segments merged', { segments: parts.length, documents: seg?.docCount ?? 0, ms });
            }
            this.startMerge();
          },
          (err: unknown) => {
            this.merging.delete(merge);
            if (this.closed) return;
            this.mergePausedUntil = Date.now() + 60_000;
            if (purge) this.purging.add(purge); // tried again once merges resume
            this.log('error', purge ? 'engine could not rewrite a segment without removed pages; tried again in a minute' : 'engine merge failed; segments stay as they are for a minute', {
              err: String(err),
            });
          },
        ).catch((err: unknown) => {
          // Taking the merged segment in, or saving, failed: the parts stay in use.
          if (!this.closed) this.log('error', 'engine merge: taking the merged segment in or saving it failed', { err: String(err) });
        }),
      };
      this.merging.add(merge);
    }
  }

  /**
   * Puts `merged` in the place of `parts` and publishes, if they are all still in use (a rebuild
   * may have replaced them; then it returns false and changes nothing). The merged segment
   * takes the columns the parts have now (writes patched them while it was built), and a version
   * made searchable again meanwhile (not in `merged`) is read again into a small segment of its own.
   */
  private replaceMerged(parts: SegmentData[], merged: SegmentData | undefined): boolean {
    const current = this.segments.map((s) => s.data);
    if (!parts.every((p) => current.includes(p))) return false;
    const missing: number[] = [];
    for (const p of parts) {
      for (let i = 0; i < p.docCount; i++) {
        const doc = merged ? docOf(merged, p.versionIds[i]!) : -1;
        if (doc >= 0) {
          merged!.deleted[doc] = p.deleted[i]!;
          merged!.acquiredAt[doc] = p.acquiredAt[i]!;
          merged!.supersededAt[doc] = p.supersededAt[i]!;
        } else if (p.deleted[i] === 0) {
          missing.push(p.versionIds[i]!);
        }
      }
    }
    const again = this.segmentOf(missing);
    // A part marked for purging while it was merged or purged (a removal meanwhile): the version
    // may have been read before it went, so the merged segment is purged in its turn.
    const purgeAgain = parts.filter((p) => this.purging.delete(p)).length > 0;
    const datas = current.filter((d) => !parts.includes(d));
    if (merged) datas.push(merged);
    if (merged && purgeAgain) this.purging.add(merged);
    if (again) datas.push(again);
    this.merges++;
    this.publish(datas);
    return true;
  }

  /** Merges under way in worker threads (for tests). */
  get mergesUnderway(): number {
    return this.merging.size;
  }

  /** Bytes the pages' URLs take in memory (`versionsInUrl`; 0 before the first search with an `inurl:`). */
  get pageUrlsBytes(): number {
    return this.pageUrls?.memory ?? 0;
  }

  /** Resolves when no merge, build of new versions, rebuild or reading of the pages' URLs is under way (`serve --workers`' primary before it lets its copy go; tests and the benchmark). */
  async settled(): Promise<void> {
    while (this.merging.size > 0 || this.building.size > 0 || this.recovering || this.urlsFilling) {
      await Promise.all([...[...this.merging, ...this.building].map((m) => m.done), this.recovering, this.urlsFilling]);
    }
  }

  /** Batches of new versions being built in worker threads (for tests). */
  get freshUnderway(): number {
    return this.building.size;
  }

  private filter(q: IndexQuery): EngineFilter {
    const f: EngineFilter = {};
    if (q.site !== undefined) f.revSite = reverseHost(q.site);
    if (q.anySites !== undefined) f.anyRevSites = q.anySites.map(reverseHost);
    if (q.excludeSites !== undefined && q.excludeSites.length > 0) f.notRevSites = q.excludeSites.map(reverseHost);
    if (q.excludeTerms !== undefined && q.excludeTerms.length > 0) f.notTerms = q.excludeTerms.map(cachedStem);
    if (q.acquiredAfter !== undefined) f.acquiredAfter = q.acquiredAfter;
    if (q.acquiredBefore !== undefined) f.acquiredBefore = q.acquiredBefore;
    if (q.publishedAfter !== undefined) f.publishedAfter = q.publishedAfter;
    if (q.publishedBefore !== undefined) f.publishedBefore = q.publishedBefore;
    if (q.queryTime !== undefined) f.queryTime = q.queryTime;
    if (q.fileType !== undefined) {
      const only = this.versionsOfType(q.fileType);
      if (only) f.onlyVersions = only;
    }
    if (q.notFileType !== undefined && f.onlyVersions === undefined) {
      const only = this.versionsNotOfType(q.notFileType);
      if (only) f.onlyVersions = only;
    }
    if (q.inUrl !== undefined) {
      const only = this.versionsInUrl(q.inUrl);
      // With a type's versions too (`filetype:pdf inurl:arxiv`): those of both.
      if (only) f.onlyVersions = bothOf(f.onlyVersions, only);
    }
    return f;
  }

  /**
   * The versions of the pages whose URL holds `text` (an `inurl:`, core/webql.ts `pageMatches`),
   * ascending; undefined when they are more than `fileTypeMax`, or while the pages' URLs are being
   * read (`caughtUpUrls`). Kept as a type's are: the URLs of the pages of every version the
   * segments hold were read when it was looked up.
   */
  private versionsInUrl(text: string): Float64Array | undefined {
    const urls = this.caughtUpUrls();
    if (!urls) return undefined;
    return this.keptTypeLookup(`inurl:${text.toLowerCase()}`, () => {
      const pages = urls.find(text, this.fileTypeMax);
      return pages && this.underBound(new Set(this.stmts.versionsOfPages.all(JSON.stringify(pages))));
    });
  }

  /**
   * The pages' URLs in memory, up to the newest page: those stored since are read now when they
   * are at most `urlsAtOnce`. Otherwise (the first `inurl:` of a large store, or a large import
   * since) undefined, and they are read in turns of the event loop, `urlsTurnMs` each.
   */
  private caughtUpUrls(): PageUrls | undefined {
    if (this.urlsFilling) return undefined;
    const urls = (this.pageUrls ??= new PageUrls());
    if ((this.stmts.lastPage.get() ?? 0) - urls.lastPage <= this.urlsAtOnce) {
      readUrls(this.stmts.pagesAfter, urls, -1);
      return urls;
    }
    const filling = (async () => {
      // Through a connection without the memory map: the pages' rows lie among the versions' in
      // the file, and mapped, each page read brought its neighbours into the process's resident
      // memory (1.5 GB more at 1M pages, for 94 MB of rows).
      const side = this.onDisk ? openDatabase({ path: this.db.name, readonly: true, mapped: false }) : this.db;
      try {
        const after = side === this.db ? this.stmts.pagesAfter : side.prepare<[number, number], [number, string]>(PAGES_AFTER_SQL).raw(true);
        let until = performance.now() + this.urlsTurnMs;
        while (!this.closed && readUrls(after, urls, URLS_STEP) === URLS_STEP) {
          if (performance.now() < until) continue;
          await turn();
          until = performance.now() + this.urlsTurnMs;
        }
      } finally {
        if (side !== this.db) side.close();
      }
    })();
    this.urlsFilling = filling
      .catch((e: unknown) => this.log('warn', "reading the pages' URLs for inurl: failed; searches check them on the ranked pages", { error: String(e) }))
      .finally(() => (this.urlsFilling = undefined));
    return undefined;
  }

  /**
   * The versions whose URL names `ext` or that were served as a type answering to it, ascending
   * (on the indexes of migrations 22 and 23); undefined when pages served as HTML answer to it, or
   * when there are more than `fileTypeMax` (FILE_TYPE_VERSIONS_MAX). Kept until the log moves on (a version stored,
   * or its media type filled in): 10,000 versions of a type took 4 ms to look up at 1M (ad hoc).
   */
  private versionsOfType(ext: string): Float64Array | undefined {
    return this.keptTypeLookup(ext, () => this.lookUpType(ext));
  }

  /**
   * The versions a `-filetype:` of a type that pages served as HTML answer to keeps (`html`, `htm`):
   * those served as another type or as none, whose URL names another type or none,
   * ascending (on the indexes of migrations 22 to 24); undefined for another type (most pages are
   * not of it), or when there are more than `fileTypeMax`. Kept as `versionsOfType`'s are.
   */
  private versionsNotOfType(ext: string): Float64Array | undefined {
    return this.keptTypeLookup(`-${ext}`, () => this.lookUpNotType(ext));
  }

  /** The versions in language `tag` or under it (`lang:`), ascending, or undefined when they are more than `fileTypeMax`. Kept as a type's are. */
  private versionsInLanguage(tag: string): Float64Array | undefined {
    return this.keptTypeLookup(`lang:${tag}`, () => {
      const found = this.languageLookup(tag, this.fileTypeMax);
      return found && this.underBound(found);
    });
  }

  /** The versions of the pages whose URL is under `prefix` (`url:`), ascending, or undefined when they are more than `fileTypeMax`. Kept as a type's are. */
  private versionsUnderUrl(prefix: string): Float64Array | undefined {
    return this.keptTypeLookup(`url:${prefix}`, () => {
      const found = this.urlLookup(prefix, this.fileTypeMax);
      return found && this.underBound(found);
    });
  }

  /** The ids of the versions in language `tag` or under it (`en`: `en-gb`), or undefined when there are more than `max`. */
  private languageLookup(tag: string, max: number): Set<number> | undefined {
    const found = this.stmts.inLanguage.all(tag, `${tag}-`, prefixEnd(`${tag}-`)!, max + 1);
    return found.length > max ? undefined : new Set(found);
  }

  /** The ids of the versions whose page's URL is under `url:prefix` (`urlPrefixes`), or undefined when there are more than `max`. */
  private urlLookup(prefix: string, max: number): Set<number> | undefined {
    const found = new Set<number>();
    for (const from of urlPrefixes(prefix)) {
      const end = prefixEnd(from);
      if (end === undefined) return undefined;
      for (const id of this.stmts.underUrl.all(from, end, max + 1 - found.size)) found.add(id);
      if (found.size > max) return undefined;
    }
    return found;
  }

  /** A type's versions, or an `inurl:`'s (`versionsOfType`, `versionsNotOfType`, `versionsInUrl`), looked up again once the log has moved on. */
  private keptTypeLookup(key: string, lookUp: () => Float64Array | undefined): Float64Array | undefined {
    const kept = this.typeVersions.get(key);
    if (kept && kept.seq === this.applied) return kept.ids;
    const ids = lookUp();
    if (this.typeVersions.size >= KEPT_TYPES) this.typeVersions.clear();
    this.typeVersions.set(key, { seq: this.applied, ids });
    return ids;
  }

  /** `versionsNotOfType`'s lookup. */
  private lookUpNotType(ext: string): Float64Array | undefined {
    const types = mediaTypesOf(ext);
    if (!types.includes('text/html')) return undefined;
    const max = this.fileTypeMax;
    const found = new Set(this.stmts.servedOtherwise.all(JSON.stringify(types), ext, max + 1));
    if (found.size <= max) for (const id of this.stmts.untyped.all(ext, max + 1 - found.size)) found.add(id);
    return this.underBound(found);
  }

  /** Versions looked up for a type, ascending, or undefined when they are more than `fileTypeMax`. */
  private underBound(found: Set<number>): Float64Array | undefined {
    return found.size > this.fileTypeMax ? undefined : Float64Array.from(found).sort();
  }

  /** `versionsOfType`'s lookup. */
  private lookUpType(ext: string): Float64Array | undefined {
    const types = mediaTypesOf(ext);
    if (types.includes('text/html')) return undefined;
    const max = this.fileTypeMax;
    const found = new Set(this.stmts.namedAs.all(ext, max + 1));
    for (const type of types) {
      if (found.size > max) break;
      for (const id of this.stmts.servedAs.all(type, max + 1)) found.add(id);
    }
    return this.underBound(found);
  }

  /** A webql query: candidates from the segments, checked against the stored versions (webql-search.ts). */
  private searchWebql(q: IndexQuery, node: WebqlNode): Promise<IndexHit[]> {
    return searchWebql(this.webqlDeps(q, node), node, q.limit, q.rankTerms);
  }

  /** What webql-search asks of the segments and the store for `q` (its filters, narrowed by a top-level `site:` of `node`). */
  private webqlDeps(q: IndexQuery, node: WebqlNode): WebqlDeps {
    // The segments and statistics of the query's start: its best candidates' listing and the
    // whole listing after it (webql-search's `best`) score alike, whatever is published meanwhile.
    const segments = this.segments;
    const stats = this.statistics();
    // A top-level filetype: is the query's `fileType`, and a top-level -filetype: its `notFileType`.
    const top = topItems(node);
    const fileType = top.flatMap((item) => (item.kind === 'filetype' ? [item.ext] : []))[0];
    const notFileType = top.flatMap((item) => (item.kind === 'not' && item.child.kind === 'filetype' ? [item.child.ext] : []))[0];
    const inUrl = top.flatMap((item) => (item.kind === 'inurl' ? [item.text] : []))[0];
    const filter = this.filter({ ...q, fileType: q.fileType ?? fileType, notFileType: q.notFileType ?? notFileType, inUrl: q.inUrl ?? inUrl });
    const site = narrowerSite(node, filter.revSite);
    if (site !== undefined) filter.revSite = site;
    // A top-level OR of sites, likewise, unless the request asks for some of its own.
    const either = filter.anyRevSites === undefined ? eitherSites(node) : undefined;
    if (either !== undefined) filter.anyRevSites = either;
    // A top-level lang: or url: whose versions are few keeps the listing to them, as a filetype:
    // does: alone, or with a common word, every page of the words was listed and scored first
    // (`url:` a site's prefix alone 76-120 ms at 1M, against 16 for its `site:`).
    const lang = top.flatMap((item) => (item.kind === 'lang' ? [item.tag] : []))[0];
    const under = top.flatMap((item) => (item.kind === 'url' ? [item.prefix] : []))[0];
    const langVersions = lang !== undefined ? this.versionsInLanguage(lang) : undefined;
    const urlVersions = under !== undefined ? this.versionsUnderUrl(under) : undefined;
    for (const only of [langVersions, urlVersions]) if (only) filter.onlyVersions = bothOf(filter.onlyVersions, only);
    const turned = turnUnless(q.stopped);
    // The share of the pages the filter's time bounds keep (`best`), counted on its first use.
    let share: number | undefined;
    // The weights of the fields a phrase is looked for in, those indexed.
    const textWeights = [this.weights.title, this.weights.description, this.weights.content].filter((w) => w > 0);
    return {
      matches: (request, only) =>
        allMatches(segments, stats, only ? { ...filter, onlyVersions: bothOf(filter.onlyVersions, only) } : filter, request, turned, this.matchStep),
      // Not under a filter that keeps to few pages: a top k there finds its k late, and so prunes
      // little (bench:webql's `a b site:` p99 8 -> 37 ms), where the listing is short anyway: a
      // site, some versions, or time bounds that keep less than NARROW_TIME_SHARE of the pages. A
      // wider window's top k prunes as well as none (its pages outside are gone bits), and without
      // it webql's `develops` in an acquired year listed all 153,151 pages of its word first: 20-33
      // ms, against 1-3 for the standard query.
      best: async (terms, k) => (keepsToPages(filter) || (share ??= timeShare(segments, filter)) < NARROW_TIME_SHARE ? undefined : this.searchTerms(segments, stats, [...terms], filter, k)),
      // Not under a site or some versions either: their pages are few (the listing is short), and
      // the newest of them may lie far apart. A window's are walked inside its acquired bounds, or
      // accepted as often as the window holds pages (a walk looks at most 64 times k).
      newest: async (k, held) => (keepsToPages(filter) ? undefined : newestAccepted(segments, filter, k, held)),
      turn: turned,
      df: (stem) => stats.df(stem),
      siteDocs: (rev) => siteDocCount(segments, rev),
      itemVersions: (item) => {
        if (item.kind === 'lang') return this.versionsInLanguage(item.tag);
        if (item.kind === 'url') return this.versionsUnderUrl(item.prefix);
        if (item.kind === 'inurl') return this.versionsInUrl(item.text);
        return item.kind === 'filetype' ? this.versionsOfType(item.ext) : undefined;
      },
      together: (stems, max, pairs) => heldByAll(segments, stems, max, pairs),
      heldAtLeast: (stem, floor) => heldAtLeast(segments, stem, floor),
      titleWeight: Math.floor(this.weights.title),
      textWeight: textWeights.length > 0 ? Math.min(...textWeights) : 0,
      read: this.stmts.webqlRead,
      // (Only where there can be a helper and a file: each job it may take has shared arrays of its own.)
      ...(this.searchThreads >= 2 && this.onDisk && { checkAside: (job: CheckJob) => this.checkAside(job) }),
      claimsHere: !this.asideOnly,
      // Those the filter already keeps the candidates to are not looked up again.
      inLanguage: (tag, max) => (tag === lang && langVersions ? undefined : this.languageLookup(tag, max)),
      underUrl: (prefix, max) => (prefix === under && urlVersions ? undefined : this.urlLookup(prefix, max)),
      inUrl: async (text) => {
        // The pages' URLs in memory answer it when they are read and few enough hold it (as they
        // kept this query's candidates to them, often); else a scan of the pages in SQLite.
        const kept = this.versionsInUrl(text);
        if (kept) return new Set(kept);
        const lower = text.toLowerCase();
        const pattern = `%${lower.replace(/[\\%_]/g, '\\$&')}%`;
        const scan = /[ik\u0080-\uffff]/.test(lower) ? this.stmts.inUrlOrWide : this.stmts.inUrl;
        const last = this.stmts.lastPage.get() ?? 0;
        const found = new Set<number>();
        for (let from = 0; from <= last; from += this.urlScanStep) {
          if (from > 0) await turned();
          for (const id of scan.all(from, from + this.urlScanStep, pattern)) found.add(id);
        }
        return found;
      },
      pages: () => this.stmts.lastPage.get() ?? 0,
      readsMax: this.webqlReadsMax,
      readCharsMax: this.webqlReadCharsMax,
      bestFirst: this.webqlBestFirst,
    };
  }

  async search(q: IndexQuery): Promise<IndexHit[]> {
    await this.open();
    this.refresh();
    if (q.webql) return this.searchWebql(q, q.webql);
    const segments = this.segments;
    const stats = this.statistics();
    const filter = this.filter(q);
    const terms = q.terms.map(cachedStem);
    const hits = await this.searchTerms(segments, stats, terms, filter, q.limit);
    if (!q.alternative) return hits;
    // A page's score is the better of its two readings'. One holding none of the other reading's own
    // words (a compound's joined word) scores no more by it than by the first (`readingOrder`), so
    // only pages holding one are searched, and only where they reach the k-th of the first reading:
    // the search starts from that floor.
    const other = readingOrder(terms, q.alternative.map(cachedStem));
    if (other.own === 0) return hits;
    const floor = new SharedFloor();
    if (hits.length === q.limit) floor.raise(hits[q.limit - 1]!.score);
    return bestOfReadings(hits, await this.searchTerms(segments, stats, other.terms, filter, q.limit, floor, other.own), q.limit);
  }

  /**
   * The top `limit` for `terms` (stemmed), split over the helper thread when that pays; `floor` (a
   * bound on the k-th score) when given; of the pages holding one of the last `required` terms when
   * that is above 0 (searchTopK).
   */
  private async searchTerms(segments: readonly SearchableSegment[], stats: Statistics, terms: string[], filter: EngineFilter, limit: number, floor?: SharedFloor, required = 0): Promise<IndexHit[]> {
    const helper = this.helperForSplit();
    if (!helper || this.work(stats, terms, required) < this.splitWork) return searchTopK(segments, stats, terms, filter, limit, undefined, floor, required);
    // The upper part of every segment on the helper, the lower part here (SPLIT_SHARE), with a shared floor.
    const busy = this.splitting > 0;
    if (busy) this.busySplits++;
    const cut = Math.ceil(this.largest * (busy ? BUSY_SPLIT_SHARE : SPLIT_SHARE));
    this.splitting++;
    try {
      return await this.searchSplit(helper, segments, stats, terms, filter, limit, cut, floor ?? new SharedFloor(), required);
    } finally {
      this.splitting--;
    }
  }

  /** `searchTerms` over documents [cut, end) of every segment on the helper and [0, cut) here, merged. */
  private async searchSplit(helper: SearchHelper, segments: readonly SearchableSegment[], stats: Statistics, terms: string[], filter: EngineFilter, limit: number, cut: number, floor: SharedFloor, required: number): Promise<IndexHit[]> {
    const theirs = helper.search(segments, stats, terms, filter, limit, [cut, NO_MORE], floor, required);
    const mine = searchTopK(segments, stats, terms, filter, limit, [0, cut], floor, required);
    let upper: IndexHit[];
    try {
      upper = await theirs;
      this.splitSearches++;
    } catch (e) {
      // The helper failed this search (an error it answered: said here), or is gone (said once, and
      // not asked again): its part here.
      if (!helper.broken) this.log('error', 'search helper failed a search; its part ran on the serving thread', { err: String(e) });
      upper = searchTopK(segments, stats, terms, filter, limit, [cut, NO_MORE], floor, required);
    }
    return mergeHits([mine, upper], limit);
  }

  /** A search's expected work, for whether to split it: the postings of its terms (of the last `required`, the lists it reads, when above 0) and a tenth of the largest segment. */
  private work(stats: Statistics, terms: readonly string[], required = 0): number {
    let postings = 0;
    const distinct = [...new Set(terms)];
    for (const t of required > 0 ? distinct.slice(-required) : distinct) postings += stats.df(t);
    return postings + this.largest / 10;
  }

  /**
   * Shares webql's candidates of `job` with the helper thread, which claims and checks some of
   * them over its own read-only connection to this store's file (webql-search.ts `checkClaimed`;
   * offered only with two search threads and a file); undefined when there is no helper, or the
   * job is too small to pay for the message.
   * Settles when the helper is done with the job (its count added to `asideChecks`); a check it
   * fails is said once, and the helper is not asked again.
   */
  private checkAside(job: CheckJob): Promise<void> | undefined {
    if (job.ids.length < this.asideMin || this.checksFailed) return undefined;
    const helper = this.helperThread();
    if (!helper) return undefined;
    const reply = helper.check(job).then(
      (checked) => {
        this.asideChecks += checked;
      },
      (e: unknown) => {
        // One it answered with an error (its connection to the file failed, say): not asked again.
        // A helper that is gone is said once as such (`helperThread`).
        if (!helper.broken && !this.checksFailed) {
          this.checksFailed = true;
          this.log('error', 'search helper failed a check of webql candidates; they are checked on the serving thread from now on', { err: String(e) });
        }
        throw e;
      },
    );
    this.pendingChecks.add(reply);
    const settled = () => this.pendingChecks.delete(reply);
    reply.then(settled, settled);
    return reply;
  }

  /** Once the helper has answered every check asked of it so far (for tests and the benchmark: `asideChecks` counts them as they answer). */
  async checksSettled(): Promise<void> {
    await Promise.allSettled([...this.pendingChecks]);
  }

  /** The helper thread when a search may be split (starting it the first time), else undefined. */
  private helperForSplit(): SearchHelper | undefined {
    return this.largest < this.splitFrom ? undefined : this.helperThread();
  }

  /** The helper thread with two search threads (starting it the first time), else undefined. */
  private helperThread(): SearchHelper | undefined {
    if (this.searchThreads < 2 || this.closed) return undefined;
    if (!this.helper) {
      this.helper = new SearchHelper(
        (e) => this.log('error', 'search helper thread failed; searches now run on one thread', { err: String(e) }),
        this.onDisk ? this.db.name : undefined,
      );
      this.helper.publish(this.segments, this.docCount > 0 ? this.totalLength / this.docCount : 0);
    }
    return this.helper.broken ? undefined : this.helper;
  }

  /** Stops the helper thread, if one was started; searches after this run on one thread. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.merging, ...this.building].map((m) => m.worker.terminate()));
    const helper = this.helper;
    this.helper = undefined;
    await helper?.close();
  }

  /**
   * One part of a search: the documents [lo, hi) of each segment (engine.ts `DocRange`). Parts
   * that cover every document, merged by `mergeHits`, give exactly `search`'s hits for `q.terms`
   * (not webql, and not `alternative`: the first reading alone);
   * parts that share a `floor` prune with each other's thresholds.
   */
  searchPart(q: IndexQuery, range: DocRange, floor?: SharedFloor): IndexHit[] {
    this.refresh();
    return searchTopK(this.segments, this.statistics(), q.terms.map(cachedStem), this.filter(q), q.limit, range, floor);
  }

  /**
   * The port's common terms: those of the largest segment held by at least one page in 10,000
   * (and two) and at most a third of its pages, of three or more ASCII letters (words a person
   * would search for, not numbers or a title's stop words), in the dictionary's order.
   */
  commonTerms(max: number): string[] {
    this.refresh();
    let largest: SegmentData | undefined;
    for (const { data } of this.segments) if (!largest || data.docCount > largest.docCount) largest = data;
    const terms: string[] = [];
    if (!largest) return terms;
    const [least, most] = [Math.max(2, largest.docCount / 10_000), largest.docCount / 3];
    for (let t = 0, n = termCount(largest); t < n && terms.length < max; t++) {
      const df = largest.termDf[t]!;
      if (df < least || df > most) continue;
      const term = termAt(largest, t);
      if (/^[a-z]{3,}$/.test(term)) terms.push(term);
    }
    return terms;
  }

  /** Each stem's BM25 inverse document frequency over every segment (IndexStore `idf`). */
  idf(stems: readonly string[]): number[] {
    const stats = this.statistics();
    return stems.map((stem) => idf(stats, stats.df(stem)));
  }

  /**
   * The port's corrections: for a word of ASCII letters that no page holds (its stem), the terms
   * pages hold that are the stem of a spelling one edit from the word (`oneEditAway`: one edit,
   * the spelling asked for) or near its stem, starting with its letter, and their own stems
   * (`nearestTerms`: an edit more than its distance, within one edit for a stem of 5 letters, two
   * for 6 or more; a stem that differs only in doubled letters is one edit); the likeliest taken:
   * the commonest, each edit counting as a twentieth of its pages (`SPELLING_EDIT_ODDS`), so
   * "tarrifs" is "tariff" (one edit) before "terrifs" ("terrific", one edit) unless that is
   * commoner. The terms near a word are kept for a minute (SPELLED_FRESH_MS), their pages counted
   * at each query. A word on a few pages (RARE_PAGES_MAX) is
   * corrected too when its correction is RARE_ODDS times likelier than it (its pages, at no edit):
   * in a large index most misspellings are on some page. Only the first SPELLING_WORDS_MAX words
   * that few pages or none hold are looked at.
   */
  corrections(terms: readonly string[]): (string | undefined)[] {
    this.refresh();
    const stats = this.statistics();
    let looked = 0;
    return terms.map((word) => {
      const own = cachedStem(word);
      const max = editsAllowed(own.length);
      const held = stats.df(own);
      if (max === 0 || !/^[a-z]+$/.test(word) || held > RARE_PAGES_MAX || looked++ >= SPELLING_WORDS_MAX) return undefined;
      let kept = this.spelled.get(word);
      if (kept === undefined || performance.now() - kept.at > SPELLED_FRESH_MS) {
        // Each term near, its edits and what to ask for to find it: a spelling one edit away, or
        // the term itself where it is its own stem. A term near the misspelling's stem counts an
        // edit more than its distance (one that differs in doubled letters only, one edit): a stem
        // of a misspelt word is a guess, a spelling one edit away what was typed, less one slip.
        const near = new Map<string, { edits: number; ask: string }>();
        for (const [term, distance] of nearestTerms(this.segments.map((s) => s.data), own, max)) {
          if (cachedStem(term) === term) near.set(term, { edits: distance + 1, ask: term });
        }
        for (const spelling of oneEditAway(word)) {
          const term = stem(spelling);
          if (term !== own && (near.get(term)?.edits ?? 2) > 1 && stats.df(term) > 0) near.set(term, { edits: 1, ask: spelling });
        }
        if (this.spelled.size >= SPELLED_KEPT) this.spelled.clear();
        kept = { near: [...near].map(([term, n]) => ({ term, ...n })), at: performance.now() };
        this.spelled.set(word, kept);
      }
      // The likeliest by the pages each is on now.
      let best: { ask: string; odds: number } | undefined;
      for (const { term, edits, ask } of kept.near) {
        const odds = stats.df(term) / SPELLING_EDIT_ODDS ** edits;
        if (odds > (best?.odds ?? 0) || (best !== undefined && odds === best.odds && ask < best.ask)) best = { ask, odds };
      }
      // A word some pages hold is a misspelling too when a word near it is far likelier: its own
      // pages count as its odds, at no edit.
      return best !== undefined && best.odds >= (held > 0 ? RARE_ODDS * held : 0) ? best.ask : undefined;
    });
  }

  /** Every match scored (of both readings, with `alternative`), for tests and the benchmark: the reference `search` must equal. */
  exhaustiveSearch(q: IndexQuery): IndexHit[] {
    this.refresh();
    const stats = this.statistics();
    const filter = this.filter(q);
    const terms = q.terms.map(cachedStem);
    const hits = exhaustive(this.segments, stats, terms, filter, q.limit);
    if (!q.alternative) return hits;
    return bestOfReadings(hits, exhaustive(this.segments, stats, readingOrder(terms, q.alternative.map(cachedStem)).terms, filter, q.limit), q.limit);
  }
}
