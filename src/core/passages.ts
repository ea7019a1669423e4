/**
 * A page's passages: its sentences, found line by line in its markdown, and a small index of the
 * stems each sentence holds, built once when a version is stored. A search then picks the best
 * passage of a long page from the index and turns only the lines it shows into text; scanning the
 * whole page instead cost about 0.5 ms per 30 kB result (docs/BENCHMARKS.md, bench:snippets).
 *
 * Both ways see the same sentences (`segment`) and give them the same scores, so a page's snippet
 * does not depend on whether its version has an index (a test compares them).
 *
 * The index (little-endian bytes):
 * - six uint32: the format, the page text's length, the number of sentences, the number of
 *   terms, the byte offset of the posting lengths and of the postings;
 * - one uint32 per term: its stem's 32-bit hash (`stemHash`), in ascending order;
 * - varints per sentence: how far its line starts after the previous sentence's line in the
 *   markdown, where it starts in its line's text, and its length;
 * - a varint per term: the byte length of its postings;
 * - per term, its postings: the sentence of each occurrence, ascending, each as a varint of the
 *   difference from the one before (0 for a second occurrence in the same sentence).
 * Two stems of a page with the same hash share a term (about one page in a million for a 1,000-term
 * page); a query stem whose hash a page holds for another stem counts as found there. Either only
 * changes which sentence a snippet shows.
 */
import { CODE_LINE, codeLines, holdAll, holdCode, holdEscapes, mayHold, releaseEscapes } from './escapes.js';
import { ANALYSIS_VERSION, cachedStem, compoundWord, HEADING_MARK, INDENT, LINE_MARKER_RE, LIST_MARK, scanWords, unicodeWords, withoutClosingHashes, withoutMarks, withoutRuleLines } from './text.js';

/** Pages can be large; passages are looked for in the first part only. */
export const SCAN_LIMIT = 200_000;
/**
 * Bumped when `segment` or the layout changes. 2: sentences also end at 。！？. 3: not inside a quote
 * the sentence goes on from (「本当？」と聞いた。). 4: every marker at a line's start is taken off (`> - item`).
 * 5: a table's delimiter row and a thematic break hold no text. 6: a line opening with a code span
 * (```a``b```) is no fence line, and a tilde fence (~~~) is one; a strikethrough's ~~ holds no text.
 * 7: a backslash escape (`\#`, `\*`: markdown.ts escapes what a page shows as text) is its character.
 * 8: a code span reads as written, and a `_` inside a word, a `*` between spaces and a pipe outside
 * a table row are text (text.ts `withoutMarks`); a heading's text keeps the markers it opens with;
 * a code block's line reads as written (`codeLines`), and the index says which lines are code;
 * a line of `***`, `___` or `===` holds no text, nor does a heading's closing `#`s.
 * 9: a quote's marker needs no space after it (`>` alone holds no text; `>x` is a quote of `x`);
 * a dot before a lowercase letter, after an initial or after a title ends no sentence (`dotsGoOn`).
 */
const PASSAGES_LAYOUT = 9;
/**
 * The layout and the analysis of the words (text.ts ANALYSIS_VERSION), so that a change of either
 * leaves an index of another format unread (the page is scanned instead) until `websearch import`
 * or `index rebuild` builds it again.
 */
export const PASSAGES_FORMAT = (PASSAGES_LAYOUT << 16) | ANALYSIS_VERSION;
/** Below this many markdown characters a page is scanned at search time (1.5 kB: 28-52 us a result, bench:snippets) and stores no index. */
export const PASSAGE_INDEX_MIN = 4_000;

const HEADER_BYTES = 24;

/** Plain text of one markdown line ('' for a code fence line); a line of a code block (`code`, `codeLines`) as it is written. */
export function lineText(line: string, code = false): string {
  return (code ? linesToText(holdAll(line), true) : linesToText(line)).trim();
}

/** The markdown line starting at `start` (within the scanned part). */
export function lineAt(markdown: string, start: number): string {
  const limit = Math.min(markdown.length, SCAN_LIMIT);
  const end = markdown.indexOf('\n', start);
  return markdown.slice(start, end < 0 || end > limit ? limit : end);
}

