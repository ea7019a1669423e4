/**
 * DOM -> markdown: headings, paragraphs, nested lists, links made absolute, images as alt text with
 * their URL, GFM tables, fenced code with its language when a class names one, blockquotes, GFM
 * strikethrough, formulas as their TeX in dollars; what a browser shows and markdown has no mark for
 * as text (a `<q>`'s quotation marks, a raised number's caret).
 */
import type { AnyNode, Element } from 'domhandler';
import { escapeLineStart, escapeText, headingText } from '../../core/escapes.js';
import { attr, children, findFirst, isElement, isSpace, isText, textOf } from './dom.js';

const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'center', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption', 'figure',
  'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'li', 'main', 'ol', 'p', 'pre', 'section',
  'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'body', 'html',
]);

/** Schemes a link of the markdown may have (an image's: http and https alone). */
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/**
 * Characters that making a page's links and images absolute may add to its markdown, in all: a
 * relative link grows by its base, and a page of 20,000 `<a href="b">` under a `<base>` of 20 kB
 * made 400 MB of markdown from 380 kB. A page's hundreds of links add tens of kB; past this, a link
 * that would grow is its text (an image, nothing). Reset for each page by `toMarkdown`.
 */
export const LINK_GROWTH_LIMIT = 1_000_000;

/** A page's budget of `LINK_GROWTH_LIMIT` characters, for its markdown's links and for its crawl links alike. */
export class LinkGrowth {
  private left = LINK_GROWTH_LIMIT;

  /** Whether `href` may become `url`: always when that is no longer, else while the budget holds the growth (spent then). */
  allows(href: string, url: string): boolean {
    const growth = url.length - href.length;
    if (growth <= 0) return true;
    if (growth > this.left) return false;
    this.left -= growth;
    return true;
  }
}

let growth = new LinkGrowth();

/**
 * A link's or an image's URL made absolute, or undefined: what resolves to another scheme
 * (`javascript:`, also as a `#fragment` under `<base href="javascript:...">`) is no link, nor one that
 * would grow when the page's `LINK_GROWTH_LIMIT` is spent. Its parentheses are escaped, so that one
 * cannot close the link's destination early.
 */
function absolute(href: string | undefined, base: string, image = false): string | undefined {
  return absoluteUrl(href, base, growth, image);
}

/** `absolute` against a budget of its own (a feed's, for all its entries); `image`: http(s) alone. */
export function absoluteUrl(href: string | undefined, base: string, budget: LinkGrowth, image = false): string | undefined {
  const h = href?.trim();
  if (!h) return undefined;
  let url: URL;
  try {
    url = new URL(h, base);
  } catch {
    return undefined;
  }
  if (image ? url.protocol !== 'http:' && url.protocol !== 'https:' : !LINK_SCHEMES.has(url.protocol)) return undefined;
  const out = url.toString().replace(/\(/g, '%28').replace(/\)/g, '%29');
  return budget.allows(h, out) ? out : undefined;
}

/** A zero-width space or word joiner: shown as nothing (a line of them is no line), and stored without them (core/controls.ts). */
const INVISIBLE = /[\u200b\u2060]/;
const INVISIBLES = /[\u200b\u2060]+/g;
const collapse = (s: string) => (INVISIBLE.test(s) ? s.replace(INVISIBLES, '') : s).replace(/\s+/g, ' ');

/** A line of three or more `-`, `*` or `_` alike (escaped or not), spaces between: a thematic break written as text. */
const TEXT_BREAK = /^(?:(?:\\?-[ \t]*){3,}|(?:\\?\*[ \t]*){3,}|(?:\\?_[ \t]*){3,})$/;
/** The longest line read as such a break: a line drawn across a page is tens of characters (the pattern's repeated group overflowed the stack on a paragraph of 10 MB of `_`). */
const TEXT_BREAK_MAX = 200;
const isTextBreak = (t: string) => t.length <= TEXT_BREAK_MAX && /^[-*_\\]/.test(t) && TEXT_BREAK.test(t);

/** How many links the text being written is inside (`escapeText`'s `inLink`); reset by `toMarkdown`. */
let linkDepth = 0;

/**
 * A `srcset`'s first candidate's URL (`/a.png 1x, /b.png 2x` -> `/a.png`): as HTML parses it, up to
 * a space (a URL may hold commas: `/w_100,h_100/a.png`), less the commas that end it.
 */
function firstCandidate(srcset: string | undefined): string | undefined {
  const url = srcset?.replace(/^[\s,]+/, '').split(/\s/, 1)[0];
  if (url === undefined) return undefined;
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 44) end--; // a loop: /,+$/ retried a long run of commas from each of them
  return url.slice(0, end);
}

/**
 * An image's http(s) URL: what a lazy loader will put in its `src` (`data-src`, `data-original`,
 * `data-lazy-src`, the first of `data-srcset`), else its `src`, else the first of its `srcset`. A
 * lazy loader's `src` is a placeholder: a `data:` URL, which is no image to link to, or a blank
 * image of the site's (`1x1-white.jpg`), which is not the picture. A loader's value that is no
 * address (MSN's JSON) is passed over.
 */
