/**
 * The `webql` search mode's query language (keyed tier only; README "webql").
 *
 *   query   := and
 *   and     := or+                      implicit AND between adjacent items
 *   or      := unary ("OR" unary)*      OR binds tighter than the implicit AND
 *   unary   := "-" primary | primary    "-" excludes
 *   primary := "(" and ")" | FIELD ":" value | '"' words '"' | word
 *   value   := '"' words '"' | word
 *   FIELD   := site | title | intitle | url | inurl | filetype | ext | lang
 *              (case-insensitive; intitle is title, ext is filetype)
 *
 * A word that analyses into several words is a phrase; a bare word's hyphenated compound is read
 * both ways (`e-mail`: the phrase "e mail" OR `email`). Positions in errors are 0-based character
 * offsets into the query as sent.
 */
import { ServiceError } from './errors.js';
import { LANG_TAG_RE } from './language.js';
import { fileTypesServedAs } from './media-type.js';
import { joinedCompounds, words } from './text.js';
import { normalEscapes, normalUrlPrefix, parseSiteFilter, urlFileType } from './url.js';

export type WebqlNode =
  | { kind: 'and'; children: WebqlNode[] }
  | { kind: 'or'; children: WebqlNode[] }
  | { kind: 'not'; child: WebqlNode }
  /** One word is a term, several a phrase; `field: 'title'` restricts it to the title. */
  | { kind: 'text'; words: string[]; field?: 'title' }
  /** Host and its subdomains. */
  | { kind: 'site'; host: string }
  /** URL prefix; without a scheme both http and https match. */
  | { kind: 'url'; prefix: string }
  /** Case-insensitive substring of the URL. */
  | { kind: 'inurl'; text: string }
  /** A file type, lower case: the one the URL names its file by (`urlFileType`), or one the page was served as (`pageMatches`). */
  | { kind: 'filetype'; ext: string }
  /** Language tag or its primary subtag: `en` matches `en` and `en-gb`. */
  | { kind: 'lang'; tag: string };

// `intitle` is `title` under the name web search engines give it, as `inurl` and `filetype` (or
// `ext`) are theirs.
const FIELDS = ['site', 'title', 'intitle', 'url', 'inurl', 'filetype', 'ext', 'lang'] as const;
type Field = (typeof FIELDS)[number];

/** A `filetype:` value: letters and digits, a dot before them allowed (`pdf`, `.PDF`, `mp4`). */
const FILE_TYPE_RE = /^\.?([a-z0-9]{1,10})$/i;

/** The type a `filetype:` value names (`.PDF` is `pdf`), or undefined when it names none. */
export function fileTypeOf(value: string): string | undefined {
  return FILE_TYPE_RE.exec(value)?.[1]!.toLowerCase();
}

/** An `inurl:` item (webql's, a standard query's): its text's escapes as stored URLs write theirs (core/url.ts `normalEscapes`). */
export function inUrlItem(text: string): Extract<WebqlNode, { kind: 'inurl' }> {
  return { kind: 'inurl', text: normalEscapes(text) };
}

/** An item that a page's URL and the media type it was served as decide: `inurl:` or `filetype:`. */
export type UrlItem = Extract<WebqlNode, { kind: 'inurl' | 'filetype' }>;

/**
 * Whether a page matches a URL item: `inurl:` its URL (case-insensitive); `filetype:` the type its
 * URL names, or one its media type answers to (`mediaType`: lowercased, without parameters; absent
 * for a version stored before media types were kept, which only its URL decides).
 */
export function pageMatches(node: UrlItem, url: string, mediaType: string | undefined): boolean {
  if (node.kind === 'inurl') return url.toLowerCase().includes(node.text.toLowerCase());
  return urlFileType(url) === node.ext || (mediaType !== undefined && fileTypesServedAs(mediaType).includes(node.ext));
}

type Token =
  | { type: '(' | ')' | 'OR' | '-'; pos: number }
  | { type: 'word'; text: string; pos: number }
  | { type: 'phrase'; text: string; pos: number }
  | { type: 'field'; field: Field; pos: number };

function syntaxError(position: number, message: string): ServiceError {
  return new ServiceError('invalid_parameter', `webql: ${message} at position ${position}`, {
    param: 'query',
    body: { position },
  });
}

function isSpace(c: string): boolean {
  return /\s/.test(c);
}

