/**
 * Text analysis shared by query building and snippets: Unicode word runs, lowercase, diacritics
 * folded, Lucene's English stop words removed, Porter stems. Chinese, Japanese and Korean are cut
 * as Lucene's CJKAnalyzer cuts them, and other scripts written without spaces between words as ICU
 * cuts them (`unicodeWords`). The SQLite FTS5 index (a reference for tests) tokenizes with
 * `porter unicode61`, which folds and stems the same way but keeps such runs whole.
 */
import { stemmer } from 'stemmer';
import { codeLines, holdCode, holdEscapes, mayHold, releaseEscapes } from './escapes.js';

/**
 * Bumped when the words of some text change: an engine index saved under another version is
 * rebuilt from the pages (engine-index-store's signature). 2: words keep their combining marks,
 * Han and kana runs become characters and pairs, Thai, Lao, Khmer and Myanmar runs are cut by
 * dictionary. 3: a URL's words are read from its decoded escapes and its host's own letters
 * (webql-search.ts `urlText`). 4: fullwidth Latin letters and digits and halfwidth katakana are
 * read as their usual forms. 5: Latin letters that no accent can be taken off (ß, æ, ø, ł, đ, þ,
 * ...) are folded to the ASCII letters written for them (`LETTER_FOLDS`). 6: Hangul is cut as Han
 * and kana are (a Korean word's particles and endings no longer hide it). 7: a possessive's s is
 * dropped (`isPossessiveS`). 8: a title's stop words are indexed as title terms (`stopTerm`).
 * 9: `C++`, `C#` and `F#` are words (`signedEnd`). 10: a `.` or `,` between ASCII digits is
 * inside the word (`3.12`, `192.168.0.1`, `1,000`: `joinsDigits`). 11: a hyphenated compound's
 * words joined are a term too (`compoundWord`: `e-mail` is also `email`). 12: a number grouped
 * by thousands is its digits (`stem`: `1,000` is `1000`). 13: where a run of word characters
 * holds one outside ASCII, a possessive's s at its start is dropped (`cell's\u00a0...`:
 * `unicodeWords` reads the run with the text before it) and a `C++` at its end is one word
 * (`—C++`: `wideRunEnd`), as `words()` always read them; the engine's terms, snippets and
 * webql's phrases had read `s` and `c`. Such a `C#` joined to a hyphenated chain spoils it as
 * an ASCII one does (`—C#-state-of-the-art` is no compound). 14: an invisible format character
 * inside a word (a soft hyphen, a word joiner, a zero-width joiner) no longer splits it, and is
 * left out of it (`INVISIBLE_RE`); the ligatures ﬁ, ﬂ, ﬀ, ﬃ, ﬄ, ﬅ and ﬆ are read as their
 * letters.
 */
export const ANALYSIS_VERSION = 14;

/** Lucene's EnglishAnalyzer default stop set. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);

/**
 * A word: a letter or digit, then letters, digits, the combining marks that belong to them
 * (Devanagari's vowel signs, Thai's vowels and tones, a decomposed accent) and a `.` or `,`
 * between ASCII digits (`joinsDigits`); or one ASCII letter with the signs of a language's name
 * (`C++`, `C#`, `F#`: `signedEnd`).
 */
const WORD_RE = /(?<![\p{L}\p{N}\p{M}])[A-Za-z](?:\+\+|#)(?!\p{L})|[\p{L}\p{N}](?:[\p{L}\p{N}\p{M}\u00ad\u200c-\u200f\u2060-\u2064\ufeff]|(?<=[0-9])[.,](?=[0-9]))*/gu;
/**
 * The invisible characters a word may hold, as Unicode's word boundaries (UAX #29) and Lucene's
 * tokenizer keep them in a word, left out of the word read: a soft hyphen
 * (`Bundes&shy;regierung`, as German pages break long words), the zero-width non-joiner and
 * joiner (a Persian or Devanagari word's shaping), the left-to-right and right-to-left marks, the
 * word joiner and the invisible operators, a byte-order mark. The zero-width space separates
 * words, as UAX #29 says. (The rarer format characters, such as the direction embeddings, still
 * separate words: each range more in webql's `ASCII_MAKERS` slows its test of a page.)
 */
const INVISIBLE_RE = /[\u00ad\u200c-\u200f\u2060-\u2064\ufeff]/;
const INVISIBLE_ALL_RE = new RegExp(INVISIBLE_RE.source, 'g');
const LETTER_RE = /\p{L}/u;
/**
 * The marks folding removes: Latin, Greek and Cyrillic diacritics (the combining blocks), Hebrew
 * points and Arabic harakat. Other scripts' marks are parts of their letters (a Devanagari vowel
 * sign, the kana voicing mark) and stay.
 */
// eslint-disable-next-line no-misleading-character-class -- the class is of combining marks, each matched on its own
const DIACRITICS_RE = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u064b-\u065f\u0670]+/gu;
/**
 * Han, hiragana, katakana and the prolonged sound mark, and Hangul: cut into characters and pairs
 * (`pushWords`), after NFC has joined each kana to its voicing mark and Hangul letters into
 * syllables.
 */
