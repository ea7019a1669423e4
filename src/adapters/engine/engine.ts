/**
 * The search engine: BM25 top-k over segments by MaxScore with block skipping, filters applied
 * inside the traversal from column arrays. Rank-safe: it returns exactly the top k of exhaustive
 * scoring (`exhaustive` below, used by tests and the benchmark), ties broken by lower version id.
 *
 * Scoring is FTS5's bm25() over one weighted frequency per term and document (the sum over fields of
 * weight x count) and the document's total length, with Lucene's IDF (never negative):
 *   idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)),   s(t, d) = idf * tf (k1 + 1) / (tf + k1 (1 - b + b len / avglen))
 * N, df and avglen count every document of every segment, deleted ones included (as Lucene does until
 * segments merge), so the statistics never depend on a query's filters.
 */
import { B, BLOCK, bitsetWords, blockDocs, hostRange, K1, lowerBound, members, newArray, packedWords, publishedRange, publishedSet, resized, type SegmentData, termNumber } from './segment.js';
import { mayHoldPair } from './pair-filter.js';

export { B, K1 };


export interface EngineFilter {
  /** Reversed-host prefix (site and subdomains). */
  revSite?: string;
  /** Reversed-host prefixes of which a document's host must be under one (each a site and its subdomains). */
  anyRevSites?: readonly string[];
  /** Reversed-host prefixes left out (each a site and its subdomains). */
  notRevSites?: readonly string[];
  /** Terms a document must not hold (a standard query's `-word`s): its documents are left out. */
  notTerms?: readonly string[];
  acquiredAfter?: number;
  acquiredBefore?: number;
  publishedAfter?: number;
  publishedBefore?: number;
  /** Versions alive at this instant; undefined: versions alive now (not superseded). */
  queryTime?: number;
  /**
   * Only these versions (ids ascending): those of a `filetype:` (IndexQuery `fileType`). Each
   * segment's documents of them are a bitset, which leads the traversal when they are few, as a
   * published window's documents do.
   */
  onlyVersions?: Float64Array;
}

export interface EngineHit {
  versionId: number;
  score: number;
}

/** Past every document number (and the end of a `DocRange` that runs to the end). */
export const NO_MORE = 0x7fffffff;
/**
 * Postings after the current one a probe looks at before it guesses (`Cursor.advance`; with 2, long
 * claims with no filter at 1M as fast as with the 8 looked at before guessing was added, 4.00
 * against 4.03 ms p50; with none 2% slower; ad hoc, in one process with a switch, not kept).
 */
const LINEAR_PROBE = 2;
/** Steps from an interpolated guess toward the target before binary search (`Cursor.advance`). */
const GUESS_STEPS = 4;

/**
 * A reading position in one term's postings in one segment. Blocks are read in place: a posting's
 * document and frequency are unpacked when asked for, and a target inside a block is found by
 * binary search, so probing a list for one document never decodes the rest of its block.
 */
class Cursor {
  doc = -1;
  /** A bit per document of the segment, set for those in this list (`Members`), when it is dense. */
  member: Int32Array | undefined = undefined;
  /** How many postings the list has (its df in the segment). */
  postings = 0;
  private block = -1;
  private shallow = -1;
  private k = 0;
  private n = 0;
  private base = 0;
  private at = 0;
  private bits = 0;
  private mask = 0;
  private freqAt = 0;
  private freqBits = 0;
  private freqMask = 0;
  private readonly words: Int32Array;
  private readonly end: number;

  constructor(
    private readonly seg: SegmentData,
    private readonly first: number,
    count: number,
  ) {
    this.end = first + count;
    this.words = seg.postings;
  }

  private load(block: number): void {
    const seg = this.seg;
    const offset = seg.blockOffset[block]!;
    const head = this.words[offset]!;
    this.block = block;
    this.n = head & 0xff;
    this.bits = (head >>> 8) & 0xff;
    this.freqBits = (head >>> 16) & 0xff;
    this.mask = this.bits === 0 ? 0 : 0xffffffff >>> (32 - this.bits);
    this.freqMask = this.freqBits === 0 ? 0 : 0xffffffff >>> (32 - this.freqBits);
    this.base = seg.blockBase[block]!;
    this.at = offset + 1;
    this.freqAt = this.at + packedWords(this.n, this.bits);
    this.k = 0;
  }

  /** The document of the k-th posting of the current block. */
  private docAt(k: number): number {
    const bit = k * this.bits;
    const i = this.at + (bit >>> 5);
    const off = bit & 31;
    let v = this.words[i]! >>> off;
    if (off + this.bits > 32) v |= this.words[i + 1]! << (32 - off);
    return this.base + (v & this.mask);
  }

  /** The weighted term frequency of the current posting. */
  get tf(): number {
    const bit = this.k * this.freqBits;
    const i = this.freqAt + (bit >>> 5);
    const off = bit & 31;
    let v = this.words[i]! >>> off;
    if (off + this.freqBits > 32) v |= this.words[i + 1]! << (32 - off);
    return (v & this.freqMask) + 1;
  }

  /** Moves to the first posting; NO_MORE when there is none. */
  start(): void {
    if (this.first === this.end) {
      this.doc = NO_MORE;
      return;
    }
    this.load(this.first);
    this.doc = this.docAt(0);
  }

  next(): void {
    if (++this.k < this.n) {
      this.doc = this.docAt(this.k);
      return;
    }
    if (this.block + 1 >= this.end) {
      this.doc = NO_MORE;
      return;
    }
    this.load(this.block + 1);
    this.doc = this.docAt(0);
  }

  /** Moves to the first posting at or after `target`, skipping whole blocks without reading them. */
  advance(target: number): void {
    if (this.doc >= target) return;
    const blockLast = this.seg.blockLast;
    if (blockLast[this.block]! < target) {
      const b = firstBlockAtOrAfter(blockLast, this.block + 1, this.end, target);
      if (b >= this.end) {
        this.doc = NO_MORE;
        return;
      }
      this.load(b);
    }
    // The block's last posting is >= target. The next postings first (a candidate completed from a
    // list is often one of them), then a guess: a block's documents lie about evenly between its
    // first and its last, so the posting at the target's share of the way lands within a few of
    // the answer, and a few steps reach it. A probe of a dense list at a sparse filter's documents
    // lands about 14 postings ahead, where a linear look of 8 and a binary search took 15 reads
    // with unpredictable branches (one-month windows over 1M, bench:engine-ab against that: p99
    // of short claims -12%, of long claims -9%). Binary search when the steps do not reach it (a
    // block whose documents bunch).
    let lo = this.k;
    let d = this.docAt(lo);
    const near = Math.min(lo + LINEAR_PROBE, this.n - 1);
    while (lo < near && d < target) d = this.docAt(++lo);
    if (d >= target) {
      this.k = lo;
      this.doc = d;
      return;
    }
    // From here docAt(lo) < target <= docAt(hi).
    let hi = this.n - 1;
    let guess = lo + 1 + Math.floor(((target - d) * (hi - lo)) / (blockLast[this.block]! - d + 1));
    if (guess > hi) guess = hi;
    let steps = GUESS_STEPS;
    if (this.docAt(guess) >= target) {
      hi = guess;
      while (hi - 1 > lo && steps-- > 0) {
        if (this.docAt(hi - 1) < target) {
          lo = hi - 1;
          break;
        }
        hi--;
      }
    } else {
      lo = guess;
      while (lo + 1 < hi && steps-- > 0) {
        if (this.docAt(lo + 1) >= target) {
          hi = lo + 1;
          break;
        }
        lo++;
      }
    }
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (this.docAt(mid) < target) lo = mid;
      else hi = mid;
    }
    this.k = hi;
    this.doc = this.docAt(hi);
  }

  /**
   * Adds the score of every posting before `end` (only of documents in `inside`, when given) into
   * a window's accumulators starting at document `ws`, and moves past them: the inner loop of the
   * windowed traversal, reading the block with locals.
   */
  addUpTo(end: number, ws: number, idfW: number, normOf: Float32Array, code: Uint8Array, acc: Float64Array, tfWin: Int32Array, tfBase: number, found: Int32Array, inside: Int32Array | undefined): void {
    const words = this.words;
    while (this.doc < end) {
      const { n, at, bits: width, mask, base, freqAt, freqBits, freqMask } = this;
      let k = this.k;
      let doc = this.doc;
      for (;;) {
        if (inside === undefined || (inside[doc >>> 5]! & (1 << (doc & 31))) !== 0) {
          let tf = 1;
          if (freqBits !== 0) {
            const bit = k * freqBits;
            const i = freqAt + (bit >>> 5);
            const off = bit & 31;
            let v = words[i]! >>> off;
            if (off + freqBits > 32) v |= words[i + 1]! << (32 - off);
            tf = (v & freqMask) + 1;
          }
          const d = doc - ws;
          tfWin[tfBase + d] = tf;
          acc[d] = acc[d]! + termScore(idfW, tf, normOf[code[doc]!]!);
          found[d >>> 5] = found[d >>> 5]! | (1 << (d & 31));
        }
        if (++k >= n) break;
        const bit = k * width;
        const i = at + (bit >>> 5);
        const off = bit & 31;
        let v = words[i]! >>> off;
        if (off + width > 32) v |= words[i + 1]! << (32 - off);
        doc = base + (v & mask);
        if (doc >= end) {
          this.k = k;
          this.doc = doc;
          return;
        }
      }
      // The block is used up: on to the next one.
      this.k = n - 1;
      this.next();
    }
  }

  /**
   * Moves to the first posting before `end` (and in `inside`, when given) whose score plus `rest`
   * reaches `bar`, and returns that score; -1, with the cursor at or past `end`, when there is none.
   * The inner loop of a window with one essential list, reading the block with locals.
   */
  seek(end: number, idfW: number, normOf: Float32Array, code: Uint8Array, rest: number, bar: number, inside: Int32Array | undefined): number {
    const words = this.words;
    while (this.doc < end) {
      const { n, at, bits: width, mask, base, freqAt, freqBits, freqMask } = this;
      let k = this.k;
      let doc = this.doc;
      for (;;) {
        if (inside === undefined || (inside[doc >>> 5]! & (1 << (doc & 31))) !== 0) {
          let tf = 1;
          if (freqBits !== 0) {
            const bit = k * freqBits;
            const i = freqAt + (bit >>> 5);
            const off = bit & 31;
            let v = words[i]! >>> off;
            if (off + freqBits > 32) v |= words[i + 1]! << (32 - off);
            tf = (v & freqMask) + 1;
          }
          const score = termScore(idfW, tf, normOf[code[doc]!]!);
          if (score + rest >= bar) {
            this.k = k;
            this.doc = doc;
            return score;
          }
        }
        if (++k >= n) break;
        const bit = k * width;
        const i = at + (bit >>> 5);
        const off = bit & 31;
        let v = words[i]! >>> off;
        if (off + width > 32) v |= words[i + 1]! << (32 - off);
        doc = base + (v & mask);
        if (doc >= end) {
          this.k = k;
          this.doc = doc;
          return -1;
        }
      }
      this.k = n - 1;
      this.next();
    }
    return -1;
  }

  /** As `addUpTo`, for the documents of `inside` only, each found by `advance` (a dense list, a sparse filter). */
  addAt(inside: Int32Array, end: number, ws: number, idfW: number, normOf: Float32Array, code: Uint8Array, acc: Float64Array, tfWin: Int32Array, tfBase: number, found: Int32Array): void {
    const last = Math.min(end, inside.length * 32) - 1;
    for (let w = ws >>> 5; w <= last >>> 5 && this.doc !== NO_MORE; w++) {
      let word = inside[w]!;
      if (w === ws >>> 5) word &= -1 << (ws & 31);
      if (w === last >>> 5 && (last & 31) !== 31) word &= (1 << ((last & 31) + 1)) - 1;
      while (word !== 0) {
        const doc = (w << 5) | (31 - Math.clz32(word & -word));
        word &= word - 1;
        const mem = this.member;
        if (mem !== undefined && (mem[doc >>> 5]! & (1 << doc)) === 0) continue;
        this.advance(doc);
        if (this.doc !== doc) continue;
        const tf = this.tf;
        const d = doc - ws;
        tfWin[tfBase + d] = tf;
        acc[d] = acc[d]! + termScore(idfW, tf, normOf[code[doc]!]!);
        found[d >>> 5] = found[d >>> 5]! | (1 << (d & 31));
      }
    }
  }

  /** Index of the block holding `target` (or the next block after it), for block-max bounds. */
  blockFor(target: number): number {
    // Shallow advance: targets only grow, so the search resumes where the last one stopped.
    const blockLast = this.seg.blockLast;
    const from = this.shallow > this.block ? this.shallow : this.block < this.first ? this.first : this.block;
    this.shallow = firstBlockAtOrAfter(blockLast, from, this.end, target);
    return this.shallow;
  }

  get blockEnd(): number {
    return this.end;
  }

}

/** A cursor over term `t`'s postings in a segment, not started, knowing its length (`postings`), or undefined when the segment lacks the term. */
function termCursor(seg: SegmentData, t: number | undefined): Cursor | undefined {
  if (t === undefined) return undefined;
  const c = new Cursor(seg, seg.termBlockStart[t]!, seg.termBlockCount[t]!);
  c.postings = seg.termDf[t]!;
  return c;
}

/**
 * About how many documents hold `term` at least `floor` times (its weighted frequency): of each
 * segment, the share of its first `sample` postings that do, times its postings. (A `title:`
 * word's floor leaves most of a common word's pages out, and a few of another's.)
 */
export function heldAtLeast(segments: readonly SearchableSegment[], term: string, floor: number, sample = 1_024): number {
  let n = 0;
  for (const { data: seg } of segments) {
    const c = termCursor(seg, termNumber(seg, term));
    if (c === undefined) continue;
    c.start();
    let seen = 0;
    let held = 0;
    for (; c.doc !== NO_MORE && seen < sample; c.next()) {
      seen++;
      if (c.tf >= floor) held++;
    }
    if (seen > 0) n += (held / seen) * c.postings;
  }
  return n;
}

/**
 * How many documents hold every one of the stemmed `terms`, the deleted and superseded counted, and
 * may hold every one of `pairs` (their filters of pairs, pair-filter.ts): at least as many as any
 * listing of candidates that must hold them all; once past `max`, or on
 * course to pass twice it (so many held in the documents gone through that the same rate over all
 * would), Infinity. The rarest list leads, the others are advanced to its documents
 * (skipping whole blocks), and the dense lists' bitsets are looked at where they are made.
 */