function tokenize(q: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  // `-` and fields start an item only at its beginning (after space, start, "(" or another prefix).
  let atItemStart = true;
  while (i < q.length) {
    const c = q[i]!;
    if (isSpace(c)) {
      i++;
      atItemStart = true;
      continue;
    }
    if (c === '(' || c === ')') {
      out.push({ type: c, pos: i++ });
      atItemStart = c === '(';
      continue;
    }
    if (c === '"') {
      const end = q.indexOf('"', i + 1);
      if (end < 0) throw syntaxError(i, 'unterminated quote');
      out.push({ type: 'phrase', text: q.slice(i + 1, end), pos: i });
      i = end + 1;
      atItemStart = false;
      continue;
    }
    if (c === '-' && atItemStart) {
      out.push({ type: '-', pos: i++ });
      continue;
    }
    let j = i;
    while (j < q.length && !isSpace(q[j]!) && q[j] !== '(' && q[j] !== ')' && q[j] !== '"') j++;
    const text = q.slice(i, j);
    const colon = text.indexOf(':');
    if (atItemStart && colon > 0) {
      const name = text.slice(0, colon).toLowerCase();
      if ((FIELDS as readonly string[]).includes(name)) {
        out.push({ type: 'field', field: name as Field, pos: i });
        i += colon + 1;
        atItemStart = false;
        if (colon + 1 < text.length) out.push({ type: 'word', text: text.slice(colon + 1), pos: i });
        i = j;
        continue;
      }
    }
    out.push(text === 'OR' ? { type: 'OR', pos: i } : { type: 'word', text, pos: i });
    i = j;
    atItemStart = false;
  }
  return out;
}

class Parser {
  private at = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  parse(): WebqlNode | undefined {
    const node = this.and();
    const rest = this.peek();
    if (rest) throw syntaxError(rest.pos, rest.type === ')' ? 'unmatched ")"' : `unexpected ${rest.type}`);
    return node;
  }

  /**
   * Items until ")" or the end; text items that analyse to no words are dropped. A group's AND is
   * its items, here as at the top (`(a lang:en) b` is `a lang:en b`), so that what the engine
   * reads of the top level (its `lang:`, `site:`, `url:`, the words every match holds) is all
   * there: a `lang:` in a group was checked on each candidate's stored version (200 ms at 1M for
   * `(rate lang:en) regulates`, 1 ms ungrouped).
   */
  private and(): WebqlNode | undefined {
    const items: WebqlNode[] = [];
    for (let t = this.peek(); t && t.type !== ')'; t = this.peek()) {
      const item = this.or();
      if (item?.kind === 'and') items.push(...item.children);
      else if (item) items.push(item);
    }
    if (items.length === 0) return undefined;
    return items.length === 1 ? items[0] : { kind: 'and', children: items };
  }

  private or(): WebqlNode | undefined {
    const first = this.peek()!;
    if (first.type === 'OR') throw syntaxError(first.pos, 'OR needs a term on each side');
    const items: (WebqlNode | undefined)[] = [this.unary()];
    while (this.peek()?.type === 'OR') {
      const op = this.tokens[this.at++]!;
      const next = this.peek();
      if (!next || next.type === ')' || next.type === 'OR') throw syntaxError(op.pos, 'OR needs a term on each side');
      items.push(this.unary());
    }
    // An OR's group of ORs is its items too (`(a OR b) OR c` is `a OR b OR c`).
    const kept = items.flatMap((n) => (n === undefined ? [] : n.kind === 'or' ? n.children : [n]));
    if (kept.length === 0) return undefined;
    return kept.length === 1 ? kept[0] : { kind: 'or', children: kept };
  }

  private unary(): WebqlNode | undefined {
    const t = this.peek()!;
    if (t.type !== '-') return this.primary();
    this.at++;
    const next = this.peek();
    if (!next || next.pos !== t.pos + 1 || next.type === ')' || next.type === 'OR' || next.type === '-') {
      throw syntaxError(t.pos, '"-" must be followed by a term, phrase, group or field');
    }
    const child = this.primary();
    return child ? { kind: 'not', child } : undefined;
  }

