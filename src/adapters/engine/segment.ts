/**
 * An immutable segment of the search engine: the postings of a run of documents (versions), with
 * per-document columns for the filters.
 *
 * Postings of a term are blocks of up to 128 documents; inside a block each posting is a varint
 * pair (document delta, weighted term frequency). Per block the segment keeps the last document,
 * the byte offset, the largest frequency and the shortest document length, so a cursor can skip a
 * block without decoding it and bound any score in it (BM25 grows with frequency and shrinks with
 * length, so f(maxTf, minLen) bounds every posting of the block whatever the collection statistics).
 *
 * Documents are numbered 0..docCount-1 in the order they were added (ascending version id).
 * The columns `acquiredAt`, `supersededAt` and `deleted` may change after the build (a version is
 * superseded, a capture moves earlier, a version is removed); everything else never changes.
 */

export const BLOCK = 128;

export interface SegmentDoc {
  versionId: number;
  /** Analysed terms with their weighted frequency (sum over fields of weight x count). */
  terms: Map<string, number>;
  /** Number of analysed tokens over all fields (the BM25 document length). */
  length: number;
  acquiredAt: number;
  /** Infinity while the version is alive. */
  supersededAt: number;
  /** NaN when unknown. */
  publishedAt: number;
  /** Reversed host with a trailing dot (core/url.ts reverseHost). */
  revHost: string;
}

/** A growable byte buffer with varint writes. */
class ByteWriter {
  buf = new Uint8Array(16);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  varint(v: number): void {
    this.room(5);
    while (v >= 0x80) {
      this.buf[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.length++] = v;
  }
}

class GrowInt {
  a: Uint32Array;
  length = 0;
  constructor(size = 4) {
    this.a = new Uint32Array(size);
  }
  push(v: number): void {
    if (this.length === this.a.length) {
      const next = new Uint32Array(this.a.length * 2);
      next.set(this.a);
      this.a = next;
    }
    this.a[this.length++] = v;
  }
  done(): Uint32Array {
    return this.a.slice(0, this.length);
  }
}

/** Streams one term's postings into blocks while documents are added. */
class TermWriter {
  readonly bytes = new ByteWriter();
  df = 0;
  private lastDoc = -1;
  private inBlock = 0;
  private maxTf = 0;
  private minLen = 0xffffffff;
  readonly blockLast = new GrowInt(1);
  readonly blockOffset = new GrowInt(1);
  readonly blockMaxTf = new GrowInt(1);
  readonly blockMinLen = new GrowInt(1);

  add(doc: number, tf: number, len: number): void {
    if (this.inBlock === 0) this.blockOffset.push(this.bytes.length);
    this.bytes.varint(doc - this.lastDoc - 1);
    this.bytes.varint(tf);
    this.lastDoc = doc;
    this.df++;
    if (tf > this.maxTf) this.maxTf = tf;
    if (len < this.minLen) this.minLen = len;
    if (++this.inBlock === BLOCK) this.closeBlock();
  }

  closeBlock(): void {
    if (this.inBlock === 0) return;
    this.blockLast.push(this.lastDoc);
    this.blockMaxTf.push(this.maxTf);
    this.blockMinLen.push(this.minLen);
    this.inBlock = 0;
    this.maxTf = 0;
    this.minLen = 0xffffffff;
  }
}

export interface SegmentData {
  docCount: number;
  /** Term -> index into the term arrays. */
  terms: Map<string, number>;
  termDf: Uint32Array;
  /** First block of each term in the block arrays; its blocks are contiguous. */
  termBlockStart: Uint32Array;
  termBlockCount: Uint32Array;
  blockLast: Uint32Array;
  /** Byte offset of each block in `postings`. */
  blockOffset: Uint32Array;
  blockMaxTf: Uint32Array;
  blockMinLen: Uint32Array;
  postings: Uint8Array;
  versionIds: Float64Array;
  lengths: Uint32Array;
  totalLength: number;
  acquiredAt: Float64Array;
  supersededAt: Float64Array;
  publishedAt: Float64Array;
  /** Rank of each document's host in `hosts` (sorted reversed hosts), so a site is a rank range. */
  hostRank: Uint32Array;
  hosts: string[];
  deleted: Uint8Array;
  /** Documents with a publication time, ordered by it, and those times: a published window is a range. */
  pubOrder: Uint32Array;
  pubSorted: Float64Array;
}

/** Builds segments one document at a time; `finish` freezes the postings into flat arrays. */
export class SegmentBuilder {
  private readonly writers = new Map<string, TermWriter>();
  private readonly versionIds: number[] = [];
  private readonly lengths: number[] = [];
  private readonly acquired: number[] = [];
  private readonly superseded: number[] = [];
  private readonly published: number[] = [];
  private readonly revHosts: string[] = [];
  private totalLength = 0;

  get size(): number {
    return this.versionIds.length;
  }

