/**
 * Query-biased snippets: the passage of the page that best matches the query, cut at a word
 * boundary. Sentences are scored by how many distinct query stems they hold (rarer coverage wins
 * over repetition); the best one is widened with its neighbours until the length is used.
 *
 * A search builds ten of these per request, so the text is scanned once, in place: sentence
 * bounds are offsets, and a word is stemmed only when it could stem to a query stem (see
 * `SnippetQuery`).
 */
import { ASCII_WORD as SHARED_ASCII_WORD, cachedStem, cutAtWord, markdownToText, unicodeWords } from '../core/text.js';

/** Pages can be large; a snippet is looked for in the first part only. */
const SCAN_LIMIT = 200_000;
const DESCRIPTION_LENGTH = 300;
const LEADING_HEADING = /^\s*#{1,6}[^\n]*\n+/;

/** The text snippets and fallback descriptions are cut from: the plain text of the page's opening part. */
export function pageText(markdown: string): string {
  return markdownToText(markdown.length > SCAN_LIMIT ? markdown.slice(0, SCAN_LIMIT) : markdown);
}

const lower = (c: number) => (c >= 65 && c <= 90 ? c | 0x20 : c);
const isTerminator = (c: number) => c === 46 || c === 33 || c === 63; // . ! ?
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;

/**
 * The query's stems, prepared once per search. A Porter stem keeps its word's first character
 * and, but for its last character, is a prefix of its word (its rules only rewrite a suffix, and
 * only the stem's final letter can be one the word does not have there: happy -> happi); the test
 * suite checks this over the whole SciFact vocabulary. So an ASCII word is stemmed only when it
 * starts with one of these prefixes, and the words that are stemmed are exactly matched.
 */
export class SnippetQuery {
  /** stem -> its index, for distinct counting. */
  readonly index = new Map<string, number>();
  /** Prefixes that a word must start with to stem to a query stem, by their lowercase first character. */
  readonly prefixes: (string[] | undefined)[] = new Array(128);

  constructor(stems: readonly string[]) {
    for (const s of stems) {
      if (s.length === 0 || this.index.has(s)) continue;
      this.index.set(s, this.index.size);
      const c = s.charCodeAt(0);
      if (c >= 128) continue; // only words outside ASCII stem to it, and the Unicode path stems them all
      (this.prefixes[c] ??= []).push(s.slice(0, Math.max(1, s.length - 1)));
    }
  }

  get size(): number {
    return this.index.size;
  }

  /** The index of the query stem the ASCII word text[i, j) stems to, or -1. */
  asciiWord(text: string, i: number, j: number): number {
    const candidates = this.prefixes[lower(text.charCodeAt(i))];
    if (candidates === undefined) return -1;
    for (const p of candidates) {
      if (p.length > j - i) continue;
      let k = 1;
      while (k < p.length && lower(text.charCodeAt(i + k)) === p.charCodeAt(k)) k++;
      if (k === p.length) return this.index.get(cachedStem(text.slice(i, j).toLowerCase())) ?? -1;
    }
    return -1;
  }
}

/**
 * Sentence bounds of `text` (whitespace already folded to single spaces): a sentence ends after a
 * run of . ! ? that is followed by a space or the end. Returns [start0, end0, start1, end1, ...],
 * trimmed, in order; sentences are separated by exactly the one space between them.
 */
export function sentenceBounds(text: string): number[] {
  const bounds: number[] = [];
  const n = text.length;
  let start = 0;
  while (start < n && isSpace(text.charCodeAt(start))) start++;
  let i = start;
  while (i < n) {
    if (!isTerminator(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && isTerminator(text.charCodeAt(j))) j++;
    if (j === n || isSpace(text.charCodeAt(j))) {
      bounds.push(start, j);
      start = j;
      while (start < n && isSpace(text.charCodeAt(start))) start++;
    }
    i = j;
  }
  let end = n;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (end > start) bounds.push(start, end);
  return bounds;
}

/** The scan's table of ASCII word characters, bound here: read through the import binding, the scan took 1.09x as long. */
const ASCII_WORD = SHARED_ASCII_WORD;

/** 1 when `stem` is counted in sentence `mark` for the first time (and marks it so), else 0. */
function firstInSentence(last: Int32Array, stem: number, mark: number): number {
  if (last[stem] === mark) return 0;
  last[stem] = mark;
  return 1;
}

/**
 * The best sentence (its index in `bounds`, a multiple of two; the first of equals). How well a
 * sentence matches: ten points per distinct query stem it holds, plus one per occurrence up to
 * five. Words are those of `words()`, found as `scanWords` finds them (runs of ASCII letters and
 * digits and of characters outside ASCII), but in one loop here without a call per word: this loop
 * is most of a long page's snippet.
 */
export function bestSentence(text: string, bounds: readonly number[], query: SnippetQuery): number {
  // The sentence (+1) in which each query stem was last counted: distinct stems per sentence without a set.
  const last = new Int32Array(query.size);
  let best = 0;
  let bestScore = -1;
  for (let s = 0; s < bounds.length; s += 2) {
    const mark = s + 1;
    const end = bounds[s + 1]!;
    let distinct = 0;
    let hits = 0;
    let i = bounds[s]!;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c < 128 && ASCII_WORD[c] === 0) {
        i++;
        continue;
      }
      let j = i + 1;
      let ascii = c < 128;
      for (; j < end; j++) {
        const d = text.charCodeAt(j);
        if (d < 128) {
          if (ASCII_WORD[d] === 0) break;
        } else {
          ascii = false;
        }
      }
      if (ascii) {
        const stem = query.asciiWord(text, i, j);
        if (stem >= 0) {
          hits++;
          distinct += firstInSentence(last, stem, mark);
        }
      } else {
        for (const w of unicodeWords(text.slice(i, j))) {
          const stem = query.index.get(cachedStem(w));
          if (stem === undefined) continue;
          hits++;
          distinct += firstInSentence(last, stem, mark);
        }
      }
      i = j;
    }
    const score = distinct * 10 + Math.min(hits, 5);
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  return best;
}

/** The best passage of `text` (from `pageText`) for the query, at most `maxLength` characters. */
export function snippetOf(text: string, query: SnippetQuery, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const bounds = sentenceBounds(text);
  if (bounds.length === 0) return cutAtWord(text, maxLength);
  const best = bestSentence(text, bounds, query);

  // Widen around the best sentence: forward first (reads naturally), then backward.
  let from = best;
  let to = best;
  while (to + 2 < bounds.length && bounds[to + 3]! - bounds[from]! <= maxLength) to += 2;
  while (from > 0 && bounds[to + 1]! - bounds[from - 2]! <= maxLength) from -= 2;
  return cutAtWord(text.slice(bounds[from], bounds[to + 1]), maxLength);
}

export function buildSnippet(markdown: string, queryStems: readonly string[], maxLength: number): string {
  return snippetOf(pageText(markdown), new SnippetQuery(queryStems), maxLength);
}

/**
 * A short summary when the page has no description: its opening text, after a leading heading
 * (which usually repeats the title). `text` is the page's `pageText`, reused when there is no such heading.
 */
export function fallbackDescription(markdown: string, text?: string, maxLength = DESCRIPTION_LENGTH): string {
  const heading = LEADING_HEADING.exec(markdown);
  if (text !== undefined && heading === null) return cutAtWord(text, maxLength);
  const body = markdown.slice(heading?.[0].length ?? 0, (heading?.[0].length ?? 0) + maxLength * 8);
  return cutAtWord(markdownToText(body), maxLength);
}
