/**
 * An immutable segment of the search engine: the postings of a run of documents (versions), with
 * per-document columns for the filters.
 *
 * Postings of a term are blocks of up to 128 documents, bit-packed into 32-bit words: a header
 * word (count, bits per document, bits per frequency), then each document as its distance from
 * the block's base (frame of reference, not a delta: any posting can be read without the ones
 * before it, so a cursor finds a document in a block by binary search), then the weighted term
 * frequencies (minus 1), each packed at its block's width. Per block the segment keeps the last document,
 * the byte offset, the largest frequency and the shortest document length, so a cursor can skip a
 * block without decoding it and bound any score in it (BM25 grows with frequency and shrinks with
 * length, so f(maxTf, minLen) bounds every posting of the block whatever the collection statistics).
 *
 * Documents are numbered 0..docCount-1 in the order they were added (ascending version id).
 * The columns `acquiredAt`, `supersededAt` and `deleted` may change after the build (a version is
 * superseded, a capture moves earlier, a version is removed); everything else never changes.
 */

import { randomInt } from 'node:crypto';
import { compoundWord, scanWords, stem, stopTerm, unicodeWords } from '../../core/text.js';
import { keyOfWord } from '../../core/phrase.js';
import { addPair, filterWords, keyHash, pairHash } from './pair-filter.js';

export const BLOCK = 128;

/** BM25 parameters (FTS5's and Lucene's defaults). */
export const K1 = 1.2;
export const B = 0.75;

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
  /**
   * The terms of the URL as a 64-bit Bloom filter, low word first (webql-search.ts `urlMask`). A
   * stem whose bits are not all set is not among them, so a word the document holds is in its
   * text: webql decides that without reading the version.
   */
  urlMask: readonly [number, number];
}

/** Words of a bitset of `n` documents (a bit per document, 32 to a word). */
export function bitsetWords(n: number): number {
  return (n + 31) >>> 5;
}

/** Words taken by `n` values packed at `bits` bits each (`pack`, `unpack`, engine.ts's Cursor). */
export function packedWords(n: number, bits: number): number {
  return (n * bits + 31) >>> 5;
}

/** The words of a block with this header word, the header included. */
function blockWords(header: number): number {
  const n = header & 0xff;
  return 1 + packedWords(n, (header >>> 8) & 0xff) + packedWords(n, (header >>> 16) & 0xff);
}

/** `x` rounded up to a float32, so that a stored bound is never below the true one. */
function roundUp32(x: number): number {
  const f = Math.fround(x);
  return f < x ? f * (1 + 2 ** -23) : f;
}

/** Bits needed for a non-negative integer below 2^31. */
function bitWidth(max: number): number {
  return 32 - Math.clz32(max);
}

/** Writes `n` values of `bits` bits each (bits <= 31), least significant first, from out[at]; returns the next free word. */
function pack(values: Int32Array, n: number, bits: number, out: Uint32Array, at: number): number {
  if (bits === 0) return at;
  let acc = 0;
  let used = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    acc |= v << used;
    used += bits;
    if (used >= 32) {
      out[at++] = acc >>> 0;
      used -= 32;
      acc = used > 0 ? v >>> (bits - used) : 0;
    }
  }
  if (used > 0) out[at++] = acc >>> 0;
  return at;
}

/** Scratch for packing one block (the build is single-threaded per builder). */
const dists = new Int32Array(BLOCK);
const freqs = new Int32Array(BLOCK);

/** The bit width of the documents of `n` postings in the scratch `dists`: the largest's, the last (they ascend). */
const docBitsOf = (n: number): number => bitWidth(dists[n - 1]!);

/** The bit width of the frequencies of `n` postings in the scratch `freqs`. */
function freqBitsOf(n: number): number {
  let freqMax = 0;
  for (let i = 0; i < n; i++) freqMax |= freqs[i]!;
  return bitWidth(freqMax);
}

/** The words `packBlock` writes for `n` postings of the scratch `dists` and `freqs`, its header included. */
function packedBlockWords(n: number): number {
  return 1 + packedWords(n, docBitsOf(n)) + packedWords(n, freqBitsOf(n));
}

/**
 * Packs a block of `n` postings from the scratch `dists` (each document's distance from the block's
 * base, ascending) and `freqs` (frequency less one): its header at out[at] (n, the documents' and
 * the frequencies' bit widths), then the packed documents and frequencies; returns the next free
 * word. The one place a block's layout is written (`PostingsPool.closeBlock`, `compacted`).
 */
function packBlock(n: number, out: Uint32Array, at: number): number {
  const docBits = docBitsOf(n);
  const freqBits = freqBitsOf(n);
  out[at] = n | (docBits << 8) | (freqBits << 16);
  return pack(freqs, n, freqBits, out, pack(dists, n, docBits, out, at + 1));
}

/**
 * Words of address space per chunk of the postings pool; a term's buffer never straddles two. The
 * first chunk holds 2^15 words and each next one twice the last, up to CHUNK, so the segment of one
 * live fetch does not allocate megabytes.
 */
const CHUNK_BITS = 20;
const CHUNK = 2 ** CHUNK_BITS;
/** Buffers of this many words or more are arrays of their own, not slices of the pool (so a slice, smaller, fits in any chunk). */
const OWN = 2 ** 15;
const FIRST_CHUNK = OWN;

/**
 * The sizes of the pool's slices: 4, 5, 6 and 7 times each power of two (4, 5, 6, 7, 8, 10, 12,
 * ...), slice class k being (4 + k % 4) << (k >> 2) words. A buffer is at most a quarter larger
 * than the words it had to hold when it grew; with powers of two it was up to twice, and at
 * 125,000 documents a builder's slices held 67 MB for 43 MB of words (counted ad hoc:
 * docs/BENCHMARKS.md, "The sixty-seventh session").
 */
const classSize = (k: number): number => (4 + (k & 3)) << (k >> 2);

/** The largest slice class of at most `words` words (4 or more). */
function floorClass(words: number): number {
  const e = 29 - Math.clz32(words);
  return 4 * e + Math.floor(words / 2 ** e) - 4;
}

/** The smallest slice class of at least `words` words (4 or more). */
function sliceClass(words: number): number {
  const e = 29 - Math.clz32(words); // 2^(e + 2) <= words < 2^(e + 3)
  const m = Math.ceil(words / 2 ** e); // 4 to 8
  return m === 8 ? 4 * (e + 1) : 4 * e + m - 4;
}
/** Words at the head of every block in a build buffer: its base, its last document, its header. */
const HEAD = 3;
/**
 * An open block's posting is one word, its distance from the block's base times 256 plus its
 * frequency less one, when the distance is below ESCAPED_FROM and the frequency at most 256; else
 * ESCAPE and those two in a word each. Two words a posting held 17.6 MB of a builder of 125,000
 * documents' pool, for postings that pack into 6.6 (counted ad hoc, as above).
 */
const ESCAPED_FROM = 2 ** 24 - 1;
const ESCAPE = 0xffffffff;
const EMPTY: Uint32Array = new Uint32Array(0);

/**
 * The postings of every term of a segment being built, as columns indexed by the term's number
 * rather than an object per term: most terms of a large corpus occur once (99.8% of the 1M
 * generated documents' 1,025,500), and four growable arrays per term took about 1.2 KB each, most
 * of the build's memory. Each term's words are one buffer, a slice of a shared pool of chunks
 * (`sliceClass`; freed slices are reused by class), or an array of its own once large. Blocks
 * follow each other in it, each as [base, last document, header, packed documents, packed
 * frequencies]; the open block's postings sit unpacked after its head, a word each
 * (`ESCAPED_FROM`), and closing it packs them in place.
 */
export class PostingsPool {
  count = 0;
  df = new Uint32Array(1024);
  /** The weighted frequency gathered for the document being added (`SegmentBuilder.addFields`). */
  pending = new Uint32Array(1024);
  lastDoc = new Int32Array(1024);
  inBlock = new Uint32Array(1024);
  /** Where the open block's head is in the term's buffer. */
  open = new Uint32Array(1024);
  /** Words used in the term's buffer, its capacity, and where it is (pool address or index into `own`). */
  len = new Uint32Array(1024);
  cap = new Uint32Array(1024);
  at = new Uint32Array(1024);
  blocks = new Uint32Array(1024);
  private readonly chunks: Uint32Array[] = [];
  private used = 0;
  private readonly own: Uint32Array[] = [];
  /** Freed slices of the pool by their class (`sliceClass`). */
  private readonly free: number[][] = [];
  /** The buffer and offset of the term last located (`locate`). */
  buf: Uint32Array = EMPTY;
  base = 0;

