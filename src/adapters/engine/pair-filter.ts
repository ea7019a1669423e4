/**
 * Each document's pairs of words side by side, as a Bloom filter: what lets webql rule out most
 * pages that hold a phrase's words but not side by side without reading them. The index keeps no
 * positions, so a phrase (`"regulation progenitor"`) was checked by reading the stored text of
 * every page holding all its words: at 1M pages, thousands of reads (9-13 us each) for a phrase of
 * two common words that are rarely side by side.
 *
 * A pair is two words next to each other in a field a phrase is looked for in (title,
 * description, content; webql-search.ts `FIELDS`), read as `hasPhrase` reads them (`wordKey`: a
 * stop word as itself, any other word its stem), never across two fields. A document's filter
 * has PAIR_BITS bits per pair of its fields (the pairs counted with repeats, so no set is made
 * while building), rounded up to whole 32-bit words, with PAIR_PROBES bits set per pair. A pair
 * whose bits are not all set is not in the document, so no phrase holding it is; a pair whose
 * bits are set may be (about 1 in 16 that are not are let through at 6 bits and 3 probes), and the
 * text decides. A document with no filter (no pair, or built without its texts) rules out nothing.
 *
 * The hashes are fixed, not keyed per table as the build's word tables are: a page written so that
 * its pairs collide only lets more of its phrases through to be read, which costs that page's
 * reads and changes no answer.
 */

/** Bits of a document's filter per pair of words (with repeats) it holds. */
export const PAIR_BITS = 6;
/** Bits set (and tested) per pair. */
export const PAIR_PROBES = 3;

/** MurmurHash3's 32-bit finalizer. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** The hash of a word's key (`wordKey`: ` the` for a stop word, else a stem): FNV-1a over its UTF-16 code units, mixed. */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return mix(h);
}

/** The hash of the pair of keys hashed `a` then `b` (in that order: `b a` is another pair). */
export function pairHash(a: number, b: number): number {
  return mix(Math.imul(a, 0x9e3779b1) ^ b);
}

/** The words a filter of `pairs` pairs takes (none for none). */
export function filterWords(pairs: number): number {
  return Math.ceil((pairs * PAIR_BITS) / 32);
}

/** The second hash of double hashing, odd so that probes differ. */
function step(pair: number): number {
  return mix(pair ^ 0x5bd1e995) | 1;
}

/** Sets pair `pair`'s bits in the filter of `words` words at `bits[at]`. */
export function addPair(bits: Int32Array, at: number, words: number, pair: number): void {
  const m = words * 32;
  const s = step(pair);
  // Kept to 31 bits, so the remainder is an integer's (a 32-bit unsigned one is a double's, several times slower).
  for (let k = 0, h = pair & 0x7fffffff; k < PAIR_PROBES; k++, h = (h + s) & 0x7fffffff) {
    const bit = h % m;
    bits[at + (bit >>> 5)]! |= 1 << (bit & 31);
  }
}

/** Whether the filter of `words` words at `bits[at]` may hold pair `pair` (always, for a filter of no words). */
export function mayHoldPair(bits: Int32Array, at: number, words: number, pair: number): boolean {
  if (words === 0) return true;
  const m = words * 32;
  const s = step(pair);
  for (let k = 0, h = pair & 0x7fffffff; k < PAIR_PROBES; k++, h = (h + s) & 0x7fffffff) {
    const bit = h % m;
    if ((bits[at + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
  }
  return true;
}

/** The pairs of a phrase's keys (`wordKey`s), in order: none for a single word. */
export function phrasePairs(keys: readonly string[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < keys.length; i++) out.push(pairHash(keyHash(keys[i - 1]!), keyHash(keys[i]!)));
  return out;
}