const CJK = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\u30fc\\p{sc=Hangul}';
const CJK_RE = new RegExp(`[${CJK}]`, 'u');
const CJK_PARTS_RE = new RegExp(`[${CJK}]+|[^${CJK}]+`, 'gu');
/**
 * The halfwidth and fullwidth forms block (ＡＢＣ１２３ and ｶﾀｶﾅ) and the Latin ligatures (ﬁ, ﬂ,
 * ﬃ: a PDF's text holds them), which NFKC makes ABC123, カタカナ, fi, fl and ffi.
 */
const WIDTH_RE = /[\uff00-\uffef\ufb00-\ufb06]/;
/** Scripts written without spaces whose words ICU's dictionaries find. */
const DICTIONARY_RE = /[\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;
/** Whether a word is of a script written without spaces between words (Han, kana, Thai, ...) or cut as one (Hangul): `pushWords` cuts it further. */
export function cutFurther(word: string): boolean {
  return CJK_RE.test(word) || DICTIONARY_RE.test(word);
}
/** Made at the first such run: making one takes about 30 ms, which every process (a CLI command, a build thread) would pay at start. */
let dictionaryWords: Intl.Segmenter | undefined;

/**
 * Latin letters with no decomposition to take a diacritic off, folded as Lucene's
 * ASCIIFoldingFilter folds them: `lodz` finds Łódź, `kobenhavn` København, `strasse` Straße. Keys
 * are lowercase (folding lowercases first).
 */
const LETTER_FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ħ: 'h',
  ı: 'i',
  ŀ: 'l',
  ŧ: 't',
  ŋ: 'n',
  ſ: 's',
  ĳ: 'ij',
};
const LETTER_FOLDS_RE = new RegExp(`[${Object.keys(LETTER_FOLDS).join('')}]`, 'gu');

export function fold(word: string): string {
  // Composed again after the diacritics go: a kana and its voicing mark, or a Hangul syllable's
  // parts, are one character whichever way the page wrote them.
  const w = word.normalize('NFD').replace(DIACRITICS_RE, '').normalize('NFC').toLowerCase();
  return w.replace(LETTER_FOLDS_RE, (c) => LETTER_FOLDS[c]!);
}

/**
 * Pushes the folded words of one match of the word pattern. Most are one word. A match holding
 * Han, kana or Hangul is cut where it changes script, and each such part becomes its characters
 * and the overlapping pairs of them, in order (東, 東京, 京), as Lucene's CJKAnalyzer cuts with its
 * unigrams on: no dictionary, so the pairs of a query are always those of the same text in a page,
 * and a one-character word (猫) is found too. Korean is written with spaces, but a word carries its
 * particles and endings (서울의, 날씨는): cut so, 서울 and 날씨 find it. With `pairsOnly` (a
 * query's terms), a part of two or more characters gives its pairs only: 東京 asks for the pair,
 * not for every page holding 東 or 京. A match in Thai, Lao, Khmer or Myanmar is cut into its
 * dictionary words (Intl.Segmenter). Fullwidth Latin letters and digits and halfwidth katakana,
 * common in Japanese pages, are first read as their usual forms, as Lucene's CJKWidthFilter reads
 * them (ＡＢＣ is abc), and so are the Latin ligatures (ﬁ is fi). An invisible format character
 * in the word (`INVISIBLE_RE`) is left out first.
 */
function pushWords(out: string[], match: string, pairsOnly: boolean): void {
  const latin = latinFold(match);
  if (latin !== undefined) {
    out.push(latin);
    return;
  }
  // A word starts with a letter or digit, so one is left.
  if (INVISIBLE_RE.test(match)) match = match.replace(INVISIBLE_ALL_RE, '');
  if (WIDTH_RE.test(match)) match = match.normalize('NFKC');
  if (CJK_RE.test(match)) {
    for (const [part] of match.normalize('NFC').matchAll(CJK_PARTS_RE)) {
      if (!CJK_RE.test(part)) {
        const w = fold(part);
        if (w !== '') out.push(w);
        continue;
      }
      const chars = Array.from(part);
      const singles = !pairsOnly || chars.length === 1;
      for (let k = 0; k < chars.length; k++) {
        if (singles) out.push(chars[k]!);
        if (k + 1 < chars.length) out.push(chars[k]! + chars[k + 1]!);
      }
    }
  } else if (DICTIONARY_RE.test(match)) {
    dictionaryWords ??= new Intl.Segmenter('und', { granularity: 'word' });
    for (const s of dictionaryWords.segment(match)) if (s.isWordLike) out.push(fold(s.segment));
  } else {
    out.push(fold(match));
  }
}

/** The end of Latin Extended-B: a word of the characters below it (but the soft hyphen) is folded a character at a time (`latinFold`). */
export const LATIN_END = 0x250;
export const SOFT_HYPHEN = 0xad;
/** `fold` of each character below LATIN_END, made as first asked for. */
const latinFolds: (string | undefined)[] = new Array(LATIN_END);

