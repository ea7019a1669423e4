/**
 * Near-duplicate pages: a wire story on several sites, a press release reposted, a mirror that adds
 * its own byline or footer. Each version stored gets a MinHash fingerprint of its text's
 * three-word shingles (`nearFingerprint`); two versions whose fingerprints agree in at least half
 * their slots (`NEAR_SLOTS_SAME`) share about half their shingles or more. When they are also
 * alike in length (`nearInSize`: a page that quotes another at length holds it, and is more), a
 * search shows only the better ranked of them (ops/search.ts `withoutRepeats`).
 *
 * The fingerprint (one-permutation MinHash): each shingle's 32-bit hash falls in one of
 * `NEAR_SLOTS` bins by its top five bits, and a slot is the least of its bin's; an empty bin (a
 * short text leaves some) takes the next filled bin's, marked with how far it went. Each slot is
 * stored as 16 bits of a hash of that. Two texts agree in a slot with about the odds of their
 * shingle sets' Jaccard similarity (and once in 65,536 besides). That is one hash a shingle: the
 * first version's 32 (a9d3ac3, each slot the least under its own mixing) took 2-2.7 times as
 * long (bench:snippets) for the same verdicts on SciFact's abstracts
 * (test/unit/near-duplicate.test.ts): no two of 400 are near-duplicates, each one's copy with a
 * byline and a footer added is, and so are at least 390 of 400 (what the test asks) of the copies
 * that also lost a sentence in five.
 */
import { SCAN_LIMIT } from './passages.js';
import { cutFurther, scanWords } from './text.js';

/** Slots of a fingerprint. */
export const NEAR_SLOTS = 32;
/** Bytes of a fingerprint: a uint16 per slot, little-endian. */
export const NEAR_BYTES = 2 * NEAR_SLOTS;
/** Slots two fingerprints must agree in for their texts to be near-duplicates. */
export const NEAR_SLOTS_SAME = 16;
/**
 * Fewer shingles than this (about as many words) make no fingerprint: a short text's estimate is
 * too rough, and two short pages differing in one word (a template's) differ in what matters.
 */
export const NEAR_SHINGLES_MIN = 40;
/**
 * The least ratio of the shorter's shingles to the longer's for two texts whose fingerprints agree
 * to be near-duplicates (`nearInSize`). Fingerprints estimate the share of their shingles two
 * texts have in common, and a page that quotes another whole, with as much again of its own, shares
 * half: it holds the other, it does not repeat it. A copy with its own byline and footer is about
 * as long as its original; one that adds more than a third of the text's length is another page.
 */
export const NEAR_SIZE_RATIO = 0.75;

/** murmur3's 32-bit finalizer. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A shingle's hash: its top bits choose its slot (32 slots: five), the rest are its value there. */
const BIN_SHIFT = 32 - Math.log2(NEAR_SLOTS);
const VALUE_MASK = (1 << BIN_SHIFT) - 1;
/** A slot no shingle fell in. */
const EMPTY = 0xffffffff;

/** A markdown link's or image's target (`](https://...)`): copies of a page on two sites link to their own addresses. */
const LINK_TARGET = /\]\([^)\s]*(?:\s+"[^"]*")?\)/g;

/**
 * Reads the words of a page's markdown as its fingerprint does (up to SCAN_LIMIT, as a search reads
 * it), calling `word` with each one's hash in order, and returns how many there were. Words are
 * `scanWords`', ASCII letters folded to lowercase, and each character of a word in a script written
 * without spaces (`cutFurther`: 東京の天気 is five); link targets are left out.
 */
function readWords(markdown: string, word: (hash: number) => void): number {
  const text = (markdown.length > SCAN_LIMIT ? markdown.slice(0, SCAN_LIMIT) : markdown).replace(LINK_TARGET, ']');
  let words = 0;
  scanWords(text, (start, end, ascii) => {
    // Chinese, Japanese, Thai, ...: each character is a word, so shingles are three characters.
    if (!ascii && cutFurther(text.slice(start, end))) {
      for (let i = start; i < end; i++) word(mix(text.charCodeAt(i) + 1));
      words += end - start;
      return;
    }
    let c = 0x811c9dc5; // FNV-1a
    for (let i = start; i < end; i++) {
      const ch = text.charCodeAt(i);
      c = Math.imul(c ^ (ch >= 65 && ch <= 90 ? ch | 0x20 : ch), 0x01000193);
    }
    word(c);
    words++;
  });
  return words;
}

/** The three-word shingles of a page's markdown that its fingerprint reads: its length, as `nearFingerprint` sees it. */
export function nearShingles(markdown: string): number {
  return Math.max(0, readWords(markdown, () => {}) - 2);
}

/**
 * The fingerprint of a page's markdown (`readWords`' words), or undefined when it has fewer than
 * NEAR_SHINGLES_MIN shingles.
 */
export function nearFingerprint(markdown: string): Uint8Array | undefined {
  const mins = new Uint32Array(NEAR_SLOTS).fill(EMPTY);
  let a = 0;
  let b = 0;
  let seen = 0;
  const words = readWords(markdown, (c) => {
    if (++seen >= 3) {
      const h = mix(Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ c);
      const bin = h >>> BIN_SHIFT;
      const v = h & VALUE_MASK;
      if (v < mins[bin]!) mins[bin] = v;
    }
    a = b;
    b = c;
  });
  if (words - 2 < NEAR_SHINGLES_MIN) return undefined;
  const out = new Uint8Array(NEAR_BYTES);
  for (let k = 0; k < NEAR_SLOTS; k++) {
    // An empty bin takes the next filled one's least, marked with how far it went.
    let t = 0;
    while (mins[(k + t) % NEAR_SLOTS] === EMPTY) t++;
    const x = mix((t << BIN_SHIFT) | mins[(k + t) % NEAR_SLOTS]!) >>> 16;
    out[2 * k] = x & 0xff;
    out[2 * k + 1] = x >>> 8;
  }
  return out;
}

/** Whether two texts of `x` and `y` shingles (`nearShingles`) are alike in length as near-duplicates are (NEAR_SIZE_RATIO). */
export function nearInSize(x: number, y: number): boolean {
  return Math.min(x, y) >= NEAR_SIZE_RATIO * Math.max(x, y);
}

/** Whether two fingerprints agree in NEAR_SLOTS_SAME slots or more; false for one of another length. */
export function nearDuplicates(x: Uint8Array, y: Uint8Array): boolean {
  if (x.length !== NEAR_BYTES || y.length !== NEAR_BYTES) return false;
  let same = 0;
  for (let k = 0; k < NEAR_BYTES; k += 2) if (x[k] === y[k] && x[k + 1] === y[k + 1]) same++;
  return same >= NEAR_SLOTS_SAME;
}
