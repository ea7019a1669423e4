/**
 * Query-biased snippets: the passage of the page that best matches the query, cut at a word
 * boundary. Sentences (core/passages.ts `segment`: line by line, never across two lines) are
 * scored by how many distinct query stems they hold (rarer coverage wins over repetition); the
 * best one is widened with its neighbours until the length is used. Two lines of a passage are
 * joined by a space within a paragraph and by a newline where the second starts a block (a
 * paragraph, a heading, a list item, a table row: passages.ts `startsBlock`) or either is a code
 * block's line, so a heading does not run into the sentence under it, nor one line of code into the next. A page's first line, when it is a heading the result's title already
 * shows (a markdown page's `# Title`), is no part of a snippet: the title is shown above it, and a
 * query of the title's words would otherwise find that heading best on every such page.
 *
 * A search builds ten of these per request. A stored version of a long page carries a passage
 * index (core/passages.ts), which gives the best sentence without reading the page; other pages are
 * scanned once, in place: sentence bounds are offsets, and a word is stemmed only when it could
 * stem to a query stem (see `SnippetQuery`). Both ways give the same snippet.
 */
import { CODE_LINE, codeLines, FENCE_LINE } from '../core/escapes.js';
import { isHeadingAt, lineAt, lineText, PassageIndex, SCAN_LIMIT, type Segments, segment, startsBlock, stemHash } from '../core/passages.js';
import { ASCII_WORD as SHARED_ASCII_WORD, asciiWordEnd, cachedStem, CompoundChain, compoundWord, cutAtWord, joinsDigits, nextToHyphen, termPrefix, unicodeWords, wideRunEnd } from '../core/text.js';

const DESCRIPTION_LENGTH = 300;

const lower = (c: number) => (c >= 65 && c <= 90 ? c | 0x20 : c);

const HYPHEN = 45;
const COMMA = 44;

/**
 * Whether text[i, j), lowercased and its `skip` characters left out, starts with `prefix`, whose
 * first character the caller has matched.
 */
function startsWith(text: string, i: number, j: number, prefix: string, skip: number): boolean {
  let k = 1;
  let at = i + 1;
  while (k < prefix.length && at < j) {
    const c = text.charCodeAt(at++);
    if (c === skip) continue;
    if (lower(c) !== prefix.charCodeAt(k)) return false;
    k++;
  }
  return k === prefix.length;
}

/**
 * The query's stems, prepared once per search. A Porter stem keeps its word's first character
 * and, but for its last character, is a prefix of its word (its rules only rewrite a suffix, and
 * only the stem's final letter can be one the word does not have there: happy -> happi), and a
 * number's term is its digits (`1,000` -> `1000`); the test suite checks this over the whole
 * SciFact vocabulary. So an ASCII word is stemmed only when it starts with one of these prefixes
 * (a number's commas skipped), and the words that are stemmed are exactly matched.
 */
export class SnippetQuery {
  /** stem -> its index, for distinct counting. */
  readonly index = new Map<string, number>();
  /** Prefixes that a word must start with to stem to a query stem, by their lowercase first character. */
  readonly prefixes: (string[] | undefined)[] = new Array(128);

  /**
   * Each stem's weight, by its index: what holding it is worth to a sentence, 1 for the rarest of
   * the query's stems in the index (the caller's `weights`; all 1 when none are given).
   */
  readonly weights: Float64Array;

  private hashed: Uint32Array | undefined;
  private hashWeights: Float64Array | undefined;

  /** `weights`: one per stem of `stems` (a repeated stem takes its first's). */
  constructor(stems: readonly string[], weights?: readonly number[]) {
    const kept: number[] = [];
    for (const [k, s] of stems.entries()) {
      if (s.length === 0 || this.index.has(s)) continue;
      this.index.set(s, this.index.size);
      kept.push(weights?.[k] ?? 1);
      const c = s.charCodeAt(0);
      if (c >= 128) continue; // only words outside ASCII stem to it, and the Unicode path stems them all
      (this.prefixes[c] ??= []).push(termPrefix(s));
    }
    this.weights = Float64Array.from(kept);
  }