/** 1 for each letter or digit below LATIN_END (a word's character, which `latinFold` folds alone), 0 for the rest. */
export const LATIN_LETTER = Uint8Array.from({ length: LATIN_END }, (_, c) => (/[\p{L}\p{N}]/u.test(String.fromCharCode(c)) ? 1 : 0));

/** `fold` of the character `c`, below LATIN_END and not the soft hyphen: how a word of such characters begins once folded (`latinFold`). */
export function latinCharFold(c: number): string {
  return (latinFolds[c] ??= fold(String.fromCharCode(c)));
}

/**
 * `fold(word)` for a word of ASCII and Latin letters (every character below LATIN_END but the soft
 * hyphen, which `pushWords` leaves out), as the concatenation of each character's fold; undefined
 * for any other word. Such a character decomposes into its letter and marks, which folding drops or
 * which compose back into it alone, and lowercases alone (only a Greek sigma lowercases by its place
 * in a word); a test holds every word of them to it. `fold` normalizes the word twice: about 1 us a
 * word, where this takes a few dozen nanoseconds.
 */
function latinFold(word: string): string | undefined {
  let ascii = true;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 128) continue;
    if (c >= LATIN_END || c === SOFT_HYPHEN) return undefined;
    ascii = false;
  }
  if (ascii) return word.toLowerCase();
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    out += latinCharFold(c);
  }
  return out;
}

/** A word character outside ASCII: a letter, digit or mark ending a word. */
const WIDE_WORD_END_RE = /[\p{L}\p{N}\p{M}]$/u;

/**
 * Whether the word of one character at `i` in `text` is the s of a possessive (`John's`,
 * `Alzheimer’s`, `1990's`): an s right after an apostrophe that follows a word's character. It is
 * not a word, as Lucene's EnglishPossessiveFilter drops it; read as one, it was a term of every
 * page with a possessive, found by any query holding one. The caller knows the word ends after
 * the s.
 */
function isPossessiveS(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if ((c !== 115 && c !== 83) || i < 2) return false;
  const q = text.charCodeAt(i - 1);
  if (q !== 39 && q !== 0x2019 && q !== 0xff07) return false;
  const b = text.charCodeAt(i - 2);
  return b < 128 ? ASCII_WORD[b] === 1 : WIDE_WORD_END_RE.test(text.slice(Math.max(0, i - 3), i - 1));
}

/**
 * The words of the word pattern's matches in text[start, end), a possessive's s left out (told
 * from the characters before it in `text`, which may lie before `start`).
 */
function pushMatches(out: string[], text: string, pairsOnly: boolean, start = 0, end = text.length): void {
  const part = start === 0 && end === text.length ? text : text.slice(start, end);
  for (const m of part.matchAll(WORD_RE)) if (m[0].length !== 1 || !isPossessiveS(text, start + m.index)) pushWords(out, m[0], pairsOnly);
}

/**
 * Folded words of `text`, in order, stop words kept, a possessive's s left out; Han, kana and
 * Hangul as `pushWords` cuts them (`pairsOnly` for a query's terms).
 */
export function words(text: string, pairsOnly = false): string[] {
  const out: string[] = [];
  pushMatches(out, text, pairsOnly);
  return out;
}

/** A number grouped by thousands with commas (`1,000`, `12,500.75`); `1,2` and `1,23,456` are not. */
const GROUPED_RE = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/**
 * The term of a word: an English word's Porter stem; a number grouped by thousands its digits
 * without the commas, so `1000` finds `$1,000` and `1,000` finds `1000`; any other word itself.
 * Either way every word of a term starts with its `termPrefix` once the word's commas are skipped
 * (the snippet scan and webql's sieves rely on it; the analysis test holds it).
 */
export function stem(word: string): string {
  if (/^[a-z]+$/.test(word)) return stemmer(word);
  return word.includes(',') && GROUPED_RE.test(word) ? word.replaceAll(',', '') : word;
}

/**
 * What every word of `term` starts with, its commas left out (`stem`): the term but for its last
 * character, which Porter may have rewritten (happy -> happi), commas dropped (`1,000` is `1000`,
 * `0,0005` its own); a one-character term itself.
 */
export function termPrefix(term: string): string {
  const bare = term.includes(',') ? term.replaceAll(',', '') : term;
  return bare.slice(0, Math.max(1, bare.length - 1));
}

const stemCache = new Map<string, string>();

/** `stem` with a bounded cache, for what stems the same words again and again (queries, snippets, passage indexes). */
export function cachedStem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = stem(word);
    if (stemCache.size >= 500_000) stemCache.clear();
    stemCache.set(word, s);
  }
  return s;
}

/** 1 for an ASCII letter or digit (the ASCII characters a word is made of), 0 for the rest of ASCII. */
export const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_WORD[c] = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ? 1 : 0;

/** For an ASCII character `c`. */
function isAsciiWordChar(c: number): boolean {
  return ASCII_WORD[c] === 1;
}

const isAsciiDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Whether the character at `j` of `text` (scanned up to `n`), which is not a word's, is inside a
 * word all the same: a `.` or `,` between ASCII digits, so `3.12`, `192.168.0.1` and `1,000` are
 * one word each, as Unicode's word boundaries (UAX #29) and Lucene's tokenizer keep them, and
 * `python 3.12` no longer asks for any 3 and any 12. `j` is past a word's first character.
 * WORD_RE's second branch joins the same.
 */
export function joinsDigits(text: string, j: number, n: number): boolean {
  const c = text.charCodeAt(j);
  return (c === 46 || c === 44) && j + 1 < n && isAsciiDigit(text.charCodeAt(j + 1)) && isAsciiDigit(text.charCodeAt(j - 1));
}

/**
 * Where the word that is the one ASCII character at `i` of `text` ends: after `++` or `#` when
 * it is a letter, they follow it and no letter follows them (before `n`), so `C++`, `C#` and
 * `F#` are words of their own and not the letter (which Lucene's tokenizer leaves: a search for
 * `C++` found every page with a `C` in it), and `C++20` is `c++` and `20`; else after the
 * letter. WORD_RE's first branch finds the same words.
 */
function signedEnd(text: string, i: number, n: number): number {
  if (!isAsciiLetter(text.charCodeAt(i))) return i + 1;
  let j = i + 1;
  if (j >= n) return j;
  const sign = text.charCodeAt(j);
  if (sign === 43 && j + 1 < n && text.charCodeAt(j + 1) === 43) j += 2; // ++
  else if (sign === 35) j += 1; // #
  else return i + 1;
  if (j < n) {
    const d = text.charCodeAt(j);
    if (d < 128 ? isAsciiLetter(d) : LETTER_RE.test(String.fromCodePoint(text.codePointAt(j)!))) return i + 1;
  }
  return j;
}

const isAsciiLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/**
 * The end of the word that the run of ASCII letters and digits [i, j) of `text` (scanned up to
 * `n`) is: `j`, or `signedEnd`'s for a run of one character; -1 when that one character is a
 * possessive's s, which is no word. `scanWords` and the snippet scan cut ASCII words by it.
 */
export function asciiWordEnd(text: string, i: number, j: number, n: number): number {
  if (j - i !== 1) return j;
  const end = signedEnd(text, i, n);
  return end - i === 1 && isPossessiveS(text, i) ? -1 : end;
}

/**
 * The end of a run of word characters that holds one outside ASCII, ending at `j` (scanned up to
 * `n`): past the signs of its last word when that is one ASCII letter with them (`—C++`, as
 * `signedEnd` says), else `j`. `scanWords` and the snippet scan cut such runs by it.
 */
export function wideRunEnd(text: string, j: number, n: number): number {
  return j < n && isAsciiLetter(text.charCodeAt(j - 1)) && !isWordCharAt(text, j - 2, true) ? signedEnd(text, j - 1, n) : j;
}

function pushTerm(out: string[], w: string): void {
  if (!STOP_WORDS.has(w)) out.push(cachedStem(w));
}

/**
 * Calls `visit` with the bounds of each word run of `text` in order: runs of ASCII letters and
 * digits (and a `.` or `,` between digits: `joinsDigits`) are cut by hand (`ascii` true: the word
 * is the run, lowercased); a run holding any other character (`ascii` false) holds the words the
 * Unicode word pattern finds in it, to be folded.
 * Together they are exactly the words of `words()`, found faster. `from` and `to` scan a part of
 * `text` that starts and ends at a word boundary. `compound`, when given, is also called with the
 * bounds of each hyphenated compound (`compoundWord`), in order, each after its words' visits.
 */
export function scanWords(
  text: string,
  visit: (start: number, end: number, ascii: boolean) => void,
  from = 0,
  to = text.length,
  compound?: (start: number, end: number) => void,
): void {
  const n = to;
  const chain = compound && new CompoundChain(text);
  let i = from;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 128 && !isAsciiWordChar(c)) {
      i++;
      continue;
    }
    let j = i;
    let ascii = true;
    let plain = true;
    for (; j < n; j++) {
      const d = text.charCodeAt(j);
      if (d < 128) {
        if (!isAsciiWordChar(d)) {
          if (!joinsDigits(text, j, n)) break;
          plain = false;
        }
      } else {
        ascii = false;
      }
    }
    if (ascii) {
      const end = asciiWordEnd(text, i, j, n);
      if (end < 0) {
        if (chain && nextToHyphen(text, i, j) && chain.word(i, j, false)) compound!(chain.doneStart, chain.doneEnd);
        i = j;
        continue;
      }
      if (end !== j) plain = false;
      j = end;
    } else {
      j = wideRunEnd(text, j, n);
    }
    if (chain && nextToHyphen(text, i, j) && (ascii ? chain.word(i, j, plain) : chain.run(i, j))) compound!(chain.doneStart, chain.doneEnd);
    visit(i, j, ascii);
    i = j;
  }
  if (chain?.finish()) compound!(chain.doneStart, chain.doneEnd);
}