/** A heading's and a list item's marker at a line's start (sticky: tested at an offset without a slice). */
const HEADING_AT = new RegExp(`${INDENT}${HEADING_MARK}[^\\S\\n]`, 'y');
const LIST_ITEM_AT = new RegExp(`${INDENT}(?:${LIST_MARK})[^\\S\\n]`, 'y');
/** A table row's line: it opens with a pipe (markdown.ts writes each row so). */
const TABLE_ROW_AT = new RegExp(`${INDENT}\\|`, 'y');

function startsWith(pattern: RegExp, markdown: string, at: number): boolean {
  pattern.lastIndex = at;
  return pattern.test(markdown);
}

/** Whether the markdown line at `at` is a heading (`## Title`). */
export function isHeadingAt(markdown: string, at: number): boolean {
  return startsWith(HEADING_AT, markdown, at);
}

/**
 * Whether the text of the markdown line at `next` starts a block of its own after that of the
 * line at `previous` (the line before it that has text): a line without text between them (a
 * paragraph's end, a code fence), or a heading or a table row on either side, or a list item at
 * `next`. A snippet joins two such lines by a newline (a table's rows stay a row a line); lines of
 * one paragraph are joined by a space, as markdown renders a soft line break, so hard-wrapped text reads on.
 */
export function startsBlock(markdown: string, previous: number, next: number): boolean {
  const end = markdown.indexOf('\n', previous);
  if (end < 0 || next > end + 1) return true;
  return isHeadingAt(markdown, previous) || isHeadingAt(markdown, next) || startsWith(LIST_ITEM_AT, markdown, next) || startsWith(TABLE_ROW_AT, markdown, next) || startsWith(TABLE_ROW_AT, markdown, previous);
}

const isTerminator = (c: number) => c === 46 || c === 33 || c === 63; // . ! ?
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;

/** The ideographic full stop and the fullwidth ! and ?: they end a sentence with or without a space after them. */
const isWideTerminator = (c: number) => c === 0x3002 || c === 0xff01 || c === 0xff1f;
/** Closing brackets and quotes that stay with the sentence a wide terminator ends (「...。」). */
const isWideClose = (c: number) => c === 0x300d || c === 0x300f || c === 0x3011 || c === 0xff09;
const isHiragana = (c: number) => c >= 0x3041 && c <= 0x309f;

/** The first of 。！？ at or after `from`, or -1: by `indexOf`, which answers at once for a string of one-byte characters. */
function nextWide(text: string, from: number): number {
  let i = text.indexOf('\u3002', from);
  const bang = text.indexOf('\uff01', from);
  if (bang >= 0 && (i < 0 || bang < i)) i = bang;
  const ask = text.indexOf('\uff1f', from);
  if (ask >= 0 && (i < 0 || ask < i)) i = ask;
  return i;
}

/**
 * Words a `.` follows that ends no sentence: a title before a name (`Mr. Trump`, `Dr. Khaldun`,
 * `Gov. Noem`) and a month or a number's word before a number (`Nov. 18`, `No. 5`). A company's
 * `Co.` or `Inc.` often ends one: those go on only before a lowercase letter.
 */
const ABBREVIATIONS = new Set(
  'Mr Mrs Ms Mx Dr Prof St Mt Gen Gov Sen Rep Rev Hon Lt Col Capt Sgt Cpl Adm Cmdr Supt Pres Amb Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec No Nos Vol Fig Figs vs cf approx'.split(' '),
);

const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const LOWER_RE = /^\p{Ll}/u;

/**
 * Whether the run of terminators at [i, j), followed by a space at j, goes on instead of ending a
 * sentence: a run of dots before a lowercase letter (`Pacific Gas & Electric Co. was set`, `e.g.
 * the`, `so... and`), or one dot after an initial (`John F. Kennedy`) or after a word of
 * ABBREVIATIONS (`Mr. Trump`), or after a dotted initialism of capitals (`U.S. Treasury`).
 */
function dotsGoOn(text: string, i: number, j: number): boolean {
  for (let k = i; k < j; k++) if (text.charCodeAt(k) !== 46) return false;
  const next = text.charCodeAt(j + 1);
  if ((next >= 97 && next <= 122) || (next >= 128 && LOWER_RE.test(text.slice(j + 1, j + 3)))) return true;
  if (j - i !== 1) return false;
  let w = i;
  while (w > 0 && isAsciiLetter(text.charCodeAt(w - 1))) w--;
  if (w === i || (w > 0 && text.charCodeAt(w - 1) >= 128)) return false;
  const first = text.charCodeAt(w);
  const capital = i - w === 1 && first >= 65 && first <= 90;
  // The last letter of a dotted initialism goes on if all its letters are capitals (`U.S. Treasury`,
  // `Washington, D.C. Police`); `a.m.` and `e.g.` do only before a lowercase letter.
  if (w > 0 && text.charCodeAt(w - 1) === 46) return capital && isInitialism(text, w);
  return capital || ABBREVIATIONS.has(text.slice(w, i));
}