export function heldByAll(segments: readonly SearchableSegment[], terms: readonly string[], max = Infinity, pairs: readonly number[] = []): number {
  let n = 0;
  const span = segments.reduce((sum, s) => sum + s.data.docCount, 0);
  // The pairs as one phrase's (`ruledOutAt`), made once rather than for each document.
  const asPhrase = [pairs];
  // The documents of the segments gone through.
  let before = 0;
  for (const sseg of segments) {
    const seg = sseg.data;
    const ts: number[] = [];
    for (const term of terms) {
      const t = termNumber(seg, term);
      if (t === undefined) break;
      ts.push(t);
    }
    if (ts.length < terms.length) {
      before += seg.docCount;
      continue; // a term the segment lacks: none holds them all
    }
    ts.sort((a, b) => seg.termDf[a]! - seg.termDf[b]!);
    const bits: Int32Array[] = [];
    const walked: Cursor[] = [];
    for (const t of ts.slice(1)) {
      const dense = memberBits(sseg.members, seg, t);
      if (dense !== undefined) bits.push(dense);
      else {
        const c = termCursor(seg, t)!;
        c.start();
        walked.push(c);
      }
    }
    const lead = termCursor(seg, ts[0])!;
    lead.start();
    while (lead.doc !== NO_MORE) {
      const doc = lead.doc;
      let next = doc;
      for (const c of walked) {
        c.advance(doc);
        if (c.doc > next) next = c.doc;
      }
      if (next > doc) {
        lead.advance(next);
        continue;
      }
      let all = true;
      for (let o = 0; all && o < bits.length; o++) all = (bits[o]![doc >>> 5]! & (1 << doc)) !== 0;
      if (all && pairs.length > 0) all = ruledOutAt(seg, doc, asPhrase) === 0;
      if (all && (++n > max || ((n & 63) === 0 && n * span > 2 * max * (before + doc + 1)))) return Infinity;
      lead.next();
    }
    before += seg.docCount;
  }
  return n;
}

/**
 * The first block in [from, end) whose last document is at least `target` (`end` when none): a few
 * blocks one by one (the next one usually holds it), then binary search.
 */
function firstBlockAtOrAfter(blockLast: Uint32Array, from: number, end: number, target: number): number {
  let b = from;
  for (const near = Math.min(from + 4, end); b < near; b++) if (blockLast[b]! >= target) return b;
  let hi = end;
  while (b < hi) {
    const mid = (b + hi) >>> 1;
    if (blockLast[mid]! < target) b = mid + 1;
    else hi = mid;
  }
  return b;
}

/** The engine's order of hits: score descending, then version id ascending. */
const byRank = (a: EngineHit, b: EngineHit) => b.score - a.score || a.versionId - b.versionId;

/** A bounded min-heap of hits: the k best, worst at the top; ties keep the lower version id. */
class TopK {
  readonly scores: Float64Array;
  readonly ids: Float64Array;
  size = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.ids = new Float64Array(k);
  }

  /** The score to beat (strictly) once full; -Infinity before. */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  /** Whether (a, ida) is worse than (b, idb). */
  private static worse(a: number, ida: number, b: number, idb: number): boolean {
    return a < b || (a === b && ida > idb);
  }

  offer(score: number, id: number): void {
    const s = this.scores;
    const ids = this.ids;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!TopK.worse(score, id, s[parent]!, ids[parent]!)) break;
        s[i] = s[parent]!;
        ids[i] = ids[parent]!;
        i = parent;
      }
      s[i] = score;
      ids[i] = id;
      return;
    }
    if (!TopK.worse(s[0]!, ids[0]!, score, id)) return;
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && TopK.worse(s[r]!, ids[r]!, s[l]!, ids[l]!) ? r : l;
      if (!TopK.worse(s[c]!, ids[c]!, score, id)) break;
      s[i] = s[c]!;
      ids[i] = ids[c]!;
      i = c;
    }
    s[i] = score;
    ids[i] = id;
  }

  sorted(): EngineHit[] {
    const out: EngineHit[] = [];
    for (let i = 0; i < this.size; i++) out.push({ versionId: this.ids[i]!, score: this.scores[i]! });
    return out.sort(byRank);
  }
}

/**
 * A bit per document of a segment that the filter leaves out by what it holds or where it is: one of
 * its terms left out (`notTerms`), or under one of its sites left out (`notRevSites`: their hosts'
 * documents are runs of the segment's `HostOrder` where it has an acquired order, else looked for
 * one by one); undefined when none is.
 */
function leftOutDocs(s: SearchableSegment, f: EngineFilter): Int32Array | undefined {
  const seg = s.data;
  let held: Int32Array | undefined;
  for (const term of f.notTerms ?? []) {
    const t = termNumber(seg, term);
    if (t !== undefined) setListBits(seg, t, (held ??= new Int32Array(bitsetWords(seg.docCount))));
  }
  const out = f.notRevSites === undefined ? [] : hostRanges(seg.hosts, f.notRevSites);
  if (out.length === 0) return held;
  held ??= new Int32Array(bitsetWords(seg.docCount));
  if (s.times.keys.length > 0) setHostDocs(hostOrderOf(seg), out, held);
  else {
    for (let doc = 0; doc < seg.docCount; doc++) if (inRanges(out, seg.hostRank[doc]!)) held[doc >>> 5]! |= 1 << doc;
  }
  return held;
}

/** A bit per document of a segment whose version is one of `ids` (ascending), and how many; undefined without `ids`. */
function versionSet(seg: SegmentData, ids: Float64Array | undefined): { bits: Int32Array; count: number } | undefined {
  if (ids === undefined) return undefined;
  const bits = new Int32Array(bitsetWords(seg.docCount));
  let count = 0;
  // Both ascend: each id is looked for after the last one found (a binary search of the rest).
  let from = 0;
  const versions = seg.versionIds;
  for (let k = lowerBound(ids, versions[0] ?? Infinity); k < ids.length && from < seg.docCount; k++) {
    const doc = lowerBound(versions, ids[k]!, false, from);
    if (doc < seg.docCount && versions[doc] === ids[k]) {
      bits[doc >>> 5]! |= 1 << doc;
      count++;
    }
    from = doc;
  }
  return { bits, count };
}

/**
 * A segment's documents by host: `docs` in the order of their hosts' ranks (`hostRank`), those of
 * rank r at [start[r], start[r + 1]). Made by the first query with a site in each thread (a
 * counting sort, 4 bytes a document); a segment's hosts never change.
 */
interface HostOrder {
  start: Int32Array;
  docs: Int32Array;
}

const hostOrders = new WeakMap<SegmentData, HostOrder>();

function hostOrderOf(seg: SegmentData): HostOrder {
  let out = hostOrders.get(seg);
  if (out !== undefined) return out;
  const n = seg.docCount;
  const ranks = seg.hosts.length;
  const start = new Int32Array(ranks + 1);
  for (let doc = 0; doc < n; doc++) start[seg.hostRank[doc]! + 1]!++;
  for (let r = 0; r < ranks; r++) start[r + 1]! += start[r]!;
  const at = start.slice(0, ranks);
  const docs = new Int32Array(n);
  for (let doc = 0; doc < n; doc++) docs[at[seg.hostRank[doc]!]!++] = doc;
  hostOrders.set(seg, (out = { start, docs }));
  return out;
}

/** The bitset `siteSet` writes, kept between calls (this thread's), as `publishedSet`'s is. */
let siteBits = new Int32Array(0);

/**
 * The documents of a segment under the filter's site and under one of its sites (`anyRevSites`),
 * as a bitset with their count, when they are at most half the segment; undefined without a site,
 * above half, or in a segment without an acquired order (of fewer than ORDER_FROM documents). A site's hosts are runs of host
 * ranks, and their documents runs of the segment's `HostOrder`. Before, a query under a site read
 * every posting of its words and refused the documents of other hosts one by one: a claim under a
 * site of 1,000 pages at 1M took longer than without one. The bitset is this thread's kept one:
 * good until the next call.
 */
function siteSet(s: SearchableSegment, sites: SiteDocs | undefined): { bits: Int32Array; count: number } | undefined {
  const seg = s.data;
  if (sites === undefined || sites.count * 2 > seg.docCount) return undefined;
  const words = bitsetWords(seg.docCount);
  if (siteBits.length < words) siteBits = new Int32Array(words);
  const bits = siteBits.subarray(0, words).fill(0);
  setHostDocs(hostOrderOf(seg), sites.ranges, bits);
  return { bits, count: sites.count };
}

/** A segment's documents under a filter's sites (`sitesOf`): their hosts' ranks as `siteRanges` gives them, and how many. */
interface SiteDocs {
  ranges: number[];
  count: number;
}

/**
 * The documents of a segment under the filter's sites, counted from its host order; undefined
 * without a site or without an acquired order, as `siteRanges`. Made once per segment a traversal
 * reads, for its site set (`siteSet`) and its fold (`siteOutside`).
 */
function sitesOf(s: SearchableSegment, f: EngineFilter): SiteDocs | undefined {
  const ranges = siteRanges(s, f);
  if (ranges === undefined) return undefined;
  return { ranges, count: hostDocCount(hostOrderOf(s.data), ranges) };
}

/** How many documents the hosts whose ranks are in the [lo, hi) pairs `ranges` have, from the segment's host order. */
function hostDocCount({ start }: HostOrder, ranges: readonly number[]): number {
  let count = 0;
  for (let k = 0; k < ranges.length; k += 2) count += start[ranges[k + 1]!]! - start[ranges[k]!]!;
  return count;
}

/**
 * The host ranks of a segment under the filter's site and under one of its sites, as non-empty
 * [lo, hi) pairs in order, apart (a site and its subdomain both asked are one); undefined without a site, or in a segment without an acquired
 * order (whose sites are tested document by document).
 */
function siteRanges(s: SearchableSegment, f: EngineFilter): number[] | undefined {
  // (The segments with an acquired order: ORDER_FROM documents or more, or as the engine's option says.)
  if ((f.revSite === undefined && f.anyRevSites === undefined) || s.times.keys.length === 0) return undefined;
  const seg = s.data;
  // Non-empty [lo, hi) pairs of host ranks.
  const [a, b] = f.revSite !== undefined ? hostRange(seg.hosts, f.revSite) : [0, seg.hosts.length];
  let ranges: number[] = a < b ? [a, b] : [];
  if (f.anyRevSites !== undefined) {
    const any = hostRanges(seg.hosts, f.anyRevSites);
    const both: number[] = [];
    for (let k = 0; k < any.length && ranges.length > 0; k += 2) {
      const lo = Math.max(a, any[k]!);
      const hi = Math.min(b, any[k + 1]!);
      if (lo < hi) both.push(lo, hi);
    }
    ranges = both;
  }
  if (ranges.length <= 2) return ranges;
  const pairs: [number, number][] = [];
  for (let k = 0; k < ranges.length; k += 2) pairs.push([ranges[k]!, ranges[k + 1]!]);
  pairs.sort((x, y) => x[0] - y[0]);
  const apart: number[] = [];
  for (const [lo, hi] of pairs) {
    if (apart.length > 0 && lo <= apart[apart.length - 1]!) apart[apart.length - 1] = Math.max(hi, apart[apart.length - 1]!);
    else apart.push(lo, hi);
  }
  return apart;
}

/** Sets in `bits` the documents of the hosts whose ranks are in the [lo, hi) pairs `ranges`, from the segment's host order. */
function setHostDocs({ start, docs }: HostOrder, ranges: readonly number[], bits: Int32Array): void {
  for (let k = 0; k < ranges.length; k += 2) {
    for (let at = start[ranges[k]!]!, end = start[ranges[k + 1]!]!; at < end; at++) bits[docs[at]! >>> 5]! |= 1 << docs[at]!;
  }
}

/** A new bitset of the bits set in both, and how many. */
function bothBits(a: { bits: Int32Array }, b: { bits: Int32Array }): { bits: Int32Array; count: number } {
  const bits = new Int32Array(a.bits.length);
  let count = 0;
  for (let w = 0; w < bits.length; w++) {
    const x = a.bits[w]! & b.bits[w]!;
    bits[w] = x;
    count += popcount(x);
  }
  return { bits, count };
}

/** Set bits of a 32-bit word. */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * The documents a traversal may keep to, as a bitset, and how many (undefined: any document): those
 * of `onlyVersions` (`only`) and of the filter's sites (`siteSet`, when few) inside the published
 * window, or, without either, the window's when they are at most half the segment (`publishedSet`;
 * bits undefined above that, with their count).
 */
function restrictedSet(
  s: SearchableSegment,
  f: EngineFilter,
  only: { bits: Int32Array; count: number } | undefined,
  sites = sitesOf(s, f),
): { bits: Int32Array | undefined; count: number } | undefined {
  const seg = s.data;
  const few = siteSet(s, sites);
  if (few !== undefined) only = only === undefined ? few : bothBits(only, few);
  if (only === undefined) return publishedSet(seg, f.publishedAfter, f.publishedBefore);
  if (f.publishedAfter === undefined && f.publishedBefore === undefined) return only;
  const lo = f.publishedAfter ?? -Infinity;
  const hi = f.publishedBefore ?? Infinity;
  const bits = new Int32Array(only.bits.length);
  let count = 0;
  for (const doc of members(only.bits, only.count)) {
    const p = seg.publishedAt[doc]!;
    if (p >= lo && p <= hi) {
      bits[doc >>> 5]! |= 1 << doc;
      count++;
    }
  }
  return { bits, count };
}

/**
 * A filter's acquired window (its bounds, and a `queryTime`'s: acquired by then) as the keys
 * [from, to) of a segment's acquired order, those of the window's whole minutes; undefined while
 * the segment has no order.
 */
function acquiredRange(s: SearchableSegment, f: EngineFilter): { keys: Float64Array; lo: number; hi: number; from: number; to: number } | undefined {
  const keys = acquiredKeys(s.times, s.data);
  if (keys === undefined) return undefined;
  const lo = f.acquiredAfter ?? -Infinity;
  const hi = Math.min(f.acquiredBefore ?? Infinity, f.queryTime ?? Infinity);
  const from = lowerBound(keys, minuteOf(lo) * KEY_MINUTE);
  return { keys, lo, hi, from, to: Math.max(from, lowerBound(keys, (minuteOf(hi) + 1) * KEY_MINUTE)) };
}

/**
 * About what share of the segments' documents the filter's time bounds keep: at most those of its
 * published window, and at most those of its acquired window (with a `queryTime`, acquired by
 * then), counted on the published and acquired orders by binary search (a segment without an
 * acquired order counts whole for that window); 1 without bounds.
 */
export function timeShare(segments: readonly SearchableSegment[], f: EngineFilter): number {
  const published = f.publishedAfter !== undefined || f.publishedBefore !== undefined;
  const acquired = f.acquiredAfter !== undefined || f.acquiredBefore !== undefined || f.queryTime !== undefined;
  if (!published && !acquired) return 1;
  let documents = 0;
  let kept = 0;
  for (const s of segments) {
    let n = s.data.docCount;
    documents += n;
    if (published) {
      const [i, j] = publishedRange(s.data, f.publishedAfter, f.publishedBefore);
      n = Math.min(n, j - i);
    }
    const range = acquired ? acquiredRange(s, f) : undefined;
    if (range !== undefined) n = Math.min(n, range.to - range.from);
    kept += n;
  }
  return documents === 0 ? 1 : kept / documents;
}

