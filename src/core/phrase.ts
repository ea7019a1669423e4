/**
 * Phrases without positions: whether a text holds words side by side, read as the index reads
 * them (stemmed, stop words kept as themselves). webql's phrases and `title:` items, and a standard
 * query's `-"phrase"`, are checked with it against a stored version.
 */
import { ASCII_WORD, cachedStem, LATIN_END, LATIN_LETTER, latinCharFold, scanWords, SOFT_HYPHEN, STOP_WORDS, termPrefix, unicodeWords, wordHolds, words } from './text.js';

/**
 * What a word of a phrase must equal: a stop word itself (marked by a leading space), any other
 * word its stem. So a word matches as in the engine, where stop words are dropped before
 * stemming: `its` (stem `it`) matches `its`, not the stop word `it`.
 */
export function wordKey(word: string): string {
  return keyOfWord(word, cachedStem);
}

/** `wordKey` with the stemmer given (the engine's build stems each distinct word once, without `cachedStem`'s table). */
export function keyOfWord(word: string, stemOf: (word: string) => string): string {
  return STOP_WORDS.has(word) ? ` ${word}` : stemOf(word);
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

/**
 * Whether `text` holds the phrase (its words' `wordKey`s) as adjacent words, in order, its words
 * analysed as `words()`. A word's key is made only when its first character is that of the key it
 * must equal: the Porter stemmer changes only suffixes, so a stem starts as its word does (a test
 * holds it to that), and most words of a page are never stemmed.
 *
 * Most texts are ruled out by the phrase's sieve (`sieveOf`) without a word being made. One the
 * sieve rules out that holds `ASCII_MAKERS` can hold the phrase only where one of its words holds
 * one of them, so only the words around those are read (`nearMakers`), and only around those that
 * may be a word of the phrase (`mayHoldWord`): reading all of a page of 20 kB word by word cost
 * about 1 ms, and in French, where such words are everywhere, 1.1-1.4 ms a page.
 */
export function hasPhrase(text: string, phrase: readonly string[]): boolean {
  const n = phrase.length;
  if (n === 0 || n > 30) return n > 30 && hasLongPhrase(text, phrase);
  const sieve = sieveOf(phrase);
  if (sieve && !sieve.test(text)) return nearMakers(new PhraseScan(text, phrase, true));
  return new PhraseScan(text, phrase, false).scan(0, text.length).found;
}

/** The phrase's words looked for in `text`, a part at a time, in order (`scan`). */
class PhraseScan {
  /** Bit k: the words just seen match phrase[0..k-1] (k = 0: always). */
  active = 1;
  found = false;
  /** Words read since `restart`. */
  read = 0;
  /** How many words were read before the first that holds one of ASCII_MAKERS (-1: none yet). */
  firstMaker = -1;
  /** Words read since the last word that holds one of ASCII_MAKERS. */
  sinceMaker = 0;
  private readonly firsts: number[];
  private readonly done: number;

  /** `counting`: keep `read`, `firstMaker` and `sinceMaker` (`nearMakers` reads by them; a whole text's reading needs none). */
  constructor(
    readonly text: string,
    readonly phrase: readonly string[],
    private readonly counting: boolean,
  ) {
    this.firsts = phrase.map((p) => p.charCodeAt(p.startsWith(' ') ? 1 : 0));
    this.done = 1 << phrase.length;
  }

  /** Counts from here, the words just read as `active` says (1: none of the phrase). */
  restart(active: number): void {
    this.active = active;
    this.read = 0;
    this.firstMaker = -1;
    this.sinceMaker = 0;
  }

  private step(first: number, word: () => string): void {
    let next = 1;
    let key: string | undefined;
    for (let k = 0; k < this.phrase.length; k++) {
      if ((this.active & (1 << k)) === 0 || this.firsts[k] !== first) continue;
      key ??= wordKey(word());
      if (key === this.phrase[k]) next |= 1 << (k + 1);
    }
    if (next & this.done) this.found = true;
    this.active = next;
  }

  /** Reads the words of text[from, to), which starts and ends at a word boundary, after those read before; stops once found. */
  scan(from: number, to: number): this {
    const text = this.text;
    scanWords(
      text,
      (i, j, ascii) => {
        if (this.found) return;
        if (ascii) {
          const c = text.charCodeAt(i);
          this.step(c >= 65 && c <= 90 ? c | 0x20 : c, () => text.slice(i, j).toLowerCase());
          this.read++;
          this.sinceMaker++;
          return;
        }
        const ws = unicodeWords(text, i, j);
        for (const w of ws) this.step(w.charCodeAt(0), () => w);
        if (!this.counting) return;
        if (ws.length > 0 && ASCII_MAKERS.test(text.slice(i, j))) {
          if (this.firstMaker < 0) this.firstMaker = this.read;
          this.sinceMaker = 0;
        } else {
          this.sinceMaker += ws.length;
        }
        this.read += ws.length;
      },
      from,
      to,
    );
    return this;
  }
}

/** ASCII_MAKERS, to find each of them in turn. */
const MAKERS = new RegExp(ASCII_MAKERS.source, 'g');

/** ASCII whitespace: no word holds it or is joined across it (text.ts `scanWords`), so a part of a text that starts or ends there is read as the whole text reads it. */
const isBreak = (c: number) => c === 32 || c === 10 || c === 9 || c === 13;

/** How far a break is looked for around a place; a text with none that near is read whole. */
const BREAK_NEAR = 1_024;

/** The nearest break at or before `at` (0 for the text's start), or -1 when none is within BREAK_NEAR. */
function breakBefore(text: string, at: number): number {
  for (let k = at; k > 0; k--) {
    if (isBreak(text.charCodeAt(k))) return k;
    if (at - k >= BREAK_NEAR) return -1;
  }
  return 0;
}

/** The nearest break at or after `at` (the text's length at its end), or -1 when none is within BREAK_NEAR. */
function breakAfter(text: string, at: number): number {
  for (let k = at; k < text.length; k++) {
    if (isBreak(text.charCodeAt(k))) return k;
    if (k - at >= BREAK_NEAR) return -1;
  }
  return text.length;
}

/** Characters read on at a time past a word that holds one of ASCII_MAKERS, until the phrase's length of words has followed it. */
const STRIDE = 256;

/**
 * `hasPhrase` for a text its sieve rules out: the words of an ASCII text are its runs of ASCII
 * letters and digits, which is what the sieve reads, so the phrase can be held only where one of
 * its words holds one of ASCII_MAKERS. Each part read starts at a break before such a word with
 * at least the phrase's length less one of words before it (or where the last part ended), and
 * reads on until as many followed the last such word; the words between parts are not read. A
 * run of such a word none of whose words may be one of the phrase's (`mayHoldWord`) is passed
 * over. A text whose breaks are far apart (Japanese, Chinese, Thai: no spaces) is read whole.
 */
function nearMakers(s: PhraseScan): boolean {
  const { text } = s;
  const n = s.phrase.length;
  const whole = () => {
    s.restart(1);
    return s.scan(0, text.length).found;
  };
  const prefixes = s.phrase.map((key) => (key.startsWith(' ') ? key.slice(1) : termPrefix(key)));
  const longest = Math.max(...prefixes.map((p) => p.length));
  // The text before `at` is read, or holds no word of a match; `s.active` is as reading on from it needs.
  let at = 0;
  // Makers are looked for from here: `at`, or past a run none of whose words can be one of the phrase's.
  let past = 0;
  for (;;) {
    MAKERS.lastIndex = Math.max(at, past);
    const maker = MAKERS.exec(text);
    if (!maker) return false;
    const [start, end] = runAround(text, maker.index);
    if (!mayHoldWord(text, start, end, prefixes, longest)) {
      past = end;
      continue;
    }
    const active = s.active;
    let back = 16 * n;
    let to: number;
    for (;;) {
      const from = maker.index - at <= back ? at : breakBefore(text, maker.index - back);
      to = breakAfter(text, maker.index);
      if (from < 0 || to < 0) return whole();
      s.restart(from === at ? active : 1);
      if (s.scan(from, to).found) return true;
      // Enough words before the first word that holds a maker, or all of them since `at` (a maker in
      // no word needs none).
      if (from === at || s.firstMaker < 0 || s.firstMaker >= n - 1) break;
      back *= 4;
    }
    // Read on until n - 1 words followed the last word that held a maker.
    while (s.firstMaker >= 0 && s.sinceMaker < n - 1 && to < text.length) {
      const next = breakAfter(text, Math.min(text.length, to + STRIDE));
      if (next < 0) return whole();
      if (s.scan(to, next).found) return true;
      to = next;
    }
    at = to;
  }
}

/** Whether `c` is a character of a run of word characters as `scanWords` reads them: an ASCII letter or digit, or any outside ASCII. */
const inRun = (c: number) => c >= 128 || ASCII_WORD[c] === 1;

/**
 * The run of word characters around `at` (`inRun`), as [start, end). `scanWords` also joins runs
 * across a `.` or `,` between digits, but a word joined so that holds a character outside ASCII
 * has a key with the point or comma in it, which no phrase with a sieve holds (a number grouped by
 * commas has its key without them, and no such character): cut there, the run leaves out only
 * words that cannot match.
 */
function runAround(text: string, at: number): [number, number] {
  let start = at;
  while (start > 0 && inRun(text.charCodeAt(start - 1))) start--;
  let end = at + 1;
  while (end < text.length && inRun(text.charCodeAt(end))) end++;
  return [start, end];
}

/** For each UTF-16 code unit past LATIN_END, its `kindOf`, made as first asked for (255: not yet). */
const WIDE_KINDS = new Uint8Array(0x10000).fill(255);

/**
 * 1: a letter or digit folded alone (below LATIN_END: `latinFold`); 0: no word holds it (text.ts
 * `wordHolds`: a space, a dash, a quote such as the ’ of l’été); 2: anything else (the soft
 * hyphen, which a word holds and leaves out, a mark, a letter past Latin Extended-B, and a
 * surrogate: what lies beyond the first plane is not looked at here, as in ASCII_MAKERS).
 */
function kindOf(c: number): number {
  if (c < LATIN_END) return c === SOFT_HYPHEN ? 2 : LATIN_LETTER[c]!;
  let kind = WIDE_KINDS[c]!;
  if (kind === 255) WIDE_KINDS[c] = kind = wordHolds(String.fromCharCode(c)) ? 2 : 0;
  return kind;
}

/**
 * Whether a word of text[start, end), a run (`runAround`), may be one of the phrase's: its fold
 * starts with one of `prefixes` (each key's `termPrefix`, a stop word's key its word), as every
 * word of a key's term does. Its words are the stretches of letters and digits below LATIN_END,
 * each character folded alone as `latinFold` folds it; a run holding any other character (`kindOf`
 * 2) may hold one. A run that cannot is no part of a match: in a page of French, most.
 */
function mayHoldWord(text: string, start: number, end: number, prefixes: readonly string[], longest: number): boolean {
  let inWord = false;
  for (let p = start; p < end; p++) {
    const kind = kindOf(text.charCodeAt(p));
    if (kind === 2) return true;
    if (kind === 0 || inWord) {
      inWord = kind === 1;
      continue;
    }
    inWord = true;
    // A word starts here: its fold, as far as the longest prefix (the rest of the run is read on by the loop above).
    let folded = '';
    for (let q = p; q < end && folded.length < longest && kindOf(text.charCodeAt(q)) === 1; q++) folded += latinCharFold(text.charCodeAt(q));
    for (const prefix of prefixes) if (folded.startsWith(prefix)) return true;
  }
  return false;
}

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