  newTerm(): number {
    const t = this.count++;
    if (t === this.df.length) {
      // By half again, not double: nine columns of a million terms are 36 MB at full capacity.
      const grow = <A extends Uint32Array | Int32Array>(a: A): A => resized(a, Math.ceil(a.length * 1.5));
      this.df = grow(this.df);
      this.pending = grow(this.pending);
      this.lastDoc = grow(this.lastDoc);
      this.inBlock = grow(this.inBlock);
      this.open = grow(this.open);
      this.len = grow(this.len);
      this.cap = grow(this.cap);
      this.at = grow(this.at);
      this.blocks = grow(this.blocks);
    }
    this.lastDoc[t] = -1;
    return t;
  }

  /** Sets `buf` and `base` to term t's buffer. */
  private locate(t: number): void {
    const at = this.at[t]!;
    if (this.cap[t]! >= OWN) {
      this.buf = this.own[at]!;
      this.base = 0;
    } else {
      this.buf = this.chunks[at >>> CHUNK_BITS] ?? EMPTY;
      this.base = at & (CHUNK - 1);
    }
  }

  /** Gives term t a buffer of at least `need` words, its words moved there; leaves it located. */
  private grow(t: number, need: number): void {
    const cap = this.cap[t]!;
    // An array of its own grows by a quarter (its copies are long memcpys), a slice to the
    // smallest class that holds what it needs (a class is 1.14-1.25 times the one before).
    const k = cap >= OWN ? -1 : sliceClass(need);
    const size = k < 0 ? Math.max(need, Math.ceil(cap * 1.25)) : classSize(k);
    let buf: Uint32Array;
    let base: number;
    let at: number;
    if (size >= OWN) {
      at = this.own.length;
      buf = new Uint32Array(size);
      base = 0;
      this.own.push(buf);
    } else {
      const reuse = this.reuse(k);
      if (reuse !== undefined) {
        at = reuse;
      } else {
        const last = this.chunks[this.chunks.length - 1];
        if (!last || this.used + size > last.length) {
          if (this.chunks.length === 2 ** (32 - CHUNK_BITS)) throw new Error('a segment cannot hold more than 16 GiB of postings');
          this.chunks.push(new Uint32Array(Math.min(CHUNK, FIRST_CHUNK * 2 ** this.chunks.length)));
          this.used = 0;
        }
        at = (this.chunks.length - 1) * CHUNK + this.used;
        this.used += size;
      }
      buf = this.chunks[at >>> CHUNK_BITS]!;
      base = at & (CHUNK - 1);
    }
    if (cap > 0) {
      this.locate(t);
      buf.set(this.buf.subarray(this.base, this.base + this.len[t]!), base);
      if (cap >= OWN) this.own[this.at[t]!] = EMPTY;
      else (this.free[sliceClass(cap)] ??= []).push(this.at[t]!);
    }
    this.cap[t] = size;
    this.at[t] = at;
    this.buf = buf;
    this.base = base;
  }

  /**
   * A freed slice of class k, or the start of one of the next four classes (at most twice its
   * size), whose rest is freed as a slice of its own (the rest of a class k + 1 to k + 4 is a class;
   * one of fewer words than a block's head and a posting, which no term asks for, is left unused);
   * undefined when there is none.
   */
  private reuse(k: number): number | undefined {
    for (let j = k; j <= k + 4; j++) {
      const at = this.free[j]?.pop();
      if (at === undefined) continue;
      const rest = classSize(j) - classSize(k);
      if (rest >= HEAD + 1) (this.free[floorClass(rest)] ??= []).push(at + classSize(k));
      return at;
    }
    return undefined;
  }

  add(t: number, doc: number, tf: number): void {
    const n = this.len[t]!;
    const opening = this.inBlock[t] === 0;
    this.locate(t);
    // The document before the block, plus one ("none before", -1, fits unsigned), is the block's base.
    const base = opening ? this.lastDoc[t]! + 1 : this.buf[this.base + this.open[t]!]!;
    const dist = doc - base;
    const f = tf - 1;
    const one = dist < ESCAPED_FROM && f < 256;
    const words = (opening ? HEAD : 0) + (one ? 1 : 3);
    // A new term's buffer holds its posting alone (most terms have one); a buffer that grows, room for another block's.
    if (n + words > this.cap[t]!) this.grow(t, n === 0 ? words : n + HEAD + 3);
    const buf = this.buf;
    let at = this.base + n;
    if (opening) {
      buf[at] = base;
      this.open[t] = n;
      at += HEAD;
    }
    if (one) {
      buf[at++] = dist * 256 + f;
    } else {
      buf[at] = ESCAPE;
      buf[at + 1] = dist;
      buf[at + 2] = f;
      at += 3;
    }
    this.len[t] = at - this.base;
    this.lastDoc[t] = doc;
    this.df[t]! += 1;
    const inBlock = this.inBlock[t]! + 1;
    this.inBlock[t] = inBlock;
    if (inBlock === BLOCK) this.closeBlock(t);
  }

  closeBlock(t: number): void {
    const n = this.inBlock[t]!;
    if (n === 0) return;
    this.locate(t);
    const open = this.open[t]!;
    let at = this.base + open + HEAD;
    const words = this.buf;
    for (let i = 0; i < n; i++) {
      const w = words[at++]!;
      if (w !== ESCAPE) {
        dists[i] = w >>> 8;
        freqs[i] = w & 0xff;
      } else {
        dists[i] = words[at]!;
        freqs[i] = words[at + 1]!;
        at += 2;
      }
    }
    // Packed, the block can take two words more than its postings did (each rounded up to a word).
    const end = open + 2 + packedBlockWords(n);
    if (end > this.cap[t]!) this.grow(t, end);
    this.buf[this.base + open + 1] = this.lastDoc[t]!;
    this.len[t] = packBlock(n, this.buf, this.base + open + 2) - this.base;
    this.inBlock[t] = 0;
    this.blocks[t]! += 1;
  }

  /** Closes every term's open block; returns the total blocks and the words they take in a segment's postings. */
  closeAll(): { blocks: number; words: number } {
    let blocks = 0;
    let words = 0;
    for (let t = 0; t < this.count; t++) {
      this.closeBlock(t);
      blocks += this.blocks[t]!;
      words += this.len[t]! - (HEAD - 1) * this.blocks[t]!;
    }
    return { blocks, words };
  }

  /**
   * Copies term t's closed blocks into a segment's arrays from block b and postings word `at`;
   * returns the postings word after them.
   */
  emit(t: number, b: number, at: number, blockBase: Uint32Array, blockLast: Uint32Array, blockOffset: Uint32Array, postings: Int32Array): number {
    this.locate(t);
    const buf = this.buf;
    let p = this.base;
    for (let k = 0; k < this.blocks[t]!; k++, b++) {
      const words = blockWords(buf[p + 2]!);
      blockBase[b] = buf[p]!;
      blockLast[b] = buf[p + 1]!;
      blockOffset[b] = at;
      postings.set(buf.subarray(p + 2, p + 2 + words), at);
      at += words;
      p += 2 + words;
    }
    return at;
  }
}

/**
 * A segment's term dictionary (term -> its number, which indexes the term arrays), in three typed
 * arrays rather than a Map: at 1M generated documents a Map of the 1,025,500 terms held 52 MiB of
 * the heap, a string and an entry per term that every full collection traced; these take 18 MB
 * outside it, are saved and loaded as they are, and are shared with the search helper thread.
 */
export interface TermDictionary {
  /** Every term's UTF-8 bytes, in term order. */
  termBytes: Uint8Array;
  /** Term t is termBytes[termStarts[t], termStarts[t + 1]). */
  termStarts: Uint32Array;
  /** Open addressing by `hashBytes` of a term's bytes: a term's number, or -1; a power of two at least twice the terms. */
  termSlots: Int32Array;
  /** The table's random key (`newSeed`). */
  termSeed: number;
}

