/** Small helpers over htmlparser2's DOM (domhandler nodes). */
import { type AnyNode, type Document, DomHandler, type Element } from 'domhandler';
import { Parser } from 'htmlparser2';

/**
 * The deepest element nesting the parser keeps; an element opened deeper first closes the deepest
 * open one, so it becomes that one's sibling (browsers' parsers cap a tree at 512 levels the same
 * way). Without it, a page of a few thousand nested `<span>`s overflows the stack of every recursive
 * walk, and htmlparser2's stack of open elements (an array it `unshift`s) makes parsing quadratic
 * (bench:extract's page nested 100,000 levels deep).
 */
export const MAX_DEPTH = 256;

/** The parts of htmlparser2's `Parser` (10.x) the cap works with; not its public API, so a test pins them. */
interface ParserInternals {
  stack: string[];
  cbs: { onclosetag?(name: string, isImplied: boolean): void };
  emitOpenTag(name: string): void;
}

/**
 * Parses a page as htmlparser2's `parseDocument` does, with its nesting capped at `MAX_DEPTH`;
 * `xml` parses it as XML (a feed: `<link>` holds text, CDATA sections are text), names lowercased.
 */
export function parseHtml(html: string, xml = false): Document {
  const options = { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, xmlMode: xml };
  const handler = new DomHandler();
  const parser = new Parser(handler, options);
  const inner = parser as unknown as ParserInternals;
  const open = inner.emitOpenTag;
  inner.emitOpenTag = function (this: ParserInternals, name: string) {
    while (this.stack.length >= MAX_DEPTH) this.cbs.onclosetag?.(this.stack.shift()!, true);
    open.call(this, name);
  };
  parser.end(html);
  return handler.root;
}

export function isElement(n: AnyNode): n is Element {
  return n.type === 'tag' || n.type === 'script' || n.type === 'style';
}

export function isText(n: AnyNode): n is AnyNode & { data: string } {
  return n.type === 'text';
}

export function children(n: AnyNode): AnyNode[] {
  return 'children' in n ? (n.children as AnyNode[]) : [];
}

export function attr(el: Element, name: string): string | undefined {
  const v = el.attribs[name];
  return v === undefined ? undefined : v;
}

/** Depth-first walk; the visitor returns false to skip a subtree. */
export function walk(n: AnyNode, visit: (n: AnyNode) => boolean | void): void {
  if (visit(n) === false || !('children' in n)) return;
  // By index, not by iterator: a page of a million elements is walked several times.
  const kids = n.children as AnyNode[];
  for (let i = 0; i < kids.length; i++) walk(kids[i]!, visit);
}

export function findAll(root: AnyNode, pred: (el: Element) => boolean): Element[] {
  const out: Element[] = [];
  walk(root, (n) => {
    if (isElement(n) && pred(n)) out.push(n);
  });
  return out;
}

export function findFirst(root: AnyNode, pred: (el: Element) => boolean): Element | undefined {
  let found: Element | undefined;
  walk(root, (n) => {
    if (found) return false;
    if (isElement(n) && pred(n)) {
      found = n;
      return false;
    }
  });
  return found;
}

/** The nearest element above `n` (its parent first, `levels` up at most) that `pred` accepts. */
export function ancestor(n: AnyNode, pred: (el: Element) => boolean, levels = Infinity): Element | undefined {
  let up = 0;
  for (let p = n.parent; p !== null && isElement(p) && up < levels; p = p.parent, up++) if (pred(p)) return p;
  return undefined;
}

/** Concatenated text of a subtree (scripts and styles excluded), whitespace not folded. */
export function textOf(n: AnyNode): string {
  if (isText(n)) return n.data;
  if (n.type !== 'tag' && n.type !== 'root' && n.type !== 'cdata') return '';
  let s = '';
  for (const c of children(n)) s += textOf(c);
  return s;
}

/** JavaScript's \s (the characters `trim` and `/\s+/` take). */
export function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Removes nodes, each parent's list of children rewritten once: `remove` one by one looks each up
 * in its parent's list and splices it out, so taking most of 40,000 siblings (a page of `<link>` or
 * `<meta>` tags in its body) took 3 s.
 */
export function removeAll(nodes: Iterable<AnyNode>): void {
  const byParent = new Map<NonNullable<AnyNode['parent']>, Set<AnyNode>>();
  for (const n of nodes) {
    if (!n.parent) continue;
    let gone = byParent.get(n.parent);
    if (!gone) byParent.set(n.parent, (gone = new Set()));
    gone.add(n);
  }
  for (const [parent, gone] of byParent) {
    const kept = parent.children;
    let w = 0;
    for (const c of kept) if (!gone.has(c)) kept[w++] = c;
    kept.length = w;
    for (let i = 0; i < w; i++) {
      kept[i]!.prev = kept[i - 1] ?? null;
      kept[i]!.next = kept[i + 1] ?? null;
    }
    for (const n of gone) {
      n.parent = null;
      n.prev = null;
      n.next = null;
    }
  }
}

/** Puts `n` (a new node) before `sibling`, in its parent. */
export function insertBefore(sibling: AnyNode, n: AnyNode): void {
  const parent = sibling.parent;
  if (!parent) return;
  const i = parent.children.indexOf(sibling as never);
  parent.children.splice(i, 0, n as never);
  n.parent = parent;
  n.prev = sibling.prev;
  n.next = sibling;
  if (sibling.prev) sibling.prev.next = n;
  sibling.prev = n;
}

/** Puts `n` (a new node) first among `parent`'s children. */
export function prepend(parent: Element, n: AnyNode): void {
  const first = parent.children[0];
  parent.children.unshift(n as never);
  n.parent = parent;
  n.prev = null;
  n.next = first ?? null;
  if (first) first.prev = n;
}

export function remove(n: AnyNode): void {
  const parent = n.parent;
  if (!parent) return;
  const i = parent.children.indexOf(n as never);
  if (i >= 0) parent.children.splice(i, 1);
  if (n.prev) n.prev.next = n.next;
  if (n.next) n.next.prev = n.prev;
  n.parent = null;
}
