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
import { B, BLOCK, decodeBlock, hostRange, K1, type SegmentData, sparsePublished } from './segment.js';

export { B, K1 };


export interface EngineFilter {
  /** Reversed-host prefix (site and subdomains). */
  revSite?: string;
  acquiredAfter?: number;
  acquiredBefore?: number;
  publishedAfter?: number;
  publishedBefore?: number;
  /** Versions alive at this instant; undefined: versions alive now (not superseded). */
  queryTime?: number;
}

export interface EngineHit {
  versionId: number;
  score: number;
}

const NO_MORE = 0x7fffffff;

/** A reading position in one term's postings in one segment. */
class Cursor {
  doc = -1;
  tf = 0;
  private block = -1;
  private shallow = -1;
  private i = 0;
  private n = 0;
  private readonly end: number;

  constructor(
    private readonly seg: SegmentData,
    private readonly first: number,
    count: number,
    private readonly docs: Int32Array,
    private readonly tfs: Int32Array,
  ) {
    this.end = first + count;
  }

  private load(block: number): void {
    const seg = this.seg;
    this.block = block;
    this.n = decodeBlock(seg.postings, seg.blockOffset[block]!, seg.blockBase[block]! - 1, seg.blockLast[block]!, this.docs, this.tfs);
    this.i = 0;
  }

  /** Moves to the first posting; NO_MORE when there is none. */
  start(): void {
    if (this.first === this.end) {
      this.doc = NO_MORE;
      return;
    }
    this.load(this.first);
    this.doc = this.docs[0]!;
    this.tf = this.tfs[0]!;
  }

  next(): void {
    if (++this.i < this.n) {
      this.doc = this.docs[this.i]!;
      this.tf = this.tfs[this.i]!;
      return;
    }
    if (this.block + 1 >= this.end) {
      this.doc = NO_MORE;
      return;
    }
    this.load(this.block + 1);
    this.doc = this.docs[0]!;
    this.tf = this.tfs[0]!;
  }

  /** Moves to the first posting at or after `target`, skipping whole blocks without decoding them. */
  advance(target: number): void {
    if (this.doc >= target) return;
    const blockLast = this.seg.blockLast;
    if (blockLast[this.block]! < target) {
      let b = this.block + 1;
      while (b < this.end && blockLast[b]! < target) b++;
      if (b >= this.end) {
        this.doc = NO_MORE;
        return;
      }
      this.load(b);
    }
    const docs = this.docs;
    let i = this.i;
    while (docs[i]! < target) i++;
    this.i = i;
    this.doc = docs[i]!;
    this.tf = this.tfs[i]!;
  }

  /** Index of the block holding `target` (or the next block after it), for block-max bounds. */
  blockFor(target: number): number {
    // Shallow advance: targets only grow, so the search resumes where the last one stopped.
    const blockLast = this.seg.blockLast;
    let b = this.shallow > this.block ? this.shallow : this.block < this.first ? this.first : this.block;
    while (b < this.end && blockLast[b]! < target) b++;
    this.shallow = b;
    return b;
  }

  /** The block holding the current posting. */
  get currentBlock(): number {
    return this.block;
  }

  get blockEnd(): number {
    return this.end;
  }

}

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
    return out.sort((a, b) => b.score - a.score || a.versionId - b.versionId);
  }
}

/** The compiled filter of one segment: a document passes when `accept(doc)`. */
function compileFilter(seg: SegmentData, f: EngineFilter): ((doc: number) => boolean) | undefined {
  const { acquiredAt, supersededAt, publishedAt, hostRank, deleted } = seg;
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
  const now = f.queryTime === undefined;
  const hasPub = pubLo !== undefined || pubHi !== undefined;
  const lo = pubLo ?? -Infinity;
  const hi = pubHi ?? Infinity;
  return (doc) => {
    if (deleted[doc] === 1) return false;
    const acq = acquiredAt[doc]!;
    if (acq < acqLo || acq > acqHi) return false;
    const sup = supersededAt[doc]!;
    if (now ? sup !== Infinity : sup <= alive) return false;
    if (hasPub) {
      const p = publishedAt[doc]!;
      if (!(p >= lo && p <= hi)) return false; // NaN (unknown) fails any published window
    }
    const h = hostRank[doc]!;
    return h >= hostLo && h < hostHi;
  };
}