/** Whether the capital at `last` ends a run of dotted capitals (`U.S`, `D.C`, `U.N.E.S.C.O`) that starts a word. */
function isInitialism(text: string, last: number): boolean {
  let k = last;
  while (k >= 2 && text.charCodeAt(k - 1) === 46) {
    const c = text.charCodeAt(k - 2);
    if (c < 65 || c > 90) return false;
    k -= 2;
  }
  return k !== last && (k === 0 || (!isAsciiLetter(text.charCodeAt(k - 1)) && text.charCodeAt(k - 1) < 128));
}

/**
 * Sentence bounds of `text` (whitespace already folded to single spaces): a sentence ends after a
 * run of . ! ? that is followed by a space or the end (but for dots that go on: `dotsGoOn`), or after a run holding 。！？ (Chinese and
 * Japanese put no space after them) and the closing brackets that follow it, unless a hiragana
 * follows those brackets (a quote the sentence goes on from: 「本当？」と聞いた。). Returns [start0, end0,
 * start1, end1, ...], trimmed, in order; sentences are separated by the one space between them, or
 * by none after 。！？. Terminators are found with `indexOf`, the next of each kind kept until
 * passed: a loop over every character took four times as long on the search benchmark's
 * 850-character pages (3.2-3.8 against 0.8-1.0 us, timed ad hoc).
 */
export function sentenceBounds(text: string): number[] {
  const bounds: number[] = [];
  const n = text.length;
  let start = 0;
  while (start < n && isSpace(text.charCodeAt(start))) start++;
  let dot = text.indexOf('.', start);
  let bang = text.indexOf('!', start);
  let ask = text.indexOf('?', start);
  let wide = nextWide(text, start);
  for (;;) {
    let i = dot;
    if (i < 0 || (bang >= 0 && bang < i)) i = bang;
    if (i < 0 || (ask >= 0 && ask < i)) i = ask;
    if (i < 0 || (wide >= 0 && wide < i)) i = wide;
    if (i < 0) break;
    let j = i;
    let ends = false;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (isWideTerminator(c)) ends = true;
      else if (!isTerminator(c)) break;
    }
    if (ends) {
      const closed = j;
      while (j < n && isWideClose(text.charCodeAt(j))) j++;
      // A quote the sentence goes on from (「本当？」と聞いた。: と, って, が... are hiragana) ends nothing.
      if (j > closed && j < n && isHiragana(text.charCodeAt(j))) ends = false;
    }
    if (ends || j === n || (isSpace(text.charCodeAt(j)) && !dotsGoOn(text, i, j))) {
      bounds.push(start, j);
      start = j;
      while (start < n && isSpace(text.charCodeAt(start))) start++;
    }
    if (dot >= 0 && dot < j) dot = text.indexOf('.', j);
    if (bang >= 0 && bang < j) bang = text.indexOf('!', j);
    if (ask >= 0 && ask < j) ask = text.indexOf('?', j);
    if (wide >= 0 && wide < j) wide = nextWide(text, j);
  }
  let end = n;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (end > start) bounds.push(start, end);
  return bounds;
}

/** A page cut into sentences. */
export interface Segments {
  /** Per sentence: 1 when its line is a code block's (`codeLines`), read as it is written; else 0. */
  code: number[];
  /** The page's text: the texts of its lines (up to `SCAN_LIMIT`) that have any, joined by one space. */
  text: string;
  /** Sentence bounds in `text`: [start0, end0, start1, end1, ...]; a sentence never spans two lines. */
  bounds: number[];
  /** Per sentence: the offset in the markdown of the line it is on. */
  lineStart: number[];
  /** Per sentence: the offset in `text` of its line's text. */
  lineOffset: number[];
}

/**
 * A code fence line, at a line's start (after a newline, not a \r): three or more backticks and
 * no backtick after them (CommonMark: a backtick fence's info string holds none, so a paragraph
 * opening with a code span, ```a``b``` (code holding two backticks), is text), or three or more
 * tildes and anything after them.
 */