/** The most words a hyphenated compound joins (`state-of-the-art`); a longer chain (a slug, a date range) is none. */
const COMPOUND_MAX_PARTS = 4;
/** A run's first word when it is plain ASCII letters and digits (`CompoundChain.run`). */
const PLAIN_FIRST_RE = /[A-Za-z0-9]+(?![\p{L}\p{N}\p{M}]|[.,][0-9])/uy;
/** A run's last word when it is plain ASCII letters and digits. */
const PLAIN_LAST_RE = /(?<![\p{L}\p{N}\p{M}]|[0-9][.,])[A-Za-z0-9]+$/u;

/**
 * Whether the word [i, j) of `text` is next to a hyphen: only such a word can start, extend or
 * spoil a compound (`CompoundChain`), so the others need not be told of.
 */
export function nextToHyphen(text: string, i: number, j: number): boolean {
  return text.charCodeAt(i - 1) === 45 || text.charCodeAt(j) === 45;
}

/**
 * The hyphenated compounds of a text whose words are scanned in order (`compoundWord`): told of
 * each word next to a hyphen (`nextToHyphen`; telling it of the others too changes nothing), it
 * says when the words before made a compound that has just ended. A chain of hyphenated words
 * that holds any other word (`2,4-dicarboxylate`, `naïve-bayes`, `C++-based`, `John's-`) is no
 * compound, nor is a part of it.
 */
export class CompoundChain {
  private start = 0;
  private end = -2;
  private parts = 0;
  /** The chain under way holds a word that is not plain ASCII letters and digits. */
  private spoilt = false;
  /** Where the word before ended (-2: it cannot be joined to the next), and whether it was plain. */
  private previousEnd = -2;
  private previousPlain = false;
  /** The bounds of the compound that ended, when `word`, `run` or `finish` returned true. */
  doneStart = 0;
  doneEnd = 0;

  constructor(private readonly text: string) {}

  /**
   * The next word is [i, j) of the text, `plain` when it is a run of ASCII letters and digits
   * alone (a possessive's s is a word here, not plain). True when a compound ended before it.
   */
  word(i: number, j: number, plain: boolean): boolean {
    let ended = false;
    if (i === this.previousEnd + 1 && this.text.charCodeAt(this.previousEnd) === 45) {
      if (plain && this.previousPlain && !this.spoilt) {
        this.parts++;
        this.end = j;
      } else {
        this.spoilt = true;
      }
    } else {
      ended = this.finish();
      this.spoilt = !plain;
      this.start = i;
      this.end = j;
      this.parts = 1;
    }
    this.previousEnd = j;
    this.previousPlain = plain;
    return ended;
  }

  /**
   * The next words are the run [i, j) of the text, which holds a character outside ASCII
   * (`scanWords`' `ascii` false: `‘real`, `world’s`, `naïve`). No hyphen is inside it, but its
   * first word may be joined to the word before and its last to the word after. True when a
   * compound ended in it.
   */
  run(i: number, j: number): boolean {
    const text = this.text;
    let ended = false;
    if (isWordCharAt(text, i)) {
      PLAIN_FIRST_RE.lastIndex = i;
      const plain = PLAIN_FIRST_RE.test(text);
      ended = this.word(i, plain ? PLAIN_FIRST_RE.lastIndex : i + 1, plain);
    }
    ended = this.finish() || ended;
    this.previousEnd = -2;
    // The run may end with a letter's signs (`—C#`: `wideRunEnd`), a word joined to what follows but not plain.
    const signed = j > i && (text.charCodeAt(j - 1) === 43 || text.charCodeAt(j - 1) === 35);
    if (signed || (j > i && isWordCharAt(text, j - 1, true))) {
      const last = signed ? null : PLAIN_LAST_RE.exec(text.slice(i, j));
      const plain = last !== null && !(last[0].length === 1 && isPossessiveS(text, j - 1));
      this.start = plain ? j - last[0].length : j - 1;
      this.end = j;
      this.parts = 1;
      this.spoilt = !plain;
      this.previousEnd = j;
      this.previousPlain = plain;
    }
    return ended;
  }

  private hasLetter(): boolean {
    for (let k = this.start; k < this.end; k++) if (isAsciiLetter(this.text.charCodeAt(k))) return true;
    return false;
  }

  /** The text (or the part scanned) ends: true when its last words made a compound. */
  finish(): boolean {
    const ended = this.parts >= 2 && this.parts <= COMPOUND_MAX_PARTS && !this.spoilt && this.hasLetter();
    if (ended) {
      this.doneStart = this.start;
      this.doneEnd = this.end;
    }
    this.parts = 0;
    return ended;
  }
}

/** Whether the character at `i` of `text` (or, with `before`, the one ending there) is a word's: a letter, digit or mark. */
function isWordCharAt(text: string, i: number, before = false): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return ASCII_WORD[c] === 1;
  const char = before && c >= 0xdc00 && c <= 0xdfff ? text.slice(i - 1, i + 1) : String.fromCodePoint(text.codePointAt(i)!);
  return WORD_CHAR_RE.test(char);
}
const WORD_CHAR_RE = /^[\p{L}\p{N}\p{M}]/u;