  /** The distinct stems' hashes, for passage indexes (computed on first use: most pages have none). */
  get hashes(): Uint32Array {
    if (this.hashed === undefined) this.hash();
    return this.hashed!;
  }

  /** The weight of each of `hashes` (of two stems of one hash, the higher). */
  get hashedWeights(): Float64Array {
    if (this.hashWeights === undefined) this.hash();
    return this.hashWeights!;
  }

  private hash(): void {
    const at = new Map<number, number>();
    const weights: number[] = [];
    for (const [s, k] of this.index) {
      const h = stemHash(s);
      const i = at.get(h);
      if (i === undefined) {
        at.set(h, weights.length);
        weights.push(this.weights[k]!);
      } else {
        weights[i] = Math.max(weights[i]!, this.weights[k]!);
      }
    }
    this.hashed = Uint32Array.from(at.keys());
    this.hashWeights = Float64Array.from(weights);
  }

  get size(): number {
    return this.index.size;
  }

  /**
   * The index of the query stem the joined word of the compound text[i, j) stems to (text.ts
   * `compoundWord`), or -1. As for a word, the joined word is made and stemmed only when it
   * starts with a query stem's prefix (its hyphens skipped).
   */
  compound(text: string, i: number, j: number): number {
    const candidates = this.prefixes[lower(text.charCodeAt(i))];
    if (candidates === undefined) return -1;
    for (const p of candidates) {
      if (startsWith(text, i, j, p, HYPHEN)) return this.index.get(cachedStem(compoundWord(text, i, j))) ?? -1;
    }
    return -1;
  }

  /**
   * The index of the query stem the ASCII word text[i, j) stems to, or -1. A number's commas are
   * skipped (`1,000` stems to `1000`: text.ts `stem`); in an ASCII word a comma is only ever
   * between digits.
   */
  asciiWord(text: string, i: number, j: number): number {
    const candidates = this.prefixes[lower(text.charCodeAt(i))];
    if (candidates === undefined) return -1;
    for (const p of candidates) {
      if (p.length <= j - i && startsWith(text, i, j, p, COMMA)) return this.index.get(cachedStem(text.slice(i, j).toLowerCase())) ?? -1;
    }
    return -1;
  }
}

/** The scan's table of ASCII word characters, bound here: read through the import binding, the scan took 1.09x as long. */
const ASCII_WORD = SHARED_ASCII_WORD;

/** The stem's weight when `stem` is counted in sentence `mark` for the first time (and marks it so), else 0. */
function firstInSentence(last: Int32Array, stem: number, mark: number, weights: Float64Array): number {
  if (last[stem] === mark) return 0;
  last[stem] = mark;
  return weights[stem]!;
}

/**
 * The best sentence from sentence `first` on (its index in `bounds`, a multiple of two; the first
 * of equals). How well a
 * sentence matches: ten points per distinct query stem it holds (times the stem's weight: a rare
 * word's sentence before a common word's), plus one per occurrence up to five. Words are those of `words()`, found as `scanWords` finds them (runs of ASCII letters and
 * digits and of characters outside ASCII; a possessive's s is none), but in one loop here without
 * a call per word: this loop is most of a long page's snippet.
 */