const FENCE_LINE_RE = /(?<![^\n])[^\S\n]{0,3}(?:`{3,}[^`\n]*(?![^\n])|~{3,}[^\n]*)/g;

/**
 * The plain text of each line of `markdown`, untrimmed, joined by newlines: the passes of
 * `markdownToText` with no pattern crossing a newline (and a code fence line emptied), so the
 * lines converted at once come out as each converted alone (a test holds them equal), with one
 * call per page instead of one per line. A pass runs only when `indexOf` finds what it could
 * change (a test holds the result to that of every pass run): each pass is a scan of the page by a
 * regular expression, 0.7-4 us on the search benchmark's 850-character pages of plain sentences
 * (timed ad hoc). With `sentenceBounds`, a result of those pages took 17.4 instead of 20.8 us
 * (bench:snippets' first line).
 */
function linesToText(markdown: string, heldAlready = false): string {
  const held = heldAlready || mayHold(markdown);
  let text = holdEscapes(markdown);
  if (text.includes('```') || text.includes('~~~')) text = text.replace(FENCE_LINE_RE, '');
  if (text.includes('](')) text = text.replace(/!\[[^\]\n]*\]\([^)\n]*\)/g, '').replace(/\[([^\]\n]*)\]\([^)\n]*\)/g, '$1');
  text = withoutRuleLines(text);
  if (text.includes('#')) text = withoutClosingHashes(text);
  if (mayStartLineMarker(text)) text = text.replace(LINE_MARKER_RE, '');
  if (text.includes('*') || text.includes('_') || text.includes('`') || text.includes('|')) text = withoutMarks(text);
  if (text.includes('~~')) text = text.replace(/~~+/g, ' '); // a strikethrough's marks (a lone ~ is text: ~5 km)
  return releaseEscapes(hasSpaceToFold(text) ? text.replace(/[^\S\n]{2,}|[^\S \n]/g, ' ') : text, held);
}

/** Whether a line of `text` may start with a list, quote or heading marker: it starts with one's first character or with a space of any kind. */
function mayStartLineMarker(text: string): boolean {
  // `^` also matches after \r, U+2028 and U+2029; a page holding one takes the pass.
  if (text.includes('\r') || text.includes('\u2028') || text.includes('\u2029')) return true;
  for (let at = 0; at < text.length; ) {
    const c = text.charCodeAt(at);
    // # > - * + and digits; a space, tab, vertical tab or form feed; anything outside ASCII (Unicode spaces).
    if (c === 35 || c === 62 || c === 45 || c === 42 || c === 43 || (c >= 48 && c <= 57) || c === 32 || c === 9 || c === 11 || c === 12 || c >= 128) {
      return true;
    }
    const newline = text.indexOf('\n', at);
    if (newline < 0) return false;
    at = newline + 1;
  }
  return false;
}

/**
 * Whether `text` holds whitespace to fold: two spaces, or whitespace other than a space or a
 * newline (tabs, Unicode spaces: the fold's second branch), which any other run of two holds.
 * Exact: before, any character outside ASCII took the fold (a third of the search benchmark's
 * pages hold one); bench:snippets' first line, 19.4-20.1 us a result against 21.1-21.7 then.
 */
function hasSpaceToFold(text: string): boolean {
  return text.includes('  ') || OTHER_SPACE.test(text);
}
const OTHER_SPACE = /[^\S \n]/;

/** The page's sentences: each line's text (`lineText`) cut by `sentenceBounds`. */
export function segment(markdown: string): Segments {
  const limit = Math.min(markdown.length, SCAN_LIMIT);
  const md = limit < markdown.length ? markdown.slice(0, limit) : markdown;
  // A code block's lines are held whole (no pass reads a mark in them), its fences emptied.
  const kinds = codeLines(md);
  const lines = (kinds ? linesToText(holdCode(md, kinds), true) : linesToText(md)).split('\n');
  const parts: string[] = [];
  const bounds: number[] = [];
  const lineStart: number[] = [];
  const lineOffset: number[] = [];
  const code: number[] = [];
  let length = 0;
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (t.length > 0) {
      const offset = parts.length === 0 ? 0 : length + 1;
      const b = sentenceBounds(t);
      const inCode = kinds?.[i] === CODE_LINE ? 1 : 0;
      for (let k = 0; k < b.length; k += 2) {
        bounds.push(offset + b[k]!, offset + b[k + 1]!);
        lineStart.push(start);
        lineOffset.push(offset);
        code.push(inCode);
      }
      parts.push(t);
      length = offset + t.length;
    }
    const end = md.indexOf('\n', start);
    start = end < 0 ? md.length : end + 1;
  }
  return { text: parts.length === 1 ? parts[0]! : parts.join(' '), bounds, lineStart, lineOffset, code };
}

