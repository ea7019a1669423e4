/**
 * Query-biased snippets: the passage of the page that best matches the query, cut at a word
 * boundary. Sentences (core/passages.ts `segment`: line by line, never across two lines) are
 * scored by how many distinct query stems they hold (rarer coverage wins over repetition); the
 * best one is widened with its neighbours until the length is used.
 *
 * A search builds ten of these per request. A stored version of a long page carries a passage
 * index (core/passages.ts), which gives the best sentence without reading the page; other pages are
 * scanned once, in place: sentence bounds are offsets, and a word is stemmed only when it could
 * stem to a query stem (see `SnippetQuery`). Both ways give the same snippet.
 */
import { lineAt, lineText, PassageIndex, type Segments, segment, stemHash } from '../core/passages.js';
import { ASCII_WORD as SHARED_ASCII_WORD, cachedStem, cutAtWord, isPossessiveS, unicodeWords } from '../core/text.js';

const DESCRIPTION_LENGTH = 300;
const HEADING_LINE = /^\s*#{1,6}/;

const lower = (c: number) => (c >= 65 && c <= 90 ? c | 0x20 : c);

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

  private hashed: Uint32Array | undefined;

  constructor(stems: readonly string[]) {
    for (const s of stems) {
      if (s.length === 0 || this.index.has(s)) continue;
      this.index.set(s, this.index.size);
      const c = s.charCodeAt(0);
      if (c >= 128) continue; // only words outside ASCII stem to it, and the Unicode path stems them all
      (this.prefixes[c] ??= []).push(s.slice(0, Math.max(1, s.length - 1)));
    }
  }

  /** The distinct stems' hashes, for passage indexes (computed on first use: most pages have none). */
  get hashes(): Uint32Array {
    return (this.hashed ??= Uint32Array.from(new Set(Array.from(this.index.keys(), stemHash))));
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
 * digits and of characters outside ASCII; a possessive's s is none), but in one loop here without
 * a call per word: this loop is most of a long page's snippet.
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
        const stem = j - i === 1 && isPossessiveS(text, i) ? -1 : query.asciiWord(text, i, j);
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

/** Widens sentence `best` forward (reads naturally), then backward, while the passage fits: returns [from, to]. */
function widen(best: number, count: number, length: (s: number) => number, maxLength: number): [number, number] {
  let from = best;
  let to = best;
  let width = length(best);
  while (to + 1 < count && width + 1 + length(to + 1) <= maxLength) width += 1 + length(++to);
  while (from > 0 && width + 1 + length(from - 1) <= maxLength) width += 1 + length(--from);
  return [from, to];
}

/** The best passage of a page cut into `seg`, found by scanning its sentences. */
function scannedSnippet(seg: Segments, query: SnippetQuery, maxLength: number): string {
  const { text, bounds } = seg;
  if (text.length <= maxLength) return text;
  const best = bestSentence(text, bounds, query) / 2;
  const [from, to] = widen(best, bounds.length / 2, (s) => bounds[2 * s + 1]! - bounds[2 * s]!, maxLength);
  return cutAtWord(text.slice(bounds[2 * from], bounds[2 * to + 1]), maxLength);
}

/** The best passage of `markdown` by its passage index: only the lines of the passage are read. */
function indexedSnippet(markdown: string, index: PassageIndex, query: SnippetQuery, maxLength: number): string {
  if (index.textLength <= maxLength) return segment(markdown).text;
  const table = index.sentenceTable();
  const [from, to] = widen(index.best(query.hashes), index.sentences, (s) => table.length[s]!, maxLength);
  let passage = '';
  let line = -1;
  let text = '';
  for (let s = from; s <= to; s++) {
    const start = table.start[s]!;
    if (table.lineStart[s] !== line) {
      line = table.lineStart[s]!;
      text = lineText(lineAt(markdown, line));
      if (s > from) passage += ' '; // lines are joined by one space
    } else if (s > from && start > table.start[s - 1]! + table.length[s - 1]!) {
      passage += ' '; // the space between two sentences of a line (none after 。！？)
    }
    passage += text.slice(start, start + table.length[s]!);
  }
  return cutAtWord(passage, maxLength);
}

/** The fallback description (`fallbackDescription`) of a page already cut into `seg`. */
function openingOf(seg: Segments, markdown: string, maxLength: number): string {
  if (seg.bounds.length === 0) return '';
  const first = seg.lineStart[0]!;
  const end = markdown.indexOf('\n', first);
  let from = 0;
  if (end >= 0 && HEADING_LINE.test(markdown.slice(first, end))) {
    let k = 1;
    while (k < seg.lineStart.length && seg.lineStart[k] === first) k++;
    if (k === seg.lineStart.length) return '';
    from = seg.lineOffset[k]!;
  }
  return cutAtWord(from === 0 ? seg.text : seg.text.slice(from), maxLength);
}

/**
 * A result's snippet, the best passage of the page for the query in at most `maxLength`
 * characters, and, when `describe`, its fallback description: by the version's passage index
 * when it has one (of the current format), else by cutting the page into sentences once for both.
 */
export function pageSnippet(
  markdown: string,
  passages: Uint8Array | undefined,
  query: SnippetQuery,
  maxLength: number,
  describe = false,
): { snippet: string; description: string } {
  const index = passages && PassageIndex.open(passages);
  if (index) {
    return { snippet: indexedSnippet(markdown, index, query, maxLength), description: describe ? fallbackDescription(markdown) : '' };
  }
  const seg = segment(markdown);
  return { snippet: scannedSnippet(seg, query, maxLength), description: describe ? openingOf(seg, markdown, DESCRIPTION_LENGTH) : '' };
}

export function buildSnippet(markdown: string, queryStems: readonly string[], maxLength: number): string {
  return pageSnippet(markdown, undefined, new SnippetQuery(queryStems), maxLength).snippet;
}

/**
 * A short summary when the page has no description: the texts of its opening lines, after a
 * leading heading (which usually repeats the title) when anything follows it.
 */
export function fallbackDescription(markdown: string, maxLength = DESCRIPTION_LENGTH): string {
  const parts: string[] = [];
  let length = 0;
  let first = true;
  for (let start = 0; start < markdown.length && length <= maxLength; ) {
    let end = markdown.indexOf('\n', start);
    if (end < 0) end = markdown.length;
    const line = markdown.slice(start, end);
    start = end + 1;
    const t = lineText(line);
    if (t.length === 0) continue;
    const heading = first && HEADING_LINE.test(line) && end < markdown.length;
    first = false;
    if (heading) continue;
    parts.push(t);
    length += t.length + 1;
  }
  return cutAtWord(parts.join(' '), maxLength);
}