  add(d: SegmentDoc): void {
    const doc = this.versionIds.length;
    this.versionIds.push(d.versionId);
    this.lengths.push(d.length);
    this.totalLength += d.length;
    this.acquired.push(d.acquiredAt);
    this.superseded.push(d.supersededAt);
    this.published.push(d.publishedAt);
    this.revHosts.push(d.revHost);
    for (const [term, tf] of d.terms) {
      let w = this.writers.get(term);
      if (!w) {
        w = new TermWriter();
        this.writers.set(term, w);
      }
      w.add(doc, tf, d.length);
    }
  }

  finish(): SegmentData {
    const n = this.versionIds.length;
    const terms = new Map<string, number>();
    const count = this.writers.size;
    const termDf = new Uint32Array(count);
    const termBlockStart = new Uint32Array(count);
    const termBlockCount = new Uint32Array(count);
    let blocks = 0;
    let bytes = 0;
    for (const w of this.writers.values()) {
      w.closeBlock();
      blocks += w.blockLast.length;
      bytes += w.bytes.length;
    }
    const blockLast = new Uint32Array(blocks);
    const blockOffset = new Uint32Array(blocks);
    const blockMaxTf = new Uint32Array(blocks);
    const blockMinLen = new Uint32Array(blocks);
    const postings = new Uint8Array(bytes);
    let t = 0;
    let b = 0;
    let at = 0;
    for (const [term, w] of this.writers) {
      terms.set(term, t);
      termDf[t] = w.df;
      termBlockStart[t] = b;
      termBlockCount[t] = w.blockLast.length;
      blockLast.set(w.blockLast.a.subarray(0, w.blockLast.length), b);
      blockMaxTf.set(w.blockMaxTf.a.subarray(0, w.blockMaxTf.length), b);
      blockMinLen.set(w.blockMinLen.a.subarray(0, w.blockMinLen.length), b);
      for (let i = 0; i < w.blockOffset.length; i++) blockOffset[b + i] = w.blockOffset.a[i]! + at;
      postings.set(w.bytes.buf.subarray(0, w.bytes.length), at);
      at += w.bytes.length;
      b += w.blockLast.length;
      t++;
    }
    this.writers.clear();
    const hosts = [...new Set(this.revHosts)].sort();
    const rankOf = new Map(hosts.map((h, i) => [h, i]));
    const hostRank = new Uint32Array(n);
    for (let i = 0; i < n; i++) hostRank[i] = rankOf.get(this.revHosts[i]!)!;
    const published = Float64Array.from(this.published);
    const dated: number[] = [];
    for (let i = 0; i < n; i++) if (!Number.isNaN(published[i])) dated.push(i);
    const pubOrder = Uint32Array.from(dated).sort((a, b) => published[a]! - published[b]! || a - b);
    const pubSorted = new Float64Array(pubOrder.length);
    for (let i = 0; i < pubOrder.length; i++) pubSorted[i] = published[pubOrder[i]!]!;
    return {
      docCount: n,
      terms,
      termDf,
      termBlockStart,
      termBlockCount,
      blockLast,
      blockOffset,
      blockMaxTf,
      blockMinLen,
      postings,
      versionIds: Float64Array.from(this.versionIds),
      lengths: Uint32Array.from(this.lengths),
      totalLength: this.totalLength,
      acquiredAt: Float64Array.from(this.acquired),
      supersededAt: Float64Array.from(this.superseded),
      publishedAt: published,
      hostRank,
      hosts,
      deleted: new Uint8Array(n),
      pubOrder,
      pubSorted,
    };
  }
}

/** The rank range [lo, hi) of the hosts under a reversed-host prefix (a site and its subdomains). */
export function hostRange(hosts: readonly string[], revPrefix: string): [number, number] {
  const lowerBound = (key: string) => {
    let lo = 0;
    let hi = hosts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (hosts[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return [lowerBound(revPrefix), lowerBound(`${revPrefix.slice(0, -1)}/`)];
}

/** First index of `sorted` whose value is >= x (or > x when `after`). */
export function lowerBound(sorted: Float64Array, x: number, after = false): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v < x || (after && v === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The documents published inside [from, to], ascending, when they are few (under 1/16 of the
 * segment) so the filter can lead the traversal; undefined otherwise.
 */
export function sparsePublished(seg: SegmentData, from: number | undefined, to: number | undefined): Int32Array | undefined {
  if (from === undefined && to === undefined) return undefined;
  const i = from === undefined ? 0 : lowerBound(seg.pubSorted, from);
  const j = to === undefined ? seg.pubSorted.length : lowerBound(seg.pubSorted, to, true);
  const count = Math.max(0, j - i);
  if (count * 16 > seg.docCount) return undefined;
  const bits = new Uint32Array((seg.docCount + 31) >>> 5);
  for (let k = i; k < j; k++) {
    const d = seg.pubOrder[k]!;
    bits[d >>> 5]! |= 1 << (d & 31);
  }
  const out = new Int32Array(count);
  let n = 0;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const low = word & -word;
      out[n++] = (w << 5) + 31 - Math.clz32(low);
      word ^= low;
    }
  }
  return out;
}

/** Index of a version in a segment (versionIds ascend), or -1. */
export function docOf(seg: SegmentData, versionId: number): number {
  let lo = 0;
  let hi = seg.docCount - 1;
  const ids = seg.versionIds;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === versionId) return mid;
    if (v < versionId) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