/** FNV-1a of the stem's UTF-16 code units. */
export function stemHash(stem: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < stem.length; i++) h = Math.imul(h ^ stem.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A growable byte buffer of varints. */
class Bytes {
  bytes = new Uint8Array(256);
  length = 0;

  varint(v: number): void {
    if (this.length + 5 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.length++] = v;
  }
}

/**
 * The passage index of a page (see the file's comment), or undefined for a page shorter than
 * `minLength` markdown characters. Each word of a sentence is stemmed as a search's query is (`cachedStem`
 * of the folded word, stop words included), so the index finds what the scan finds.
 */
export function buildPassages(markdown: string, minLength = PASSAGE_INDEX_MIN): Uint8Array | undefined {
  if (markdown.length < minLength) return undefined;
  const seg = segment(markdown);
  const { text, bounds } = seg;
  // The sentences of each stem's hash, in sentence order: a word's list is its hash's, so a word is
  // stemmed and hashed once per page, and the words of one stem (or hash) fill one list in order.
  const byWord = new Map<string, number[]>();
  const byHash = new Map<number, number[]>();
  const hashes: number[] = [];
  let sentence = 0;
  const add = (word: string) => {
    let list = byWord.get(word);
    if (list === undefined) {
      const h = stemHash(cachedStem(word));
      list = byHash.get(h);
      if (list === undefined) {
        byHash.set(h, (list = []));
        hashes.push(h);
      }
      byWord.set(word, list);
    }
    list.push(sentence);
  };
  // Lowercased once (when that keeps every offset, as it does unless the text holds one of the few
  // characters whose lowercase is longer), an ASCII word is a slice of it.
  const lowered = text.toLowerCase();
  const lower = lowered.length === text.length ? lowered : undefined;
  const visit = (i: number, j: number, ascii: boolean) => {
    if (ascii) add(lower === undefined ? text.slice(i, j).toLowerCase() : lower.slice(i, j));
    else for (const w of unicodeWords(text, i, j)) add(w);
  };
  // A compound's joined word is one of its sentence's words too (text.ts `compoundWord`).
  const compound = (i: number, j: number) => add(compoundWord(text, i, j));
  for (; sentence < bounds.length / 2; sentence++) scanWords(text, visit, bounds[2 * sentence], bounds[2 * sentence + 1], compound);
  // The hashes in ascending order (sorted as a Uint32Array: a quarter of the time a Float64Array of
  // as many takes, or a comparison function).
  const order = Uint32Array.from(hashes).sort();

  const sentences = new Bytes();
  let previousLine = 0;
  for (let s = 0; s < bounds.length / 2; s++) {
    sentences.varint(2 * (seg.lineStart[s]! - previousLine) + seg.code[s]!); // the line's offset, and whether it is code
    sentences.varint(bounds[2 * s]! - seg.lineOffset[s]!);
    sentences.varint(bounds[2 * s + 1]! - bounds[2 * s]!);
    previousLine = seg.lineStart[s]!;
  }
  const lengths = new Bytes();
  const postings = new Bytes();
  for (const h of order) {
    const before = postings.length;
    let previous = 0;
    for (const s of byHash.get(h)!) {
      postings.varint(s - previous);
      previous = s;
    }
    lengths.varint(postings.length - before);
  }

  const lengthsAt = HEADER_BYTES + 4 * order.length + sentences.length;
  const postingsAt = lengthsAt + lengths.length;
  const out = new Uint8Array(postingsAt + postings.length);
  const view = new DataView(out.buffer);
  [PASSAGES_FORMAT, text.length, bounds.length / 2, order.length, lengthsAt, postingsAt].forEach((v, k) => view.setUint32(4 * k, v, true));
  order.forEach((h, k) => view.setUint32(HEADER_BYTES + 4 * k, h, true));
  out.set(sentences.bytes.subarray(0, sentences.length), HEADER_BYTES + 4 * order.length);
  out.set(lengths.bytes.subarray(0, lengths.length), lengthsAt);
  out.set(postings.bytes.subarray(0, postings.length), postingsAt);
  return out;
}

/** Per sentence of an index: its line's offset in the markdown, its start in the line's text, its length, whether its line is code (`Segments.code`). */
export interface SentenceTable {
  lineStart: Int32Array;
  code: Uint8Array;
  start: Int32Array;
  length: Int32Array;
}

/** Reads the varints `Bytes` writes, from `at` on; past the end it reads zeros, so a cut index ends its loops. */
class Varints {
  constructor(
    private readonly bytes: Uint8Array,
    public at: number,
  ) {}

  next(): number {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const x = this.bytes[this.at++] ?? 0;
      v |= (x & 0x7f) << shift;
      if (x < 0x80) return v;
    }
  }
}