function imageSource(img: Element, base: string): string | undefined {
  const lazy = [attr(img, 'data-src'), attr(img, 'data-original'), attr(img, 'data-lazy-src'), firstCandidate(attr(img, 'data-srcset'))];
  for (const candidate of [...lazy, attr(img, 'src'), firstCandidate(attr(img, 'srcset'))]) {
    if (candidate === undefined || /^\s*[{[]/.test(candidate)) continue;
    const url = absolute(candidate, base, true);
    if (url) return url;
  }
  return undefined;
}

/**
 * Each run of whitespace that holds a line break as one space, in linear time: the pattern this
 * replaces (spaces, a line break, spaces) retried a long run of spaces without a break from each
 * of its positions (a `<pre>` of 80,000 spaces in a list item took 10 s).
 */
const joinLines = (s: string) => (s.includes('\n') ? s.replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run)) : s);

/**
 * Each run of spaces inside a line as one, as a browser shows them: an element's inner space and
 * its neighbour's meet (`and <strong> bold </strong>` was `and  **bold** `). Text nodes are folded
 * already (`collapse`), code's spaces are kept in its own blocks (`pre`), and a no-break space is
 * no space here.
 */
const singleSpaced = (s: string) => (s.includes('  ') ? s.replace(/ {2,}/g, ' ') : s);

const holdsBlock = new WeakMap<Element, boolean>();

/**
 * Whether an element that is not a block itself (an unknown `<block>`, a custom element, a `<span>`
 * or `<font>` around paragraphs) holds one: its paragraphs stay paragraphs. Remembered per element
 * that holds elements, so nested inline elements cost one pass, not one per level.
 */
function containsBlock(el: Element): boolean {
  const kids = children(el);
  // An element of text alone (most are) is answered without being remembered.
  if (!kids.some(isElement)) return false;
  let known = holdsBlock.get(el);
  if (known === undefined) {
    known = kids.some((c) => isElement(c) && (BLOCKS.has(c.name) || containsBlock(c)));
    holdsBlock.set(el, known);
  }
  return known;
}

/**
 * Markup around a run of inline text; the run's leading and trailing space stay outside it, so
 * `the <a>campaign </a>on` keeps its space (`[campaign](...) on`, not `[campaign](...)on`).
 */
function marked(t: string, mark: (text: string) => string): string {
  const text = t.trim();
  if (!text) return t;
  return `${/^\s/.test(t) ? ' ' : ''}${mark(text)}${/\s$/.test(t) ? ' ' : ''}`;
}

/**
 * Text inside emphasis or strikethrough delimiters, a run of `*`, `_` or `~` at its edge escaped
 * when it is text: one next to a space, left bare where it stood between spaces (`a * b`), would
 * join the delimiter once trimmed and put next to it (`<em> * x</em>` was `** x*`, shown as stars).
 * A run next to a word is markup (`<b><i>x</i></b>`: `***x***`) and stays.
 */
function delimited(text: string): string {
  const escape = (run: string) => run.replace(/[*_~]/g, '\\$&');
  return text.replace(/^[*_~]+(?=\s|$)/, escape).replace(/(?<=\s)[*_~]+$/, escape);
}

/** The text of a heading's permalink, as documentation generators write it (Sphinx and MkDocs `¶`, rustdoc `§`, Docusaurus a zero-width space), or of a footnote's link back to its mark (`↩`, `^`): nothing to read. */
const PERMALINK_TEXTS = new Set(['', '¶', '§', '#', '🔗', '\u2693', '\u2693\ufe0e', '↩', '↩\ufe0e', '↩\ufe0f', '↑', '^']);
const isPermalinkText = (text: string) => text.length <= 100 && PERMALINK_TEXTS.has(text.replace(/[\s\u200b-\u200d\ufeff]+/g, ''));

/** An image's alt text that is an emoji or a few (`😀`, `👍🏽`, a flag, a ZWJ sequence). */
const EMOJI_ALT = /^(?:\p{Extended_Pictographic}|\p{Emoji_Component}|\u200d|\ufe0f){1,16}$/u;

/** A footnote's mark without brackets of its own: a number, a letter or a symbol or two (`1`, `a`, `*`, `†`). */
const FOOTNOTE_MARK = /^\s*(\d{1,4}|[a-z]{1,2}|(?:\\?[*†‡§¶]){1,3})\s*$/i;

/** A link to a footnote or back from one: `#fn1`, `#fn:1`, `#fnref1`, `#footnote-1`, `#footnote-anchor-1`, `#cite_note-1`, `#note1`. */
const NOTE_HREF = /^#(?:fn|footnote|cite_note|cite_ref|note)/i;

/** A superscript that is a number, signed or not: an exponent, written `^6` in text. */
const RAISED_NUMBER = /^\s*[-+\u2212]?\d{1,6}(?:[.,]\d{1,6})?\s*$/;