  private primary(): WebqlNode | undefined {
    const t = this.tokens[this.at++]!;
    switch (t.type) {
      case '(': {
        const inner = this.and();
        const close = this.peek();
        if (close?.type !== ')') throw syntaxError(t.pos, 'unmatched "("');
        this.at++;
        if (!inner) throw syntaxError(t.pos, 'empty group');
        return inner;
      }
      case 'word':
        return bareWord(t.text);
      case 'phrase':
        return textNode(t.text);
      case 'field':
        return this.field(t);
      default:
        throw syntaxError(t.pos, `unexpected ${t.type}`);
    }
  }

  private field(t: Token & { type: 'field' }): WebqlNode {
    const v = this.peek();
    if (!v || (v.type !== 'word' && v.type !== 'phrase') || v.pos !== t.pos + t.field.length + 1) {
      throw syntaxError(t.pos, `${t.field}: needs a value right after the colon`);
    }
    this.at++;
    const value = v.text.trim();
    const valuePos = v.pos;
    if (value === '') throw syntaxError(valuePos, `${t.field}: needs a value`);
    switch (t.field) {
      case 'title':
      case 'intitle': {
        const node = textNode(value);
        if (!node) throw syntaxError(valuePos, `${t.field}: needs a word`);
        return { ...node, field: 'title' };
      }
      case 'site': {
        const host = parseSiteFilter(value);
        if (!host) throw syntaxError(valuePos, 'site: needs a bare host name such as example.com');
        return { kind: 'site', host };
      }
      case 'lang': {
        const tag = value.toLowerCase().replaceAll('_', '-');
        if (!LANG_TAG_RE.test(tag)) throw syntaxError(valuePos, 'lang: needs a language tag such as en or pt-br');
        return { kind: 'lang', tag };
      }
      // Compared with stored URLs, whose escapes are in their normal form (core/url.ts).
      case 'url':
        return { kind: 'url', prefix: normalUrlPrefix(value) };
      case 'inurl':
        return inUrlItem(value);
      case 'filetype':
      case 'ext': {
        const ext = fileTypeOf(value);
        if (!ext) throw syntaxError(valuePos, `${t.field}: needs a file type such as pdf`);
        return { kind: 'filetype', ext };
      }
    }
  }
}

type TextNode = Extract<WebqlNode, { kind: 'text' }>;

function textNode(text: string): TextNode | undefined {
  const w = words(text);
  return w.length === 0 ? undefined : { kind: 'text', words: w };
}

/**
 * A bare word, read both ways when it holds a hyphenated compound, as a standard query's is: its
 * words side by side, or the compound's words joined (`e-mail` finds "e mail", "e-mail" and
 * `email`). A phrase or a field keeps the words as written.
 */
function bareWord(text: string): WebqlNode | undefined {
  const node = textNode(text);
  const joined = node && joinedCompounds(text);
  const other = joined === undefined ? undefined : textNode(joined);
  return other ? { kind: 'or', children: [node!, other] } : node;
}

/** Parses a webql query; throws 400 invalid_parameter with the position on a syntax error. */
export function parseWebql(query: string, offset = 0): WebqlNode {
  let tokens: Token[];
  try {
    tokens = tokenize(query);
  } catch (e) {
    throw shifted(e, offset);
  }
  tokens = tokens.map((t) => ({ ...t, pos: t.pos + offset }));
  const node = new Parser(tokens).parse();
  if (!node) throw syntaxError(offset, 'the query has no term, phrase or field');
  if (!hasPositive(node)) {
    throw syntaxError(offset, 'the query only excludes; add a term, phrase or field that results must match');
  }
  return node;
}

function shifted(e: unknown, offset: number): unknown {
  if (!(e instanceof ServiceError) || offset === 0) return e;
  const position = (e.extra.position as number) + offset;
  return syntaxError(position, e.message.replace(/^webql: (.*) at position \d+$/, '$1'));
}

/** Whether the expression can match without matching everything: some item is not excluded. */
function hasPositive(node: WebqlNode): boolean {
  switch (node.kind) {
    case 'not':
      return false;
    case 'and':
      return node.children.some(hasPositive);
    case 'or':
      return node.children.every(hasPositive);
    default:
      return true;
  }
}

/** The words results are expected to contain (for snippets): text items not under an exclusion. */
export function positiveWords(node: WebqlNode): string[] {
  switch (node.kind) {
    case 'not':
      return [];
    case 'and':
    case 'or':
      return [...new Set(node.children.flatMap(positiveWords))];
    case 'text':
      return node.words;
    default:
      return [];
  }
}