/** Whether a word holds the character `c` (one code point): a letter, digit or mark, or an invisible character it leaves out (`WORD_RE`). */
export function wordHolds(c: string): boolean {
  return WORD_CHAR_RE.test(c) || INVISIBLE_RE.test(c);
}

/**
 * The folded words of the run text[start, end) that `scanWords` reported as not ASCII. A
 * possessive's s is told from `text`: the run may start with it, after an ASCII apostrophe
 * (`cell's\u00a0...`, the no-break space making the run not ASCII).
 */
export function unicodeWords(text: string, start = 0, end = text.length): string[] {
  // A run of letters and digits below LATIN_END alone, one outside ASCII among them (a word of a
  // language written in Latin letters: été, Straße), is one match of the pattern: folded a
  // character at a time without running it.
  let latin = start < end;
  let wide = false;
  for (let k = start; latin && k < end; k++) {
    const c = text.charCodeAt(k);
    latin = c < LATIN_END && LATIN_LETTER[c] === 1;
    wide ||= c >= 128;
  }
  if (latin && wide) return [latinFold(text.slice(start, end))!];
  const out: string[] = [];
  pushMatches(out, text, false, start, end);
  return out;
}

/**
 * The terms the search engine indexes for `text`: folded words, stop words removed, stemmed, in
 * order. The same words as `words()` (see `scanWords`).
 */
export function indexTerms(text: string, compounds = true): string[] {
  const out: string[] = [];
  scanWords(
    text,
    (i, j, ascii) => {
      if (ascii) pushTerm(out, text.slice(i, j).toLowerCase());
      else for (const w of unicodeWords(text, i, j)) pushTerm(out, w);
    },
    0,
    text.length,
    compounds ? (i, j) => pushTerm(out, compoundWord(text, i, j)) : undefined,
  );
  return out;
}

/** The terms of the hyphenated compounds of `text` alone (`compoundWord`), in order. */
export function compoundTerms(text: string): string[] {
  const out: string[] = [];
  scanWords(text, () => {}, 0, text.length, (i, j) => pushTerm(out, compoundWord(text, i, j)));
  return out;
}

/**
 * The word a hyphenated compound of `text` (its bounds as `scanWords` reports them) is also read
 * as: its words joined, lowercased (`e-mail` is `email`, `Wi-Fi` is `wifi`). A compound is two to
 * four runs of ASCII letters and digits, at least one letter among them, each joined to the next
 * by one hyphen. Its words stay words of their own; the joined one is a term of the page beside
 * them (not counted in its length, as Lucene leaves out a token stacked on another), so `email`
 * finds a page that writes `e-mail`, and `wifi` one that writes `Wi-Fi`. A query's compound is
 * read both as its words and as this word (`queryReadings`).
 */
export function compoundWord(text: string, start: number, end: number): string {
  return text.slice(start, end).toLowerCase().replaceAll('-', '');
}

/** What starts a title's stop word as a term (`stopTerm`): no word holds it. */
const STOP_MARK = '~';

/**
 * A stop word as a term of a page's title. Stop words are indexed only in titles (a title's are
 * few; a page's text holds them in every sentence) and asked for only by a query of nothing else
 * (`queryTerms`): `to be or not to be` or `it` finds the pages so titled instead of nothing. The
 * mark, which no word holds, keeps such a term apart from a word whose stem is a stop word
 * (`wills` stems to `will`), so no other query finds it.
 */
export function stopTerm(word: string): string {
  return STOP_MARK + word;
}

/** The word of a term: a stop word's without its mark (`stopTerm`), any other term as it is. */
export function termWord(term: string): string {
  return term.startsWith(STOP_MARK) ? term.slice(STOP_MARK.length) : term;
}

/** The stop words of a title as its terms (`stopTerm`), in order; the words are those of `words()`. */
export function titleStopTerms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (STOP_WORDS.has(w)) out.push(stopTerm(w));
  return out;
}

/**
 * Distinct query terms: folded, stop words removed, in first-seen order; Han, kana and Hangul as
 * pairs (`pushWords`). A query of stop words alone asks for them as a title's (`stopTerm`). A
 * hyphenated compound is its words (`e-mail` asks for `e` and `mail`); `joinedQueryTerms` reads it
 * the other way.
 */
export function queryTerms(query: string): string[] {
  const all = words(query, true);
  const kept = all.filter((w) => !STOP_WORDS.has(w));
  return [...new Set(kept.length > 0 ? kept : all.map(stopTerm))];
}

/**
 * The query's terms with each hyphenated compound read as its joined word (`compoundWord`:
 * `e-mail` asks for `email`, not `e` and `mail`), or undefined when the query has no compound. A
 * search scores a page by the better of this reading and `queryTerms`' (IndexQuery
 * `alternative`), so `e-mail` finds a page that writes only `email` while one that writes
 * `e mail` or `T cells` still counts as the words: asking for both readings' terms at once
 * favoured pages that hyphenate (`T-cell` scored as t, cell and tcell) and lowered SciFact's
 * train nDCG@10 from 0.7079 to 0.7036; the better of the two raised it to 0.7100
 * (docs/BENCHMARKS.md).
 */
