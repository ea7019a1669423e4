/** Small helpers over htmlparser2's DOM (domhandler nodes). */
import type { AnyNode, Element } from 'domhandler';

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
  if (visit(n) === false) return;
  for (const c of children(n)) walk(c, visit);
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

/** Concatenated text of a subtree (scripts and styles excluded), whitespace not folded. */
export function textOf(n: AnyNode): string {
  if (isText(n)) return n.data;
  if (n.type !== 'tag' && n.type !== 'root' && n.type !== 'cdata') return '';
  let s = '';
  for (const c of children(n)) s += textOf(c);
  return s;
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
