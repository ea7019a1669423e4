/**
 * webql answered by the engine (README "webql"). The engine has no positions and no fields of its
 * own (one weighted frequency per term and document), so a webql query runs in two steps:
 *
 * 1. Candidates from the engine (`allMatches`): the documents the request's filters accept that
 *    hold any word of the expression's positive text items (every accepted document when one
 *    without any of them could match: fields only, or items made only of stop words, which the
 *    engine does not index), each with the words it holds and its BM25 score. A document that
 *    lacks a word every match must hold (`mayMatch`) is dropped there.
 * 2. In rank order, the candidates are read from the page store in batches and the whole
 *    expression is checked on the stored version (`matches`): a text item's words, stemmed, must
 *    stand side by side in the title, the description or the content (the title only with
 *    `title:`); site, url, inurl and lang against the page's URL and the version's language.
 *    Reading stops once `limit` versions matched.
 *
 * Ranking, as before the engine served webql: BM25 over the words of the top-level items that are
 * text alone (terms, phrases, their OR groups and exclusions); an expression without such an item
 * lists the newest versions first.
 */
import { cachedStem, scanWords, STOP_WORDS, unicodeWords } from '../../core/text.js';
import { reverseHost } from '../../core/url.js';
import type { WebqlNode } from '../../core/webql.js';
import type { IndexHit } from '../../ports/index-store.js';
import type { Matches } from './engine.js';

/** What the check of a version reads: `title`, `description` and `content` only when the expression has a text item. */
export interface WebqlVersion {
  id: number;
  url: string;
  revHost: string;
  lang: string | null;
  title: string;
  description: string;
  content: string;
}

export interface WebqlDeps {
  /** The engine's candidates for these stemmed terms (BM25 over the first `scored`; every accepted document when `everyDoc`) that `keep` keeps (`allMatches`). */
  matches(terms: readonly string[], scored: number, everyDoc: boolean, keep: (held: number) => boolean, required: readonly string[]): Matches;
  /** The versions of these ids that still exist, in any order. */
  read(ids: readonly number[], withText: boolean): WebqlVersion[];
}

/** Candidates checked by the first read; each read after doubles, up to the largest. */
const FIRST_READ = 32;
const LARGEST_READ = 1024;

type TextNode = Extract<WebqlNode, { kind: 'text' }>;

/** A text item's words as the engine indexes them: stemmed, stop words left out. */
function indexedStems(node: TextNode): string[] {
  return node.words.filter((w) => !STOP_WORDS.has(w)).map(cachedStem);
}

/** The stems of the words of positive text items, in first-seen order (under an exclusion, a word narrows nothing). */
function positiveStems(node: WebqlNode, out: string[]): string[] {
  switch (node.kind) {
    case 'text':
      for (const s of indexedStems(node)) if (!out.includes(s)) out.push(s);
      break;
    case 'and':
    case 'or':
      for (const c of node.children) positiveStems(c, out);
      break;
    default:
  }
  return out;
}

/** The stems every match holds: those of the positive text items every way of matching needs. */
export function requiredStems(node: WebqlNode): string[] {
  switch (node.kind) {
    case 'text':
      return indexedStems(node);
    case 'and':
      return [...new Set(node.children.flatMap(requiredStems))];
    case 'or': {
      const [first, ...rest] = node.children.map(requiredStems);
      return first!.filter((s) => rest.every((r) => r.includes(s)));
    }
    default:
      return [];
  }
}

/** Whether a node is text alone: terms, phrases, their groups and exclusions, no field. */
function textOnly(node: WebqlNode): boolean {
  switch (node.kind) {
    case 'text':
      return node.field === undefined;
    case 'not':
      return textOnly(node.child);
    case 'and':
    case 'or':
      return node.children.every(textOnly);
    default:
      return false;
  }
}

function hasText(node: WebqlNode): boolean {
  switch (node.kind) {
    case 'text':
      return true;
    case 'not':
      return hasText(node.child);
    case 'and':
    case 'or':
      return node.children.some(hasText);
    default:
      return false;
  }
}

/**
 * `mayMatch` as a test of the terms a document holds (bit j: `terms[j]`, the first 31): false only
 * when a document holding just those cannot match. A positive text item needs every indexed word of
 * it (the engine's terms of a version include its title, description and content, so this never
 * drops a match); fields and exclusions are decided on the stored version.
 */
export function mayMatch(node: WebqlNode, terms: readonly string[]): (held: number) => boolean {
  switch (node.kind) {
    case 'text': {
      let need = 0;
      for (const s of indexedStems(node)) {
        const j = terms.indexOf(s); // every positive word is one of the terms
        if (j < 31) need |= 1 << j;
      }
      return (held) => (held & need) === need;
    }
    case 'and': {
      const parts = node.children.map((c) => mayMatch(c, terms));
      return (held) => parts.every((p) => p(held));
    }
    case 'or': {
      const parts = node.children.map((c) => mayMatch(c, terms));
      return (held) => parts.some((p) => p(held));
    }
    default:
      return () => true;
  }
}

/** A version's fields as stemmed words, each made once per version and only if asked for. */
class VersionWords {
  private readonly made = new Map<'title' | 'description' | 'content', string[]>();

  constructor(readonly v: WebqlVersion) {}

  field(name: 'title' | 'description' | 'content'): string[] {
    let stems = this.made.get(name);
    if (!stems) {
      const text = this.v[name];
      const out: string[] = [];
      // The words of `words()` (core/text.ts): ASCII runs lowercased, other runs split and folded.
      scanWords(text, (i, j, ascii) => {
        if (ascii) out.push(cachedStem(text.slice(i, j).toLowerCase()));
        else for (const w of unicodeWords(text.slice(i, j))) out.push(cachedStem(w));
      });
      this.made.set(name, (stems = out));
    }
    return stems;
  }
}