export function joinedQueryTerms(query: string): string[] | undefined {
  const joined = joinedCompounds(query);
  return joined === undefined ? undefined : queryTerms(joined);
}

/** `text` with each hyphenated compound written as its joined word (`compoundWord`: `send e-mail` is `send email`), or undefined when it has none. */
export function joinedCompounds(text: string): string | undefined {
  if (!text.includes('-')) return undefined;
  let joined = '';
  let at = 0;
  scanWords(text, () => {}, 0, text.length, (i, j) => {
    joined += text.slice(at, i) + compoundWord(text, i, j);
    at = j;
  });
  return at === 0 ? undefined : joined + text.slice(at);
}

/** A standard query's terms and, when it has a hyphenated compound, its other reading (IndexQuery `terms` and `alternative`). */
export function queryReadings(query: string): { terms: string[]; alternative?: string[] } {
  const alternative = joinedQueryTerms(query);
  return alternative ? { terms: queryTerms(query), alternative } : { terms: queryTerms(query) };
}

/**
 * The best `k` of a query's two readings' hits (IndexQuery `alternative`), a page scoring the better
 * of its two scores; ranked as the engine ranks (score descending, then version id). Exact when
 * each list is its reading's top k, the second allowed to leave out what scores below the first's
 * k-th: a page in the top k by the better score is in the top k of the reading that gives it.
 */
export function bestOfReadings<H extends { versionId: number; score: number }>(a: readonly H[], b: readonly H[], k: number): H[] {
  const best = new Map<number, H>();
  for (const h of a) best.set(h.versionId, h);
  for (const h of b) {
    const seen = best.get(h.versionId);
    if (seen === undefined || h.score > seen.score) best.set(h.versionId, h);
  }
  return [...best.values()].sort((x, y) => y.score - x.score || x.versionId - y.versionId).slice(0, k);
}

/** Whitespace to fold: a run of two or more, or one character that is not a space. */
const FOLD_RE = /\s{2,}|[^\S ]/g;

const isRuleChar = (c: number) => c === 45 || c === 124 || c === 58 || c === 9 || c === 32; // - | : tab space
const isBlank = (c: number) => c === 9 || c === 32;

/**
 * Whether text[at, end) (a line) holds no text: hyphens, pipes and colons alone (a table's
 * delimiter row `| --- | :-: |`, a thematic break `---`, a setext heading's `---`), three or more
 * `*` or `_` alone (a thematic break, `***`, `_ _ _`), or `=` alone (a setext heading's underline;
 * a line of text reading so is written `\===`). Spaces and tabs between them.
 */
function isRuleLine(text: string, at: number, end: number): boolean {
  let k = at;
  while (k < end && isBlank(text.charCodeAt(k))) k++;
  const first = text.charCodeAt(k);
  if (first === 42 || first === 95 || first === 61) {
    let count = 0;
    for (; k < end; k++) {
      const c = text.charCodeAt(k);
      if (c === first) count++;
      else if (!isBlank(c)) return false;
    }
    return first === 61 || count >= 3;
  }
  let hyphen = false;
  for (; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === 45) hyphen = true;
    else if (!isRuleChar(c)) return false;
  }
  return hyphen;
}
const mayOpenRule = (c: number) => isRuleChar(c) || c === 42 || c === 95 || c === 61;

/**
 * `text` with its lines that hold no text emptied (`isRuleLine`): they read `--- ---` or `***` in
 * descriptions and snippets. Lines are split at `\n` alone. A loop over the lines' starts, not a
 * pattern tried at every position: a pattern cost a result 3 us of its 20 (bench:snippets).
 */
export function withoutRuleLines(text: string): string {
  let out = '';
  let copied = 0;
  let cut = false;
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    if (mayOpenRule(text.charCodeAt(at)) && isRuleLine(text, at, end)) {
      out += text.slice(copied, at);
      copied = end;
      cut = true;
    }
    at = end + 1;
  }
  return cut ? out + text.slice(copied) : text;
}

/**
 * `text` without the closing sequence of its ATX headings (`# Title #` is a heading of `Title`; a
 * heading's own `#` at its end is written `\#`, markdown.ts `headingText`). A loop over the lines
 * that open with `#`: a pattern's lazy match made a long heading of spaces quadratic.
 */