export function bestSentence(text: string, bounds: readonly number[], query: SnippetQuery, first = 0): number {
  // The sentence (+1) in which each query stem was last counted: distinct stems per sentence without a set.
  const last = new Int32Array(query.size);
  const weights = query.weights;
  const chain = new CompoundChain(text);
  let best = 2 * first;
  let bestScore = -1;
  for (let s = 2 * first; s < bounds.length; s += 2) {
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
      let plain = true;
      for (; j < end; j++) {
        const d = text.charCodeAt(j);
        if (d < 128) {
          if (ASCII_WORD[d] === 0) {
            if (!joinsDigits(text, j, end)) break; // 3.12 is one word
            plain = false;
          }
        } else {
          ascii = false;
        }
      }
      if (ascii) {
        const wordEnd = asciiWordEnd(text, i, j, end); // C++ is one word, a possessive's s none
        if (wordEnd !== j) plain = false;
        if (wordEnd >= 0) j = wordEnd;
        // A compound's joined word counts as the index counts it (text.ts `compoundWord`); only a
        // word next to a hyphen can start, extend or end one (`CompoundChain`).
        if (nextToHyphen(text, i, j) && chain.word(i, j, plain)) {
          const stem = query.compound(text, chain.doneStart, chain.doneEnd);
          if (stem >= 0) {
            hits++;
            distinct += firstInSentence(last, stem, mark, weights);
          }
        }
        const stem = wordEnd < 0 ? -1 : query.asciiWord(text, i, j);
        if (stem >= 0) {
          hits++;
          distinct += firstInSentence(last, stem, mark, weights);
        }
      } else {
        j = wideRunEnd(text, j, end); // —C++ ends with the word C++
        if (nextToHyphen(text, i, j) && chain.run(i, j)) {
          const stem = query.compound(text, chain.doneStart, chain.doneEnd);
          if (stem >= 0) {
            hits++;
            distinct += firstInSentence(last, stem, mark, weights);
          }
        }
        for (const w of unicodeWords(text, i, j)) {
          const stem = query.index.get(cachedStem(w));
          if (stem === undefined) continue;
          hits++;
          distinct += firstInSentence(last, stem, mark, weights);
        }
      }
      i = j;
    }
    if (chain.finish()) {
      const stem = query.compound(text, chain.doneStart, chain.doneEnd);
      if (stem >= 0) {
        hits++;
        distinct += firstInSentence(last, stem, mark, weights);
      }
    }
    const score = distinct * 10 + Math.min(hits, 5);
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  return best;
}

/** Widens sentence `best` forward (reads naturally), then backward to sentence `first` at most, while the passage fits: returns [from, to]. */
function widen(best: number, first: number, count: number, length: (s: number) => number, maxLength: number): [number, number] {
  let from = best;
  let to = best;
  let width = length(best);
  while (to + 1 < count && width + 1 + length(to + 1) <= maxLength) width += 1 + length(++to);
  while (from > first && width + 1 + length(from - 1) <= maxLength) width += 1 + length(--from);
  return [from, to];
}

/** A text's words, lowercased: its runs of letters, digits and marks. */
function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
}

/**
 * Whether a text (a heading, a description) adds nothing to the title shown above it: the title holds
 * its words, in a row, whatever stands between them (`Rust ownership` in `Rust Ownership | The Blog`;
 * `review – shoots` in `review - shoots`; `It’s here` in `It's here`; not `art` in `Heart`).
 */
export function inTitle(text: string, title: string): boolean {
  const h = wordsOf(text);
  const t = wordsOf(title);
  if (h.length === 0) return false;
  for (let at = 0; at + h.length <= t.length; at++) {
    let i = 0;
    while (i < h.length && t[at + i] === h[i]) i++;
    if (i === h.length) return true;
  }
  return false;
}

/**
 * How many sentences the page's title heading is: those of its first line of text, when that is a
 * heading the title holds (`inTitle`); else 0. `lineStart` gives each sentence's line, `text` the
 * first line's text.
 */
function titleSentences(markdown: string, title: string | undefined, count: number, lineStart: (s: number) => number, code: boolean, text: () => string): number {
  if (title === undefined || count === 0 || code || !isHeadingAt(markdown, lineStart(0)) || !inTitle(text(), title)) return 0;
  let n = 1;
  while (n < count && lineStart(n) === lineStart(0)) n++;
  return n;
}

/**
 * Sentences `from` to `to` of `seg` (of `markdown`) as one passage: their text, but for the space
 * that joins two lines where the second starts a block (`startsBlock`), which is a newline.
 */