export interface SegmentData extends TermDictionary {
  docCount: number;
  termDf: Uint32Array;
  /** First block of each term in the block arrays; its blocks are contiguous. */
  termBlockStart: Uint32Array;
  termBlockCount: Uint32Array;
  blockLast: Uint32Array;
  /** Document before the block's first posting, plus one (0: none); deltas start from it. */
  blockBase: Uint32Array;
  /** Offset of each block (its header word) in `postings`. */
  blockOffset: Uint32Array;
  /**
   * Per block, the largest BM25 saturation tf / (tf + k1 (1 - b + b len / refAvg)) of its postings,
   * with refAvg the segment's own average length. Under another average A the same postings stay
   * under blockMaxSat x max(1, A / refAvg), which is how queries bound a block.
   */
  blockMaxSat: Float32Array;
  refAvg: number;
  /** Every block's words (bit-packed, see the top of this file). */
  postings: Int32Array;
  versionIds: Float64Array;
  lengths: Uint32Array;
  totalLength: number;
  acquiredAt: Float64Array;
  supersededAt: Float64Array;
  publishedAt: Float64Array;
  /** Rank of each document's host in `hosts` (sorted reversed hosts), so a site is a rank range. */
  hostRank: Uint32Array;
  /** Each document's `SegmentDoc.urlMask`: two words per document. */
  urlMask: Uint32Array;
  hosts: string[];
  deleted: Uint8Array;
  /** Documents with a publication time, ordered by it, and those times: a published window is a range. */
  pubOrder: Uint32Array;
  pubSorted: Float64Array;
  /**
   * Each document's filter of the pairs of words side by side in its texts (pair-filter.ts):
   * document d's is pairBits[pairStart[d], pairStart[d + 1]) (none: it rules out nothing).
   */
  pairStart: Uint32Array;
  pairBits: Int32Array;
}

const UTF8 = new TextEncoder();
/** A term's UTF-8 bytes (`encoded`), this thread's. */
let termScratch = new Uint8Array(256);

/** Writes `term`'s UTF-8 bytes to termScratch (grown as needed); returns how many. */
function encoded(term: string): number {
  if (termScratch.length < term.length * 3) termScratch = new Uint8Array(term.length * 3);
  return UTF8.encodeInto(term, termScratch).written;
}

/**
 * A random key for a hash table of words that pages bring. Unkeyed, the tables' hash would let a
 * page (or a crawled site) be written so that many of its words fall in one slot, and each
 * insertion would then walk all those before it: a build quadratic in the words. Keyed, a
 * table's slots cannot be aimed at from outside (the key is not cryptographic, but never leaves
 * the machine).
 */
function newSeed(): number {
  return randomInt(0x100000000);
}

/** FNV-1a over bytes[i, j) from `seed`, its bits then mixed (MurmurHash3's finalizer), so that `slotOf`'s high bits depend on every byte. */
function hashBytes(bytes: Uint8Array, i: number, j: number, seed: number): number {
  let h = seed ^ 0x811c9dc5;
  for (let k = i; k < j; k++) h = Math.imul(h ^ bytes[k]!, 16777619);
  return mix(h);
}

/** MurmurHash3's 32-bit finalizer. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** The first slot for hash `h` in a table of `size` slots (a power of two, at least 2): the hash's high bits. */
function slotOf(h: number, size: number): number {
  return h >>> (Math.clz32(size) + 1);
}

/** How many terms a dictionary holds. */
export function termCount(d: TermDictionary): number {
  return d.termStarts.length - 1;
}

/** Term t's text (arrays in shared memory included, which TextDecoder may refuse). */
export function termAt(d: TermDictionary, t: number): string {
  const at = d.termStarts[t]!;
  return Buffer.from(d.termBytes.buffer, d.termBytes.byteOffset + at, d.termStarts[t + 1]! - at).toString('utf8');
}

/**
 * The number of `term` in the dictionary, or undefined. Terms are words of letters and digits
 * (core/text.ts), never a lone surrogate, so their UTF-8 bytes tell them apart.
 */
export function termNumber(d: TermDictionary, term: string): number | undefined {
  const n = encoded(term);
  const t = findBytes(d.termBytes, d.termStarts, d.termSlots, termScratch, 0, n, hashBytes(termScratch, 0, n, d.termSeed));
  return t < 0 ? undefined : t;
}

/** The number of the term whose bytes are src[i, j) (its hash `h`), or -1. */
function findBytes(bytes: Uint8Array, starts: Uint32Array, slots: Int32Array, src: Uint8Array, i: number, j: number, h: number): number {
  const mask = slots.length - 1;
  const len = j - i;
  for (let s = slotOf(h, slots.length); ; s = (s + 1) & mask) {
    const t = slots[s]!;
    if (t < 0) return -1;
    const at = starts[t]!;
    if (starts[t + 1]! - at !== len) continue;
    let k = 0;
    while (k < len && bytes[at + k] === src[i + k]) k++;
    if (k === len) return t;
  }
}

/** Builds a dictionary a term at a time (`dictionaryOf`, `concatSegments`). */
class DictionaryWriter {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  private starts = new Uint32Array(1025);
  private hashes = new Int32Array(1024);
  private slots = new Int32Array(2048).fill(-1);
  private readonly seed = newSeed();
  count = 0;

  /** The number of the term src[i, j), given the next one when new. */
  add(src: Uint8Array, i: number, j: number): number {
    const h = hashBytes(src, i, j, this.seed);
    const t = findBytes(this.bytes, this.starts, this.slots, src, i, j, h);
    return t >= 0 ? t : this.append(src, i, j, h);
  }

  /** Adds the term src[i, j) (not present) as the next number. */
  append(src: Uint8Array, i: number, j: number, h = hashBytes(src, i, j, this.seed)): number {
    const t = this.count++;
    const len = j - i;
    if (this.used + len > this.bytes.length) this.bytes = grown(this.bytes, this.used + len);
    this.bytes.set(src.subarray(i, j), this.used);
    this.used += len;
    if (t + 2 > this.starts.length) this.starts = grown(this.starts, t + 2);
    if (t + 1 > this.hashes.length) this.hashes = grown(this.hashes, t + 1);
    this.starts[t + 1] = this.used;
    this.hashes[t] = h;
    if (this.count * 2 > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2).fill(-1);
      for (let e = 0; e < this.count; e++) this.place(e);
    } else {
      this.place(t);
    }
    return t;
  }

  private place(t: number): void {
    const mask = this.slots.length - 1;
    let s = slotOf(this.hashes[t]!, this.slots.length);
    while (this.slots[s]! >= 0) s = (s + 1) & mask;
    this.slots[s] = t;
  }

  /** The dictionary, its arrays exactly sized (in shared memory when `shared`). */
  finish(shared: boolean): TermDictionary {
    return {
      termBytes: resized(this.bytes, this.used, shared),
      termStarts: resized(this.starts, this.count + 1, shared),
      termSlots: resized(this.slots, this.slots.length, shared),
      termSeed: this.seed,
    };
  }
}

/** A typed array twice as long as `a` (at least `need`), with its values. */
function grown<T extends TypedArray>(a: T, need: number): T {
  return resized(a, Math.max(a.length * 2, need));
}

/** The dictionary of these distinct terms, numbered in the order given. */
export function dictionaryOf(terms: Iterable<string>, shared = false): TermDictionary {
  const w = new DictionaryWriter();
  for (const term of terms) {
    const n = encoded(term); // first: it may replace termScratch
    w.append(termScratch, 0, n);
  }
  return w.finish(shared);
}

/** Unpacks `n` values of `bits` bits from word `at` into `out` as `add` + value; returns how many words they took. */
function unpack(words: Int32Array, at: number, bits: number, n: number, out: Int32Array, add: number): number {
  if (bits === 0) {
    out.fill(add, 0, n);
    return 0;
  }
  const mask = 0xffffffff >>> (32 - bits);
  for (let k = 0, bit = 0; k < n; k++, bit += bits) {
    const i = at + (bit >>> 5);
    const off = bit & 31;
    let v = words[i]! >>> off;
    if (off + bits > 32) v |= words[i + 1]! << (32 - off);
    out[k] = add + (v & mask);
  }
  return packedWords(n, bits);
}

/** As `decodeBlock`, the documents only (the frequencies left packed). */
export function blockDocs(words: Int32Array, offset: number, before: number, docs: Int32Array): number {
  const head = words[offset]!;
  const n = head & 0xff;
  unpack(words, offset + 1, (head >>> 8) & 0xff, n, docs, before + 1);
  return n;
}

/**
 * Decodes the block at word `offset` into `docs` and `tfs` (deltas start after document `before`);
 * returns how many postings it has.
 */
export function decodeBlock(words: Int32Array, offset: number, before: number, docs: Int32Array, tfs: Int32Array): number {
  // (Queries read blocks in place with engine.ts's Cursor; this decodes a whole block at once.)
  const head = words[offset]!;
  const n = blockDocs(words, offset, before, docs);
  unpack(words, offset + 1 + packedWords(n, (head >>> 8) & 0xff), (head >>> 16) & 0xff, n, tfs, 1);
  return n;
}