/** The bitset `timedSet` writes, kept between calls (this thread's), as `publishedSet`'s is. */
let timeBits = new Int32Array(0);

/**
 * The documents of a segment acquired inside the filter's acquired window (up to its
 * `queryTime`), and of `window` (`restrictedSet`'s bitset, when it has one), as a bitset with their
 * count, when those of the acquired window are at most half the segment; `window` otherwise (the
 * traversal's set as before), or without time bounds, or while the segment's `AcquiredOrder` is
 * being made by the other thread.
 *
 * Without it, a query whose acquired window or `query_time` few documents fall in read every
 * posting of its terms, refusing documents one at a time: a claim with a `query_time` before any
 * page was acquired took 36 ms at p50 at 1M to find nothing, 107 at p99 (bench:engine-ab
 * `--windows acquired`). The documents of the window's minutes are taken from the acquired order,
 * and those whose columns changed since it was made (`moved`) that are acquired inside it now, so
 * the set holds every document the filter accepts (`compileFilter` still decides each), and the
 * answer is the same. A segment where none is kept is passed over (count 0). The bitset is this
 * thread's kept one: good until the next call.
 */
function timedSet(s: SearchableSegment, f: EngineFilter, window: { bits: Int32Array | undefined; count: number } | undefined): { bits: Int32Array | undefined; count: number } | undefined {
  if (f.acquiredAfter === undefined && f.acquiredBefore === undefined && f.queryTime === undefined) return window;
  const seg = s.data;
  const n = seg.docCount;
  const range = acquiredRange(s, f);
  if (range === undefined) return window;
  const { keys, lo: acqLo, hi: acqHi, from, to } = range;
  if ((to - from) * 2 > n) return window;
  const inWindow = window?.bits;
  const words = bitsetWords(n);
  if (timeBits.length < words) timeBits = new Int32Array(words);
  const bits = timeBits.subarray(0, words).fill(0);
  let count = 0;
  // The documents of the window's minutes are set without reading their columns (reading three
  // 8 MB columns at random took 4-5 ms for the 45,000 of a month at 1M): a few of the first and
  // last minutes may lie outside the bounds, and some may not be alive, which `compileFilter` tells.
  const inv = 1 / KEY_MINUTE;
  for (let k = from; k < to; k++) {
    const key = keys[k]!;
    const doc = key - Math.floor(key * inv) * KEY_MINUTE;
    if (inWindow !== undefined && (inWindow[doc >>> 5]! & (1 << doc)) === 0) continue;
    bits[doc >>> 5]! |= 1 << doc;
    count++;
  }
  if (Atomics.load(s.times.anyMoved, 0) === 1) {
    const { moved } = s.times;
    const { acquiredAt } = seg;
    for (let w = 0; w < words; w++) {
      for (let word = moved[w]!; word !== 0; word &= word - 1) {
        const doc = (w << 5) | (31 - Math.clz32(word & -word));
        if ((bits[w]! & (1 << doc)) !== 0 || (inWindow !== undefined && (inWindow[w]! & (1 << doc)) === 0)) continue;
        const acq = acquiredAt[doc]!;
        if (!(acq >= acqLo && acq <= acqHi)) continue;
        bits[w]! |= 1 << doc;
        count++;
      }
    }
  }
  return { bits, count };
}

/**
 * A segment's documents outside a window of one of its orders (acquired or published): those of
 * the keys before `from` and from `to` on, set in `bits`. Kept per segment and thread and moved to
 * the next window asked, key by key (`moveOutside`): the bounds of a "last year" that moves with
 * the clock change a few keys a query, and the same window asked again changes none.
 */
interface OutsideKeys {
  from: number;
  to: number;
  bits: Int32Array;
  /** The postings of the queries since the last move that did without it (`OUTSIDE_PAYS`). */
  forgone: number;
}

const outsideOfSegment = new WeakMap<SegmentData, OutsideKeys>();

/**
 * The bitset of what a segment's traversal leaves out when its filter is folded into it: the
 * `gone` bits, `held` (`leftOutDocs`), and the documents outside the filter's sites
 * (`siteOutside`), its wide published window (`publishedOutside`) and its wide acquired window
 * (`acquiredOutside`, with a `queryTime`'s: acquired by then), so that each candidate's test is
 * that bit alone; at a `queryTime` the `gone` bits are those of then (deleted, or superseded by
 * then). Undefined when one of them cannot be folded: no acquired order, a narrow acquired window
 * (`timedSet`'s set leads), too short a traversal, or a move of a kept bitset that would not pay
 * yet; the filter is then tested document by document.
 *
 * Without it, each candidate's times, or host, were read and compared: at 1M a long claim in a
 * one-year acquired window took 6.3 ms at p50, under a site of every host 5.0, published since
 * 2020 6.5, against 3.7 with no filter. The bitset is this thread's kept one: good until the next call.
 */
function foldedGone(s: SearchableSegment, f: EngineFilter, siteDocs: SiteDocs | undefined, held: Int32Array | undefined, postings: number): Int32Array | undefined {
  const words = bitsetWords(s.data.docCount);
  const sites = siteOutside(s, f, siteDocs, postings, words);
  if (sites === undefined) return undefined;
  const published = publishedOutside(s, f, postings, words);
  if (published === undefined) return undefined;
  const acquired = acquiredOutside(s, f, postings, words);
  if (acquired === undefined) return undefined;
  const { gone } = s;
  const t = f.queryTime;
  if (sites === null && published === null && acquired === null) return withHeld(gone, held); // (never at a queryTime: its window is acquiredOutside's)
  const out = keptFolded(words);
  out.set(gone);
  const { deleted, supersededAt } = s.data;
  if (t !== undefined) {
    // Alive at t, not now: a version gone now is alive then if it was superseded only after t (and
    // not deleted); one acquired after t is outside the window.
    for (let w = 0; w < words; w++) {
      for (let word = gone[w]!; word !== 0; word &= word - 1) {
        const bit = word & -word;
        const doc = (w << 5) | (31 - Math.clz32(bit));
        if (deleted[doc] !== 1 && supersededAt[doc]! > t) out[w]! &= ~bit;
      }
    }
  }
  const deadThen = (w: number, bit: number, doc: number) => (t === undefined ? (gone[w]! & bit) !== 0 : deleted[doc] === 1 || supersededAt[doc]! <= t);
  for (const bits of [held, sites, published, acquired?.bits]) if (bits) for (let w = 0; w < words; w++) out[w]! |= bits[w]!;
  const leftOut = (bits: Int32Array | null | undefined, w: number, bit: number) => bits !== null && bits !== undefined && (bits[w]! & bit) !== 0;
  if (acquired) acquired.decideEdges(out, (w, bit, doc) => deadThen(w, bit, doc) || leftOut(held, w, bit) || leftOut(sites, w, bit) || leftOut(published, w, bit));
  return out;
}

const outsidePublishedOfSegment = new WeakMap<SegmentData, OutsideKeys>();

/**
 * The documents of a segment outside a published window, when those inside are more than half of
 * it (below, `publishedSet`'s bitset holds the traversal to them): those without a published time
 * and those of the segment's published order before and after the window, kept per segment and
 * thread and moved to the next window asked as `acquiredOutside`'s are (published times never
 * change, so the edges are exact). null without a published window or with few documents in it;
 * undefined while a move would not pay yet.
 */
function publishedOutside(s: SearchableSegment, f: EngineFilter, postings: number, words: number): Int32Array | null | undefined {
  if (f.publishedAfter === undefined && f.publishedBefore === undefined) return null;
  const seg = s.data;
  const n = seg.docCount;
  const { pubOrder } = seg;
  const [from, to] = publishedRange(seg, f.publishedAfter, f.publishedBefore);
  if ((to - from) * 2 <= n) return null; // publishedSet's set holds the traversal to them
  if (postings < OUTSIDE_PAYS * words) return undefined; // joining the bitsets would cost more than the tests it spares
  let kept = outsidePublishedOfSegment.get(seg);
  if (kept === undefined) outsidePublishedOfSegment.set(seg, (kept = { from: 0, to: pubOrder.length, bits: NO_BITS, forgone: 0 }));
  // (Its bits are made the first time: the documents without a published time, all but the published order's.)
  const made = kept.bits.length > 0;
  if (OUTSIDE_PAYS * ((made ? 0 : n) + keysToMove(kept, pubOrder.length, from, to, false)) > postings + kept.forgone) {
    kept.forgone += postings;
    return undefined;
  }
  if (!made) {
    const bits = new Int32Array(words).fill(-1);
    if (n % 32 !== 0) bits[words - 1] = (1 << n % 32) - 1;
    for (let k = 0; k < pubOrder.length; k++) bits[pubOrder[k]! >>> 5]! &= ~(1 << pubOrder[k]!);
    kept.bits = bits;
  }
  kept.forgone = 0;
  moveOutside(kept, pubOrder.length, (k) => pubOrder[k]!, from, to, false);
  return kept.bits;
}

const NO_BITS = new Int32Array(0);

/** The bitset `foldedGone` and `withHeld` write, kept between calls (this thread's), as `timeBits` is. */
let foldedBits = new Int32Array(0);

function keptFolded(words: number): Int32Array {
  if (foldedBits.length < words) foldedBits = new Int32Array(words);
  return foldedBits.subarray(0, words);
}

/**
 * `gone` with the bits of `held` (`leftOutDocs`) set too: in this thread's kept bitset, good until
 * the next call (a new 125 kB array per search at 1M is garbage V8 collects for: `publishedSet`).
 */
function withHeld(gone: Int32Array, held: Int32Array | undefined): Int32Array {
  if (held === undefined) return gone;
  const out = keptFolded(gone.length);
  for (let w = 0; w < out.length; w++) out[w] = gone[w]! | held[w]!;
  return out;
}

/** The documents outside a segment's sites, kept per segment and thread for the last sites asked (`siteOutside`). */
interface OutsideSites {
  /** The host ranges, as `siteRanges` gives them, joined. */
  key: string;
  bits: Int32Array;
  forgone: number;
}

const outsideSitesOfSegment = new WeakMap<SegmentData, OutsideSites>();

/**
 * The documents of a segment outside the filter's sites, when those inside are more than half of
 * it (below, `siteSet`'s bitset holds the traversal to them): the host order's runs of the other
 * hosts, made once for the sites a query asks (a segment's hosts never change) and kept until
 * other sites are asked and their bitset pays (`OUTSIDE_PAYS`). null when there is nothing to
 * leave out (no site; every document of the segment under them; few, held by `siteSet`'s set);
 * undefined without a host order, or while a new bitset would not pay yet.
 */
function siteOutside(s: SearchableSegment, f: EngineFilter, sites: SiteDocs | undefined, postings: number, words: number): Int32Array | null | undefined {
  if (f.revSite === undefined && f.anyRevSites === undefined) return null;
  const seg = s.data;
  if (sites === undefined) return undefined;
  const { ranges, count } = sites;
  if (count === seg.docCount || count * 2 <= seg.docCount) return null;
  if (postings < OUTSIDE_PAYS * words) return undefined;
  const key = ranges.join(',');
  let kept = outsideSitesOfSegment.get(seg);
  if (kept?.key !== key) {
    const forgone = kept?.forgone ?? 0;
    if (OUTSIDE_PAYS * (seg.docCount - count) > postings + forgone) {
      if (kept) kept.forgone += postings;
      else outsideSitesOfSegment.set(seg, { key: '', bits: NO_BITS, forgone: postings });
      return undefined;
    }
    // The other hosts' ranks: between and around the sites' runs.
    const others: number[] = [];
    let at = 0;
    for (let k = 0; k < ranges.length; k += 2) {
      if (ranges[k]! > at) others.push(at, ranges[k]!);
      at = ranges[k + 1]!;
    }
    if (at < seg.hosts.length) others.push(at, seg.hosts.length);
    const bits = kept?.bits.length === words ? kept.bits.fill(0) : new Int32Array(words);
    setHostDocs(hostOrderOf(seg), others, bits);
    outsideSitesOfSegment.set(seg, (kept = { key, bits, forgone: 0 }));
  }
  return kept.bits;
}

/** A segment's documents outside a wide acquired window, and how those of its edges are decided (`acquiredOutside`). */
interface OutsideWindow {
  bits: Int32Array;
  /**
   * Sets or clears, in `out`, the bits of the documents that the kept keys do not decide: those of
   * the window's first and last minutes, and those moved; `others` tells whether a document is
   * left out for another reason.
   */
  decideEdges(out: Int32Array, others: (word: number, bit: number, doc: number) => boolean): void;
}

/**
 * The documents of a segment outside a wide acquired window (more than half of the segment's are
 * inside, where `timedSet` makes no set; a `queryTime` bounds it too): null without acquired
 * bounds or a `queryTime`; undefined with a narrow window, no acquired order, or while a move would
 * not pay yet. The
 * documents of the minutes outside are the kept `OutsideKeys`, moved to this window; those of its
 * first and last minutes, and those whose columns changed since the order was made (`moved`), are
 * decided by their acquired time, as `compileFilter` decides them.
 */
function acquiredOutside(s: SearchableSegment, f: EngineFilter, postings: number, words: number): OutsideWindow | null | undefined {
  if (f.acquiredAfter === undefined && f.acquiredBefore === undefined && f.queryTime === undefined) return null;
  if (postings < OUTSIDE_PAYS * words) return undefined; // joining the bitsets would cost more than the tests it spares
  const seg = s.data;
  const n = seg.docCount;
  const range = acquiredRange(s, f);
  if (range === undefined) return undefined;
  const { keys, lo: acqLo, hi: acqHi, from, to } = range;
  const mLo = minuteOf(acqLo);
  const mHi = minuteOf(acqHi);
  if ((to - from) * 2 <= n) return undefined; // timedSet's set leads
  let kept = outsideOfSegment.get(seg);
  if (kept === undefined) outsideOfSegment.set(seg, (kept = { from: 0, to: n, bits: new Int32Array(words), forgone: 0 }));
  // A move is made when the tests this query and those before it since the last move would have
  // spared pay for it (as one rents until renting has cost what buying does): a window asked
  // again, or moved on a little, costs nothing; one far from the last, a pass over the keys that change.
  if (OUTSIDE_PAYS * keysToMove(kept, keys.length, from, to) > postings + kept.forgone) {
    kept.forgone += postings;
    return undefined;
  }
  kept.forgone = 0;
  const inv = 1 / KEY_MINUTE;
  moveOutside(kept, keys.length, (k) => keys[k]! - Math.floor(keys[k]! * inv) * KEY_MINUTE, from, to);
  const { acquiredAt } = seg;
  const { times } = s;
  const decideEdges = (out: Int32Array, others: (word: number, bit: number, doc: number) => boolean) => {
    // The first and last minutes inside may hold documents outside the bounds' milliseconds.
    const firstEnd = Math.min(to, lowerBound(keys, (mLo + 1) * KEY_MINUTE, false, from));
    const lastStart = Math.max(firstEnd, lowerBound(keys, mHi * KEY_MINUTE, false, from));
    for (const [a, b] of [
      [from, firstEnd],
      [lastStart, to],
    ] as const) {
      for (let k = a; k < b; k++) {
        const key = keys[k]!;
        const doc = key - Math.floor(key * inv) * KEY_MINUTE;
        const acq = acquiredAt[doc]!;
        if (acq < acqLo || acq > acqHi) out[doc >>> 5]! |= 1 << doc;
      }
    }
    if (Atomics.load(times.anyMoved, 0) !== 1) return;
    // A moved document's key may be its old time: its bit is its own columns' alone.
    const { moved } = times;
    for (let w = 0; w < words; w++) {
      for (let word = moved[w]!; word !== 0; word &= word - 1) {
        const bit = word & -word;
        const doc = (w << 5) | (31 - Math.clz32(bit));
        const acq = acquiredAt[doc]!;
        out[w] = acq < acqLo || acq > acqHi || others(w, bit, doc) ? out[w]! | bit : out[w]! & ~bit;
      }
    }
  };
  return { bits: kept.bits, decideEdges };
}