export function withoutClosingHashes(text: string): string {
  let out = '';
  let copied = 0;
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    let k = at;
    while (k < end && k - at < 3 && text.charCodeAt(k) === 32) k++;
    let marks = 0;
    while (k < end && text.charCodeAt(k) === 35) {
      k++;
      marks++;
    }
    if (marks >= 1 && marks <= 6 && (k === end || isBlank(text.charCodeAt(k)))) {
      let e = end;
      while (e > k && isBlank(text.charCodeAt(e - 1))) e--;
      let h = e;
      while (h > k && text.charCodeAt(h - 1) === 35) h--;
      // A closing run follows a space (or is all the heading holds).
      if (h < e && (h === k || isBlank(text.charCodeAt(h - 1)))) {
        out += text.slice(copied, h);
        copied = end;
      }
    }
    at = end + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A line's indent, a heading's marker and a list item's, as markdown writes them. */
export const INDENT = '[^\\S\\n]{0,3}';
export const HEADING_MARK = '#{1,6}';
export const LIST_MARK = '[-*+]|\\d+\\.';
/**
 * The markers a line's text is read without (`markdownToText`, passages.ts `linesToText`): a
 * heading's, a quote's or a list item's, and the space after each (a quote's needs none: `>` alone
 * is a quote's blank line, `>text` a quote); all of a line's (a list in a quote, `> - item`; a
 * heading in a list item, `- ### Title`) up to a heading's, whose text is the rest (`## # of users`
 * is a heading of `# of users`). No newline is crossed.
 */
export const LINE_MARKER_RE = new RegExp(`^${INDENT}(?:>[^\\S\\n]*|(?:${LIST_MARK})[^\\S\\n]+)*(?:${HEADING_MARK}[^\\S\\n]+)?`, 'gm');

/** A run of one of markdown's inline marks (a run of two, `*|`, is two runs: each is read by itself). */
const MARK_RUN_RE = /([*_`|])\1*/g;
const isSpaceAt = (text: string, i: number) => i < 0 || i >= text.length || /\s/.test(text[i]!);

/**
 * `text` without markdown's inline marks, as a renderer shows it: emphasis (`*`, `_`) and a code
 * span's backticks taken out (`**Note**:` reads `Note:`), a table row's pipes each a space (its
 * cells' words stay apart: `|**x**|y|` reads `x y`). What CommonMark reads as text stays: a run of `*` or `_`
 * between spaces (`5 * 3`, `a ** b`; a line's edge is a space), a run of `_` inside a word
 * (`snake_case`: no emphasis opens or closes there), and pipes on a line that is no table row (one
 * not opening with `|`: `Home | About`). A code span's text is held (escapes.ts `holdEscapes`) and
 * is not read here. Lines are read alone: the text of each is as if it were read by itself.
 */
export function withoutMarks(text: string): string {
  let out = '';
  let copied = 0;
  // The line of the last pipe read (its end) and whether it is a table row.
  let lineEnd = -1;
  let row = false;
  const pattern = MARK_RUN_RE; // one call at a time: nothing in the loop awaits
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    const at = m.index;
    const end = pattern.lastIndex;
    const c = text.charCodeAt(at);
    if (c === 124) {
      if (at > lineEnd) {
        const start = text.lastIndexOf('\n', at) + 1;
        lineEnd = text.indexOf('\n', at);
        if (lineEnd < 0) lineEnd = text.length;
        let first = start;
        while (first < at && /[^\S\n]/.test(text[first]!)) first++;
        row = text.charCodeAt(first) === 124;
      }
      if (!row) continue;
    } else if (c !== 96) {
      if (isSpaceAt(text, at - 1) && isSpaceAt(text, end)) continue;
      if (c === 95 && at > 0 && end < text.length && isWordCharAt(text, at - 1, true) && isWordCharAt(text, end)) continue;
    }
    out += text.slice(copied, at) + (c === 124 ? ' ' : '');
    copied = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Plain text of markdown: images, link targets, emphasis and heading marks dropped (`withoutMarks`), escaped characters and code spans as the page shows them, whitespace folded. */
export function markdownToText(markdown: string): string {
  // Each pass runs only when its pattern can match (every image or link holds "](").
  // A code block's lines are held whole (no pass reads a mark in them), its fences emptied.
  const kinds = codeLines(markdown);
  const held = kinds !== undefined || mayHold(markdown);
  let text = holdEscapes(kinds ? holdCode(markdown, kinds) : markdown);
  if (text.includes('](')) text = text.replace(/!\[[^\]]*\]\([^)]*\)/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  text = withoutRuleLines(text);
  if (text.includes('#')) text = withoutClosingHashes(text);
  text = text.replace(LINE_MARKER_RE, '');
  if (/[*_`|]/.test(text)) text = withoutMarks(text);
  if (text.includes('~~')) text = text.replace(/~~+/g, ' ');
  // Each run of whitespace becomes one space, as /\s+/g would make it; a lone space is not matched,
  // or every space of the page would be rewritten (a 30 kB page's text took twice as long).
  return releaseEscapes(text.replace(FOLD_RE, ' ').trim(), held);
}

/**
 * The most characters of a page's title and of its author (from its HTML, a PDF's information or
 * an import line), cut at a word beyond: a page may put its whole article in either, and a title of
 * 100,000 characters was stored and answered in every search result that found the page.
 */
export const TITLE_MAX = 1_000;
export const AUTHOR_MAX = 200;

/** Cuts `text` to at most `max` characters at a word boundary, adding an ellipsis when cut. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - 1; // the ellipsis
  let cut = Math.max(text.lastIndexOf(' ', room), text.lastIndexOf('\n', room)); // a snippet's lines may be joined by a newline
  if (cut < room * 0.5) cut = room; // one very long word: cut inside it rather than lose most of the room
  let end = cut;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}