/** Each block's largest BM25 saturation at `refAvg`, by decoding every posting once. */
function blockMaxSaturation(
  blockBase: Uint32Array,
  blockLast: Uint32Array,
  blockOffset: Uint32Array,
  postings: Int32Array,
  lengths: Uint32Array,
  refAvg: number,
  out = new Float32Array(blockLast.length),
): Float32Array {
  const c0 = K1 * (1 - B);
  const c1 = (K1 * B) / refAvg;
  const docs = new Int32Array(BLOCK);
  const tfs = new Int32Array(BLOCK);
  for (let block = 0; block < blockLast.length; block++) {
    const count = decodeBlock(postings, blockOffset[block]!, blockBase[block]! - 1, docs, tfs);
    let best = 0;
    for (let k = 0; k < count; k++) {
      const tf = tfs[k]!;
      const sat = tf / (tf + c0 + c1 * lengths[docs[k]!]!);
      if (sat > best) best = sat;
    }
    out[block] = roundUp32(best);
  }
  return out;
}

/**
 * Lowercased ASCII words -> a value, looked up by the characters of a run of the text in place:
 * no string is made for a word seen before (open addressing, keyed FNV-1a over the lowercased
 * codes: `newSeed`).
 */
class AsciiWordTable<V> {
  private chars = new Uint8Array(1 << 16);
  private used = 0;
  private start = new Int32Array(1024);
  private len = new Int32Array(1024);
  private hash = new Int32Array(1024);
  readonly values: V[] = [];
  private slots = new Int32Array(2048).fill(-1);
  private readonly seed = newSeed();

  private hashOf(text: string, i: number, j: number): number {
    let h = this.seed ^ 0x811c9dc5;
    for (let k = i; k < j; k++) {
      const c = text.charCodeAt(k);
      h = Math.imul(h ^ (c >= 65 && c <= 90 ? c | 0x20 : c), 16777619);
    }
    return mix(h);
  }

  /** The entry of the word text[i, j) (lowercased), or -1. */
  find(text: string, i: number, j: number): number {
    const h = this.hashOf(text, i, j);
    const mask = this.slots.length - 1;
    for (let s = slotOf(h, this.slots.length); ; s = (s + 1) & mask) {
      const e = this.slots[s]!;
      if (e < 0) return -1;
      if (this.hash[e] !== h || this.len[e] !== j - i) continue;
      const at = this.start[e]!;
      let k = 0;
      while (k < j - i) {
        const c = text.charCodeAt(i + k);
        if ((c >= 65 && c <= 90 ? c | 0x20 : c) !== this.chars[at + k]) break;
        k++;
      }
      if (k === j - i) return e;
    }
  }

  /** Adds the word text[i, j) (lowercased; not present) with its value. */
  add(text: string, i: number, j: number, value: V): void {
    const e = this.values.length;
    if (e === this.start.length) {
      this.start = grown(this.start, 0);
      this.len = grown(this.len, 0);
      this.hash = grown(this.hash, 0);
    }
    const n = j - i;
    if (this.used + n > this.chars.length) this.chars = grown(this.chars, this.used + n);
    for (let k = 0; k < n; k++) {
      const c = text.charCodeAt(i + k);
      this.chars[this.used + k] = c >= 65 && c <= 90 ? c | 0x20 : c;
    }
    this.start[e] = this.used;
    this.len[e] = n;
    this.hash[e] = this.hashOf(text, i, j);
    this.used += n;
    this.values.push(value);
    if ((e + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(e);
  }

  private place(e: number): void {
    const mask = this.slots.length - 1;
    let s = slotOf(this.hash[e]!, this.slots.length);
    while (this.slots[s]! >= 0) s = (s + 1) & mask;
    this.slots[s] = e;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size).fill(-1);
    for (let e = 0; e < this.values.length; e++) this.place(e);
  }
}

/** Builds segments one document at a time; `finish` freezes the postings into flat arrays. */
export class SegmentBuilder {
  /** Term -> its number in `pool` (the order of first sight, which is the segment's term order). */
  private readonly terms = new Map<string, number>();
  private readonly pool = new PostingsPool();
  private readonly versionIds: number[] = [];
  private readonly lengths: number[] = [];
  private readonly acquired: number[] = [];
  private readonly superseded: number[] = [];
  private readonly published: number[] = [];
  private readonly urlMasks: number[] = [];
  /** Each document's host as its number in `hostIds` (one string per host, not per document). */
  private readonly hostOf: number[] = [];
  private readonly hostIds = new Map<string, number>();
  private totalLength = 0;

  get size(): number {
    return this.versionIds.length;
  }

  /** Documents with no texts (`add`) have no filter of pairs: it rules out nothing. */
  add(d: SegmentDoc): void {
    const doc = this.versionIds.length;
    this.push(d, d.length);
    for (const [term, tf] of d.terms) this.pool.add(this.termOf(term), doc, tf);
    this.pairStarts.push(this.pairAt);
  }

  /** Folded non-ASCII word (or compound's joined word) -> its term's number (-1: a stop word): each distinct word is stemmed and looked up once per build. */
  private readonly wordTerms = new Map<string, number>();
  /** The same for ASCII words, found without making a string. */
  private readonly asciiWords = new AsciiWordTable<number>();
  /** The hash of each ASCII word's key (pair-filter.ts `keyHash` of its `wordKey`), by its entry in `asciiWords`. */
  private readonly asciiKeys: number[] = [];
  /** The same for non-ASCII words. */
  private readonly wideKeys = new Map<string, number>();
  private readonly touched: number[] = [];
  private docLength = 0;
  /** The document's pairs (pair-filter.ts `pairHash`), with repeats, `pairCount` of them. */
  private pairs = new Int32Array(1024);
  private pairCount = 0;
  /** The document's filter, made here and then appended to `pairChunks`. */
  private filter = new Int32Array(64);
  /**
   * The filters of the documents so far, `pairAt` words one after another in chunks, every one
   * full but the last (a doubling array's spare half was 29 of a 250,000-document builder's 64
   * MB), and where each document's starts (one more than the documents).
   */
  private readonly pairChunks: Int32Array[] = [];
  private chunkAt = 0;
  private pairAt = 0;
  private readonly pairStarts: number[] = [0];

  /**
   * Adds a document from the text of its fields, each with its weight, whether its stop words
   * are terms too (engine-index-store's `fieldsOf`: the title's) and whether its hyphenated
   * compounds are, analysed exactly as `indexTerms` does (so as `add` of what
   * engine-index-store's `analyse` makes of it), but without a map of terms per document:
   * frequencies gather in the pool's `pending` column.
   */
  addFields(meta: Omit<SegmentDoc, 'terms' | 'length'>, fields: readonly (readonly [string | null, number, boolean?, boolean?, boolean?])[]): void {
    const doc = this.versionIds.length;
    this.docLength = 0;
    this.pairCount = 0;
    for (const [text, weight, stops, compounds, phrased] of fields) {
      const indexed = weight !== 0;
      if (!text || (!indexed && !phrased)) continue;
      // The key of the word before, within this field (`paired`: there is one).
      let before = 0;
      let paired = false;
      // A compound's joined word is a term but not part of the length (text.ts `compoundWord`).
      const compound = compounds && indexed
        ? (i: number, j: number) => {
            const w = compoundWord(text, i, j);
            let t = this.wordTerms.get(w);
            if (t === undefined) {
              t = this.termOfWord(w);
              this.wordTerms.set(w, t);
            }
            if (t >= 0) this.gather(t, weight);
          }
        : undefined;
      scanWords(text, (i, j, ascii) => {
        if (!ascii) {
          for (const w of unicodeWords(text, i, j)) {
            if (phrased) {
              let key = this.wideKeys.get(w);
              if (key === undefined) {
                const k = keyOf(w);
                key = keyHash(k);
                this.wideKeys.set(w, key);
                if (indexed && !this.wordTerms.has(w)) this.wordTerms.set(w, this.termOfKey(k));
              }
              if (paired) this.addPairHash(pairHash(before, key));
              before = key;
              paired = true;
            }
            if (!indexed) continue;
            let t = this.wordTerms.get(w);
            if (t === undefined) {
              t = this.termOfWord(w);
              this.wordTerms.set(w, t);
            }
            if (t >= 0) this.count(t, weight);
            else if (stops) this.countStop(w, weight);
          }
          return;
        }
        let e = this.asciiWords.find(text, i, j);
        if (e < 0) {
          e = this.asciiWords.values.length;
          const key = keyOf(text.slice(i, j).toLowerCase());
          this.asciiWords.add(text, i, j, indexed ? this.termOfKey(key) : UNSEEN);
          this.asciiKeys.push(keyHash(key));
        }
        if (phrased) {
          const key = this.asciiKeys[e]!;
          if (paired) this.addPairHash(pairHash(before, key));
          before = key;
          paired = true;
        }
        if (!indexed) return;
        let t = this.asciiWords.values[e]!;
        if (t === UNSEEN) t = this.asciiWords.values[e] = this.termOfWord(text.slice(i, j).toLowerCase());
        if (t >= 0) this.count(t, weight);
        else if (stops) this.countStop(text.slice(i, j).toLowerCase(), weight);
      }, 0, text.length, compound);
    }
    this.addFilter();
    this.push(meta, this.docLength);
    const pool = this.pool;
    for (const t of this.touched) {
      pool.add(t, doc, pool.pending[t]!);
      pool.pending[t] = 0;
    }
    this.touched.length = 0;
  }

