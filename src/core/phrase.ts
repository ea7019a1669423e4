/**
 * Phrases without positions: whether a text holds words side by side, read as the index reads
 * them (stemmed, stop words kept as themselves). webql's phrases and `title:` items, and a standard
 * query's `-"phrase"`, are checked with it against a stored version.
 */
import { cachedStem, scanWords, STOP_WORDS, termPrefix, unicodeWords, words } from './text.js';

/**
 * What a word of a phrase must equal: a stop word itself (marked by a leading space), any other
 * word its stem. So a word matches as in the engine, where stop words are dropped before
 * stemming: `its` (stem `it`) matches `its`, not the stop word `it`.
 */
export function wordKey(word: string): string {
  return STOP_WORDS.has(word) ? ` ${word}` : cachedStem(word);
}

/**
 * Whether `text` holds the phrase (its words' `wordKey`s) as adjacent words, in order, its words
 * analysed as `words()`. A word's key is made only when its first character is that of the key it
 * must equal: the Porter stemmer changes only suffixes, so a stem starts as its word does (a test
 * holds it to that), and most words of a page are never stemmed.
 */
export function hasPhrase(text: string, phrase: readonly string[]): boolean {
  const n = phrase.length;
  if (n === 0 || n > 30) return n > 30 && hasLongPhrase(text, phrase);
  const sieve = sieveOf(phrase);
  if (sieve && !sieve.test(text) && !ASCII_MAKERS.test(text)) return false;
  const firsts = phrase.map((p) => p.charCodeAt(p.startsWith(' ') ? 1 : 0));
  const done = 1 << n;
  let active = 1; // bit k: the words just seen match phrase[0..k-1] (k = 0: always)
  let found = false;
  const step = (first: number, word: () => string) => {
    let next = 1;
    let key: string | undefined;
    for (let k = 0; k < n; k++) {
      if ((active & (1 << k)) === 0 || firsts[k] !== first) continue;
      key ??= wordKey(word());
      if (key === phrase[k]) next |= 1 << (k + 1);
    }
    if (next & done) found = true;
    active = next;
  };
  scanWords(text, (i, j, ascii) => {
    if (found) return;
    if (ascii) {
      const c = text.charCodeAt(i);
      step(c >= 65 && c <= 90 ? c | 0x20 : c, () => text.slice(i, j).toLowerCase());
    } else {
      for (const w of unicodeWords(text, i, j)) step(w.charCodeAt(0), () => w);
    }
  });
  return found;
}

/**
 * The characters outside ASCII that can make an ASCII word of the analysis (`words()`) out of
 * what is not a run of ASCII letters and digits in the text: letters that folding or lowercase
 * turns into ASCII ones (é, İ, the Kelvin sign), marks that folding drops (a decomposed accent),
 * the invisible characters a word holds and leaves out (a soft hyphen: text.ts `INVISIBLE_RE`),
 * the Latin ligatures and the halfwidth and fullwidth forms (a word holding one is read in NFKC),
 * and surrogates (what lies beyond the first plane is not looked at here). Any other character outside ASCII separates words or stays in the word it is in,
 * which is then no ASCII word. So in a text without these, the analysis's ASCII words are its
 * runs of ASCII letters and digits, which is what a phrase's sieve reads.
 *
 * The test suite derives these characters from `words()` over every UTF-16 code unit and checks
 * that the class holds them. It holds a few more, to be 15 ranges (one from the ligatures to the
 * fullwidth forms), which test a page several times faster than the 38 ranges of exactly those
 * (timed ad hoc; from 17 ranges on, V8 tests a page of ASCII text several times slower). The marks come first: after a
 * letter in a class, a mark reads as part of it (the linter's no-misleading-character-class).
 */
export const ASCII_MAKERS = /[\u0300-\u036f\u0591-\u05c7\u064b-\u0670\u1ab0-\u1aeb\u20d0-\u20f0\u1dc0-\u1eff\u00ad\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u200c-\u200f\u2060-\u2064\u212a-\u212b\ufb00-\uffef\ud800-\udfff]/;

const sieves = new WeakMap<readonly string[], RegExp | null>();

/**
 * A pattern that a text holding the phrase always matches when it has none of `ASCII_MAKERS`:
 * its words in order, separated by what separates words (a possessive's s among it: `cell's
 * wall` is the words `cell wall`), each starting with its stem but for the stem's last character
 * (so is every word of that stem, the analysis test holds Porter to it; a number's commas allowed
 * between its digits) or being its stop word. Most texts that lack the phrase fail it at once,
 * without a word being made. None when a key is not plain ASCII letters and digits.
 */
function sieveOf(phrase: readonly string[]): RegExp | undefined {
  let sieve = sieves.get(phrase);
  if (sieve === undefined) {
    const parts = phrase.map((key) => {
      const stop = key.startsWith(' ');
      const word = stop ? key.slice(1) : key;
      if (!/^[a-z0-9]+$/.test(word)) return undefined;
      if (stop) return `${word}(?![a-z0-9])`;
      const start = termPrefix(word);
      // A number's term is its digits, and its word may group them (`1,000` is `1000`: text.ts `stem`).
      return /[0-9]/.test(start) ? `${[...start].join(',?')}[a-z0-9,]*` : `${start}[a-z0-9]*`;
    });
    const between = "(?:[^a-z0-9]|(?<=['\u2019])s(?![a-z0-9]))+";
    sieve = parts.every((p) => p !== undefined) ? new RegExp(`(?<![a-z0-9])${parts.join(between)}`, 'i') : null;
    sieves.set(phrase, sieve);
  }
  return sieve ?? undefined;
}

/** `hasPhrase` for a phrase of more than 30 words: every word's key made. */
function hasLongPhrase(text: string, phrase: readonly string[]): boolean {
  const keys = words(text).map(wordKey);
  return keys.some((_, i) => phrase.every((p, k) => keys[i + k] === p));
}