/**
 * How many postings of a traversal a key's move costs as much as the per-document tests of, or
 * a word of the bitsets joined. Measured at 1M with bench:engine-ab `--windows acquired`: a move
 * of the 455,000 keys outside a year took about 2.2 ms, 4.8 ns a key (two years in turn, with a
 * first form that moved on every query, not committed), and the bitset spared a short claim 0.5
 * ms and a long one 1.7 (a year); their traversals read 281,000 and a million postings at the
 * median (counted ad hoc), 1.7-1.8 ns a posting.
 */
const OUTSIDE_PAYS = 3;

/** How many keys `moveOutside` goes through to move `kept` to [from, to) of `count` keys (`anew`: it may make it anew). */
function keysToMove(kept: OutsideKeys, count: number, from: number, to: number, anew = true): number {
  const changed = Math.abs(kept.from - from) + Math.abs(kept.to - to);
  return anew ? Math.min(changed, from + count - to) : changed;
}

/**
 * Moves `kept` to the keys outside [from, to) of `count` (key k is document `docAt(k)`'s): only the
 * keys between its old bounds and these change. `anew`: made anew when that goes through fewer
 * (its bits are then those keys' alone).
 */
function moveOutside(kept: OutsideKeys, count: number, docAt: (k: number) => number, from: number, to: number, anew = true): void {
  const { bits } = kept;
  const set = (a: number, b: number, outside: boolean) => {
    for (let k = a; k < b; k++) {
      const doc = docAt(k);
      if (outside) bits[doc >>> 5]! |= 1 << doc;
      else bits[doc >>> 5]! &= ~(1 << doc);
    }
  };
  if (anew && keysToMove(kept, count, from, to, false) > from + count - to) {
    // Farther from the last window than this one's outside is large: made anew.
    bits.fill(0);
    set(0, from, true);
    set(to, count, true);
  } else {
    set(Math.min(kept.from, from), Math.max(kept.from, from), false);
    set(Math.min(kept.to, to), Math.max(kept.to, to), false);
    // A key between both bounds' old and new places is outside as the new bounds say.
    set(Math.min(kept.from, from), from, true);
    set(to, Math.max(kept.to, to), true);
  }
  kept.from = from;
  kept.to = to;
}

/** A segment's compiled filter: whether a document passes, and the only documents that may (`onlyVersions`), when it has them: a bitset, and how many. */
type Accept = ((doc: number) => boolean) & { only?: { bits: Int32Array; count: number } };

/** Calls `visit` with each document of bitset `bits` in [lo, hi), ascending. */
function eachMember(bits: Int32Array, lo: number, hi: number, visit: (doc: number) => void): void {
  for (let w = lo >>> 5; w < (hi + 31) >>> 5; w++) {
    for (let word = bits[w]!; word !== 0; word &= word - 1) {
      const doc = (w << 5) | (31 - Math.clz32(word & -word));
      if (doc >= lo && doc < hi) visit(doc);
    }
  }
}

/**
 * The compiled filter of one segment: a document passes when `accept(doc)`. `held`: the documents
 * of its terms and sites left out (`leftOutDocs`), and `only` those of its versions (`versionSet`),
 * when the caller made them already.
 */
function compileFilter(
  s: SearchableSegment,
  f: EngineFilter,
  held = leftOutDocs(s, f),
  only = versionSet(s.data, f.onlyVersions),
): Accept | undefined {
  const seg = s.data;
  if (only?.count === 0) return undefined; // none of the versions is in this segment
  const onlyBits = only?.bits;
  const { acquiredAt, supersededAt, publishedAt, hostRank, deleted } = seg;
  const gone = s.gone;
  const acqLo = f.acquiredAfter ?? -Infinity;
  const acqHi = Math.min(f.acquiredBefore ?? Infinity, f.queryTime ?? Infinity);
  const alive = f.queryTime ?? Infinity; // alive at t: acquired <= t < superseded; "now": never superseded
  const pubLo = f.publishedAfter;
  const pubHi = f.publishedBefore;
  let hostLo = 0;
  let hostHi = 0xffffffff;
  if (f.revSite !== undefined) {
    [hostLo, hostHi] = hostRange(seg.hosts, f.revSite);
    if (hostLo >= hostHi) return undefined; // no host of this segment is under the site
  }
  // The host ranks of the sites asked for, as [lo, hi) pairs: a host and its subdomains are one run
  // of ranks (those left out are in `held`).
  let any: number[] | undefined;
  if (f.anyRevSites !== undefined) {
    any = hostRanges(seg.hosts, f.anyRevSites);
    if (any.length === 0) return undefined; // no host of this segment is under one of the sites
  }
  const now = f.queryTime === undefined;
  const hasPub = pubLo !== undefined || pubHi !== undefined;
  const lo = pubLo ?? -Infinity;
  const hi = pubHi ?? Infinity;
  // A column is read only where the filter asks about it: each read of a document's is a miss of
  // the cache at random documents (8 MB columns at 1M), and a long claim with an acquired window
  // read three for each candidate.
  const timed = acqLo !== -Infinity || acqHi !== Infinity;
  const sited = f.revSite !== undefined || any !== undefined;
  const accept: Accept = (doc) => {
    if (onlyBits !== undefined && (onlyBits[doc >>> 5]! & (1 << (doc & 31))) === 0) return false;
    // Alive now: its `gone` bit clear (neither deleted nor superseded, `updateGone`); at `queryTime`: not deleted, not superseded by then.
    if (now) {
      if ((gone[doc >>> 5]! & (1 << (doc & 31))) !== 0) return false;
    } else if (deleted[doc] === 1 || supersededAt[doc]! <= alive) return false;
    if (timed) {
      const acq = acquiredAt[doc]!;
      if (acq < acqLo || acq > acqHi) return false;
    }
    if (hasPub) {
      const p = publishedAt[doc]!;
      if (!(p >= lo && p <= hi)) return false; // NaN (unknown) fails any published window
    }
    if (held !== undefined && (held[doc >>> 5]! & (1 << (doc & 31))) !== 0) return false;
    if (!sited) return true;
    const h = hostRank[doc]!;
    if (any !== undefined && !inRanges(any, h)) return false;
    return h >= hostLo && h < hostHi;
  };
  if (only !== undefined) accept.only = only;
  return accept;
}

/** The [lo, hi) pairs of host ranks under each reversed-host prefix that has any in `hosts`. */
function hostRanges(hosts: readonly string[], revs: readonly string[]): number[] {
  const ranges: number[] = [];
  for (const rev of revs) {
    const [a, b] = hostRange(hosts, rev);
    if (a < b) ranges.push(a, b);
  }
  return ranges;
}

/** Whether host rank `h` is in one of the [lo, hi) pairs. */
function inRanges(ranges: readonly number[], h: number): boolean {
  for (let k = 0; k < ranges.length; k += 2) if (h >= ranges[k]! && h < ranges[k + 1]!) return true;
  return false;
}

/**
 * The documents [lo, hi) of every segment (document numbers count from 0 in each). Parts that
 * cover all document numbers, each searched alone, give merged (`mergeHits`) exactly the whole's top k:
 * each part's top k is exact within it, and the whole's top k lies in the union of the parts' (a
 * split query on two threads; bench/engine-threads.ts).
 */
export type DocRange = readonly [lo: number, hi: number];
const WHOLE: DocRange = [0, NO_MORE];

/** The best `k` of the parts' hits, in the engine's order (score descending, then version id). */
export function mergeHits(parts: readonly (readonly EngineHit[])[], k: number): EngineHit[] {
  return parts.flat().sort(byRank).slice(0, k);
}

const F32 = new Float32Array(1);
const F32_BITS = new Int32Array(F32.buffer);

/**
 * A lower bound on the k-th best score, shared by the parts of one split search (on threads, in
 * shared memory): a part prunes with the best bound any part has reached. A document below it
 * cannot be in the whole's top k, and one that is stays in its part's top k, so the merge is
 * still exact. Kept as a float32 rounded down (positive floats order as their bits), written
 * with compare-and-swap: never torn, never lowered.
 */
export class SharedFloor {
  readonly bits: Int32Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.bits = new Int32Array(buffer);
  }

  /** The bound, or -Infinity before any part's top k is full. */
  get(): number {
    const b = Atomics.load(this.bits, 0);
    if (b <= 0) return -Infinity;
    F32_BITS[0] = b;
    return F32[0]!;
  }

  /** Raises the bound to `score` (rounded down), unless it is there already. */
  raise(score: number): void {
    if (!(score > 0)) return;
    F32[0] = score;
    if (F32[0]! > score) F32_BITS[0]! -= 1;
    const b = F32_BITS[0]!;
    let current = Atomics.load(this.bits, 0);
    while (b > current) {
      const seen = Atomics.compareExchange(this.bits, 0, current, b);
      if (seen === current) return;
      current = seen;
    }
  }
}

export interface Statistics {
  docCount: number;
  avgLength: number;
  df: (term: string) => number;
}

export function idf(stats: Statistics, df: number): number {
  return Math.log(1 + (stats.docCount - df + 0.5) / (df + 0.5));
}

/**
 * Document lengths in one byte each, as Lucene keeps its norms (its SmallFloat byte4 values: 0-23
 * exactly, then four significant bits, up to 2^31), so the length normalisation read for every
 * posting comes from a 1 MB array per million documents instead of 4 MB: at 1M documents that made
 * queries without a filter about 20% faster at p50 (docs/BENCHMARKS.md). A length is rounded up to
 * its code's length, so a score never exceeds what the block bounds (from the exact lengths) allow.
 */
const CODE_LENGTH = Float64Array.from({ length: 256 }, (_, c) => {
  if (c < 24) return c;
  const i = c - 24;
  const shift = (i >>> 3) - 1;
  return 24 + (shift === -1 ? i & 7 : ((i & 7) | 8) * 2 ** shift);
});

/** The length a code stands for. */
export function codeLength(code: number): number {
  return CODE_LENGTH[code]!;
}