  private addPairHash(pair: number): void {
    if (this.pairCount === this.pairs.length) this.pairs = grown(this.pairs, 0);
    this.pairs[this.pairCount++] = pair;
  }

  /** The document's filter of its pairs, after those before. */
  private addFilter(): void {
    const words = filterWords(this.pairCount);
    if (words > this.filter.length) this.filter = new Int32Array(Math.max(words, 2 * this.filter.length));
    const filter = this.filter.fill(0, 0, words);
    for (let k = 0; k < this.pairCount; k++) addPair(filter, 0, words, this.pairs[k]!);
    for (let from = 0; from < words; ) {
      let chunk = this.pairChunks[this.pairChunks.length - 1];
      if (!chunk || this.chunkAt === chunk.length) {
        // 4 KiB first (a live page's segment), doubling to 1 MiB.
        chunk = new Int32Array(Math.min(2 ** 18, 2 ** 10 * 2 ** this.pairChunks.length));
        this.pairChunks.push(chunk);
        this.chunkAt = 0;
      }
      const n = Math.min(words - from, chunk.length - this.chunkAt);
      chunk.set(filter.subarray(from, from + n), this.chunkAt);
      this.chunkAt += n;
      from += n;
    }
    this.pairAt += words;
    this.pairStarts.push(this.pairAt);
  }

  /** Called once per distinct word of the build (the word tables remember it), so not through `cachedStem`, whose 500,000 entries would only hold memory here. */
  private termOfWord(word: string): number {
    return this.termOfKey(keyOf(word));
  }

  /** The term of a word's key (`keyOf`): -1 for a stop word's. */
  private termOfKey(key: string): number {
    return key.startsWith(' ') ? -1 : this.termOf(key);
  }

  private count(t: number, weight: number): void {
    this.docLength++;
    this.gather(t, weight);
  }

  /** A stop word of a field whose stop words are terms (the title's): its term (text.ts `stopTerm`), not counted in the document's length, as `analyse` does. */
  private countStop(word: string, weight: number): void {
    this.gather(this.termOf(stopTerm(word)), weight);
  }

  private gather(t: number, weight: number): void {
    const pending = this.pool.pending;
    if (pending[t] === 0) this.touched.push(t);
    pending[t]! += weight;
  }

  private termOf(term: string): number {
    let t = this.terms.get(term);
    if (t === undefined) {
      t = this.pool.newTerm();
      this.terms.set(term, t);
    }
    return t;
  }

  private push(d: Omit<SegmentDoc, 'terms' | 'length'>, length: number): void {
    this.versionIds.push(d.versionId);
    this.lengths.push(length);
    this.totalLength += length;
    this.acquired.push(d.acquiredAt);
    this.superseded.push(d.supersededAt);
    this.published.push(d.publishedAt);
    this.urlMasks.push(d.urlMask[0], d.urlMask[1]);
    let h = this.hostIds.get(d.revHost);
    if (h === undefined) {
      h = this.hostIds.size;
      this.hostIds.set(d.revHost, h);
    }
    this.hostOf.push(h);
  }

  /** Closes every open block; returns the words this builder's segment's postings will take (finish can then write them into a buffer of another's). */
  postingsWords(): number {
    return this.pool.closeAll().words;
  }

  /** The words this builder's segment's filters of pairs take. */
  pairWords(): number {
    return this.pairAt;
  }