function inline(n: AnyNode, base: string): string {
  if (isText(n)) return escapeText(collapse(n.data), linkDepth > 0);
  if (!isElement(n)) return '';
  // A block inside inline content (a list item's or a cell's paragraphs, a link around a card) is a line of its own.
  const inner = () => children(n).map((c) => (isElement(c) && BLOCKS.has(c.name) ? `\n${inline(c, base)}\n` : inline(c, base))).join('');
  switch (n.name) {
    case 'br':
      return '\n';
    case 'img': {
      const alt = collapse(attr(n, 'alt') ?? '').trim();
      // An emoji drawn as an image (WordPress, Twitter) is its character, as it reads.
      if (alt && (EMOJI_ALT.test(alt) || /(?:^|\s)emoji(?:\s|$)/.test(attr(n, 'class') ?? ''))) return alt;
      const src = imageSource(n, base);
      return src && alt ? `![${escapeText(alt, true)}](${src})` : '';
    }
    case 'a': {
      // A link within the page (`#fn1`, a footnote's) leads nowhere in its markdown: its text alone;
      // a heading's permalink (`¶`, `§`, `#`, a zero-width space), none.
      const raw = attr(n, 'href')?.trim();
      if (raw?.startsWith('#')) {
        // A footnote's mark in brackets, as one in a <sup> is: a link around a raised number (Pandoc's
        // `<a><sup>1</sup></a>`), or to a note or back from one (Substack's `#footnote-1`).
        const sup = n.children.length === 1 && isElement(n.children[0]!) && n.children[0].name === 'sup' ? textOf(n.children[0]).trim() : undefined;
        const mark = sup ?? (NOTE_HREF.test(raw) ? textOf(n).trim() : undefined);
        if (mark !== undefined && FOOTNOTE_MARK.test(mark)) return `[${escapeText(mark)}]`;
        const text = inner();
        return isPermalinkText(text) ? '' : text;
      }
      const href = absolute(raw, base);
      if (!href) return marked(inner(), (text) => text);
      linkDepth++;
      try {
        return marked(inner(), (text) => `[${text}](${href})`);
      } finally {
        linkDepth--;
      }
    }
    case 'strong':
    case 'b':
      return marked(inner(), (text) => `**${delimited(text)}**`);
    case 'em':
    case 'i':
      return marked(inner(), (text) => `*${delimited(text)}*`);
    case 'q':
      return marked(inner(), (text) => `"${text}"`); // a browser shows its quotation marks
    case 'del':
    case 's':
    case 'strike':
      // GFM's strikethrough: a struck price or a correction reads as struck, not as current.
      return marked(inner(), (text) => `~~${delimited(text)}~~`);
    case 'code':
    case 'kbd':
    case 'samp':
      return codeSpan(textOf(n));
    case 'sup': {
      // A number raised (10<sup>6</sup>, m<sup>-2</sup>) read as one run of digits: 106, m-2. A
      // footnote's mark (a link within the page) is in brackets, as Wikipedia writes it: `study1`
      // was one word. A word (1<sup>st</sup>, TM) stays as it is.
      const text = inner();
      const link = findFirst(n, (d) => d.name === 'a');
      if (link) return FOOTNOTE_MARK.test(text) && attr(link, 'href')?.trim().startsWith('#') ? `[${text.trim()}]` : text;
      return RAISED_NUMBER.test(text) ? `^${text.trim()}` : text;
    }
    case 'sub':
      return inner();
    case 'math':
      return mathText(n);
    case 'td':
    case 'th':
      return `${inner()} `; // a table inside a cell: its cells apart (`x y`, not `xy`)
    default:
      return inner();
  }
}

/** Wikipedia's wrapper of a formula's TeX, which sets its style: `{\displaystyle E=mc^{2}}`. */
const TEX_STYLE = /^\{\\(?:displaystyle|textstyle|scriptstyle)\b\s*([^]*)\}$/;

/**
 * A MathML formula as text: its TeX in dollars (`$E=mc^{2}$`, `$$...$$` for a displayed one), from
 * its TeX annotation (KaTeX, Wikipedia) or its `alttext`; else its presentation read out, a power
 * with a caret and an index with an underscore (`E=mc^2`). Its elements' texts ran together (`E=mc2`,
 * and the annotation's TeX after them).
 */
function mathText(el: Element): string {
  const annotation = findFirst(el, (d) => d.name === 'annotation' && /^(application\/x-tex|tex)$/i.test(attr(d, 'encoding') ?? ''));
  const tex = (annotation ? textOf(annotation) : attr(el, 'alttext'))?.trim();
  if (tex) {
    const bare = (TEX_STYLE.exec(tex)?.[1] ?? tex).trim();
    const fence = attr(el, 'display') === 'block' ? '$$' : '$';
    return `${fence}${collapse(bare)}${fence}`;
  }
  const read = (n: AnyNode): string => {
    if (isText(n)) return collapse(n.data).trim();
    if (!isElement(n) || n.name === 'annotation' || n.name === 'annotation-xml') return '';
    const parts = children(n).filter(isElement).map(read);
    switch (n.name) {
      case 'msup':
        return `${parts[0] ?? ''}^${wrapped(parts[1] ?? '')}`;
      case 'msub':
        return `${parts[0] ?? ''}_${wrapped(parts[1] ?? '')}`;
      case 'msubsup':
        return `${parts[0] ?? ''}_${wrapped(parts[1] ?? '')}^${wrapped(parts[2] ?? '')}`;
      case 'mfrac':
        return `${wrapped(parts[0] ?? '')}/${wrapped(parts[1] ?? '')}`;
      case 'msqrt':
        return `√(${parts.join('')})`;
      default:
        return children(n).map(read).join('');
    }
  };
  return read(el);
}

/** A part of a formula in parentheses when it is more than one symbol: `c^(n+1)`. */
const wrapped = (s: string) => (s.length <= 1 || /^\w+$/.test(s) ? s : `(${s})`);

/**
 * The text of a `<pre>` as a browser lays it out: a `<br>` is a line break (Docusaurus ends each
 * line with one, as some editors do), and so is the end of a block element that a line's text did
 * not end (a highlighter's `<div class="line">`): the lines ran together, `x = 1y = 2`.
 */