/** The code of a length: the smallest whose length is at least it. */
export function lengthCode(length: number): number {
  let lo = 0;
  let hi = 255;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (CODE_LENGTH[mid]! < length) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const codesOfSegment = new WeakMap<SegmentData, Uint8Array>();

/** Each document's length code; once per segment (lengths never change), not at every publish. */
export function lengthCodes(seg: SegmentData): Uint8Array {
  let out = codesOfSegment.get(seg);
  if (out === undefined) {
    out = new Uint8Array(seg.docCount);
    for (let i = 0; i < seg.docCount; i++) out[i] = lengthCode(seg.lengths[i]!);
    codesOfSegment.set(seg, out);
  }
  return out;
}

/**
 * Lists in at least 1/DENSE_SHARE of a segment's documents get a bitset of their documents
 * (`Members`): a probe of such a list at a document not in it (most probes of a common term, at a
 * sparse window's documents or at candidates to complete) is one bit read instead of a search of
 * its block. At 1M documents, 410 lists and 49 MiB when all are made (1/32: 822 and 98 MiB; 1/8:
 * 162 and 19 MiB); p99 of short claims in a one-month window -30% (1/32 about as much, 1/8 -3%),
 * long claims with no filter p50 -7% (1/32 -14%), measured in one process against none (more in
 * docs/BENCHMARKS.md, "Probes of common words").
 */
const DENSE_SHARE = 16;
/**
 * Segments with fewer documents have none (those of a few live fetches: there every list would be
 * dense). A bitset never takes more than two bytes per posting of its list.
 */
const DENSE_FROM = 1024;

/**
 * The bitsets of a segment's dense lists, each made the first time a search asks for it (about 5
 * ns a posting: 2.5 ms once for a list of 460,000; all 410 at 1M in 0.33 s), by whichever thread
 * asks first: `terms` ascending, `state` per list (0 not made, 1 being made, 2 made), and each
 * list's words in `bits`, in that order. All three in shared memory when the segment's arrays
 * are, so both search threads use the same bitsets (the pages of those not made are never
 * touched, so they take no memory).
 */
export interface Members {
  terms: Int32Array;
  state: Int32Array;
  bits: Int32Array;
}

const membersOfSegment = new WeakMap<SegmentData, Members>();

/** A segment's `Members` (none made yet), once per segment: its lists never change. */
export function membersOf(seg: SegmentData): Members {
  let out = membersOfSegment.get(seg);
  if (out !== undefined) return out;
  const shared = seg.postings.buffer instanceof SharedArrayBuffer;
  const dense: number[] = [];
  if (seg.docCount >= DENSE_FROM) for (let t = 0; t < seg.termDf.length; t++) if (seg.termDf[t]! * DENSE_SHARE >= seg.docCount) dense.push(t);
  const terms = newArray(Int32Array, dense.length, shared);
  terms.set(dense);
  out = { terms, state: newArray(Int32Array, dense.length, shared), bits: newArray(Int32Array, dense.length * bitsetWords(seg.docCount), shared) };
  membersOfSegment.set(seg, out);
  return out;
}

/** Bytes of the bitsets made so far. */
export function membersBytes(m: Members, docCount: number): number {
  let made = 0;
  for (let i = 0; i < m.state.length; i++) if (Atomics.load(m.state, i) === 2) made++;
  return made * 4 * bitsetWords(docCount) + m.terms.byteLength + m.state.byteLength;
}

/** Makes every dense list's bitset of a segment that no thread has begun (for the benchmark's memory figure). */
export function makeAllMembers(s: SearchableSegment): void {
  for (const t of s.members.terms) memberBits(s.members, s.data, t);
}

/**
 * The bitset of list `t` of a segment, made now if no thread has begun it; undefined when the list
 * has none or another thread is making it (the search then probes the list's blocks).
 */
function memberBits(m: Members, seg: SegmentData, t: number): Int32Array | undefined {
  const lo = lowerBound(m.terms, t);
  if (lo >= m.terms.length || m.terms[lo] !== t) return undefined;
  const words = bitsetWords(seg.docCount);
  const bits = m.bits.subarray(lo * words, (lo + 1) * words);
  const state = Atomics.load(m.state, lo);
  if (state === 2) return bits;
  if (state === 1 || Atomics.compareExchange(m.state, lo, 0, 1) !== 0) return undefined;
  setListBits(seg, t, bits);
  Atomics.store(m.state, lo, 2);
  return bits;
}

/** Sets in `bits` the bit of each document of list `t` of a segment. */
function setListBits(seg: SegmentData, t: number, bits: Int32Array): void {
  const docs = new Int32Array(BLOCK);
  for (let b = seg.termBlockStart[t]!, end = b + seg.termBlockCount[t]!; b < end; b++) {
    const n = blockDocs(seg.postings, seg.blockOffset[b]!, seg.blockBase[b]! - 1, docs);
    for (let k = 0; k < n; k++) bits[docs[k]! >>> 5]! |= 1 << docs[k]!;
  }
}

/** A key's unit of acquired minutes: the document's number is the rest (`AcquiredOrder`). */
const KEY_MINUTE = 2 ** 27;
/** The latest acquired minute a key tells apart (2097); later ones sort with it. */
const LAST_MINUTE = 2 ** 26 - 1;
/** A digit of a minute in `sortedKeys`' radix sort: two of them make LAST_MINUTE's 26 bits. */
const DIGIT_BITS = 13;
const DIGIT = 1 << DIGIT_BITS;
/**
 * Segments with fewer documents have no acquired order and no host order: their time bounds and
 * sites are tested document by document (those of a few live fetches, where a traversal reads little).
 */
export const ORDER_FROM = 4096;

/** The acquired minute of `ms` as a key counts it: clamped to [0, LAST_MINUTE], NaN as 0. */
function minuteOf(ms: number): number {
  const m = Math.floor(ms / 60_000);
  return m > 0 ? Math.min(m, LAST_MINUTE) : 0;
}

/**
 * A segment's documents in the order of their acquired times, for the acquired windows and
 * `query_time`s of queries (`timedSet`): made the first time a query with time bounds asks for it
 * (49-62 ms and 8 MB at 1M documents: `sortedKeys`), by whichever thread asks first, and kept in shared memory when
 * the segment's arrays are, as `Members` are. Acquired times are columns a later write changes
 * (a capture older than a version's first moves its start back), so the documents whose columns
 * changed after it was begun are marked `moved` (`updateGone`) and looked at one by one.
 */
export interface AcquiredOrder {
  /** 0 not made, 1 being made, 2 made. */
  state: Int32Array;
  /** Each document's key, ascending: its acquired minute (`minuteOf`) times KEY_MINUTE plus its number. */
  keys: Float64Array;
  /** A bit per document whose columns changed since the order was begun, and 1 once one did. */
  moved: Int32Array;
  anyMoved: Int32Array;
}

const ordersOfSegment = new WeakMap<SegmentData, AcquiredOrder>();

/**
 * A segment's `AcquiredOrder` (not made yet), once per segment; its arrays take no memory until
 * made. An empty one for a segment of fewer than `from` documents (or more than a key counts).
 */
export function acquiredOrderOf(seg: SegmentData, from = ORDER_FROM): AcquiredOrder {
  let out = ordersOfSegment.get(seg);
  if (out !== undefined) return out;
  const shared = seg.postings.buffer instanceof SharedArrayBuffer;
  const n = seg.docCount >= from && seg.docCount <= KEY_MINUTE ? seg.docCount : 0;
  out = { state: newArray(Int32Array, 1, shared), keys: newArray(Float64Array, n, shared), moved: newArray(Int32Array, n > 0 ? bitsetWords(n) : 0, shared), anyMoved: newArray(Int32Array, 1, shared) };
  ordersOfSegment.set(seg, out);
  return out;
}

/** The keys of a segment's acquired order, made now if no thread has begun it; undefined when it has none or the other thread is making it. */
function acquiredKeys(o: AcquiredOrder, seg: SegmentData): Float64Array | undefined {
  if (o.keys.length === 0) return undefined;
  const state = Atomics.load(o.state, 0);
  if (state === 2) return o.keys;
  if (state === 1 || Atomics.compareExchange(o.state, 0, 0, 1) !== 0) return undefined;
  sortedKeys(seg.acquiredAt, o.keys);
  Atomics.store(o.state, 0, 2);
  return o.keys;
}

/**
 * Writes into `keys` the acquired order's keys of the documents whose acquired times are
 * `acquired` (one per key), ascending: each document's minute (`minuteOf`) times KEY_MINUTE plus
 * its number. The documents are sorted by minute in two passes of a radix sort (stable, so those
 * of one minute stay in document order, as their keys sort), the second pass's input laid out in
 * `keys`' own memory. At 1M documents, made once in a new process as a query makes it, 49-62 ms
 * where sorting the keys as numbers took 111-120 (ad hoc, six of each).
 */
export function sortedKeys(acquired: ArrayLike<number>, keys: Float64Array): void {
  const n = keys.length;
  let minutes: Int32Array<ArrayBufferLike> = new Int32Array(n);
  let docs: Int32Array<ArrayBufferLike> = new Int32Array(n);
  // A minute is 26 bits (LAST_MINUTE): its low and high 13 are counted in one pass.
  const low = new Int32Array(DIGIT + 1);
  const high = new Int32Array(DIGIT + 1);
  for (let doc = 0; doc < n; doc++) {
    const m = minuteOf(acquired[doc]!);
    minutes[doc] = m;
    docs[doc] = doc;
    low[(m & (DIGIT - 1)) + 1]!++;
    high[(m >>> DIGIT_BITS) + 1]!++;
  }
  for (let b = 0; b < DIGIT; b++) {
    low[b + 1]! += low[b]!;
    high[b + 1]! += high[b]!;
  }
  // The first pass's output is laid out in `keys`' own memory; the second's in the arrays the
  // first read, which the last loop reads to write the keys.
  let spareMinutes: Int32Array<ArrayBufferLike> = new Int32Array(keys.buffer, keys.byteOffset, n);
  let spareDocs: Int32Array<ArrayBufferLike> = new Int32Array(keys.buffer, keys.byteOffset + 4 * n, n);
  for (const [count, shift] of [[low, 0], [high, DIGIT_BITS]] as const) {
    for (let i = 0; i < n; i++) {
      const m = minutes[i]!;
      const at = count[(m >>> shift) & (DIGIT - 1)]!++;
      spareMinutes[at] = m;
      spareDocs[at] = docs[i]!;
    }
    [minutes, spareMinutes] = [spareMinutes, minutes];
    [docs, spareDocs] = [spareDocs, docs];
  }
  for (let i = 0; i < n; i++) keys[i] = minutes[i]! * KEY_MINUTE + docs[i]!;
}

/** The newest documents the filter accepts (`newestAccepted`). */
export interface Newest {
  /** Their versions, ascending. */
  ids: Float64Array;
  /**
   * The k-th newest's acquired time: every document the filter accepts that was acquired at or
   * after it is among them. -Infinity when fewer than k are accepted: then they are all.
   */
  bar: number;
}

/**
 * The versions of the `k` newest documents the filter accepts that hold the stemmed term `held`
 * (any, without it), acquired time descending, and of every other such document acquired as late
 * as the k-th, for queries that read their candidates newest first (webql with no ranking word:
 * `be`, `-cell the`, `title:cell`, which holds `cell`). They are taken from each
 * segment's acquired order, from the end of the filter's acquired window back, minute by minute,
 * until k are accepted and their last minute is done; the documents whose columns changed since the
 * order was made (`moved`) are looked at one by one. So each segment gives every accepted document
 * of its last minutes, at least k (or all it has), and the k-th newest of all of them lies in those
 * minutes of every segment. A segment under ORDER_FROM documents is gone through whole.
 *
 * Undefined when a segment's order is being made by the other thread, or when a segment's walk
 * looks at more than `look` documents before it is done (a filter that accepts few of the newest,
 * or many documents acquired in one minute): the caller lists every candidate instead.
 */
export function newestAccepted(segments: readonly SearchableSegment[], filter: EngineFilter, k: number, held?: string, look = 64 * k): Newest | undefined {
  const times: number[] = [];
  const versions: number[] = [];
  const acqLo = filter.acquiredAfter ?? -Infinity;
  const acqHi = Math.min(filter.acquiredBefore ?? Infinity, filter.queryTime ?? Infinity);
  // Whether some segment's walk ended before its first minute (it has more accepted than it gave).
  let cut = false;
  for (const sseg of segments) {
    const accept = compileFilter(sseg, filter);
    if (!accept) continue;
    const seg = sseg.data;
    // The documents holding `held`: its list's bitset where it is dense, else made for this call.
    let holding: Int32Array | undefined;
    if (held !== undefined) {
      const t = termNumber(seg, held);
      if (t === undefined) continue;
      holding = memberBits(sseg.members, seg, t);
      if (holding === undefined) setListBits(seg, t, (holding = new Int32Array(bitsetWords(seg.docCount))));
    }
    const accepts = holding === undefined ? accept : (doc: number) => (holding[doc >>> 5]! & (1 << doc)) !== 0 && accept(doc);
    const { acquiredAt, versionIds } = seg;
    const add = (doc: number) => {
      times.push(acquiredAt[doc]!);
      versions.push(versionIds[doc]!);
    };
    const keys = acquiredKeys(sseg.times, seg);
    if (keys === undefined) {
      if (sseg.times.keys.length > 0) return undefined; // the other thread is making it
      for (let doc = 0; doc < seg.docCount; doc++) if (accepts(doc)) add(doc);
      continue;
    }
    const { moved } = sseg.times;
    const anyMoved = Atomics.load(sseg.times.anyMoved, 0) === 1;
    const first = lowerBound(keys, minuteOf(acqLo) * KEY_MINUTE);
    const inv = 1 / KEY_MINUTE;
    let found = 0;
    let looked = 0;
    // The minute of the k-th accepted: the walk ends past it (none below it when fewer are accepted).
    let last = -1;
    for (let at = lowerBound(keys, (minuteOf(acqHi) + 1) * KEY_MINUTE) - 1; at >= first; at--) {
      const key = keys[at]!;
      const minute = Math.floor(key * inv);
      if (minute < last) {
        cut = true;
        break;
      }
      const doc = key - minute * KEY_MINUTE;
      if (anyMoved && (moved[doc >>> 5]! & (1 << doc)) !== 0) continue;
      if (++looked > look) return undefined;
      if (!accepts(doc)) continue;
      add(doc);
      if (++found === k) last = minute;
    }
    if (anyMoved) {
      eachMember(moved, 0, seg.docCount, (doc) => {
        if (minuteOf(acquiredAt[doc]!) >= last && accepts(doc)) add(doc);
      });
    }
  }
  if (!cut && times.length <= k) return { ids: Float64Array.from(versions).sort(), bar: -Infinity };
  // The k-th newest's time: the k-th largest (ties keep every document acquired then).
  const bar = Float64Array.from(times).sort()[times.length - k]!;
  const ids: number[] = [];
  for (let i = 0; i < times.length; i++) if (times[i]! >= bar) ids.push(versions[i]!);
  return { ids: Float64Array.from(ids).sort(), bar };
}

/** BM25 length normalisation of each length code under the current average length. */
export function normsOfCodes(avgLength: number): Float32Array {
  const out = new Float32Array(256);
  const inv = avgLength > 0 ? 1 / avgLength : 0;
  for (let c = 0; c < 256; c++) out[c] = K1 * (1 - B + B * CODE_LENGTH[c]! * inv);
  return out;
}

interface QueryTerm {
  /** Position in the query: contributions are summed in this order, so every path adds alike. */
  slot: number;
  idf: number;
}

export interface SearchableSegment {
  data: SegmentData;
  /** Each document's length code (`lengthCode`), and the normalisation of each code. */
  lengthCode: Uint8Array;
  normOf: Float32Array;
  /**
   * Each term's upper bound over the segment under the current statistics, once a search has
   * computed it. A Map, not an array of every term: a segment is made searchable again at every
   * publish (the statistics change), and an array would be 8 MB to allocate each time at 1M terms.
   */
  ub: Map<number, number>;
  /** Bit per document: deleted or superseded (not alive now). 1/64 of the columns it sums up, so it stays in cache. */
  gone: Int32Array;
  /** The bitsets of its dense lists. */
  members: Members;
  /** Its documents in acquired order. */
  times: AcquiredOrder;
}

/**
 * A segment ready for queries under the collection's current average length. `gone` is computed
 * from the columns (in shared memory when they are), and `members` from the lists, and `times`
 * begun, unless given (the search helper thread is given the main thread's: it then sees `gone`
 * and `times` change).
 */
export function searchable(data: SegmentData, avgLength: number, gone?: Int32Array, members?: Members, times?: AcquiredOrder): SearchableSegment {
  const words = bitsetWords(data.docCount);
  const bits = gone ?? new Int32Array(data.deleted.buffer instanceof SharedArrayBuffer ? new SharedArrayBuffer(4 * words) : new ArrayBuffer(4 * words));
  const s = { data, lengthCode: lengthCodes(data), normOf: normsOfCodes(avgLength), ub: new Map<number, number>(), gone: bits, members: members ?? membersOf(data), times: times ?? acquiredOrderOf(data) };
  if (!gone) for (let doc = 0; doc < data.docCount; doc++) updateGone(s, doc);
  return s;
}

/**
 * Recomputes a document's `gone` bit after its columns changed, and marks it `moved` in the
 * segment's acquired order once one is begun (its key there may be its old acquired time).
 */
export function updateGone(s: SearchableSegment, doc: number): void {
  const dead = s.data.deleted[doc] === 1 || s.data.supersededAt[doc] !== Infinity;
  if (dead) s.gone[doc >>> 5]! |= 1 << (doc & 31);
  else s.gone[doc >>> 5]! &= ~(1 << (doc & 31));
  const t = s.times;
  if (t.keys.length > 0 && Atomics.load(t.state, 0) !== 0) {
    Atomics.or(t.moved, doc >>> 5, 1 << (doc & 31));
    Atomics.store(t.anyMoved, 0, 1);
  }
}

/** Score of one posting; the same expression everywhere so exhaustive and pruned agree bit for bit. */
function termScore(idfW: number, tf: number, norm: number): number {
  return (idfW * tf * (K1 + 1)) / (tf + norm);
}

function queryTermsOf(stats: Statistics, terms: readonly string[]): QueryTerm[] & { terms: string[] } {
  const distinct = [...new Set(terms)];
  const out = distinct.map((t, slot) => ({ slot, idf: idf(stats, stats.df(t)) })) as QueryTerm[] & { terms: string[] };
  out.terms = distinct;
  return out;
}

/** What both searches start from: the heap and the query's distinct terms with their IDF; undefined when nothing can match. */
function begin(stats: Statistics, terms: readonly string[], k: number): { top: TopK; q: ReturnType<typeof queryTermsOf> } | undefined {
  const q = queryTermsOf(stats, terms);
  return q.length === 0 || k <= 0 ? undefined : { top: new TopK(k), q };
}

/**
 * Top k by MaxScore. Per segment, terms are ordered by their upper bound; the lowest ones whose
 * bounds sum to no more than the threshold are "non-essential": a document found only in them
 * cannot enter the top k. The traversal goes in windows of WINDOW documents: in each, block maxima
 * give every list a tighter bound (a window where even their sum cannot beat the threshold is
 * skipped), the essential lists' postings are added up into per-document accumulators (term at a
 * time, as Lucene's BooleanScorer does), and the documents found are completed from the other
 * lists only while they can still make it. A narrow published window instead leads: its
 * documents are visited one by one and the lists probed from the highest block bound down.
 *
 * With `required` (> 0), only documents holding one of the last `required` distinct terms are
 * ranked (the words only a query's other reading has: a page without them scores no more by it
 * than by the first). Those lists are then always the essential ones, so the others are only
 * probed at their documents.
 *
 * With every term among those left out (`cells -cell`), no document can be ranked: none is looked at.
 */
export function searchTopK(
  segments: readonly SearchableSegment[],
  stats: Statistics,
  terms: readonly string[],
  filter: EngineFilter,
  k: number,
  range: DocRange = WHOLE,
  floor?: SharedFloor,
  required = 0,
): EngineHit[] {
  const left = filter.notTerms;
  if (left !== undefined && terms.every((t) => left.includes(t))) return [];
  const [lo, hi] = range;
  const started = begin(stats, terms, k);
  if (!started) return [];
  const { top, q } = started;
  const m = q.length;
  // Slots from `requiredFrom` on are the terms a document must hold one of.
  const requiredFrom = required > 0 ? m - required : m;
  for (const sseg of segments) {
    const { data: seg, normOf, lengthCode: code, ub: ubCache } = sseg;
    const held = leftOutDocs(sseg, filter);
    const only = versionSet(seg, filter.onlyVersions);
    const accept = compileFilter(sseg, filter, held, only);
    if (!accept) continue;
    const drift = Math.max(1, stats.avgLength / seg.refAvg);
    // Cursors of the terms present in this segment, with their upper bounds over the segment.
    const cursors: Cursor[] = [];
    const ub: number[] = [];
    const slots: number[] = [];
    const idfs: number[] = [];
    for (let j = 0; j < m; j++) {
      const t = termNumber(seg, q.terms[j]!);
      if (t === undefined) continue;
      const first = seg.termBlockStart[t]!;
      const count = seg.termBlockCount[t]!;
      let bound = ubCache.get(t);
      if (bound === undefined) {
        bound = 0;
        for (let b = first; b < first + count; b++) {
          const s = blockBound(q[j]!.idf, seg.blockMaxSat[b]!, drift);
          if (s > bound) bound = s;
        }
        ubCache.set(t, bound);
      }
      const c = termCursor(seg, t)!;
      c.member = memberBits(sseg.members, seg, t);
      c.start();
      if (lo > 0) c.advance(lo);
      cursors.push(c);
      ub.push(bound);
      slots.push(q[j]!.slot);
      idfs.push(q[j]!.idf);
    }
    const n = cursors.length;
    if (n === 0) continue;
    // Order by upper bound ascending, the lists of terms not required first (`optional` of them, 0
    // without required terms: never essential, and a document holding none of the others is
    // dropped); cumulative bounds for the non-essential test.
    let optional = 0;
    if (required > 0) {
      for (let i = 0; i < n; i++) if (slots[i]! < requiredFrom) optional++;
      if (optional === n) continue; // no document here holds a required term
    }
    const order = [...Array(n).keys()].sort((a, b) => Number(slots[a]! >= requiredFrom) - Number(slots[b]! >= requiredFrom) || ub[a]! - ub[b]!);
    const cs = order.map((i) => cursors[i]!);
    const ubs = order.map((i) => ub[i]!);
    const sl = order.map((i) => slots[i]!);
    const idf2 = order.map((i) => idfs[i]!);
    const cum = new Float64Array(n);
    for (let i = 0, s = 0; i < n; i++) cum[i] = s += ubs[i]!;
    const slack = (x: number) => x + Math.abs(x) * 1e-12 + 1e-12; // float safety: never prune a possible tie
    // The threshold to prune with: this search's own (`own`), or the other parts' when higher (`floor`).
    let own = top.threshold;
    let threshold = floor === undefined ? own : Math.max(own, floor.get());
    const blockLast = seg.blockLast;
    const maxSat = seg.blockMaxSat;
    const tfOf = new Int32Array(n);
    const cursorOfSlot = new Int32Array(m).fill(-1);
    for (let i = 0; i < n; i++) cursorOfSlot[sl[i]!] = i;
    // Bound factor per list: a block's bound is fac x its saturation maximum.
    const fac = idf2.map((w) => blockBound(w, 1, drift));
    // A candidate is dropped when its bound is below `bar`, a hair under the threshold (never a tie).
    const barOf = (t: number) => t - Math.abs(t) * 4e-12 - 4e-12;
    let bar = barOf(threshold);
    // A published window: a bitset of the documents inside (and of the versions kept to, with
    // `onlyVersions`, and of those the time bounds keep when few: `timedSet`). When visiting each of them in each list costs less than reading the lists,
    // they lead (measured on the benchmark: a visit costs about as much as reading 64 postings; a
    // one-month window over 1M documents never leads, a day does).
    const sites = sitesOf(sseg, filter);
    const pub = timedSet(sseg, filter, restrictedSet(sseg, filter, only, sites));
    if (pub?.count === 0) continue; // no document of this segment is in the windows
    let postingCount = 0; // of the lists candidates come from
    for (let i = optional; i < n; i++) postingCount += cs[i]!.postings;
    // Every candidate below is in the window's bitset when there is one: then a filter of a
    // published window alone is the `gone` bit, not `accept` (four reads from 8 MB columns per
    // candidate: a quarter of a short, one-year query's time).
    // So is a filter of terms or sites left out (their documents' bits set in a copy of it), and of
    // sites and wide windows (with the documents outside them: `foldedGone`).
    // (Not where the window's documents lead: each of them is tested whole.)
    const leading = pub?.bits !== undefined && pub.count * n * 64 <= postingCount ? pub.bits : undefined;
    const outside = leading === undefined && isTrivial(filter, pub?.bits !== undefined, true) ? foldedGone(sseg, filter, sites, held, postingCount) : undefined;
    const trivial = outside !== undefined || isTrivial(filter, pub?.bits !== undefined);
    const gone = outside ?? (leading === undefined && trivial ? withHeld(sseg.gone, held) : sseg.gone);
    if (leading !== undefined) {
      const only = members(leading, pub!.count);
      // Few documents pass the window: they lead. For each, the lists are probed from the highest
      // bound down, and the document is dropped as soon as what it has plus the most the remaining
      // lists could add (their bounds over the segment, or the probed list's block there) cannot
      // beat the threshold, so the blocks of common terms are mostly never read.
      for (let x = lo > 0 ? lowerBound(only, lo) : 0; x < only.length; x++) {
        const doc = only[x]!;
        if (doc >= hi) break;
        if (!accept(doc)) continue;
        const nd = normOf[code[doc]!]!;
        let partial = 0;
        let pruned = false;
        let hit = false;
        for (let i = n - 1; i >= 0; i--) {
          tfOf[i] = 0;
          if (i < optional && !hit) {
            pruned = true; // none of the required terms
            break;
          }
          const rest = i > 0 ? cum[i - 1]! : 0;
          if (partial + cum[i]! < bar) {
            pruned = true;
            break;
          }
          const c = cs[i]!;
          const b = c.blockFor(doc);
          if (b >= c.blockEnd) continue;
          if (partial + rest + fac[i]! * maxSat[b]! < bar) {
            pruned = true;
            break;
          }
          const mem = c.member;
          if (mem !== undefined && (mem[doc >>> 5]! & (1 << doc)) === 0) continue;
          c.advance(doc);
          if (c.doc === doc) {
            const tf = c.tf;
            tfOf[i] = tf;
            partial += termScore(idf2[i]!, tf, nd);
            hit = true;
          }
        }
        if (pruned || !hit) continue;
        let score = 0;
        for (let j = 0; j < m; j++) {
          const i = cursorOfSlot[j]!;
          if (i >= 0 && tfOf[i]! > 0) score += termScore(idf2[i]!, tfOf[i]!, nd);
        }
        top.offer(score, seg.versionIds[doc]!);
        own = top.threshold;
        floor?.raise(own);
        threshold = floor === undefined ? own : Math.max(own, floor.get());
        bar = barOf(threshold);
      }
      continue;
    }
    let firstEssential = optional;
    while (firstEssential < n && slack(cum[firstEssential]!) < threshold) firstEssential++;

    // Under half the segment in the window: postings outside it are not even added up.
    const inside = pub?.bits;
    // Lists with more postings than this are probed at the window's documents (a probe costs about
    // as much as reading 12 postings, measured on the benchmark).
    const probeAbove = pub ? pub.count * 12 : Infinity;
    const { acc, bits, tfWin, wcum } = windowScratch(n);
    let prevEnd = 0;
    // Windows of WINDOW documents. In each, the lists' block maxima there decide which lists can
    // produce a competitive document alone ("essential" in the window); their postings are added
    // up list by list into per-document accumulators, then the documents found are visited in
    // order and completed from the other lists only while they can still beat the threshold.
    while (firstEssential < n) {
      if (floor !== undefined) {
        // Another part may have raised the bound since.
        const t = floor.get();
        if (t > threshold) {
          threshold = t;
          bar = barOf(threshold);
          while (firstEssential < n && slack(cum[firstEssential]!) < threshold) firstEssential++;
          if (firstEssential >= n) break;
        }
      }
      let ws = NO_MORE;
      for (let i = firstEssential; i < n; i++) if (cs[i]!.doc < ws) ws = cs[i]!.doc;
      if (ws === NO_MORE) break;
      if (ws < prevEnd) ws = prevEnd;
      if (ws >= hi) break;
      const we = Math.min(ws + WINDOW, hi);
      // Each list's bound in the window: the largest block maximum among its blocks overlapping it.
      let winFirst = firstEssential;
      // (Needed before the threshold is set when lists are never essential: what they may add is `rest` below.)
      if (threshold > -Infinity || optional > 0) {
        let sum = 0;
        for (let i = 0; i < n; i++) {
          const c = cs[i]!;
          let b = c.blockFor(ws);
          let best = 0;
          while (b < c.blockEnd) {
            if (maxSat[b]! > best) best = maxSat[b]!;
            if (blockLast[b]! >= we - 1) break;
            b++;
          }
          sum += fac[i]! * best;
          wcum[i] = sum;
          if (i >= firstEssential - 1 && sum < bar) winFirst = i + 1;
        }
        if (winFirst >= n) {
          prevEnd = we; // nothing in this window can beat the threshold
          for (let i = firstEssential; i < n; i++) cs[i]!.advance(we);
          continue;
        }
      }
      // Lists before winFirst add at most wcum[winFirst - 1] to a document of this window.
      const rest = winFirst > 0 ? wcum[winFirst - 1]! : 0;
      const lead = cs[n - 1]!;
      if (winFirst === n - 1 && (inside === undefined || lead.postings <= probeAbove)) {
        // One essential list (the usual case once the threshold has risen, e.g. short queries): its
        // postings are the only candidates, so each is scored and tested as it is read, without
        // the accumulators.
        if (lead.doc < ws) lead.advance(ws);
        const w = idf2[n - 1]!;
        for (let partial = lead.seek(we, w, normOf, code, rest, bar, inside); partial >= 0; partial = lead.seek(we, w, normOf, code, rest, bar, inside)) {
          const doc = lead.doc;
          if (trivial ? (gone[doc >>> 5]! & (1 << (doc & 31))) === 0 : accept(doc)) {
            tfOf[n - 1] = lead.tf;
            const score = completed(doc, partial, n - 1, cs, wcum, bar, idf2, tfOf, normOf[code[doc]!]!, cursorOfSlot);
            if (score !== undefined) {
              top.offer(score, seg.versionIds[doc]!);
              const t = top.threshold;
              if (t !== own) {
                own = t;
                floor?.raise(t);
                threshold = floor === undefined ? t : Math.max(t, floor.get());
                bar = barOf(threshold);
                while (firstEssential < n && slack(cum[firstEssential]!) < threshold) firstEssential++;
              }
            }
          }
          lead.next();
        }
        prevEnd = we;
        continue;
      }
      // Lists from winFirst on: accumulate their postings in the window. A list far denser than
      // the published window is probed at the window's documents instead of read through.
      for (let i = winFirst; i < n; i++) {
        const c = cs[i]!;
        if (c.doc < ws) c.advance(ws);
        if (inside !== undefined && c.postings > probeAbove) c.addAt(inside, we, ws, idf2[i]!, normOf, code, acc, tfWin, i * WINDOW, bits);
        else c.addUpTo(we, ws, idf2[i]!, normOf, code, acc, tfWin, i * WINDOW, bits, inside);
      }
      prevEnd = we;
      for (let w = 0; w < WINDOW / 32; w++) {
        let word = bits[w]!;
        if (word === 0) continue;
        bits[w] = 0;
        while (word !== 0) {
          const bit = 31 - Math.clz32(word & -word);
          word &= word - 1;
          const d = (w << 5) | bit;
          const doc = ws + d;
          let partial = acc[d]!;
          acc[d] = 0;
          let keep = partial + rest >= bar && (trivial ? (gone[doc >>> 5]! & (1 << (doc & 31))) === 0 : accept(doc));
          if (keep && winFirst > 0) {
            // Complete from the other lists, highest bound first, while the document can still make it
            // (as `completed` does; inline here, where every document of a window passes: calling it
            // made long queries 11% slower, measured old against new in one process, query by query).
            const nd = normOf[code[doc]!]!;
            for (let i = winFirst - 1; i >= 0; i--) {
              if (partial + wcum[i]! < bar) {
                keep = false;
                break;
              }
              const c = cs[i]!;
              const mem = c.member;
              if (mem !== undefined && (mem[doc >>> 5]! & (1 << doc)) === 0) {
                tfOf[i] = 0;
                continue;
              }
              c.advance(doc);
              if (c.doc === doc) {
                const tf = c.tf;
                tfOf[i] = tf;
                partial += termScore(idf2[i]!, tf, nd);
              } else {
                tfOf[i] = 0;
              }
            }
          }
          if (!keep) {
            for (let i = winFirst; i < n; i++) tfWin[i * WINDOW + d] = 0;
            continue;
          }
          for (let i = winFirst; i < n; i++) {
            tfOf[i] = tfWin[i * WINDOW + d]!;
            tfWin[i * WINDOW + d] = 0;
          }
          // The score in query-term order, exactly as exhaustive scoring adds it.
          const nd = normOf[code[doc]!]!;
          let score = 0;
          for (let j = 0; j < m; j++) {
            const i = cursorOfSlot[j]!;
            if (i >= 0 && tfOf[i]! > 0) score += termScore(idf2[i]!, tfOf[i]!, nd);
          }
          top.offer(score, seg.versionIds[doc]!);
          const t = top.threshold;
          if (t !== own) {
            own = t;
            floor?.raise(t);
            threshold = floor === undefined ? t : Math.max(t, floor.get());
            bar = barOf(threshold);
            while (firstEssential < n && slack(cum[firstEssential]!) < threshold) firstEssential++;
          }
        }
      }
    }
  }
  return top.sorted();
}

/**
 * A candidate of a window, with `partial` from the lists from `from` on (their frequencies in
 * `tfOf`), completed from the other lists, highest bound first, while it can still reach `bar`:
 * its score in query-term order, exactly as exhaustive scoring adds it, or undefined when it cannot.
 */
function completed(doc: number, partial: number, from: number, cs: readonly Cursor[], wcum: Float64Array, bar: number, idf2: readonly number[], tfOf: Int32Array, nd: number, cursorOfSlot: Int32Array): number | undefined {
  for (let i = from - 1; i >= 0; i--) {
    if (partial + wcum[i]! < bar) return undefined;
    const c = cs[i]!;
    const mem = c.member;
    if (mem !== undefined && (mem[doc >>> 5]! & (1 << doc)) === 0) {
      tfOf[i] = 0;
      continue;
    }
    c.advance(doc);
    if (c.doc === doc) {
      const tf = c.tf;
      tfOf[i] = tf;
      partial += termScore(idf2[i]!, tf, nd);
    } else {
      tfOf[i] = 0;
    }
  }
  let score = 0;
  for (let j = 0; j < cursorOfSlot.length; j++) {
    const i = cursorOfSlot[j]!;
    if (i >= 0 && tfOf[i]! > 0) score += termScore(idf2[i]!, tfOf[i]!, nd);
  }
  return score;
}

/** Documents per window of the accumulating traversal. */
const WINDOW = 4096;

interface WindowScratch {
  acc: Float64Array;
  bits: Int32Array;
  tfWin: Int32Array;
  wcum: Float64Array;
}

let scratchPool: WindowScratch | undefined;

/** Buffers of the windowed traversal, kept between queries (all zero between uses). */
function windowScratch(lists: number): WindowScratch {
  if (!scratchPool || scratchPool.tfWin.length < lists * WINDOW) {
    const size = Math.max(lists, scratchPool ? (2 * scratchPool.tfWin.length) / WINDOW : 16);
    scratchPool = {
      acc: new Float64Array(WINDOW),
      bits: new Int32Array(WINDOW / 32),
      tfWin: new Int32Array(size * WINDOW),
      wcum: new Float64Array(size),
    };
  }
  return scratchPool;
}

/**
 * No filter but the default one (versions alive now and not deleted), or that and a published
 * window and the versions kept to when `windowed` (every candidate is in their bitset,
 * `restrictedSet`); terms and sites left out (`notTerms`, `notRevSites`) aside, whose bits the
 * caller adds to `gone` (`leftOutDocs`), and sites, published and acquired windows and a
 * `queryTime` too when `folded` (the caller adds the documents outside them: `foldedGone`).
 */
function isTrivial(f: EngineFilter, windowed = false, folded = false): boolean {
  return (
    (windowed || f.onlyVersions === undefined) &&
    (folded || (f.revSite === undefined && f.anyRevSites === undefined && f.acquiredAfter === undefined && f.acquiredBefore === undefined)) &&
    (windowed || folded || (f.publishedAfter === undefined && f.publishedBefore === undefined)) &&
    (folded || f.queryTime === undefined)
  );
}

/** Bound of a block's scores: its saturation maximum, widened when the collection's average length grew past the segment's. */
function blockBound(idfW: number, maxSat: number, drift: number): number {
  return idfW * (K1 + 1) * maxSat * drift * (1 + 1e-6);
}

/** Every matching document scored: the reference the pruned search must equal. */
export function exhaustive(
  segments: readonly SearchableSegment[],
  stats: Statistics,
  terms: readonly string[],
  filter: EngineFilter,
  k: number,
): EngineHit[] {
  const started = begin(stats, terms, k);
  if (!started) return [];
  const { top, q } = started;
  const m = q.length;
  for (const sseg of segments) {
    const { data: seg, normOf, lengthCode: code } = sseg;
    const accept = compileFilter(sseg, filter);
    if (!accept) continue;
    const scores = new Map<number, Float64Array>();
    for (let j = 0; j < m; j++) {
      const c = termCursor(seg, termNumber(seg, q.terms[j]!));
      if (c === undefined) continue;
      for (c.start(); c.doc !== NO_MORE; c.next()) {
        if (!accept(c.doc)) continue;
        let row = scores.get(c.doc);
        if (!row) scores.set(c.doc, (row = new Float64Array(m)));
        row[q[j]!.slot] = termScore(q[j]!.idf, c.tf, normOf[code[c.doc]!]!);
      }
    }
    for (const [doc, row] of scores) {
      let score = 0;
      for (let j = 0; j < m; j++) score += row[j]!;
      top.offer(score, seg.versionIds[doc]!);
    }
  }
  return top.sorted();
}

/** What `allMatches` looks for. */
export interface MatchRequest {
  /** Stemmed terms, distinct: the candidates' words (`probed` of them at the end only looked up). */
  terms: readonly string[];
  /** BM25 is summed over the first `scored` terms. */
  scored: number;
  /**
   * The last `probed` terms bring no candidates: each candidate only learns whether it holds them
   * (the words of excluded items, which a match may or may not hold).
   */
  probed: number;
  /** Every document the filter accepts is a candidate, not only those holding a term. */
  everyDoc: boolean;
  /** Terms every match holds, walked together from the rarest instead of visiting every posting of each. */
  required: readonly string[];
  /**
   * Terms of which every match holds one (webql's `e-mail`: `mail` or `email`): when they have
   * fewer postings than the usual way, only theirs bring candidates, the other terms looked up at them.
   */
  leads?: readonly string[];
  /**
   * Reversed hosts (`reverseHost`, their subdomains too) whose documents lead as well (webql's
   * `(lime OR site:a.test) (fig OR url:https://b.test/)`: a match may hold no term, but it is under
   * one of these hosts or holds one of `leads`). Given with `leads`, which are then always taken:
   * the usual way would miss a match that holds no term.
   */
  leadSites?: readonly string[];
  /** Versions (ascending) whose documents lead as well, given with `leadSites` (webql's `lang:en` in `(lime OR lang:en) fig`). */
  leadVersions?: Float64Array;
  /**
   * The least weighted frequency of a required term that a match has, where it is more than one
   * (webql's `title:` words: a version whose title holds a word has at least the title's weight of
   * its term); a document holding the term less often is no match.
   */
  floors?: ReadonlyMap<string, number>;
  /**
   * The pairs of the expression's phrases (pair-filter.ts `phrasePairs`), at most 31: phrase p's
   * bit of `keep`'s `ruledOut` is set where the document's filter of pairs lacks one of its pairs.
   */
  phrases?: readonly (readonly number[])[];
  /**
   * Whether a candidate that holds these terms (bit j: `terms[j]`, for the first 31), whose filter
   * of pairs rules out these of `phrases` (0 without them), is kept.
   */
  keep(held: number, ruledOut: number): boolean;
}

/**
 * Every document `allMatches` kept: parallel typed arrays, in no particular order, the first
 * `count` of them used. A query can keep hundreds of thousands (741,116 for `(cells OR promotes)
 * cell` at 1M), or a handful where a filter rules out most of its terms' postings; the arrays start
 * at 4,096 and grow four times over, to at most the query's bound on its matches. Made as long as
 * the bound at once, a `site:` query made megabytes for a few matches, and the collector's
 * mark-compacts held the event loop 60-70 ms (bench:webql); grown by doubling from 256, 58 MB were
 * made and dropped on the way to a million, and the two OR queries above took 52-130 ms where they
 * take 47-55 ms (ad hoc, two runs each).
 */
export class Matches {
  count = 0;
  versionIds: Float64Array;
  acquiredAt: Float64Array;
  /** BM25 over the first `scored` terms. */
  scores: Float64Array;
  /** Which terms each holds (bit j: the j-th, for the first 31). */
  held: Int32Array;
  /** Each one's document in its run's segment (`urlMaskOf`). */
  docs: Int32Array;
  /** Each segment's matches are a run of these, in segment order: where each starts (`urlMaskOf`). */
  readonly runs: { start: number; seg: SegmentData }[] = [];

  /** For at most `bound` matches. */
  constructor(private readonly bound: number) {
    const n = Math.min(bound, 4_096);
    this.versionIds = new Float64Array(n);
    this.acquiredAt = new Float64Array(n);
    this.scores = new Float64Array(n);
    this.held = new Int32Array(n);
    this.docs = new Int32Array(n);
  }

  /** Adds document `doc` of `seg`. */
  add(seg: SegmentData, doc: number, score: number, held: number): void {
    if (this.count === this.scores.length) this.grow();
    const i = this.count++;
    this.versionIds[i] = seg.versionIds[doc]!;
    this.acquiredAt[i] = seg.acquiredAt[doc]!;
    this.scores[i] = score;
    this.held[i] = held;
    this.docs[i] = doc;
  }

  private grow(): void {
    const n = Math.min(this.bound, this.count * 4);
    this.versionIds = resized(this.versionIds, n);
    this.acquiredAt = resized(this.acquiredAt, n);
    this.scores = resized(this.scores, n);
    this.held = resized(this.held, n);
    this.docs = resized(this.docs, n);
  }
}

/**
 * The arrays `allMatches` sums scores and held terms into, a place per document of a step (its
 * document less the step's first), made once for the query as long as its longest step and left
 * all zero by each step for the next (it clears what it set), and the list of a step's documents.
 * As long as the largest segment, they were 12 MB made for each query at 1M (2.4 ms).
 */
class MatchScratch {
  score = new Float64Array(0);
  held = new Int32Array(0);
  /** The documents a step touched. */
  touched = new Int32Array(0);

  /** For a segment of `docs` documents, in steps of `step`. */
  fit(docs: number, step: number): void {
    const n = Math.min(docs, step);
    if (this.held.length < n) {
      this.score = new Float64Array(n);
      this.held = new Int32Array(n);
      this.touched = new Int32Array(n);
    }
  }
}

/**
 * The URL filter (`SegmentData.urlMask`: low and high word) of match `i`: its segment's run, and its
 * document there (`Matches.docs`). Found by binary search of the run's versions instead, `cells
 * promotes -cell` (700,000 matches, each asked: none holds `cells` outside its URL without `cell`)
 * took 171-191 ms at 1M, and 126-128 with the documents kept; the listing of `(cells OR promotes)
 * cell` (741,116) 106-110 against 101-124, within its runs' spread (ad hoc, webql's best candidates
 * first turned off, median of 7, two runs each way alternating). An earlier measure had keeping them
 * cost 20-40 ms on such a listing.
 */
export function urlMaskOf(m: Matches, i: number): [number, number] {
  const seg = segmentOfMatch(m, i);
  const doc = m.docs[i]!;
  return [seg.urlMask[2 * doc]!, seg.urlMask[2 * doc + 1]!];
}

/** The reversed host (`reverseHost`) of match `i`, from its segment's columns (`urlMaskOf`). */
export function hostOfMatch(m: Matches, i: number): string {
  const seg = segmentOfMatch(m, i);
  return seg.hosts[seg.hostRank[m.docs[i]!]!]!;
}

/**
 * Which of `phrases` (each a phrase's pairs, pair-filter.ts `phrasePairs`; bit p: the p-th, for the
 * first 31) match `i`'s filter of pairs rules out: one of its pairs is not in the document's texts.
 */
export function phrasesRuledOut(m: Matches, i: number, phrases: readonly (readonly number[])[]): number {
  return ruledOutAt(segmentOfMatch(m, i), m.docs[i]!, phrases);
}

/**
 * Whether `m.keep` keeps document `doc` of `seg`, which holds the terms `held`: its filter of pairs
 * read only where it can tell (a match may hold none of the phrases, as `"a b" OR lang:en`, read
 * for every page, took 149 ms at 1M against 86 before the filters, in one run of `npm run bench:random-queries -- --seed 7`).
 */
function keeps(m: MatchRequest, seg: SegmentData, doc: number, held: number): boolean {
  if (!m.keep(held, 0)) return false;
  const phrases = m.phrases;
  return phrases === undefined || m.keep(held, -1) || m.keep(held, ruledOutAt(seg, doc, phrases));
}

/** `phrasesRuledOut` of document `doc` of `seg`. */
function ruledOutAt(seg: SegmentData, doc: number, phrases: readonly (readonly number[])[]): number {
  const at = seg.pairStart[doc]!;
  const words = seg.pairStart[doc + 1]! - at;
  if (words === 0) return 0;
  const bits = seg.pairBits;
  let out = 0;
  for (let p = 0; p < phrases.length && p < 31; p++) {
    const pairs = phrases[p]!;
    for (let k = 0; k < pairs.length; k++) {
      if (!mayHoldPair(bits, at, words, pairs[k]!)) {
        out |= 1 << p;
        break;
      }
    }
  }
  return out;
}

/** The segment of match `i`: that of its run. */
function segmentOfMatch(m: Matches, i: number): SegmentData {
  let r = m.runs.length - 1;
  while (m.runs[r]!.start > i) r--;
  return m.runs[r]!.seg;
}

const SEEN = 1 << 31;

/**
 * Documents `allMatches` goes through before it lets the event loop turn: a webql query over many
 * matches (741,116 at 1M: about 260 ms in one go) no longer holds up the searches that arrive
 * meanwhile for all of it.
 */
export const MATCH_STEP = 1 << 16;

/** The next step of `allMatches` in one segment: its documents up to (not including) `hi`. */
type MatchStep = (hi: number) => void;

/**
 * Every document the filter accepts that holds any of the request's terms (with `everyDoc`, every
 * document the filter accepts) and that `keep` keeps, with the terms it holds and its BM25 score.
 * For queries a top k cannot answer because what matches is decided after the engine (webql:
 * phrases, fields, exclusions, checked against the stored versions): they score every match, as
 * FTS5 did, so their cost grows with the matches, not with k. The request's terms are distinct, so
 * term j of the request is term j here, and the scored ones are those before `scored`. It goes
 * through each segment in steps of `step` documents, and awaits `turn()` once more than `step`
 * documents have gone by since the last turn: the same matches as in one go, since a document's
 * postings are all read in its step (each step walks every list up to its end).
 */
export async function allMatches(
  segments: readonly SearchableSegment[],
  stats: Statistics,
  filter: EngineFilter,
  m: MatchRequest,
  turn: () => Promise<void>,
  step = MATCH_STEP,
): Promise<Matches> {
  const q = queryTermsOf(stats, m.terms);
  // Candidates come from the rarest required term when some are required, else from every term
  // walked, unless the leads have fewer postings; there are no more matches than documents, nor
  // than the postings of either way.
  const documents = segments.reduce((n, s) => n + s.data.docCount, 0);
  const postings = (terms: readonly string[]) => terms.reduce((n, t) => n + stats.df(t), 0);
  const usual = m.required.length > 0 ? Math.min(...m.required.map((t) => stats.df(t))) : postings(m.terms.slice(0, m.terms.length - m.probed));
  // The documents of the lead sites and versions, per segment, ascending.
  const sited = m.leadSites !== undefined ? segments.map((s) => leadDocsOf(s.data, m.leadSites!, m.leadVersions)) : undefined;
  const viaLeads = m.leads !== undefined ? postings(m.leads) + (sited?.reduce((n, docs) => n + docs.length, 0) ?? 0) : Infinity;
  const leads = !m.everyDoc && (sited !== undefined || viaLeads < usual) ? m.leads : undefined;
  // The postings the way taken walks (every document with `everyDoc`).
  const walks = m.everyDoc ? documents : sited !== undefined ? viaLeads : Math.min(usual, viaLeads);
  const out = new Matches(Math.min(documents, walks));
  const scratch = new MatchScratch();
  let sinceTurn = 0;
  for (const [at, sseg] of segments.entries()) {
    const accept = compileFilter(sseg, filter);
    if (!accept) continue;
    // Time bounds few documents fall in, published or acquired: those documents, as `searchTopK`
    // takes them (`restrictedSet`, `timedSet`), are the filter's few (copied: the listing turns the
    // event loop, and the sets are this thread's kept bitsets); none, and the segment is passed over.
    const timed = timedSet(sseg, filter, restrictedSet(sseg, filter, accept.only));
    if (timed?.count === 0) continue;
    if (timed?.bits !== undefined && timed !== accept.only) accept.only = { bits: timed.bits.slice(), count: timed.count };
    out.runs.push({ start: out.count, seg: sseg.data });
    // The filter's few documents (`onlyVersions`) are gone through themselves, each term looked up
    // at each, when that is fewer lookups than the postings the usual way walks in this segment.
    const few = accept.only !== undefined && accept.only.count * Math.max(1, q.terms.length) < (walks * sseg.data.docCount) / documents;
    const leadDocs = leads !== undefined ? sited?.[at] : undefined;
    const next = few
      ? ofDocs(sseg, q, accept, m, out, leads, leadDocs)
      : !m.everyDoc && (m.required.length > 0 || leads !== undefined)
        ? allOf(sseg, q, accept, m, out, leads, leadDocs)
        : anyOf(sseg, q, accept, m, out, scratch, step);
    if (next === undefined) continue;
    const n = sseg.data.docCount;
    for (let lo = 0; lo < n; lo += step) {
      if (sinceTurn >= step) {
        sinceTurn = 0;
        await turn();
      }
      const hi = Math.min(n, lo + step);
      next(hi);
      sinceTurn += hi - lo;
    }
  }
  return out;
}

/**
 * `allMatches` in one segment, term at a time within each step: every list's postings of the step
 * add to a score and a bit set per document, then the probed terms are looked up at the documents
 * touched, in order.
 */
function anyOf(
  sseg: SearchableSegment,
  q: ReturnType<typeof queryTermsOf>,
  accept: Accept,
  m: MatchRequest,
  out: Matches,
  scratch: MatchScratch,
  step: number,
): MatchStep {
  const { data: seg, normOf, lengthCode: code } = sseg;
  scratch.fit(seg.docCount, step);
  // Indexed by a document less the step's first (`lo`).
  const { score, held } = scratch;
  const walked = m.everyDoc ? q.terms.length : q.terms.length - m.probed;
  const cursors = q.terms.map((term, j) => (j < walked || j < 31 ? termCursor(seg, termNumber(seg, term)) : undefined));
  for (const c of cursors) c?.start();
  const within = accept.only?.bits;
  let lo = 0;
  return (hi) => {
    // The documents of the step first touched (at most the step's), in the scratch's array.
    const touched = scratch.touched;
    let n = 0;
    for (let j = 0; j < walked; j++) {
      const c = cursors[j];
      if (c === undefined) continue;
      const scores = j < m.scored;
      const idf = q[j]!.idf;
      const bit = SEEN | (j < 31 ? 1 << j : 0);
      for (; c.doc < hi; c.next()) {
        const doc = c.doc;
        const at = doc - lo;
        const h = held[at]!;
        if (h === 0) {
          if (!accept(doc)) continue;
          touched[n++] = doc;
        }
        if (scores) score[at] = score[at]! + termScore(idf, c.tf, normOf[code[doc]!]!);
        held[at] = h | bit;
      }
    }
    // Probed terms: skipped along the candidates, in document order.
    if (walked < q.terms.length && n > 0) {
      const docs = touched.subarray(0, n).sort();
      for (let j = walked; j < Math.min(q.terms.length, 31); j++) {
        const c = cursors[j];
        if (c === undefined) continue;
        for (const doc of docs) {
          if (c.doc < doc) c.advance(doc);
          if (c.doc >= hi) break;
          if (c.doc === doc) held[doc - lo] = held[doc - lo]! | (1 << j);
        }
      }
    }
    const offer = (doc: number) => {
      const h = held[doc - lo]! & ~SEEN;
      if (keeps(m, seg, doc, h)) out.add(seg, doc, score[doc - lo]!, h);
    };
    if (!m.everyDoc) {
      for (let k = 0; k < n; k++) offer(touched[k]!);
    } else if (within !== undefined) {
      // Only the documents the filter keeps to (a filetype:'s, lang:'s or url:'s versions).
      eachMember(within, lo, hi, (doc) => {
        if (held[doc - lo] !== 0 || accept(doc)) offer(doc);
      });
    } else {
      for (let doc = lo; doc < hi; doc++) if (held[doc - lo] !== 0 || accept(doc)) offer(doc);
    }
    // Only the documents touched were set: left all zero for the next step, segment and query.
    for (let k = 0; k < n; k++) {
      const at = touched[k]! - lo;
      held[at] = 0;
      score[at] = 0;
    }
    lo = hi;
  };
}

/**
 * Each term of a request looked up at one document after another (ascending), in one segment:
 * `allOf`'s and `ofDocs`' work per document.
 */
class Probe {
  readonly cursors: (Cursor | undefined)[];
  readonly required: boolean[];
  readonly floor: number[];
  /** The terms that bring a document in, when not every document that holds the required ones is. */
  brings: boolean[] | undefined;

  constructor(
    readonly sseg: SearchableSegment,
    readonly q: ReturnType<typeof queryTermsOf>,
    readonly m: MatchRequest,
    readonly out: Matches,
  ) {
    const seg = sseg.data;
    this.cursors = q.terms.map((term) => termCursor(seg, termNumber(seg, term)));
    // With `everyDoc` nothing is required (as in `anyOf`).
    this.required = q.terms.map((term) => !m.everyDoc && m.required.includes(term));
    this.floor = q.terms.map((term, j) => (this.required[j] ? (m.floors?.get(term) ?? 0) : 0));
  }

  /** Whether a required term is not in the segment: no document holds them all. */
  get lacking(): boolean {
    return this.cursors.some((c, j) => c === undefined && this.required[j]);
  }

  /**
   * Adds `doc` to the matches if it holds every required term (as often as its floor), one of
   * `brings` when given (or is `sited`: of a lead site or version), and `keep` keeps the terms it
   * holds; its score summed in the terms' order.
   */
  at(doc: number, sited = false): void {
    const { cursors, required, floor, brings, q, m } = this;
    const { normOf, lengthCode: code } = this.sseg;
    let held = 0;
    let score = 0;
    let brought = brings === undefined || sited;
    for (let j = 0; j < cursors.length; j++) {
      const c = cursors[j];
      if (c === undefined) continue;
      if (c.doc < doc) c.advance(doc);
      // (A frequency is read only for a floor: decoding it costs, and most terms have none.)
      if (c.doc !== doc || (floor[j]! > 0 && c.tf < floor[j]!)) {
        if (required[j]) return;
        continue;
      }
      if (brings !== undefined && brings[j]) brought = true;
      if (j < 31) held |= 1 << j;
      if (j < m.scored) score += termScore(q[j]!.idf, c.tf, normOf[code[doc]!]!);
    }
    if (brought && keeps(m, this.sseg.data, doc, held)) this.out.add(this.sseg.data, doc, score, held);
  }
}

/**
 * `allMatches` in one segment when some terms are required or `leads` are taken: the rarest
 * required term leads, or the leads together, and the rest are advanced to their documents.
 * Undefined when a required term, or every lead, is not in the segment.
 */
function allOf(
  sseg: SearchableSegment,
  q: ReturnType<typeof queryTermsOf>,
  accept: (doc: number) => boolean,
  m: MatchRequest,
  out: Matches,
  leadTerms: readonly string[] | undefined,
  leadDocs: Int32Array | undefined,
): MatchStep | undefined {
  const probe = new Probe(sseg, q, m, out);
  const { cursors, required, floor } = probe;
  if (probe.lacking) return undefined;
  const need = cursors.filter((c, j) => required[j]) as Cursor[];
  for (const c of cursors) c?.start();
  // The lists that bring candidates: `leads`' (a match holds one) and the lead sites' and versions' documents, else the rarest required one.
  const leads: DocWalk[] =
    leadTerms !== undefined ? cursors.filter((c, j): c is Cursor => c !== undefined && leadTerms.includes(q.terms[j]!)) : [need.reduce((a, b) => (b.postings < a.postings ? b : a))];
  if (leadDocs !== undefined && leadDocs.length > 0) leads.push(new DocsWalk(leadDocs));
  if (leads.length === 0) return undefined;
  const lead = leads.length === 1 && leads[0] instanceof Cursor ? leads[0] : undefined;
  // A lead held less often than its floor is passed over before the others are moved to it.
  const leadFloor = lead !== undefined ? floor[cursors.indexOf(lead)]! : 0;
  return (hi) => {
    for (let doc = lead !== undefined ? lead.doc : firstDoc(leads); doc < hi; doc = lead !== undefined ? (lead.next(), lead.doc) : pastDoc(leads, doc)) {
      if (leadFloor > 0 && lead!.tf < leadFloor) continue;
      if (accept(doc)) probe.at(doc);
    }
  };
}

/**
 * `allMatches` in one segment over the filter's own documents (`Accept.only`), each term looked
 * up at each: the same matches, terms held and scores as `allOf` or `anyOf` would find among them.
 * A document is one when it holds every required term (as often as its floor), one of the `leads`
 * when taken, or else some term walked (any, with `everyDoc`).
 */
function ofDocs(
  sseg: SearchableSegment,
  q: ReturnType<typeof queryTermsOf>,
  accept: Accept,
  m: MatchRequest,
  out: Matches,
  leadTerms: readonly string[] | undefined,
  leadDocs: Int32Array | undefined,
): MatchStep | undefined {
  const within = accept.only!.bits;
  const probe = new Probe(sseg, q, m, out);
  if (probe.lacking) return undefined;
  // What brings a document in, as in `allMatches`: a lead (a lead site's or version's too), else holding the required terms, else a term walked.
  const walked = m.everyDoc ? q.terms.length : q.terms.length - m.probed;
  if (!(m.everyDoc || (leadTerms === undefined && m.required.length > 0))) probe.brings = q.terms.map((term, j) => (leadTerms !== undefined ? leadTerms.includes(term) : j < walked));
  for (const c of probe.cursors) c?.start();
  const led = leadDocs !== undefined && leadDocs.length > 0 ? new DocsWalk(leadDocs) : undefined;
  let lo = 0;
  return (hi) => {
    eachMember(within, lo, hi, (doc) => {
      if (!accept(doc)) return;
      if (led !== undefined && led.doc < doc) led.advance(doc);
      probe.at(doc, led?.doc === doc);
    });
    lo = hi;
  };
}

/** What `allOf` walks for its candidates: a term's cursor, or the lead sites' and versions' documents (`DocsWalk`). */
interface DocWalk {
  doc: number;
  next(): void;
}

/** Ascending documents walked as a term's cursor is: at the first, then each next, NO_MORE past the last. */
class DocsWalk implements DocWalk {
  doc: number;
  private at = 0;

  constructor(private readonly docs: Int32Array) {
    this.doc = docs.length > 0 ? docs[0]! : NO_MORE;
  }

  next(): void {
    this.doc = ++this.at < this.docs.length ? this.docs[this.at]! : NO_MORE;
  }

  /** To the first document at or after `doc`. */
  advance(doc: number): void {
    this.at = lowerBound(this.docs, doc, false, this.at);
    this.doc = this.at < this.docs.length ? this.docs[this.at]! : NO_MORE;
  }
}

/** The documents of the segments under a reversed host and its subdomains (webql-search's `siteDocs`), the deleted and superseded counted. */
export function siteDocCount(segments: readonly SearchableSegment[], rev: string): number {
  let count = 0;
  for (const { data: seg } of segments) {
    const ranges = hostRanges(seg.hosts, [rev]);
    if (ranges.length > 0) count += hostDocCount(hostOrderOf(seg), ranges);
  }
  return count;
}

/**
 * The documents of a segment under the hosts `revs` (reversed, subdomains too) and of the
 * `versions` (ascending), ascending and each once: a bitset of the versions' (`versionSet`) and the
 * hosts' (`setHostDocs`), read in order (`members`).
 */
function leadDocsOf(seg: SegmentData, revs: readonly string[], versions: Float64Array | undefined): Int32Array {
  const bits = versionSet(seg, versions)?.bits ?? new Int32Array(bitsetWords(seg.docCount));
  const ranges = hostRanges(seg.hosts, revs);
  if (ranges.length > 0) setHostDocs(hostOrderOf(seg), ranges, bits);
  let count = 0;
  for (const word of bits) count += popcount(word);
  return members(bits, count);
}

/** The lowest document any of `cursors` is at. */
function firstDoc(cursors: readonly DocWalk[]): number {
  let doc = NO_MORE;
  for (const c of cursors) if (c.doc < doc) doc = c.doc;
  return doc;
}

/** Moves the cursors at `doc`, the lowest, past it: the lowest document any is at then. */
function pastDoc(cursors: readonly DocWalk[], doc: number): number {
  for (const c of cursors) if (c.doc === doc) c.next();
  return firstDoc(cursors);
}