function passageOf(seg: Segments, markdown: string, from: number, to: number): string {
  const { text, bounds, lineStart, lineOffset } = seg;
  const start = bounds[2 * from]!;
  const end = bounds[2 * to + 1]!;
  if (lineOffset[from] === lineOffset[to]) return text.slice(start, end);
  let passage = '';
  let at = start;
  for (let s = from + 1; s <= to; s++) {
    if (lineStart[s] === lineStart[s - 1] || !(seg.code[s] || seg.code[s - 1] || startsBlock(markdown, lineStart[s - 1]!, lineStart[s]!))) continue;
    const space = lineOffset[s]! - 1; // segment joins the texts of two lines by one space
    passage += `${text.slice(at, space)}\n`;
    at = space + 1;
  }
  return passage + text.slice(at, end);
}

/** The text of a page cut into `seg` from sentence `first` on, its lines joined as a passage's are. */
function wholeText(seg: Segments, markdown: string, first: number): string {
  const count = seg.bounds.length / 2;
  if (count === 0) return seg.text;
  return first < count ? passageOf(seg, markdown, first, count - 1) : '';
}

/** The title heading's sentences of a page cut into `seg` (`titleSentences`). */
function segmentTitle(seg: Segments, markdown: string, title: string | undefined): number {
  const { text, bounds, lineStart } = seg;
  const count = bounds.length / 2;
  return titleSentences(markdown, title, count, (s) => lineStart[s]!, seg.code[0] === 1, () => {
    let last = 0;
    while (last + 1 < count && lineStart[last + 1] === lineStart[0]) last++;
    return text.slice(bounds[0], bounds[2 * last + 1]);
  });
}

/** The best passage of a page cut into `seg`, found by scanning its sentences. */
function scannedSnippet(seg: Segments, markdown: string, query: SnippetQuery, maxLength: number, title: string | undefined): string {
  const { text, bounds } = seg;
  const first = segmentTitle(seg, markdown, title);
  const count = bounds.length / 2;
  if (first === count) return '';
  if (text.length - (first === 0 ? 0 : bounds[2 * first]!) <= maxLength) return wholeText(seg, markdown, first);
  const best = bestSentence(text, bounds, query, first) / 2;
  const [from, to] = widen(best, first, count, (s) => bounds[2 * s + 1]! - bounds[2 * s]!, maxLength);
  return cutAtWord(passageOf(seg, markdown, from, to), maxLength);
}

/** The best passage of `markdown` by its passage index: only the lines of the passage are read. */
function indexedSnippet(markdown: string, index: PassageIndex, query: SnippetQuery, maxLength: number, title: string | undefined): string {
  const table = index.sentenceTable();
  let firstText: string | undefined; // read once, for the title check and the length it skips
  const firstLine = () => (firstText ??= lineText(lineAt(markdown, table.lineStart[0]!), table.code[0] === 1));
  const first = titleSentences(markdown, title, index.sentences, (s) => table.lineStart[s]!, table.code[0] === 1, firstLine);
  if (first === index.sentences) return '';
  // The text from sentence `first` on: the title line's text and the space after it left out.
  const skipped = first === 0 ? 0 : firstLine().length + 1;
  if (index.textLength - skipped <= maxLength) return wholeText(segment(markdown), markdown, first);
  const [from, to] = widen(index.best(query.hashes, first, query.hashedWeights), first, index.sentences, (s) => table.length[s]!, maxLength);
  let passage = '';
  let line = -1;
  let text = '';
  for (let s = from; s <= to; s++) {
    const start = table.start[s]!;
    if (table.lineStart[s] !== line) {
      if (s > from) passage += table.code[s] || table.code[s - 1] || startsBlock(markdown, line, table.lineStart[s]!) ? '\n' : ' '; // as passageOf joins lines
      line = table.lineStart[s]!;
      text = lineText(lineAt(markdown, line), table.code[s] === 1);
    } else if (s > from && start > table.start[s - 1]! + table.length[s - 1]!) {
      passage += ' '; // the space between two sentences of a line (none after 。！？)
    }
    passage += text.slice(start, start + table.length[s]!);
  }
  return cutAtWord(passage, maxLength);
}