function codeText(pre: Element): string {
  const parts: string[] = [];
  let lineOpen = false; // text since the last line break
  const visit = (n: AnyNode) => {
    if (isText(n)) {
      if (n.data) {
        parts.push(n.data);
        lineOpen = !n.data.endsWith('\n');
      }
      return;
    }
    if (n.type !== 'tag' && n.type !== 'cdata') return; // as textOf: no script or style
    if (isElement(n) && n.name === 'br') {
      parts.push('\n');
      lineOpen = false;
      return;
    }
    for (const c of children(n)) visit(c);
    if (lineOpen && isElement(n) && BLOCKS.has(n.name)) {
      parts.push('\n');
      lineOpen = false;
    }
  };
  for (const c of children(pre)) visit(c);
  return parts.join('');
}

/** Whether a `<pre>` of only digits is a highlighter's column of line numbers, in a table cell beside the code (Pygments, Hugo). */
function isLineNumbers(pre: Element, code: string): boolean {
  if (!/^[\d\s]+$/.test(code)) return false;
  let p = pre.parent;
  for (let up = 0; up < 3 && p; up++, p = p.parent) if (isElement(p) && (p.name === 'td' || p.name === 'th')) return true;
  return false;
}

/** The longest run of backticks in `s`. */
function longestBacktickRun(s: string): number {
  let longest = 0;
  for (let at = s.indexOf('`'); at >= 0; ) {
    let end = at + 1;
    while (s.charCodeAt(end) === 96) end++;
    longest = Math.max(longest, end - at);
    at = s.indexOf('`', end);
  }
  return longest;
}

/** Class words of an API documentation's signature line: Sphinx's `dt.sig` and, before Sphinx 4, its name's `descname`. */
const SIGNATURE_CLASS = /(?:^|\s)(?:sig|descname|sig-name)(?:\s|$)/;

/**
 * Whether a `<dt>` is the signature of a documented function, class or attribute, as Sphinx writes
 * them (`asyncio.gather(*aws, return_exceptions=False)`, each part a span of its own): code, read
 * as one code span, not as bold text of italic parameters.
 */
function isSignature(dt: Element): boolean {
  return SIGNATURE_CLASS.test(attr(dt, 'class') ?? '') || findFirst(dt, (d) => SIGNATURE_CLASS.test(attr(d, 'class') ?? '')) !== undefined;
}

/** A signature's text without its permalink (`¶`). */
function signatureText(n: AnyNode): string {
  if (!isElement(n)) return textOf(n);
  if (n.name === 'a' && isPermalinkText(textOf(n))) return '';
  return children(n).map(signatureText).join('');
}

/**
 * Inline code as a CommonMark code span: its backticks kept, between delimiters one backtick longer
 * than its longest run of them, and a space inside each when it starts or ends with one.
 */
