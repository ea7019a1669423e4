/**
 * CommonMark's backslash escapes, both ways: text written so that markdown reads it as text (a
 * page's text in its markdown, acquire/extract/markdown.ts; a page's title in the MCP tools' and
 * the CLI's markdown), and markdown read back as text with its escaped characters as they are
 * (text.ts `markdownToText`, the passages' line text). Imports nothing of ours.
 */

/**
 * What a page shows as text, written so that markdown reads it as text (CommonMark's backslash
 * escapes): a page that shows `&lt;script&gt;` or `&lt;img onerror=...&gt;` as text made live HTML of
 * its markdown, `[x](javascript:...)` a link, `__init__` bold. Only what could be read as markup is
 * escaped, lighter than Turndown's every `_`, `*` and bracket:
 * - a backslash before ASCII punctuation (it would escape it), or before a space or the end (a
 *   line's end: a hard line break), a backtick (a code span);
 * - `<` before a letter, `/`, `!` or `?` (a tag, a comment, an autolink), `&` of an entity (`&amp;`);
 * - `*` and `~` but between spaces (`5 * 3` is no emphasis), `_` but inside a word (`snake_case`
 *   is none: CommonMark);
 * - `]` before `(`, `[` or `:` (a link, a reference, a definition; `[1]` and `[sic]` stay as they
 *   are), and in a link's text each bracket (`inLink`), which would end the link.
 * What starts a line is escaped where the line is made (`escapeLineStart`).
 */