/** A stored passage index, read in place. */
export class PassageIndex {
  private constructor(
    private readonly bytes: Uint8Array,
    private readonly view: DataView,
    /** Length of the page's text (`Segments.text`). */
    readonly textLength: number,
    readonly sentences: number,
    private readonly terms: number,
    private readonly lengthsAt: number,
    private readonly postingsAt: number,
  ) {}

  /** The index in `bytes`, or undefined when it is of another format (or not one). */
  static open(bytes: Uint8Array): PassageIndex | undefined {
    if (bytes.byteLength < HEADER_BYTES) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const u32 = (k: number) => view.getUint32(4 * k, true);
    if (u32(0) !== PASSAGES_FORMAT || u32(5) > bytes.byteLength) return undefined;
    return new PassageIndex(bytes, view, u32(1), u32(2), u32(3), u32(4), u32(5));
  }

  /** The term holding stem hash `h`, or -1. */
  private find(h: number): number {
    let lo = 0;
    let hi = this.terms - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.view.getUint32(HEADER_BYTES + 4 * mid, true);
      if (v < h) lo = mid + 1;
      else if (v > h) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /**
   * The best sentence from sentence `first` on for the query's distinct stem hashes, scored as the
   * scan scores it: ten points per distinct query stem the sentence holds (times its `weights`
   * entry, 1 without), plus one per occurrence up to five; the first of equals, and sentence
   * `first` when none holds any.
   */
  best(queryHashes: Uint32Array, first = 0, weights?: Float64Array): number {
    const found: number[] = [];
    const weightOf = new Map<number, number>();
    for (const [k, h] of queryHashes.entries()) {
      const t = this.find(h);
      if (t < 0) continue;
      found.push(t);
      weightOf.set(t, weights?.[k] ?? 1);
    }
    if (found.length === 0) return first;
    found.sort((a, b) => a - b);
    const hits = new Uint16Array(this.sentences);
    const distinct = new Float64Array(this.sentences);
    const lengths = new Varints(this.bytes, this.lengthsAt);
    const postings = new Varints(this.bytes, this.postingsAt);
    for (let t = 0, f = 0; f < found.length; t++) {
      const length = lengths.next();
      if (t !== found[f]) {
        postings.at += length;
        continue;
      }
      f++;
      const weight = weightOf.get(t)!;
      const end = postings.at + length;
      let s = 0;
      let previous = -1;
      while (postings.at < end) {
        s += postings.next();
        hits[s] = Math.min(hits[s]! + 1, 0xffff);
        if (s !== previous) {
          distinct[s] = distinct[s]! + weight;
          previous = s;
        }
      }
      postings.at = end;
    }
    let best = first;
    let bestScore = -1;
    for (let s = first; s < this.sentences; s++) {
      const score = distinct[s]! * 10 + Math.min(hits[s]!, 5);
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    return best;
  }

  /** Every sentence's place. */
  sentenceTable(): SentenceTable {
    const n = this.sentences;
    const table = { lineStart: new Int32Array(n), code: new Uint8Array(n), start: new Int32Array(n), length: new Int32Array(n) };
    const read = new Varints(this.bytes, HEADER_BYTES + 4 * this.terms);
    let line = 0;
    for (let s = 0; s < n; s++) {
      const v = read.next();
      line += v >>> 1;
      table.lineStart[s] = line;
      table.code[s] = v & 1;
      table.start[s] = read.next();
      table.length[s] = read.next();
    }
    return table;
  }
}