function codeSpan(raw: string): string {
  const t = raw.trim();
  if (!t) return '';
  const delimiter = '`'.repeat(longestBacktickRun(t) + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${delimiter}${pad}${t}${pad}${delimiter}`;
}

/** A fenced code block, its fence longer than any run of backticks in the code, so no line of the code can close it. */
export function fenced(code: string, language: string): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(code) + 1));
  return `${fence}${language}\n${code}\n${fence}`;
}

/** The language a `<pre>`'s class or `data-lang` names, as a fence's info string: letters, digits and `+#.-` alone. */
/**
 * A class naming a code block's language, as highlighters write it: Prism's and highlight.js's
 * `language-python` (`lang-`), GitHub's `highlight-source-python`, MediaWiki's `mw-highlight-lang-python`,
 * SyntaxHighlighter's `brush: python`.
 */
const LANGUAGE_CLASS = /(?:^|\s)(?:language-|lang-|highlight-source-|mw-highlight-lang-|brush:\s*)([\w+#.-]+)/;
/** Sphinx's `highlight-python notranslate` (a `highlight-` class alone is too common a name: `highlight-box`), but for its `highlight-default` and `highlight-none`. */
const SPHINX_CLASS = /(?:^|\s)highlight-(?!(?:default|none)(?:\s|$))([\w+#.-]+)/;
const languageOfClass = (cls: string) => LANGUAGE_CLASS.exec(cls)?.[1] ?? (/(?:^|\s)notranslate(?:\s|$)/.test(cls) ? SPHINX_CLASS.exec(cls)?.[1] : undefined);

/**
 * The language of a `<pre>`: from its classes, its `<code>`'s, its `data-lang`, or the classes of
 * its parent and grandparent (GitHub, Jekyll and Sphinx put it on a wrapper: `<div
 * class="highlight-python"><div class="highlight"><pre>`).
 */
function codeLanguage(el: Element): string {
  const code = children(el).find((c) => isElement(c) && c.name === 'code') as Element | undefined;
  const dataLang = /^[\w+#.-]+$/.exec((attr(el, 'data-lang') ?? '').trim())?.[0];
  const parent = el.parent && isElement(el.parent) ? el.parent : undefined;
  const grandparent = parent?.parent && isElement(parent.parent) ? parent.parent : undefined;
  for (const candidate of [el, code, dataLang, parent, grandparent]) {
    if (candidate === undefined) continue;
    if (typeof candidate === 'string') return candidate;
    const language = languageOfClass(attr(candidate, 'class') ?? '');
    if (language) return language;
  }
  return '';
}

/** A `colspan` or `rowspan`: a whole number from 1 to HTML's largest (1000 columns), 1 otherwise. */
function span(value: string | undefined): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 1 ? Math.min(n, 1000) : 1;
}

/**
 * The texts of a table's rows with its spans laid out, as markdown has none: a cell spanning
 * columns is followed by empty cells, and one spanning rows has an empty cell under it in each
 * row it covers, so every cell stays in its column. The empty cells a table's spans add are at
 * most as many as its cells plus 10,000: a small page of `colspan="1000"` cells does not grow a
 * thousandfold (past that, spans are ignored).
 */
function layOut(rows: Element[][], text: (c: Element) => string): string[][] {
  let budget = rows.reduce((n, r) => n + r.length, 0) + 10_000;
  const covered: number[] = []; // per column: the rows below still covered by a rowspan
  return rows.map((cells) => {
    const out: string[] = [];
    const fillCovered = () => {
      while ((covered[out.length] ?? 0) > 0) {
        covered[out.length]!--;
        out.push('');
      }
    };
    for (const c of cells) {
      fillCovered();
      const column = out.length;
      out.push(text(c));
      const across = span(attr(c, 'colspan'));
      const down = span(attr(c, 'rowspan'));
      if (across * down - 1 > budget) continue;
      budget -= across * down - 1;
      for (let k = 1; k < across; k++) {
        if ((covered[out.length] ?? 0) > 0) covered[out.length]!--; // a span over a covered column (a malformed table) uses that row
        out.push('');
      }
      if (down > 1) for (let k = 0; k < across; k++) covered[column + k] = down - 1;
    }
    fillCovered();
    // Columns past the row's last cell are covered by nothing it shows: their rowspans count this row too.
    for (let k = out.length; k < covered.length; k++) if (covered[k]! > 0) covered[k]!--;
    return out;
  });
}

function table(el: Element, base: string): string[] {
  const rows: Element[][] = [];
  // A <tfoot>'s rows come last, where a browser shows them: HTML 4 wrote it before the <tbody>.
  const footRows: Element[][] = [];
  let caption: Element | undefined;
  const visit = (n: AnyNode, into: Element[][]) => {
    if (!isElement(n)) return;
    if (n.name === 'table' && n !== el) return; // nested tables are flattened by their own block
    if (n.name === 'caption') caption ??= n;
    if (n.name === 'tr') {
      into.push(children(n).filter((c): c is Element => isElement(c) && (c.name === 'td' || c.name === 'th')));
      return;
    }
    for (const c of children(n)) visit(c, n.name === 'tfoot' ? footRows : into);
  };
  visit(el, rows);
  append(rows, footRows);
  const cells = rows.reduce((w, r) => Math.max(w, r.length), 0);
  if (rows.length === 0 || cells === 0) return [];
  // A one-column or one-row "table" is layout, not data: its cells read as blocks (a whole article,
  // at times). Its cells as written: a layout table's spans do not make it data.
  if (cells === 1 || rows.length === 1) return rows.flat().flatMap((c) => blocks(children(c), base));
  const cell = (c: Element) => singleSpaced(joinLines(inline(c, base)).replace(/\|/g, '\\|').trim());
  const texts = layOut(rows, cell);
  const width = texts.reduce((w, r) => Math.max(w, r.length), 0);
  // So is a table whose text is all in one column: the others hold spacers, icons, votes' arrows.
  const columnsOfText = new Set<number>();
  for (let i = 0; i < texts.length && columnsOfText.size < 2; i++) texts[i]!.forEach((t, k) => t !== '' && columnsOfText.add(k));
  if (columnsOfText.size < 2) return rows.flat().flatMap((c) => blocks(children(c), base));
  // The header row holds every column; a shorter row is not padded (GFM fills it with empty cells),
  // so a table of many rows under one wide row stays the size of its page.
  const [head, ...more] = texts;
  const rest = more.filter((r) => r.length > 0); // a row of no cells (a spacer) is none
  for (let k = head!.length; k < width; k++) head!.push('');
  const title = caption && escapeLineStart(singleSpaced(joinLines(inline(caption, base)).trim()));
  const lines = [`| ${head!.join(' | ')} |`, `| ${head!.map(() => '---').join(' | ')} |`, ...rest.map((r) => `| ${r.join(' | ')} |`)];
  return title ? [title, lines.join('\n')] : [lines.join('\n')];
}

/** Blocks that keep their own lines in a list item: a code block, a heading, a list, a table, a quote. */
const OWN_LINES = /^(```|#{1,6} |- |\d+\. |\||>)/;
/**
 * Those of them that a line of text right after would join (a list's last item, a table's rows, a
 * quote: CommonMark's lazy continuation), so a blank line follows them in an item; a table and a
 * quote also stand apart from what comes before.
 */
const BLANK_AFTER = /^(- |\d+\. |\||>)/;
const BLANK_BEFORE = /^(\||>)/;

/**
 * Lists and quotes nested deeper than this add no more indentation or `>`: each level prefixes every
 * line under it, so a page of 250 nested quotes around its paragraphs made 125 times its size in
 * markdown (and took 19 s). Real pages nest a few levels.
 */
const MAX_NESTING = 10;
let listDepth = 0;
let quoteDepth = 0;
/** Whether a `<details>` is being rendered: one within it needs no block of its own (and is not copied up level by level). */
let inDetails = false;

/** CommonMark's ordered list numbers: at most nine digits. */
const listStart = (v: string | undefined) => {
  const n = Number(v ?? 1);
  return Number.isInteger(n) && n >= 0 && n <= 999_999_999 ? n : 1;
};

/**
 * A list, its items' lines indented by `indent`; a nested list is indented to its item's content
 * (two spaces under `-`, three under `1.`), as CommonMark nests it.
 */
function list(el: Element, base: string, indent: string): string {
  listDepth++;
  try {
    return listLines(el, base, indent);
  } finally {
    listDepth--;
  }
}

function listLines(el: Element, base: string, indent: string): string {
  const ordered = el.name === 'ol';
  let i = listStart(attr(el, 'start'));
  const lines: string[] = [];
  for (const li of children(el)) {
    if (!isElement(li) || li.name !== 'li') continue;
    const marker = ordered ? `${i++}.` : '-';
    // Where the item's content starts; past MAX_NESTING, at its marker.
    const under = listDepth > MAX_NESTING ? indent : `${indent}${' '.repeat(marker.length + 1)}`;
    // The item's text runs on one line; a block with lines of its own (code, a heading, a table, a
    // quote, a list) keeps them, under the item (a fence, a heading or a list may interrupt a
    // paragraph, so the list stays tight), and text after it follows it there.
    const parts: { text: string; before: boolean; after: boolean }[] = [];
    let run = '';
    let afterBlock = false;
    // One space between a block and what touches it (two paragraphs of an item are two sentences, not one word).
    const add = (t: string, block: boolean) => {
      if ((block || afterBlock) && run.length > 0 && t.length > 0 && !isSpace(run.charCodeAt(run.length - 1)) && !isSpace(t.charCodeAt(0))) run += ' ';
      run += t;
      afterBlock = block;
    };
    const endRun = () => {
      const t = escapeLineStart(singleSpaced(joinLines(run).trim()));
      if (t) parts.push({ text: t, before: false, after: false });
      run = '';
      afterBlock = false;
    };
    const nested: string[] = [];
    for (const c of children(li)) {
      if (isElement(c) && (c.name === 'ul' || c.name === 'ol')) nested.push(list(c, base, under));
      else if (isElement(c) && BLOCKS.has(c.name)) {
        for (const b of blocks([c], base)) {
          if (OWN_LINES.test(b)) {
            endRun();
            parts.push({ text: b, before: BLANK_BEFORE.test(b), after: BLANK_AFTER.test(b) });
          } else {
            add(b, true);
          }
        }
      } else {
        add(inline(c, base), false);
      }
    }
    endRun();
    const item: string[] = [];
    parts.forEach((part, k) => {
      if (k > 0 && (part.before || parts[k - 1]!.after)) item.push('');
      for (const l of part.text.split('\n')) item.push(l);
    });
    if (item.length > 0) {
      lines.push(`${indent}${marker} ${item[0]}`);
      for (const l of item.slice(1)) lines.push(l ? `${under}${l}` : '');
    }
    for (const l of nested) if (l) lines.push(l);
  }
  return lines.join('\n');
}

/** `out.push(...items)` without passing every item as an argument: a page of a million paragraphs overflowed the stack. */
function append<T>(out: T[], items: readonly T[]): void {
  for (const item of items) out.push(item);
}

/**
 * A run of inline content as a paragraph's lines, each escaped at its start ('' for none). A
 * paragraph that is a break drawn in text (`***`, `* * *`, `---`: a story's scene break) is one.
 */
function paragraph(run: string): string {
  // A run of one line (most are) is only trimmed.
  const t = singleSpaced(
    !run.includes('\n')
      ? escapeLineStart(run.trim())
      : run
          .split('\n')
          .map((l) => escapeLineStart(l.trim()))
          .join('\n')
          .replace(/\n{2,}/g, '\n')
          .trim(),
  );
  return t && isTextBreak(t) ? '---' : t;
}

/** Paragraphs `done` with `next` after them, apart by a blank line. */
const thenParagraph = (done: string, next: string) => (!next ? done : done ? `${done}\n\n${next}` : next);

/** Renders nodes as markdown blocks, appended to `out` (a nested element's go straight there: copied up level by level, 250 levels of 100,000 blocks took twice as long). */
function blocks(nodes: AnyNode[], base: string, out: string[] = []): string[] {
  let buffer = '';
  // The paragraphs of this run of inline content that a <br><br> parted (`a<br><br>b`, as pages and
  // forum posts part paragraphs, read as one paragraph of lines). They stay one block of `out`, as
  // the run was: what reads blocks (chrome lines, edges, end markers) reads them as before.
  let parted = '';
  const endParagraph = () => {
    parted = thenParagraph(parted, paragraph(buffer));
    buffer = '';
  };
  const flush = () => {
    endParagraph();
    if (parted) out.push(parted);
    parted = '';
  };
  // Whether the last of the run's nodes but space and comments was a <br>.
  let afterBreak = false;
  for (const n of nodes) {
    if (n.type === 'root') {
      flush();
      blocks(children(n), base, out);
      continue;
    }
    if (isElement(n) && n.name === 'br') {
      if (afterBreak) endParagraph();
      else buffer += '\n';
      afterBreak = !afterBreak;
      continue;
    }
    if (isElement(n) || (isText(n) && n.data.trim() !== '')) afterBreak = false;
    if (!isElement(n) || !BLOCKS.has(n.name)) {
      // A link around blocks stays one link (its blocks become lines of it, in `inline`).
      if (!isElement(n) || n.name === 'a' || !containsBlock(n)) {
        buffer += inline(n, base);
        continue;
      }
      flush();
      blocks(children(n), base, out);
      continue;
    }
    flush();
    const name = n.name;
    if (/^h[1-6]$/.test(name)) {
      const t = headingText(inline(n, base).replace(/\s+/g, ' ').trim());
      // A heading drawn as a line (`<h2>______</h2>`, a separator) is a thematic break.
      if (t) out.push(isTextBreak(t) ? '---' : `${'#'.repeat(Number(name[1]))} ${t}`);
    } else if (name === 'dt' && isSignature(n)) {
      const code = codeSpan(signatureText(n).replace(/\s+/g, ' '));
      if (code) out.push(code);
    } else if (name === 'p' || name === 'dt' || name === 'dd' || name === 'figcaption' || name === 'summary' || name === 'address') {
      const t = blocks(children(n), base).join('\n\n');
      if (t.trim()) out.push(name === 'dt' ? `**${t.trim()}**` : t.trim());
    } else if (name === 'pre') {
      // trimEnd, not /\s+$/: that retried a long run of spaces inside the code from each of its positions.
      const code = codeText(n).replace(/^\n+/, '').trimEnd();
      if (code && !isLineNumbers(n, code)) out.push(fenced(code, codeLanguage(n)));
    } else if (name === 'blockquote') {
      if (quoteDepth >= MAX_NESTING) {
        blocks(children(n), base, out);
        continue;
      }
      quoteDepth++;
      let inner: string;
      try {
        inner = blocks(children(n), base).join('\n\n');
      } finally {
        quoteDepth--;
      }
      if (inner.trim()) out.push(inner.split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n'));
    } else if (name === 'ul' || name === 'ol') {
      const t = list(n, base, '');
      if (t) out.push(t);
    } else if (name === 'table') {
      append(out, table(n, base));
    } else if (name === 'hr') {
      out.push('---');
    } else if (name === 'details' && !inDetails) {
      // One block of its summary and content: a summary alone ("More info") was taken for an end
      // marker (`cutAtEndMarker`) and the rest of the article cut with it.
      inDetails = true;
      let inner: string;
      try {
        inner = blocks(children(n), base).join('\n\n');
      } finally {
        inDetails = false;
      }
      if (inner) out.push(inner);
    } else {
      blocks(children(n), base, out);
    }
  }
  flush();
  return out;
}

/**
 * Words that open only what follows an article (related links, recommendations), never a section
 * of it nor a widget in its middle: enough after a fifth of the text (`SURE_END`).
 */
const SURE_END_PHRASES = [
  'related (articles|posts|stories)', 'more (from|stories|news|like this)', 'you (may|might) (also )?(like|enjoy|be interested)', 'recommended for you', 'read next',
  'você pode gostar', 'veja também', 'leia também', 'te puede interesar', 'también te puede interesar', 'lee también', 'à lire aussi', 'vous aimerez aussi',
  'das könnte sie auch interessieren', 'mehr zum thema', 'leggi anche', 'potrebbe interessarti',
];
/** Other words that open what follows an article (comments, author boxes, tags), but at times a section of it or a widget in its middle ("Most read"). */
const END_PHRASES = [
  'related( (articles|posts|stories|content|coverage|reading))?', 'more (from|on|in|stories|news|like this)', 'more (?!(examples?|info|information|details|resources)$)[\\w.]+$',
  'recommended( for you)?', 'read (more|next|also)', 'also read', 'see also', 'popular( (now|posts|stories))?', 'most (read|popular|viewed)', 'trending',
  'latest (news|posts|stories)', 'comments?', '\\d+ comments?', 'leave a (reply|comment)', 'join the (conversation|discussion)', 'share this( (article|post|story))?',
  'about the author', 'tags?:?', 'filed under', 'lire aussi',
];
/** Headings (or lines) that open what follows an article: related links, comments, author boxes, tags. */
const END_MARKER = new RegExp(`^(#{1,6} )?\\**(${[...END_PHRASES, ...SURE_END_PHRASES].join('|')})\\b[^\\n]{0,40}$`, 'i');
/** An end marker that is a heading of `SURE_END_PHRASES`. */
const SURE_END = new RegExp(`^#{1,6} \\**(${SURE_END_PHRASES.join('|')})\\b`, 'i');

/**
 * A paragraph that is a label of the page's chrome inside its article, whole (bold or not): an ad's
 * label (in the languages of the pages we read most), a box's of other stories ("DON'T MISS"), a
 * "continue reading" line between an ad and the story, a row of share buttons (what heads one is
 * `SHARE_LINE`'s).
 */
const CHROME_LINE =
  /^\**(?:don['\u2019]?t miss|must read|advertisements?|adverts?|advertising|sponsored|sponsored content|ad|anzeige|werbung|publicidad|publicité|pubblicità|reklama|реклама|iklan|广告|廣告|広告|광고|continue reading( the main story| below)?|read more|(story|article) continues below( this)?( advertisement| ad)?|scroll to continue( with content)?|((share|tweet|post|pin)( this| it)?( on| to| via)? (facebook|twitter|x|linkedin|whatsapp|reddit|email|e-mail|pinterest|telegram|threads|bluesky|mastodon|flipboard)\s*)+)\**$/i;

/** What heads a row of share buttons, as a paragraph or a heading: "Share", "Share this:", "Share this story". */
const SHARE_LINE = /^\**share( this( story| article| post| page)?)?:?\**$/i;

/** A paragraph that is a label and one link to another story: `**Related:** [Title](...)`, `READ MORE: [Title](...)`, `**[Related: [Title](...)]**`. */
const STORY_LINK_LINE = /^\**\[?\**(related|related posts?|related stories|related articles?|read more|read also|read next|see also|also read|more|recommended|watch|listen|don't miss|must read)\**\s*:\s*\**\s*\[.*\]\([^)\s]*\)\**\]?\**\s*$/i;

/** A paragraph that is a label and links alone: a post's tags (`**Tags** [a](...), [b](...)`). */
const TAG_LINE = /^\**(tags|tagged|tagged with|topics|filed under|categories|etiquetas|schlagwörter|mots-clés)\**\s*:?\s*\**\s*(\[[^\]]*\]\([^)\s]*\)\**[\s,;|·•]*)+$/i;

/**
 * The blocks without those of chrome lines (short, so the patterns read only what could be one). A
 * heading is one when it links another story (`### Related post: [Title](...)`) or heads share
 * buttons; a heading of other words a line of chrome says (`## Advertising`) names a section.
 */
function withoutChromeLines(out: string[]): string[] {
  return out.filter((b) => {
    let t = b.trim();
    const heading = /^#{1,6}\s+/.exec(t);
    if (heading) {
      t = t.slice(heading[0].length);
      return !(t.length <= 300 && (STORY_LINK_LINE.test(t) || SHARE_LINE.test(t)));
    }
    return !(t.length <= 300 && (CHROME_LINE.test(t) || SHARE_LINE.test(t) || STORY_LINK_LINE.test(t))) && !(t.length <= 5_000 && TAG_LINE.test(t));
  });
}

/**
 * Cuts the blocks at the first end marker that comes after most of the text, and after the last
 * code block and table: what follows an article (links, comments) holds neither, and a tutorial's
 * last section ("## Comments" on comments in code) does.
 */
function cutAtEndMarker(out: string[]): string[] {
  const total = out.reduce((n, b) => n + b.length, 0);
  let lastStructured = -1;
  for (let i = out.length - 1; i >= 0 && lastStructured < 0; i--) if (/^(```|\|)/.test(out[i]!)) lastStructured = i;
  let seen = 0;
  for (let i = 0; i < out.length; i++) {
    const b = out[i]!;
    if (i > lastStructured && b.length <= 80 && END_MARKER.test(b.trim()) && seen >= total * (SURE_END.test(b.trim()) ? 0.2 : 0.6)) return out.slice(0, i);
    seen += b.length;
  }
  return out;
}

const STRUCTURED = /^(#{1,6} |[-*] |\d+\. |\||```|>|!\[)/;
const SENTENCE_END = /[.!?…:;"”’»)\]。．！？」』）]$/;

/**
 * The most short blocks trimmed at one edge: chrome comes in ones and twos (a kicker and a dateline;
 * an address, a copyright line, "6" shares), while a longer run is content. 3 kept a page's four
 * stray counters, and 4 changes none of the extraction benchmark's pages (bench:extract --dump).
 */
const MAX_EDGE_RUN = 4;

/**
 * Trims chrome at the edges of the content: short lines without sentence punctuation (CJK full
 * stops included) before the first real paragraph (kickers, datelines, "Updated on ...") and after
 * the last one (addresses, copyright lines, dangling headings).
 */
function trimEdges(out: string[]): string[] {
  const chrome = (b: string, limit: number) => b.length < limit && !SENTENCE_END.test(b.trim()) && !STRUCTURED.test(b);
  // Without a real paragraph there is no article to trim around: a poem, a list of names, a haiku.
  if (!out.some((b) => b.length >= 80 && !STRUCTURED.test(b))) return out;
  let start = 0;
  while (start < out.length - 1 && chrome(out[start]!, 60)) start++;
  if (start > MAX_EDGE_RUN) start = 0; // more short blocks than chrome has: they are content (a poem's lines)
  let end = out.length;
  while (end > start + 1 && (chrome(out[end - 1]!, 120) || /^#{1,6} /.test(out[end - 1]!))) end--;
  if (out.length - end > MAX_EDGE_RUN) end = out.length;
  return out.slice(start, end);
}

/**
 * The thematic breaks that part nothing left out: one at the start or the end, right after a
 * heading, or right after another. Two ways of parting posts meet on a thread's page (each comment
 * after a break, each post of the best block's class apart: `---` then `---`), and a break before
 * the first comment stood between a thread's title and its first post.
 */
function withoutIdleBreaks(out: string[]): string[] {
  const kept: string[] = [];
  for (const b of out) {
    if (b === '---' && (kept.length === 0 || kept[kept.length - 1] === '---' || /^#{1,6} /.test(kept[kept.length - 1]!))) continue;
    kept.push(b);
  }
  while (kept[kept.length - 1] === '---') kept.pop();
  return kept;
}

export function toMarkdown(nodes: AnyNode[], baseUrl: string, budget = new LinkGrowth()): string {
  growth = budget;
  linkDepth = 0;
  // No block starts or ends with a line break, so the only blank lines in a row are a code block's own.
  return withoutIdleBreaks(trimEdges(cutAtEndMarker(withoutChromeLines(blocks(nodes, baseUrl))))).join('\n\n').trim();
}