  /**
   * The segment. Its postings and filters of pairs are new arrays, or with `into`, the
   * `postingsWords()` and `pairWords()` words of the buffers there from their places (the build's
   * parts write into shared buffers, which their join then uses in place: `concatSegments`).
   */
  finish(into?: { postings: Place; pairs: Place }): SegmentData {
    const n = this.versionIds.length;
    const pool = this.pool;
    const count = pool.count;
    const { blocks, words } = pool.closeAll();
    const termDf = pool.df.slice(0, count);
    const termBlockCount = pool.blocks.slice(0, count);
    const termBlockStart = new Uint32Array(count);
    const blockLast = new Uint32Array(blocks);
    const blockBase = new Uint32Array(blocks);
    const blockOffset = new Uint32Array(blocks);
    const postings = into ? placed(into.postings, words, 'postings') : new Int32Array(words);
    const pairBits = into ? placed(into.pairs, this.pairAt, 'filter') : new Int32Array(this.pairAt);
    let pairAt = 0;
    for (const chunk of this.pairChunks) {
      const used = Math.min(chunk.length, this.pairAt - pairAt);
      pairBits.set(chunk.subarray(0, used), pairAt);
      pairAt += used;
    }
    let b = 0;
    let at = 0;
    for (let t = 0; t < count; t++) {
      termBlockStart[t] = b;
      at = pool.emit(t, b, at, blockBase, blockLast, blockOffset, postings);
      b += termBlockCount[t]!;
    }
    const hosts = [...this.hostIds.keys()].sort();
    const rankOf = new Uint32Array(hosts.length);
    hosts.forEach((h, rank) => (rankOf[this.hostIds.get(h)!] = rank));
    const hostRank = new Uint32Array(n);
    for (let i = 0; i < n; i++) hostRank[i] = rankOf[this.hostOf[i]!]!;
    const published = Float64Array.from(this.published);
    const dated: number[] = [];
    for (let i = 0; i < n; i++) if (!Number.isNaN(published[i])) dated.push(i);
    const pubOrder = Uint32Array.from(dated).sort((a, b) => published[a]! - published[b]! || a - b);
    const pubSorted = new Float64Array(pubOrder.length);
    for (let i = 0; i < pubOrder.length; i++) pubSorted[i] = published[pubOrder[i]!]!;
    const lengths = Uint32Array.from(this.lengths);
    const refAvg = n > 0 ? this.totalLength / n : 1;
    return {
      docCount: n,
      // The map's order is the terms' numbers (`termOf` numbers them as it adds them).
      ...dictionaryOf(this.terms.keys()),
      termDf,
      termBlockStart,
      termBlockCount,
      blockLast,
      blockBase,
      blockOffset,
      blockMaxSat: blockMaxSaturation(blockBase, blockLast, blockOffset, postings, lengths, refAvg),
      refAvg,
      postings,
      versionIds: Float64Array.from(this.versionIds),
      lengths,
      totalLength: this.totalLength,
      acquiredAt: Float64Array.from(this.acquired),
      supersededAt: Float64Array.from(this.superseded),
      publishedAt: published,
      hostRank,
      urlMask: Uint32Array.from(this.urlMasks),
      hosts,
      deleted: new Uint8Array(n),
      pubOrder,
      pubSorted,
      pairStart: Uint32Array.from(this.pairStarts),
      pairBits,
    };
  }
}

/** Where a build's part writes one of its arrays: from word `at` of `words`, a buffer it may share with the other parts (`SegmentBuilder.finish`). */
export interface Place {
  words: Int32Array;
  at: number;
}

/** The `length` words at this place. */
export function placed(place: Place, length: number, what: string): Int32Array {
  if (place.at + length > place.words.length) throw new Error(`${length} ${what} words do not fit at word ${place.at} of ${place.words.length}`);
  return place.words.subarray(place.at, place.at + length);
}

/** A word's key as a phrase's word is compared (core/phrase.ts `wordKey`), stemmed without `cachedStem` (the build meets each distinct word once): its term, or a stop word with a leading space. */
function keyOf(word: string): string {
  return keyOfWord(word, stem);
}

/** An ASCII word's term not looked up yet: the word was first met in a field that is not indexed (weight 0), which registers no term. */
const UNSEEN = -2;

/**
 * Whether the parts' version ids follow each other without overlapping, in this order (empty parts
 * aside): what `compacted` takes, and what a join of them (`concatSegments`) needs.
 */
export function inIdOrder(parts: readonly SegmentData[]): boolean {
  let last = -Infinity;
  for (const p of parts) {
    if (p.docCount === 0) continue;
    if (p.versionIds[0]! <= last) return false;
    last = p.versionIds[p.docCount - 1]!;
  }
  return true;
}

/**
 * The documents of `parts` that are not deleted, as one segment: the segment a build of them alone
 * makes (the same terms, frequencies, blocks of BLOCK postings, lengths and columns; a term or a
 * host that only deleted documents held is none of it), made from the parts' own postings rather
 * than the page store: each term's postings are decoded, renumbered and packed again straight into
 * the new arrays, so that it takes about the new segment's memory besides the parts'. The parts
 * must be in version-id order (`inIdOrder`). Undefined when no document is left. With `shared`,
 * its arrays are in shared memory (a store with a helper thread keeps its segments there).
 */
export function compacted(parts: readonly SegmentData[], shared = false): SegmentData | undefined {
  if (!inIdOrder(parts)) throw new Error('compacted: the parts are not in version-id order');
  const alloc = <T extends ArrayCtor>(ctor: T, length: number) => newArray(ctor, length, shared);
  // Each part's documents' numbers in the new segment (-1: deleted).
  let live = 0;
  const renumbered = parts.map((p) => {
    const to = new Int32Array(p.docCount);
    for (let doc = 0; doc < p.docCount; doc++) to[doc] = p.deleted[doc] === 1 ? -1 : live++;
    return to;
  });
  if (live === 0) return undefined;

  // The documents' columns, and the hosts they are of.
  const versionIds = alloc(Float64Array, live);
  const lengths = alloc(Uint32Array, live);
  const acquiredAt = alloc(Float64Array, live);
  const supersededAt = alloc(Float64Array, live);
  const publishedAt = alloc(Float64Array, live);
  const urlMask = alloc(Uint32Array, 2 * live);
  const held = new Set<string>();
  let totalLength = 0;
  parts.forEach((p, k) => {
    for (let doc = 0; doc < p.docCount; doc++) {
      const d = renumbered[k]![doc]!;
      if (d < 0) continue;
      versionIds[d] = p.versionIds[doc]!;
      lengths[d] = p.lengths[doc]!;
      totalLength += p.lengths[doc]!;
      acquiredAt[d] = p.acquiredAt[doc]!;
      supersededAt[d] = p.supersededAt[doc]!;
      publishedAt[d] = p.publishedAt[doc]!;
      urlMask[2 * d] = p.urlMask[2 * doc]!;
      urlMask[2 * d + 1] = p.urlMask[2 * doc + 1]!;
      held.add(p.hosts[p.hostRank[doc]!]!);
    }
  });
  const hosts = [...held].sort();
  const rankOf = new Map(hosts.map((h, rank) => [h, rank]));
  const hostRank = alloc(Uint32Array, live);
  const pairs = joinedPairs(parts, renumbered, live, alloc);
  parts.forEach((p, k) => {
    const ranks = p.hosts.map((h) => rankOf.get(h) ?? -1);
    for (let doc = 0; doc < p.docCount; doc++) if (renumbered[k]![doc]! >= 0) hostRank[renumbered[k]![doc]!] = ranks[p.hostRank[doc]!]!;
  });
  // The parts' published orders merged (ties in part order, which is document order, as a build orders them).
  let dated = 0;
  parts.forEach((p, k) => {
    for (const doc of p.pubOrder) if (renumbered[k]![doc]! >= 0) dated++;
  });
  const pubOrder = alloc(Uint32Array, dated);
  const pubSorted = alloc(Float64Array, dated);
  const next = parts.map(() => 0);
  const skipDeleted = (k: number) => {
    const p = parts[k]!;
    while (next[k]! < p.pubOrder.length && renumbered[k]![p.pubOrder[next[k]!]!]! < 0) next[k]!++;
  };
  parts.forEach((_, k) => skipDeleted(k));
  for (let at = 0; at < dated; at++) {
    let best = -1;
    for (let k = 0; k < parts.length; k++) {
      if (next[k]! < parts[k]!.pubOrder.length && (best < 0 || parts[k]!.pubSorted[next[k]!]! < parts[best]!.pubSorted[next[best]!]!)) best = k;
    }
    const p = parts[best]!;
    pubOrder[at] = renumbered[best]![p.pubOrder[next[best]!]!]!;
    pubSorted[at] = p.pubSorted[next[best]!]!;
    next[best]!++;
    skipDeleted(best);
  }

  // The terms of all parts, and the parts holding each (`termsOfParts`); one part's are its own.
  const holders = parts.length > 1 ? termsOfParts(parts) : undefined;
  const count = holders ? holders.union.count : termCount(parts[0]!);
  // The postings: no more terms nor blocks than the parts' (a term's blocks are its postings over
  // BLOCK, rounded up); the words may come out a little more (a block's widths follow its
  // postings, and a posting taken out moves the blocks after it): room for 1/64 more, so that
  // they are neither grown nor copied to be cut (each a copy of the largest array, 245 MiB at 1M
  // pages; with 100 of 1M pages removed they took 0.2% more words than before, ad hoc).
  const words = new DictionaryWriter();
  const termDf = new Uint32Array(count);
  const termBlockStart = new Uint32Array(count);
  const termBlockCount = new Uint32Array(count);
  const blocksMax = parts.reduce((n, p) => n + p.blockLast.length, 0);
  const blockLast = alloc(Uint32Array, blocksMax);
  const blockBase = alloc(Uint32Array, blocksMax);
  const blockOffset = alloc(Uint32Array, blocksMax);
  const wordsBefore = parts.reduce((n, p) => n + p.postings.length, 0);
  let postings = alloc(Int32Array, wordsBefore + (wordsBefore >>> 6) + 1024);
  let packed = new Uint32Array(postings.buffer);
  const docs = new Int32Array(BLOCK);
  const tfs = new Int32Array(BLOCK);
  const termDocs = new Int32Array(live);
  const termTfs = new Int32Array(live);
  let b = 0;
  let at = 0;
  for (let u = 0; u < count; u++) {
    let m = 0;
    let from: SegmentData | undefined;
    let fromTerm = 0;
    const heldTo = holders ? holders.start[u + 1]! : 1;
    for (let e = holders ? holders.start[u]! : 0; e < heldTo; e++) {
      const k = holders ? holders.part[e]! : 0;
      const t = holders ? holders.term[e]! : u;
      const p = parts[k]!;
      const to = renumbered[k]!;
      const end = p.termBlockStart[t]! + p.termBlockCount[t]!;
      for (let block = p.termBlockStart[t]!; block < end; block++) {
        const n = decodeBlock(p.postings, p.blockOffset[block]!, p.blockBase[block]! - 1, docs, tfs);
        for (let i = 0; i < n; i++) {
          const d = to[docs[i]!]!;
          if (d < 0) continue;
          termDocs[m] = d;
          termTfs[m++] = tfs[i]!;
        }
      }
      from = p;
      fromTerm = t;
    }
    if (m === 0) continue;
    const id = words.add(from!.termBytes, from!.termStarts[fromTerm]!, from!.termStarts[fromTerm + 1]!);
    termDf[id] = m;
    termBlockStart[id] = b;
    for (let first = 0; first < m; first += BLOCK, b++) {
      const k = Math.min(BLOCK, m - first);
      // Distances from the document after the term's previous posting, as a build's blocks have them.
      const base = first === 0 ? 0 : termDocs[first - 1]! + 1;
      for (let i = 0; i < k; i++) {
        dists[i] = termDocs[first + i]! - base;
        freqs[i] = termTfs[first + i]! - 1;
      }
      // A block takes at most its header and 31 bits for each document and frequency.
      if (at + 1 + 2 * packedWords(k, 31) > postings.length) {
        postings = resized(postings, Math.ceil(postings.length * 1.125) + 1024, shared);
        packed = new Uint32Array(postings.buffer);
      }
      blockBase[b] = base;
      blockLast[b] = termDocs[first + k - 1]!;
      blockOffset[b] = at;
      at = packBlock(k, packed, at);
    }
    termBlockCount[id] = b - termBlockStart[id]!;
  }
  const terms = words.count;
  const refAvg = totalLength / live;
  // Cut to its words in place (the rest of its buffer unused, 1/64 at most) rather than by another copy.
  postings = at + (at >>> 5) >= postings.length ? postings.subarray(0, at) : resized(postings, at, shared);
  const cut = <T extends Uint32Array>(a: T, length: number) => resized(a, length, shared);
  const blocks = { blockLast: cut(blockLast, b), blockBase: cut(blockBase, b), blockOffset: cut(blockOffset, b) };
  return {
    docCount: live,
    ...words.finish(shared),
    termDf: cut(termDf, terms),
    termBlockStart: cut(termBlockStart, terms),
    termBlockCount: cut(termBlockCount, terms),
    ...blocks,
    blockMaxSat: blockMaxSaturation(blocks.blockBase, blocks.blockLast, blocks.blockOffset, postings, lengths, refAvg, alloc(Float32Array, b)),
    refAvg,
    postings,
    versionIds,
    lengths,
    totalLength,
    acquiredAt,
    supersededAt,
    publishedAt,
    hostRank,
    urlMask,
    hosts,
    deleted: alloc(Uint8Array, live),
    pubOrder,
    pubSorted,
    ...pairs,
  };
}

/**
 * The filters of pairs (`SegmentData.pairStart`, `pairBits`) of the parts' documents that
 * `renumbered` keeps (to their new numbers, ascending with the parts'), `live` of them, as one
 * segment's.
 */
function joinedPairs(parts: readonly SegmentData[], renumbered: readonly Int32Array[], live: number, alloc: <T extends ArrayCtor>(ctor: T, length: number) => InstanceType<T>): Pick<SegmentData, 'pairStart' | 'pairBits'> {
  let words = 0;
  parts.forEach((p, k) => {
    for (let doc = 0; doc < p.docCount; doc++) if (renumbered[k]![doc]! >= 0) words += p.pairStart[doc + 1]! - p.pairStart[doc]!;
  });
  const pairStart = alloc(Uint32Array, live + 1);
  const pairBits = alloc(Int32Array, words);
  let at = 0;
  parts.forEach((p, k) => {
    for (let doc = 0; doc < p.docCount; doc++) {
      const d = renumbered[k]![doc]!;
      if (d < 0) continue;
      const from = p.pairStart[doc]!;
      const to = p.pairStart[doc + 1]!;
      pairBits.set(p.pairBits.subarray(from, to), at);
      at += to - from;
      pairStart[d + 1] = at;
    }
  });
  return { pairStart, pairBits };
}

/**
 * The least string above every string that starts with `prefix` (its last character raised by
 * one), for a range of an index; undefined when that character is a surrogate or the last of the
 * Basic Multilingual Plane, where raising it does not give the next character.
 */
export function prefixEnd(prefix: string): string | undefined {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (prefix.length === 0 || (last >= 0xd7ff && last <= 0xdfff) || last === 0xffff) return undefined;
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
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
  return [lowerBound(revPrefix), lowerBound(prefixEnd(revPrefix)!)];
}

/** First index of `sorted` from `from` on whose value is >= x (or > x when `after`). */
export function lowerBound(sorted: Float64Array | Int32Array, x: number, after = false, from = 0): number {
  let lo = from;
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
 * The bitset `publishedSet` writes, kept between calls (this thread's). A new 125 kB array per
 * search at 1M was garbage outside the heap, and V8 collects for that ("external memory pressure":
 * a scavenge of 0.7-0.9 ms every 100-150 searches of a one-month window, `node --trace-gc --import
 * tsx bench/engine-passes.ts`).
 */
let windowBits = new Int32Array(0);

/** The published order's positions [i, j) of the documents published in [from, to] (either bound absent: open). */
export function publishedRange(seg: SegmentData, from: number | undefined, to: number | undefined): [number, number] {
  const i = from === undefined ? 0 : lowerBound(seg.pubSorted, from);
  return [i, Math.max(i, to === undefined ? seg.pubSorted.length : lowerBound(seg.pubSorted, to, true))];
}

/**
 * How many documents are published inside [from, to], and, when they are at most half the segment
 * (the traversal uses them only then), a bitset of them; undefined without a window. The bitset is
 * this thread's kept one (`windowBits`): good until the next call.
 */
export function publishedSet(seg: SegmentData, from: number | undefined, to: number | undefined): { bits: Int32Array | undefined; count: number } | undefined {
  if (from === undefined && to === undefined) return undefined;
  const [i, j] = publishedRange(seg, from, to);
  const count = j - i;
  if (count * 2 > seg.docCount) return { bits: undefined, count };
  const words = bitsetWords(seg.docCount);
  if (windowBits.length < words) windowBits = new Int32Array(words);
  const bits = windowBits.subarray(0, words).fill(0);
  const order = seg.pubOrder;
  // Eight at a time: the same writes in the same order, about twice as fast as one at a time (the
  // 100,000 documents of a one-year window over 1M: 0.26-0.28 ms instead of 0.58-0.73, half of a
  // short query's time before). `1 << d` shifts by d mod 32.
  let k = i;
  for (; k + 8 <= j; k += 8) {
    const d0 = order[k]!;
    const d1 = order[k + 1]!;
    const d2 = order[k + 2]!;
    const d3 = order[k + 3]!;
    const d4 = order[k + 4]!;
    const d5 = order[k + 5]!;
    const d6 = order[k + 6]!;
    const d7 = order[k + 7]!;
    bits[d0 >>> 5]! |= 1 << d0;
    bits[d1 >>> 5]! |= 1 << d1;
    bits[d2 >>> 5]! |= 1 << d2;
    bits[d3 >>> 5]! |= 1 << d3;
    bits[d4 >>> 5]! |= 1 << d4;
    bits[d5 >>> 5]! |= 1 << d5;
    bits[d6 >>> 5]! |= 1 << d6;
    bits[d7 >>> 5]! |= 1 << d7;
  }
  for (; k < j; k++) {
    const d = order[k]!;
    bits[d >>> 5]! |= 1 << d;
  }
  return { bits, count };
}

/** The members of a bitset, ascending. */
export function members(bits: Int32Array, count: number): Int32Array {
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

/**
 * The terms of all these parts, numbered as first met part by part (`union`), and for each, the
 * parts holding it, in order, with its number in each: term u's are entries [start[u], start[u + 1])
 * of `part` and `term`: as long as the parts' dictionaries together, where a column per part over
 * every term (as before) grew with the parts times the terms. At 1M documents in 8 parts, 1,315,007
 * entries for 1,037,730 terms: 19 MB against 33 (by a line printed ad hoc).
 */
function termsOfParts(parts: readonly SegmentData[]): { union: DictionaryWriter; start: Uint32Array; part: Uint32Array; term: Uint32Array } {
  const union = new DictionaryWriter();
  const numbers = parts.map((p) => {
    const own = new Uint32Array(termCount(p));
    for (let t = 0; t < own.length; t++) own[t] = union.add(p.termBytes, p.termStarts[t]!, p.termStarts[t + 1]!);
    return own;
  });
  const start = new Uint32Array(union.count + 1);
  for (const own of numbers) for (const u of own) start[u + 1]!++;
  for (let u = 0; u < union.count; u++) start[u + 1]! += start[u]!;
  const entries = start[union.count]!;
  const part = new Uint32Array(entries);
  const term = new Uint32Array(entries);
  const next = start.slice(0, union.count);
  numbers.forEach((own, k) => {
    for (let t = 0; t < own.length; t++) {
      const e = next[own[t]!]!++;
      part[e] = k;
      term[e] = t;
    }
  });
  return { union, start, part, term };
}

/**
 * One segment holding the documents of `parts`, in order (each part's numbered after the one
 * before). Postings words are kept as they are: each block's distances start from its own base,
 * which is shifted. When the parts' postings lie side by side in one buffer (the build's halves,
 * written so by `buildInTurns`), the joined segment's postings are that buffer, not a copy: a
 * block's words are found by its offset, not by their order, so a term's blocks from two parts may
 * lie apart. Otherwise each block is copied. So are the documents' filters of pairs, but as a
 * document's filter ends where the next one's starts, they are used in place only when the parts'
 * lie in the parts' order (`buildInTurns` places them so). Deleted documents stay, flagged. Each block's bound
 * is computed again at the joined segment's average length by decoding it (`exactBounds`, the
 * build's halves), or carried over from its part, scaled to that average as queries scale it
 * (`blockMaxSat`): a looser bound but as safe, without decoding (the small segments joined while
 * serving). With `shared`, every new array is in shared memory (`shareSegment` then copies none).
 */
export function concatSegments(parts: readonly SegmentData[], exactBounds = true, shared = false): SegmentData {
  const alloc = <T extends ArrayCtor>(ctor: T, length: number) => newArray(ctor, length, shared);
  const shifts: number[] = [];
  let n = 0;
  for (const p of parts) {
    shifts.push(n);
    n += p.docCount;
  }
  // The joined dictionary, and the parts holding each joined term.
  const holders = termsOfParts(parts);
  const words = holders.union;
  const count = words.count;
  let blocks = 0;
  for (const p of parts) blocks += p.blockLast.length;
  const inPlace = sideBySide(parts.map((p) => p.postings));
  const out = {
    termDf: alloc(Uint32Array, count),
    termBlockStart: alloc(Uint32Array, count),
    termBlockCount: alloc(Uint32Array, count),
    blockLast: alloc(Uint32Array, blocks),
    blockBase: alloc(Uint32Array, blocks),
    blockOffset: alloc(Uint32Array, blocks),
    postings: inPlace?.postings ?? alloc(Int32Array, parts.reduce((w, p) => w + p.postings.length, 0)),
  };
  let totalLength = 0;
  for (const p of parts) totalLength += p.totalLength;
  const refAvg = n > 0 ? totalLength / n : 1;
  const carried = exactBounds ? undefined : alloc(Float32Array, blocks);
  let blockAt = 0;
  let wordAt = 0;
  const copy = (src: SegmentData, t: number, docShift: number, wordShift: number | undefined) => {
    const first = src.termBlockStart[t]!;
    const nb = src.termBlockCount[t]!;
    const scale = Math.max(1, refAvg / src.refAvg);
    for (let i = 0; i < nb; i++) {
      const from = src.blockOffset[first + i]!;
      if (wordShift !== undefined) {
        out.blockOffset[blockAt + i] = from + wordShift;
      } else {
        const words = blockWords(src.postings[from]!);
        for (let w = 0; w < words; w++) out.postings[wordAt + w] = src.postings[from + w]!;
        out.blockOffset[blockAt + i] = wordAt;
        wordAt += words;
      }
      out.blockLast[blockAt + i] = src.blockLast[first + i]! + docShift;
      out.blockBase[blockAt + i] = src.blockBase[first + i]! + docShift;
      if (carried) carried[blockAt + i] = roundUp32(src.blockMaxSat[first + i]! * scale);
    }
    blockAt += nb;
  };
  for (let id = 0; id < count; id++) {
    out.termBlockStart[id] = blockAt;
    let df = 0;
    const heldTo = holders.start[id + 1]!;
    for (let e = holders.start[id]!; e < heldTo; e++) {
      const k = holders.part[e]!;
      const t = holders.term[e]!;
      copy(parts[k]!, t, shifts[k]!, inPlace?.shifts[k]);
      df += parts[k]!.termDf[t]!;
    }
    out.termBlockCount[id] = blockAt - out.termBlockStart[id]!;
    out.termDf[id] = df;
  }
  const hosts = [...new Set(parts.flatMap((p) => p.hosts))].sort();
  const rankOf = new Map(hosts.map((h, i) => [h, i]));
  const hostRank = alloc(Uint32Array, n);
  const urlMask = alloc(Uint32Array, 2 * n);
  const lengths = alloc(Uint32Array, n);
  const deleted = alloc(Uint8Array, n);
  const join64 = (pick: (p: SegmentData) => Float64Array) => {
    const r = alloc(Float64Array, n);
    parts.forEach((p, k) => r.set(pick(p), shifts[k]));
    return r;
  };
  parts.forEach((p, k) => {
    const shift = shifts[k]!;
    const ranks = p.hosts.map((h) => rankOf.get(h)!);
    for (let i = 0; i < p.docCount; i++) hostRank[shift + i] = ranks[p.hostRank[i]!]!;
    lengths.set(p.lengths, shift);
    urlMask.set(p.urlMask, 2 * shift);
    deleted.set(p.deleted, shift);
  });
  // The parts' time orders merged (stable: ties in part order, as a build orders them).
  const dated = parts.reduce((m, p) => m + p.pubOrder.length, 0);
  const pubOrder = alloc(Uint32Array, dated);
  const pubSorted = alloc(Float64Array, dated);
  const at = parts.map(() => 0);
  for (let k = 0; k < dated; k++) {
    let best = -1;
    for (let q = 0; q < parts.length; q++) {
      const p = parts[q]!;
      if (at[q]! < p.pubOrder.length && (best < 0 || p.pubSorted[at[q]!]! < parts[best]!.pubSorted[at[best]!]!)) best = q;
    }
    const p = parts[best]!;
    pubOrder[k] = p.pubOrder[at[best]!]! + shifts[best]!;
    pubSorted[k] = p.pubSorted[at[best]!]!;
    at[best]!++;
  }
  // The documents' filters of pairs, side by side, each part's starts moved past the parts' before
  // it: in place when the parts' lie so in one buffer already (a build's parts), else copied.
  const pairStart = alloc(Uint32Array, n + 1);
  const pairsInPlace = inSequence(parts.map((p) => p.pairBits));
  const pairBits = pairsInPlace ?? alloc(Int32Array, parts.reduce((w, p) => w + p.pairBits.length, 0));
  let pairAt = 0;
  parts.forEach((p, k) => {
    for (let i = 1; i <= p.docCount; i++) pairStart[shifts[k]! + i] = p.pairStart[i]! + pairAt;
    if (!pairsInPlace) pairBits.set(p.pairBits, pairAt);
    pairAt += p.pairBits.length;
  });
  return {
    docCount: n,
    ...words.finish(shared),
    ...out,
    blockMaxSat: carried ?? blockMaxSaturation(out.blockBase, out.blockLast, out.blockOffset, out.postings, lengths, refAvg, alloc(Float32Array, blocks)),
    refAvg,
    versionIds: join64((p) => p.versionIds),
    lengths,
    totalLength,
    acquiredAt: join64((p) => p.acquiredAt),
    supersededAt: join64((p) => p.supersededAt),
    publishedAt: join64((p) => p.publishedAt),
    hostRank,
    urlMask,
    hosts,
    deleted,
    pubOrder,
    pubSorted,
    pairStart,
    pairBits,
  };
}

export type ArrayCtor = Uint8ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor | Float32ArrayConstructor | Float64ArrayConstructor;
type TypedArray = Uint8Array | Int32Array | Uint32Array | Float32Array | Float64Array;

/** A zeroed typed array of this kind and length, in shared memory when `shared` (another thread can then read it in place). */
export function newArray<T extends ArrayCtor>(ctor: T, length: number, shared: boolean): InstanceType<T> {
  return (shared ? Reflect.construct(ctor, [new SharedArrayBuffer(length * ctor.BYTES_PER_ELEMENT)]) : new ctor(length)) as InstanceType<T>;
}

/**
 * When these postings arrays lie side by side in one buffer with nothing between them, that span
 * and each one's first word in it; else undefined.
 */
export function sideBySide(arrays: readonly Int32Array[]): { postings: Int32Array; shifts: number[] } | undefined {
  if (arrays.length === 0) return undefined;
  const buffer = arrays[0]!.buffer;
  if (arrays.some((a) => a.buffer !== buffer)) return undefined;
  const order = arrays.map((a, i) => i).sort((i, j) => arrays[i]!.byteOffset - arrays[j]!.byteOffset);
  for (let k = 1; k < order.length; k++) {
    const before = arrays[order[k - 1]!]!;
    if (before.byteOffset + before.byteLength !== arrays[order[k]!]!.byteOffset) return undefined;
  }
  const start = arrays[order[0]!]!.byteOffset;
  const words = arrays.reduce((w, a) => w + a.length, 0);
  return {
    postings: new Int32Array(buffer, start, words),
    shifts: arrays.map((a) => (a.byteOffset - start) / 4),
  };
}

/** When these arrays (the empty ones aside) lie side by side (`sideBySide`) in this order, the span of them all; else undefined. */
export function inSequence(arrays: readonly Int32Array[]): Int32Array | undefined {
  const run = sideBySide(arrays.filter((a) => a.length > 0));
  return run && run.shifts.every((s, k) => k === 0 || s > run.shifts[k - 1]!) ? run.postings : undefined;
}

/** Whether every array of a segment lives in shared memory (so another thread can read it without a copy). */
export function isShared(seg: SegmentData): boolean {
  return Object.values(seg).every((v) => !ArrayBuffer.isView(v) || v.buffer instanceof SharedArrayBuffer);
}

/**
 * A typed array of `a`'s kind, `length` long (in shared memory when `shared`), holding `a`'s first
 * values: how every array here grows, is cut to size or is copied into shared memory.
 */
export function resized<T extends TypedArray>(a: T, length: number, shared = false): T {
  const out = newArray(a.constructor as ArrayCtor, length, shared) as unknown as T;
  out.set((a.length > length ? a.subarray(0, length) : a) as never);
  return out;
}

/**
 * The segment with every array in shared memory: itself when it is already (segments read from
 * disk for a store with a search helper are), else a copy (segments built in memory; a whole
 * index's copy is small beside the build's own peak, which bench:search prints). The search helper
 * thread reads these arrays in place, and sees the columns later writes change (acquired,
 * superseded, deleted).
 */
export function shareSegment(seg: SegmentData): SegmentData {
  if (isShared(seg)) return seg;
  const out = { ...seg } as Record<string, unknown>;
  for (const [k, v] of Object.entries(seg)) {
    if (!ArrayBuffer.isView(v) || v.buffer instanceof SharedArrayBuffer) continue;
    const a = v as Uint8Array;
    out[k] = resized(a, a.length, true);
  }
  return out as unknown as SegmentData;
}

/** The buffers of a segment, to move it between threads without copying (not those in shared memory, which both threads see). */
export function transferables(seg: SegmentData): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const v of Object.values(seg)) if (ArrayBuffer.isView(v) && !(v.buffer instanceof SharedArrayBuffer)) out.push(v.buffer as ArrayBuffer);
  return out;
}