/** Whether `phrase` occurs in `stems` as adjacent words, in order. */
function hasPhrase(stems: readonly string[], phrase: readonly string[]): boolean {
  const first = phrase[0]!;
  for (let i = stems.indexOf(first); i >= 0 && i + phrase.length <= stems.length; i = stems.indexOf(first, i + 1)) {
    let k = 1;
    while (k < phrase.length && stems[i + k] === phrase[k]) k++;
    if (k === phrase.length) return true;
  }
  return false;
}

const FIELDS = ['title', 'description', 'content'] as const;

/** Whether the stored version matches the expression. */
export function matches(node: WebqlNode, w: VersionWords): boolean {
  switch (node.kind) {
    case 'and':
      return node.children.every((c) => matches(c, w));
    case 'or':
      return node.children.some((c) => matches(c, w));
    case 'not':
      return !matches(node.child, w);
    case 'text': {
      const phrase = node.words.map(cachedStem);
      return node.field === 'title' ? hasPhrase(w.field('title'), phrase) : FIELDS.some((f) => hasPhrase(w.field(f), phrase));
    }
    case 'site':
      return w.v.revHost.startsWith(reverseHost(node.host));
    case 'url': {
      const prefixes = /^https?:\/\//i.test(node.prefix) ? [node.prefix] : [`http://${node.prefix}`, `https://${node.prefix}`];
      return prefixes.some((p) => w.v.url.startsWith(p));
    }
    case 'inurl':
      return w.v.url.toLowerCase().includes(node.text.toLowerCase());
    case 'lang':
      return w.v.lang !== null && (w.v.lang === node.tag || w.v.lang.startsWith(`${node.tag}-`));
  }
}

/** `matches` from the page's URL and the version's language alone: undefined where it depends on a text item. */
function decide(node: WebqlNode, v: WebqlVersion): boolean | undefined {
  switch (node.kind) {
    case 'and': {
      let all: boolean | undefined = true;
      for (const c of node.children) {
        const d = decide(c, v);
        if (d === false) return false;
        if (d === undefined) all = undefined;
      }
      return all;
    }
    case 'or': {
      let any: boolean | undefined = false;
      for (const c of node.children) {
        const d = decide(c, v);
        if (d === true) return true;
        if (d === undefined) any = undefined;
      }
      return any;
    }
    case 'not': {
      const d = decide(node.child, v);
      return d === undefined ? undefined : !d;
    }
    case 'text':
      return undefined;
    default:
      return matches(node, new VersionWords(v));
  }
}

/** Candidates (indexes into the engine's arrays) taken best first from a binary heap: most are never taken. */
class Ranked {
  private readonly heap: number[];

  constructor(
    size: number,
    private readonly better: (a: number, b: number) => boolean,
  ) {
    this.heap = Array.from({ length: size }, (_, i) => i);
    for (let i = (size >> 1) - 1; i >= 0; i--) this.down(i);
  }

  get size(): number {
    return this.heap.length;
  }

  take(): number {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      this.down(0);
    }
    return top;
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) return;
      const c = l + 1 < h.length && this.better(h[l + 1]!, h[l]!) ? l + 1 : l;
      if (!this.better(h[c]!, h[i]!)) return;
      [h[c], h[i]] = [h[i]!, h[c]!];
      i = c;
    }
  }
}

/** The versions that match `node`, best first, at most `limit`. */
export function searchWebql(deps: WebqlDeps, node: WebqlNode, limit: number): IndexHit[] {
  if (limit <= 0) return [];
  const items = node.kind === 'and' ? node.children : [node];
  // The ranking words first: those of the top-level items that are text alone.
  const ranking = positiveStems({ kind: 'and', children: items.filter(textOnly) }, []);
  const terms = positiveStems(node, [...ranking]);
  const keep = mayMatch(node, terms);
  const found = deps.matches(terms, ranking.length, keep(0), keep, requiredStems(node));
  const { versionIds: ids, scores, acquiredAt } = found;
  const ranked = new Ranked(
    ids.length,
    ranking.length > 0
      ? (a, b) => scores[a]! > scores[b]! || (scores[a] === scores[b] && ids[a]! < ids[b]!)
      : (a, b) => acquiredAt[a]! > acquiredAt[b]! || (acquiredAt[a] === acquiredAt[b] && ids[a]! > ids[b]!),
  );

  // Each batch is read first without the texts: a candidate its URL or language rules out is never read whole.
  const withText = hasText(node);
  const hits: IndexHit[] = [];
  for (let size = FIRST_READ; ranked.size > 0 && hits.length < limit; size = Math.min(size * 2, LARGEST_READ)) {
    const batch = Array.from({ length: Math.min(size, ranked.size) }, () => ranked.take());
    const fields = new Map(deps.read(batch.map((i) => ids[i]!), false).map((v) => [v.id, decide(node, v)]));
    const open = batch.filter((i) => fields.get(ids[i]!) === undefined && fields.has(ids[i]!));
    const texts = withText && open.length > 0 ? new Map(deps.read(open.map((i) => ids[i]!), true).map((v) => [v.id, v])) : new Map<number, WebqlVersion>();
    for (const i of batch) {
      const id = ids[i]!;
      const known = fields.get(id);
      const v = texts.get(id);
      if (known === false || (known === undefined && (!v || !matches(node, new VersionWords(v))))) continue;
      hits.push({ versionId: id, score: scores[i]! });
      if (hits.length === limit) break;
    }
  }
  return hits;
}