export interface Statistics {
  docCount: number;
  avgLength: number;
  df: (term: string) => number;
}

export function idf(stats: Statistics, df: number): number {
  return Math.log(1 + (stats.docCount - df + 0.5) / (df + 0.5));
}

/** BM25 length normalisation of each document of a segment under the current average length. */
export function norms(seg: SegmentData, avgLength: number): Float32Array {
  const out = new Float32Array(seg.docCount);
  const inv = avgLength > 0 ? 1 / avgLength : 0;
  for (let i = 0; i < seg.docCount; i++) out[i] = K1 * (1 - B + B * seg.lengths[i]! * inv);
  return out;
}

interface QueryTerm {
  /** Position in the query: contributions are summed in this order, so every path adds alike. */
  slot: number;
  idf: number;
}

export interface SearchableSegment {
  data: SegmentData;
  norms: Float32Array;
  /** Each term's upper bound over the segment under the current statistics; NaN until computed. */
  ub: Float64Array;
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

/**
 * Top k by MaxScore. Per segment, terms are ordered by their upper bound; the lowest ones whose
 * bounds sum to no more than the threshold are "non-essential": a document found only in them
 * cannot enter the top k, so candidates come from the essential lists only, and non-essential
 * lists are probed (skipping blocks) only while the candidate can still make it, first against
 * their block maxima, then by their postings.
 */
export function searchTopK(
  segments: readonly SearchableSegment[],
  stats: Statistics,
  terms: readonly string[],
  filter: EngineFilter,
  k: number,
): EngineHit[] {
  const top = new TopK(k);
  const q = queryTermsOf(stats, terms);
  const m = q.length;
  if (m === 0 || k <= 0) return [];
  const pool = Array.from({ length: m }, () => ({ docs: new Int32Array(BLOCK), tfs: new Int32Array(BLOCK) }));
  for (const { data: seg, norms: norm, ub: ubCache } of segments) {
    const accept = compileFilter(seg, filter);
    if (!accept) continue;
    const drift = Math.max(1, stats.avgLength / seg.refAvg);
    // Cursors of the terms present in this segment, with their upper bounds over the segment.
    const cursors: Cursor[] = [];
    const ub: number[] = [];
    const slots: number[] = [];
    const idfs: number[] = [];
    for (let j = 0; j < m; j++) {
      const t = seg.terms.get(q.terms[j]!);
      if (t === undefined) continue;
      const first = seg.termBlockStart[t]!;
      const count = seg.termBlockCount[t]!;
      let bound = ubCache[t]!;
      if (Number.isNaN(bound)) {
        bound = 0;
        for (let b = first; b < first + count; b++) {
          const s = blockBound(q[j]!.idf, seg.blockMaxSat[b]!, drift);
          if (s > bound) bound = s;
        }
        ubCache[t] = bound;
      }
      const c = new Cursor(seg, first, count, pool[j]!.docs, pool[j]!.tfs);
      c.start();
      cursors.push(c);
      ub.push(bound);
      slots.push(q[j]!.slot);
      idfs.push(q[j]!.idf);
    }
    const n = cursors.length;
    if (n === 0) continue;
    // Order by upper bound ascending; cumulative bounds for the non-essential test.
    const order = [...Array(n).keys()].sort((a, b) => ub[a]! - ub[b]!);
    const cs = order.map((i) => cursors[i]!);
    const ubs = order.map((i) => ub[i]!);
    const sl = order.map((i) => slots[i]!);
    const idf2 = order.map((i) => idfs[i]!);
    const cum = new Float64Array(n);
    for (let i = 0, s = 0; i < n; i++) cum[i] = s += ubs[i]!;
    const slack = (x: number) => x + Math.abs(x) * 1e-12 + 1e-12; // float safety: never prune a possible tie
    let threshold = top.threshold;
    const blockLast = seg.blockLast;
    const maxSat = seg.blockMaxSat;
    const tfOf = new Int32Array(n);
    const below = new Float64Array(n);
    const cursorOfSlot = new Int32Array(m).fill(-1);
    for (let i = 0; i < n; i++) cursorOfSlot[sl[i]!] = i;
    const only = sparsePublished(seg, filter.publishedAfter, filter.publishedBefore);
    if (only) {
      // Few documents pass the window: they lead. Each is bounded by the blocks around it; then the
      // lists are read from the highest bound down, stopping as soon as the rest cannot lift the
      // document over the threshold, so the blocks of common terms are mostly never decoded.
      for (let x = 0; x < only.length; x++) {
        const doc = only[x]!;
        if (!accept(doc)) continue;
        let total = 0;
        for (let i = 0; i < n; i++) {
          const c = cs[i]!;
          const b = c.blockFor(doc);
          const bb = b < c.blockEnd ? blockBound(idf2[i]!, maxSat[b]!, drift) : 0;
          below[i] = bb;
          total += bb;
        }
        if (slack(total) < threshold) continue;
        const nd = norm[doc]!;
        let partial = 0;
        let rest = total;
        let pruned = false;
        let hit = false;
        for (let i = n - 1; i >= 0; i--) {
          rest -= below[i]!;
          tfOf[i] = 0;
          if (below[i] === 0) continue;
          const c = cs[i]!;
          c.advance(doc);
          if (c.doc === doc) {
            tfOf[i] = c.tf;
            partial += termScore(idf2[i]!, c.tf, nd);
            hit = true;
          }
          if (i > 0 && slack(partial + rest) < threshold) {
            pruned = true;
            break;
          }
        }
        if (pruned || !hit) continue;
        let score = 0;
        for (let j = 0; j < m; j++) {
          const i = cursorOfSlot[j]!;
          if (i >= 0 && tfOf[i]! > 0) score += termScore(idf2[i]!, tfOf[i]!, nd);
        }
        top.offer(score, seg.versionIds[doc]!);
        threshold = top.threshold;
      }
      continue;
    }
    let firstEssential = 0;
    while (firstEssential < n && slack(cum[firstEssential]!) < threshold) firstEssential++;

    const trivial = isTrivial(filter);
    const { deleted, supersededAt: superseded } = seg;
    let windowEnd = -1; // the window checked last, valid until the threshold moves
    while (firstEssential < n) {
      let doc = NO_MORE;
      for (let i = firstEssential; i < n; i++) if (cs[i]!.doc < doc) doc = cs[i]!.doc;
      if (doc === NO_MORE) break;
      if (threshold > -Infinity && doc > windowEnd) {
        // Block-max window: up to the first end of an essential cursor's current block, each list's
        // contribution is bounded by its block there. If even their sum cannot beat the threshold,
        // every essential cursor jumps past the window without decoding what lies inside.
        let upTo = NO_MORE;
        for (let i = firstEssential; i < n; i++) {
          const c = cs[i]!;
          if (c.doc !== NO_MORE) {
            const last = blockLast[c.currentBlock]!;
            if (last < upTo) upTo = last;
          }
        }
        let bound = 0;
        for (let i = firstEssential; i < n; i++) {
          const c = cs[i]!;
          if (c.doc <= upTo) bound += blockBound(idf2[i]!, maxSat[c.currentBlock]!, drift);
        }
        for (let i = 0; i < firstEssential; i++) {
          const c = cs[i]!;
          let b = c.blockFor(doc);
          let best = 0;
          while (b < c.blockEnd) {
            if (maxSat[b]! > best) best = maxSat[b]!;
            if (blockLast[b]! >= upTo) break;
            b++;
          }
          bound += blockBound(idf2[i]!, best, drift);
        }
        if (slack(bound) < threshold) {
          const next = upTo + 1;
          for (let i = firstEssential; i < n; i++) cs[i]!.advance(next);
          continue;
        }
        windowEnd = upTo;
      }
      if (trivial ? deleted[doc] === 1 || superseded[doc] !== Infinity : !accept(doc)) {
        for (let i = firstEssential; i < n; i++) if (cs[i]!.doc === doc) cs[i]!.next();
        continue;
      }
      const nd = norm[doc]!;
      let partial = 0;
      for (let i = firstEssential; i < n; i++) {
        const c = cs[i]!;
        if (c.doc === doc) {
          tfOf[i] = c.tf;
          partial += termScore(idf2[i]!, c.tf, nd);
          c.next();
        } else {
          tfOf[i] = 0;
        }
      }
      if (firstEssential > 0) {
        // Bounds from the non-essential lists' blocks around doc, as prefix sums: lists 0..i can add at most below[i].
        let sum = 0;
        for (let i = 0; i < firstEssential; i++) {
          const c = cs[i]!;
          const b = c.blockFor(doc);
          if (b < c.blockEnd) sum += blockBound(idf2[i]!, maxSat[b]!, drift);
          below[i] = sum;
        }
        let pruned = false;
        for (let i = firstEssential - 1; i >= 0; i--) {
          if (slack(partial + below[i]!) < threshold) {
            pruned = true;
            break;
          }
          const c = cs[i]!;
          c.advance(doc);
          if (c.doc === doc) {
            tfOf[i] = c.tf;
            partial += termScore(idf2[i]!, c.tf, nd);
          } else {
            tfOf[i] = 0;
          }
        }
        if (pruned) continue;
      }
      // The score in query-term order, exactly as exhaustive scoring adds it.
      let score = 0;
      for (let j = 0; j < m; j++) {
        const i = cursorOfSlot[j]!;
        if (i >= 0 && tfOf[i]! > 0) score += termScore(idf2[i]!, tfOf[i]!, nd);
      }
      const id = seg.versionIds[doc]!;
      top.offer(score, id);
      const t = top.threshold;
      if (t !== threshold) {
        threshold = t;
        windowEnd = -1;
        while (firstEssential < n && slack(cum[firstEssential]!) < threshold) firstEssential++;
      }
    }
  }
  return top.sorted();
}

/** No filter but the default one: versions alive now and not deleted. */
function isTrivial(f: EngineFilter): boolean {
  return (
    f.revSite === undefined &&
    f.acquiredAfter === undefined &&
    f.acquiredBefore === undefined &&
    f.publishedAfter === undefined &&
    f.publishedBefore === undefined &&
    f.queryTime === undefined
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
  const top = new TopK(k);
  const q = queryTermsOf(stats, terms);
  const m = q.length;
  if (m === 0 || k <= 0) return [];
  for (const { data: seg, norms: norm } of segments) {
    const accept = compileFilter(seg, filter);
    if (!accept) continue;
    const scores = new Map<number, Float64Array>();
    for (let j = 0; j < m; j++) {
      const t = seg.terms.get(q.terms[j]!);
      if (t === undefined) continue;
      const c = new Cursor(seg, seg.termBlockStart[t]!, seg.termBlockCount[t]!, new Int32Array(BLOCK), new Int32Array(BLOCK));
      for (c.start(); c.doc !== NO_MORE; c.next()) {
        if (!accept(c.doc)) continue;
        let row = scores.get(c.doc);
        if (!row) scores.set(c.doc, (row = new Float64Array(m)));
        row[q[j]!.slot] = termScore(q[j]!.idf, c.tf, norm[c.doc]!);
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