/** The fallback description (`fallbackDescription`) of a page already cut into `seg`. */
function openingOf(seg: Segments, markdown: string, maxLength: number): string {
  const { text, lineStart, lineOffset } = seg;
  const n = lineStart.length;
  const md = markdown.length > SCAN_LIMIT ? markdown.slice(0, SCAN_LIMIT) : markdown; // the part fallbackDescription reads
  const opening = new Opening(maxLength);
  for (let s = 0; s < n && opening.wants(); ) {
    const line = lineStart[s]!;
    let k = s + 1;
    while (k < n && lineStart[k] === line) k++;
    opening.add(text.slice(lineOffset[s]!, k < n ? lineOffset[k]! - 1 : text.length), seg.code[s] === 1 || isHeadingAt(md, line));
    s = k;
  }
  return opening.text();
}

/**
 * A result's snippet, the best passage of the page for the query in at most `maxLength`
 * characters, and, when `describe`, its fallback description: by the version's passage index
 * when it has one (of the current format), else by cutting the page into sentences once for both.
 * `title`, the result's: a first heading it holds is no part of the snippet (`titleSentences`).
 */
export function pageSnippet(
  markdown: string,
  passages: Uint8Array | undefined,
  query: SnippetQuery,
  maxLength: number,
  options: { describe?: boolean; title?: string } = {},
): { snippet: string; description: string } {
  const { describe = false, title } = options;
  const index = passages && PassageIndex.open(passages);
  if (index) {
    return { snippet: indexedSnippet(markdown, index, query, maxLength, title), description: describe ? fallbackDescription(markdown) : '' };
  }
  const seg = segment(markdown);
  return { snippet: scannedSnippet(seg, markdown, query, maxLength, title), description: describe ? openingOf(seg, markdown, DESCRIPTION_LENGTH) : '' };
}

export function buildSnippet(markdown: string, queryStems: readonly string[], maxLength: number): string {
  return pageSnippet(markdown, undefined, new SnippetQuery(queryStems), maxLength).snippet;
}

/** The opening lines' texts of a fallback description, headings and code apart: the texts when there are any, else the others'. */
class Opening {
  private readonly parts: string[] = [];
  private readonly headings: string[] = [];
  private length = 0;
  private headingsLength = 0;

  constructor(private readonly maxLength: number) {}

  /** Whether another line could still be part of it. */
  wants(): boolean {
    return this.length <= this.maxLength;
  }

  add(text: string, heading: boolean): void {
    if (!heading) {
      this.parts.push(text);
      this.length += text.length + 1;
    } else if (this.parts.length === 0 && this.headingsLength <= this.maxLength) {
      this.headings.push(text);
      this.headingsLength += text.length + 1;
    }
  }

  text(): string {
    return cutAtWord((this.parts.length > 0 ? this.parts : this.headings).join(' '), this.maxLength);
  }
}

/**
 * A page's own description as a result or a fetch gives it: spaces folded and cut at a word near
 * `DESCRIPTION_LENGTH` like the fallback's, since some pages put their whole article in their meta
 * description (one of the extraction benchmark's, 2,000 characters).
 */
export function shortDescription(description: string): string {
  return cutAtWord(description.replace(/\s+/g, ' ').trim(), DESCRIPTION_LENGTH);
}

/**
 * A short summary when the page has no description: the texts of its opening lines (in the part
 * that is scanned, `SCAN_LIMIT`) joined by spaces, headings left out (the first repeats the
 * title; a later one, run into the text, reads as part of it) and a code block's lines (code says
 * little of a page); a page of headings and code alone gives theirs.
 */
export function fallbackDescription(markdown: string, maxLength = DESCRIPTION_LENGTH): string {
  const md = markdown.length > SCAN_LIMIT ? markdown.slice(0, SCAN_LIMIT) : markdown;
  const kinds = codeLines(md);
  const opening = new Opening(maxLength);
  for (let start = 0, i = 0; start < md.length && opening.wants(); i++) {
    let end = md.indexOf('\n', start);
    if (end < 0) end = md.length;
    const code = kinds?.[i] === CODE_LINE;
    const t = kinds?.[i] === FENCE_LINE ? '' : lineText(md.slice(start, end), code);
    if (t.length > 0) opening.add(t, code || isHeadingAt(md, start));
    start = end + 1;
  }
  return opening.text();
}