const MAY_ESCAPE = /[\\`*_<&[\]~]/;
/** Runs of the characters to escape, each decided whole (a run of 10 MB of `_` was 10 million calls one by one: 1.2 s). */
const ESCAPES = /\\+|`+|\*+|_+|~+|\[+|\]+|<(?=[A-Za-z/!?])|&(?=#?[0-9A-Za-z]{1,32};)/g;
/** ASCII's punctuation, which CommonMark's backslash escapes (32 characters), as a pattern's class. */
const PUNCTUATION_CLASS = '[!-/:-@[-`{-~]';
const ASCII_PUNCTUATION = new RegExp(`^${PUNCTUATION_CLASS}$`);
const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const LINK_FOLLOWS = /^[([:]$/;
const isBlank = (c: number) => c === 32 || c === 9;
/** A run of one character, each escaped (a pattern's replace took 190 ns a character). */
const everyOne = (run: string) => `\\${run[0]}`.repeat(run.length);
/** A letter or digit (an ASCII one without the pattern: most are). */
const isWordChar = (s: string, at: number) => {
  const c = s.charCodeAt(at);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return WORD_CHAR.test(s.charAt(at));
};

export function escapeText(s: string, inLink = false): string {
  if (!MAY_ESCAPE.test(s)) return s;
  return s.replace(ESCAPES, (run: string, at: number) => {
    const end = at + run.length; // where what follows the run starts
    switch (run[0]) {
      case '\\': {
        // Each but the last is before a backslash. The last is escaped before punctuation, or before
        // a space or the end, which trimming may make a line's end (a hard break: the `\` is lost).
        const last = end === s.length || isBlank(s.charCodeAt(end)) || ASCII_PUNCTUATION.test(s.charAt(end));
        return last ? everyOne(run) : `${everyOne(run.slice(1))}\\`;
      }
      case '*':
      case '~':
        return run.length === 1 && isBlank(s.charCodeAt(at - 1)) && isBlank(s.charCodeAt(end)) ? run : everyOne(run);
      case '_':
        return run.length === 1 && isWordChar(s, at - 1) && isWordChar(s, end) ? run : everyOne(run);
      case '[':
        return inLink ? everyOne(run) : run;
      case ']':
        return inLink ? everyOne(run) : LINK_FOLLOWS.test(s.charAt(end)) ? `${run.slice(1)}\\]` : run;
      default:
        return everyOne(run);
    }
  });
}

/**
 * What would open a block at a line's start (CommonMark): a heading's `#`s, a quote's `>`, a list
 * item's `-`, `+`, `*` or `1.`/`1)`, a line of `=` or `-` (a heading's underline, a thematic break).
 * A paragraph of text reading `# of users grew`, `1984. The year` or `- Bob said` became a heading,
 * a list numbered from 1984, a list item. (A fence's backticks or tildes, a tag's `<`, a thematic
 * break's `*` or `_` are escaped in the text already: `escapeText`.) And a pipe: it opens a
 * line of text only so (`\|`), and a line opening with a bare one is a table's row, as search
 * reads it (text.ts `withoutMarks`).
 */
const LINE_START = /^(?:#{1,6}(?=[ \t]|$)|>|[-+*](?=[ \t]|$)|=+[ \t]*$|-+[ \t]*$|\d{1,9}(?=[.)](?:[ \t]|$))|\|)/;

/** A GFM table's delimiter row (`--- | ---`, `|:-:|`): after a line of text with a `|`, the two were a table. */
const DELIMITER_ROW = /^[-|: \t]+$/;

/** The characters a line that `LINE_START` or `DELIMITER_ROW` matches may open with: `# > - + * = | :`, a digit, a space or a tab. */
const OPENS_BLOCK: boolean[] = [];
for (const c of '#>-+*=|: \t0123456789') OPENS_BLOCK[c.charCodeAt(0)] = true;

/** A line of text, its start escaped when it would open a block (`LINE_START`) or make a table (`DELIMITER_ROW`). */
export function escapeLineStart(line: string): string {
  // Most lines open with a letter: no pattern is tried (every paragraph of a page is a line).
  if (!OPENS_BLOCK[line.charCodeAt(0)]) return line;
  const m = LINE_START.exec(line);
  if (!m) return line.includes('|') && line.includes('-') && DELIMITER_ROW.test(line) ? `\\${line}` : line;
  const digits = m[0].charCodeAt(0) >= 48 && m[0].charCodeAt(0) <= 57;
  return digits ? `${m[0]}\\${line.slice(m[0].length)}` : `\\${line}`;
}

/**
 * A heading's markdown text, its `#`s at the end after a space ("Episode #") escaped: they would be
 * read as its closing sequence; and a pipe it opens with, as a line of text's (`LINE_START`).
 */
export const headingText = (t: string) => {
  const closed = t.endsWith('#') ? t.replace(/(^| )(#+)$/, '$1\\$2') : t;
  return closed.startsWith('|') ? `\\${closed}` : closed;
};

/** A line of text (a feed's byline, a result's title) as markdown: escaped as text and at its start. */
export const escapeLine = (line: string) => escapeLineStart(escapeText(line));

/** A text (a page's title) as a heading's markdown text. */
export const escapeHeading = (text: string) => headingText(escapeText(text));

/** A text's lines (a PDF's), each escaped as a line. */
export const escapeLines = (text: string) => text.split('\n').map(escapeLine).join('\n');

/** ASCII's punctuation, in order: a held character's index is its noncharacter's offset. */
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const ESCAPED_RE = new RegExp(`\\\\(${PUNCTUATION_CLASS})`, 'g');
/** A backslash escape, or a run of backticks (a code span's start, whose escapes are its own). */
const ESCAPE_OR_TICKS = new RegExp(`\\\\(${PUNCTUATION_CLASS})|\`+`, 'g');
/** Unicode's 32 noncharacters U+FDD0-U+FDEF, one for each punctuation character held (stored text has none: controls.ts). */
const HELD_RE = /[\ufdd0-\ufdef]/;

/**
 * Markdown with each backslash escape (`\*`, `\#`, `\[`: markdown.ts writes what a page shows as
 * text so) held as a noncharacter, which no pass of `markdownToText` or of the passages' line text
 * reads as a mark; `releaseEscapes` gives back the character, as the page shows it. A code span's
 * text is held whole, every punctuation character of it: CommonMark reads no escape or mark there
 * (`` `\.` `` is a regex's `\.`, `` `my_var*2` `` a program's), so the span reads as it is written,
 * to its closing run of backticks on the same line; its backticks are left, marks for those passes.
 * A code block's lines are held by `holdCode`, before.
 */
export function holdEscapes(markdown: string): string {
  if (!markdown.includes('`')) return markdown.includes('\\') ? markdown.replace(ESCAPED_RE, holdOne) : markdown;
  let out = '';
  let copied = 0;
  // Characters the search for closing runs may read, in all: a line of runs of 1, 2, 3, ... backticks
  // (a code block's, verbatim) made each opening run read the rest of the line. Past it, a run is text.
  const budget = { left: 4 * markdown.length, lineEnd: -1 };
  const pattern = ESCAPE_OR_TICKS; // one call at a time: nothing in the loop awaits
  pattern.lastIndex = 0;
  for (let m = pattern.exec(markdown); m; m = pattern.exec(markdown)) {
    if (m[1] !== undefined) {
      out += markdown.slice(copied, m.index) + holdOne(m[0], m[1]);
      copied = pattern.lastIndex;
      continue;
    }
    const close = closingTicks(markdown, pattern.lastIndex, m[0].length, budget);
    if (close < 0) continue;
    // The span, held: each punctuation character of its text.
    const contentEnd = close - m[0].length;
    out += markdown.slice(copied, pattern.lastIndex) + holdAll(markdown.slice(pattern.lastIndex, contentEnd));
    copied = contentEnd;
    pattern.lastIndex = close;
  }
  return out + markdown.slice(copied);
}
/** Each ASCII punctuation character's noncharacter, by its code. */
const HELD: (string | undefined)[] = [];
for (let k = 0; k < PUNCTUATION.length; k++) HELD[PUNCTUATION.charCodeAt(k)] = String.fromCharCode(0xfdd0 + k);
const holdOne = (_: string, c: string) => HELD[c.charCodeAt(0)]!;

/** A line's kind in `codeLines` (0 is text): a code block's line, a fence. */
export const CODE_LINE = 1;
export const FENCE_LINE = 2;
const FENCE_OPEN_RE = /^[^\S\n]*(`{3,}|~{3,})([^\n]*)$/;
const FENCE_CLOSE_RE = /^[^\S\n]*(`{3,}|~{3,})[^\S\n]*$/;

/**
 * The kind of each line of `markdown` (0 text, `CODE_LINE`, `FENCE_LINE`): a fence of three or
 * more backticks (with none in its info string) or tildes opens a code block, which a fence of the
 * same character, at least as long and with nothing after it, closes (or the page's end), as in
 * CommonMark; at any indent (a list item's block is indented under it). Undefined when the markdown
 * has no fence at all.
 */
export function codeLines(markdown: string): Uint8Array | undefined {
  if (!markdown.includes('```') && !markdown.includes('~~~')) return undefined;
  const lines = markdown.split('\n');
  const kinds = new Uint8Array(lines.length);
  let open = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (open === '') {
      const m = FENCE_OPEN_RE.exec(line);
      if (m && !(m[1]![0] === '`' && m[2]!.includes('`'))) {
        open = m[1]!;
        kinds[i] = FENCE_LINE;
      }
    } else {
      const m = FENCE_CLOSE_RE.exec(line);
      if (m && m[1]![0] === open[0] && m[1]!.length >= open.length) {
        open = '';
        kinds[i] = FENCE_LINE;
      } else {
        kinds[i] = CODE_LINE;
      }
    }
  }
  return kinds;
}

/** `markdown` with its code blocks' lines held whole (`holdAll`) and its fences emptied, by the kinds `codeLines` gave. */
export function holdCode(markdown: string, kinds: Uint8Array): string {
  return markdown
    .split('\n')
    .map((l, i) => (kinds[i] === CODE_LINE ? holdAll(l) : kinds[i] === FENCE_LINE ? '' : l))
    .join('\n');
}

/** Every punctuation character of `text` held (a code block's line: CommonMark reads nothing in it); `releaseEscapes` gives them back. */
export function holdAll(text: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const held = HELD[text.charCodeAt(i)];
    if (held === undefined) continue;
    out += text.slice(copied, i) + held;
    copied = i + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Whether `holdEscapes` may hold anything of `markdown` (a backslash escape, a code span): `releaseEscapes`' `held`. */
export const mayHold = (markdown: string) => markdown.includes('\\') || markdown.includes('`');

/**
 * Where the run of `n` backticks that closes a code span opened before `from` ends, on its line; -1
 * when none does, or once `budget` is spent. `budget.lineEnd` keeps the end of the line last looked
 * at, so a line of many spans is searched for its end once.
 */
function closingTicks(s: string, from: number, n: number, budget: { left: number; lineEnd: number }): number {
  if (budget.left <= 0) return -1;
  if (from > budget.lineEnd) {
    const lineEnd = s.indexOf('\n', from);
    budget.lineEnd = lineEnd < 0 ? s.length : lineEnd;
  }
  const end = budget.lineEnd;
  for (let at = s.indexOf('`', from); at >= 0 && at < end; at = s.indexOf('`', at)) {
    let run = at;
    while (s.charCodeAt(run) === 96) run++;
    if (run - at === n) {
      budget.left -= run - from;
      return run;
    }
    at = run;
  }
  budget.left -= end - from;
  return -1;
}

/** The characters `holdEscapes` held, given back; `held` is whether it had any to hold (`mayHold`). */
export function releaseEscapes(text: string, held: boolean): string {
  const first = held ? text.search(HELD_RE) : -1;
  if (first < 0) return text;
  // A loop, not a replace's callback for each: a code span's characters are held too (a page of them, 0.5 us each).
  let out = '';
  let copied = 0;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i) - 0xfdd0;
    if (c < 0 || c > 31) continue;
    out += text.slice(copied, i) + PUNCTUATION[c]!;
    copied = i + 1;
  }
  return out + text.slice(copied);
}
