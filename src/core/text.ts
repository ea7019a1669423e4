/**
 * Text analysis shared by query building and snippets: Unicode word runs, lowercase, diacritics
 * folded, Lucene's English stop words removed, Porter stems. The SQLite index tokenizes with FTS5's
 * `porter unicode61`, which does the same folding and stemming.
 */
import { stemmer } from 'stemmer';

/** Lucene's EnglishAnalyzer default stop set. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);

const WORD_RE = /[\p{L}\p{N}]+/gu;
const MARKS_RE = /\p{M}+/gu;

export function fold(word: string): string {
  return word.normalize('NFD').replace(MARKS_RE, '').toLowerCase();
}

/** Folded words of `text`, in order, stop words kept. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD_RE)) out.push(fold(m[0]));
  return out;
}

export function stem(word: string): string {
  return /^[a-z]+$/.test(word) ? stemmer(word) : word;
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

function pushTerm(out: string[], w: string): void {
  if (!STOP_WORDS.has(w)) out.push(cachedStem(w));
}

/**
 * Calls `visit` with the bounds of each word run of `text` in order: runs of ASCII letters and
 * digits are cut by hand (`ascii` true: the word is the run, lowercased); a run holding any other
 * character (`ascii` false) holds the words the Unicode word pattern finds in it, to be folded.
 * Together they are exactly the words of `words()`, found faster. `from` and `to` scan a part of
 * `text` that starts and ends at a word boundary.
 */
export function scanWords(text: string, visit: (start: number, end: number, ascii: boolean) => void, from = 0, to = text.length): void {
  const n = to;
  let i = from;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 128 && !isAsciiWordChar(c)) {
      i++;
      continue;
    }
    let j = i;
    let ascii = true;
    for (; j < n; j++) {
      const d = text.charCodeAt(j);
      if (d < 128) {
        if (!isAsciiWordChar(d)) break;
      } else {
        ascii = false;
      }
    }
    visit(i, j, ascii);
    i = j;
  }
}

/** The folded words of a run `scanWords` reported as not ASCII. */
export function unicodeWords(run: string): string[] {
  const out: string[] = [];
  for (const m of run.matchAll(WORD_RE)) out.push(fold(m[0]));
  return out;
}

/**
 * The terms the search engine indexes for `text`: folded words, stop words removed, stemmed, in
 * order. The same words as `words()` (see `scanWords`).
 */
export function indexTerms(text: string): string[] {
  const out: string[] = [];
  scanWords(text, (i, j, ascii) => {
    if (ascii) pushTerm(out, text.slice(i, j).toLowerCase());
    else for (const w of unicodeWords(text.slice(i, j))) pushTerm(out, w);
  });
  return out;
}

/** Distinct query terms: folded, stop words removed (unless nothing else is left), in first-seen order. */
export function queryTerms(query: string): string[] {
  const all = words(query);
  const kept = all.filter((w) => !STOP_WORDS.has(w));
  return [...new Set(kept.length > 0 ? kept : all)];
}

/** Whitespace to fold: a run of two or more, or one character that is not a space. */
const FOLD_RE = /\s{2,}|[^\S ]/g;

/** Plain text of markdown: images, link targets, emphasis and heading marks dropped, whitespace folded. */
export function markdownToText(markdown: string): string {
  // Each pass runs only when its pattern can match (every image or link holds "](").
  let text = markdown;
  if (text.includes('```')) text = text.replace(/```[^\n]*\n/g, '');
  if (text.includes('](')) text = text.replace(/!\[[^\]]*\]\([^)]*\)/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  text = text.replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '');
  if (/[*_`|]/.test(text)) text = text.replace(/[*_`|]+/g, ' ');
  // Each run of whitespace becomes one space, as /\s+/g would make it; a lone space is not matched,
  // or every space of the page would be rewritten (a 30 kB page's text took twice as long).
  return text.replace(FOLD_RE, ' ').trim();
}

/** Cuts `text` to at most `max` characters at a word boundary, adding an ellipsis when cut. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - 1; // the ellipsis
  let cut = text.lastIndexOf(' ', room);
  if (cut < room * 0.5) cut = room; // one very long word: cut inside it rather than lose most of the room
  let end = cut;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}
