/**
 * The FTS5 index: BM25 over title, description and content with per-field weights, filters
 * evaluated in the same SQL. FTS5 scores every matching row before sorting, which is why our
 * engine replaced it (docs/BENCHMARKS.md); it stays as the reference the tests hold the engine to
 * (the index-store contract, webql's result sets) and as a peer in the benchmarks. The product's
 * database has no FTS5 table (migration 10 dropped it): this store adds its own.
 */
import { mediaTypesOf } from '../../core/media-type.js';
import { bestOfReadings } from '../../core/text.js';
import { reversedSiteRange } from '../../core/url.js';
import type { WebqlNode } from '../../core/webql.js';
import type { IndexHit, IndexQuery, IndexStore } from '../../ports/index-store.js';
import { type Db, FTS5_SCHEMA } from './database.js';

export interface FieldWeights {
  title: number;
  description: number;
  content: number;
}

/** Chosen on the SciFact train split by bench/search.ts (best of a title-weight sweep); see docs/BENCHMARKS.md. */
export const DEFAULT_WEIGHTS: FieldWeights = { title: 3, description: 1, content: 1 };

/** An FTS5 MATCH expression: each term a quoted string, any of them may match. */
export function ftsMatchExpression(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}

/** Reversed hosts put a site and its subdomains under one prefix (`reversedSiteRange`). */
function siteCondition(host: string): { sql: string; params: string[] } {
  return { sql: '(p.rev_host >= ? AND p.rev_host < ?)', params: reversedSiteRange(host) };
}

/** An FTS5 phrase: the folded words quoted; FTS5 stems them as it stemmed the documents. */
function ftsPhrase(node: { words: string[]; field?: 'title' }): string {
  const phrase = `"${node.words.join(' ').replaceAll('"', '""')}"`;
  return node.field ? `${node.field} : ${phrase}` : phrase;
}

/** `(p1 AND p2 ...)` with each exclusion attached by FTS5's binary NOT. */
function andNot(pos: readonly string[], neg: readonly string[]): string {
  return neg.reduce((acc, n) => `(${acc} NOT ${n})`, `(${pos.join(' AND ')})`);
}

/**
 * The node as one FTS5 expression, when FTS5 can say it: text items, OR of such, and AND of such
 * with at least one positive item (FTS5's NOT is binary, `a NOT b`). Fields never can.
 */
function ftsExpression(node: WebqlNode): string | undefined {
  switch (node.kind) {
    case 'text':
      return ftsPhrase(node);
    case 'or': {
      const parts = node.children.map((c) => (c.kind === 'not' ? undefined : ftsExpression(c)));
      return parts.every((p) => p !== undefined) ? `(${parts.join(' OR ')})` : undefined;
    }
    case 'and': {
      const pos: string[] = [];
      const neg: string[] = [];
      for (const c of node.children) {
        const e = c.kind === 'not' ? ftsExpression(c.child) : ftsExpression(c);
        if (e === undefined) return undefined;
        (c.kind === 'not' ? neg : pos).push(e);
      }
      if (pos.length === 0) return undefined;
      return andNot(pos, neg);
    }
    default:
      return undefined;
  }
}

interface SqlPart {
  sql: string;
  params: unknown[];
}

/** The node as an SQL condition over `v` (versions) and `p` (pages). */
function sqlCondition(node: WebqlNode): SqlPart {
  const fts = ftsExpression(node);
  if (fts !== undefined) {
    return { sql: 'v.id IN (SELECT rowid FROM versions_fts WHERE versions_fts MATCH ?)', params: [fts] };
  }
  switch (node.kind) {
    case 'and':
    case 'or': {
      const parts = node.children.map(sqlCondition);
      return {
        sql: `(${parts.map((p) => p.sql).join(node.kind === 'and' ? ' AND ' : ' OR ')})`,
        params: parts.flatMap((p) => p.params),
      };
    }
    case 'not': {
      const inner = sqlCondition(node.child);
      // A version without a language is not in any language: NOT must hold for it (NULL would not).
      return { sql: `NOT coalesce(${inner.sql}, 0)`, params: inner.params };
    }
    case 'site':
      return siteCondition(node.host);
    case 'url': {
      const prefixes = /^https?:\/\//i.test(node.prefix) ? [node.prefix] : [`http://${node.prefix}`, `https://${node.prefix}`];
      return {
        sql: `(${prefixes.map(() => 'substr(p.url, 1, ?) = ?').join(' OR ')})`,
        params: prefixes.flatMap((x) => [x.length, x]),
      };
    }
    case 'inurl':
      return { sql: 'instr(lower(p.url), ?) > 0', params: [node.text.toLowerCase()] };
    case 'filetype': {
      // The URL up to its query (a stored URL has no fragment) ends in the type's dot and letters,
      // or the version was served as a media type that answers to it (pageMatches).
      const named = "lower(CASE instr(p.url, '?') WHEN 0 THEN p.url ELSE substr(p.url, 1, instr(p.url, '?') - 1) END) LIKE ?";
      const served = mediaTypesOf(node.ext);
      if (served.length === 0) return { sql: named, params: [`%.${node.ext}`] };
      return { sql: `(${named} OR coalesce(v.media_type IN (${served.map(() => '?').join(', ')}), 0))`, params: [`%.${node.ext}`, ...served] };
    }
    case 'lang':
      return { sql: "(v.lang = ? OR substr(v.lang, 1, ?) = ?)", params: [node.tag, node.tag.length + 1, `${node.tag}-`] };
    case 'text':
      throw new Error('unreachable: text items are FTS5 expressions');
  }
}

/**
 * Splits a webql expression into the FTS5 MATCH that ranks (the top-level items FTS5 can say,
 * with top-level exclusions it can say attached by NOT) and an SQL condition for the rest.
 */
export function planWebql(node: WebqlNode): { match?: string; sql?: string; params: unknown[] } {
  const items = node.kind === 'and' ? node.children : [node];
  const pos: string[] = [];
  const neg: string[] = [];
  const rest: WebqlNode[] = [];
  for (const item of items) {
    const fts = item.kind === 'not' ? undefined : ftsExpression(item);
    if (fts !== undefined) pos.push(fts);
    else rest.push(item);
  }
  if (pos.length > 0) {
    for (let i = rest.length - 1; i >= 0; i--) {
      const item = rest[i]!;
      const fts = item.kind === 'not' ? ftsExpression(item.child) : undefined;
      if (fts !== undefined) {
        neg.unshift(fts);
        rest.splice(i, 1);
      }
    }
  }
  const match = pos.length > 0 ? andNot(pos, neg) : undefined;
  if (rest.length === 0) return { match, params: [] };
  const cond = sqlCondition(rest.length === 1 ? rest[0]! : { kind: 'and', children: rest });
  return { match, sql: cond.sql, params: cond.params };
}

export class SqliteIndexStore implements IndexStore {
  private readonly cache = new Map<string, ReturnType<Db['prepare']>>();

  /** Adds the FTS5 table to `db` if it has none, filled from the stored versions (73 s at 1M generated pages). */
  constructor(
    private readonly db: Db,
    private readonly weights: FieldWeights = DEFAULT_WEIGHTS,
  ) {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'versions_fts'").get();
    if (!has) db.transaction(() => db.exec(`${FTS5_SCHEMA} INSERT INTO versions_fts(versions_fts) VALUES ('rebuild');`)).immediate();
  }

  private statement(sql: string) {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  async search(q: IndexQuery): Promise<IndexHit[]> {
    if (q.limit <= 0) return [];
    if (q.alternative && !q.webql) {
      const { alternative, ...one } = q;
      return bestOfReadings(await this.search(one), await this.search({ ...one, terms: alternative }), q.limit);
    }
    const where = ['v.searchable = 1'];
    const params: unknown[] = [];
    let match: string | undefined;
    if (q.webql) {
      const plan = planWebql(q.webql);
      // Words that only rank: FTS5's bm25() sums over every phrase of the expression, held or not.
      match = plan.match && q.rankTerms && q.rankTerms.length > 0 ? `(${plan.match}) AND (${plan.match} OR ${ftsMatchExpression(q.rankTerms)})` : plan.match;
      if (plan.sql) {
        where.push(plan.sql);
        params.push(...plan.params);
      }
    } else {
      if (q.terms.length === 0) return [];
      match = ftsMatchExpression(q.terms);
      // FTS5's binary NOT: the pages that hold none of the terms left out.
      if (q.excludeTerms !== undefined && q.excludeTerms.length > 0) match = `(${match}) NOT (${ftsMatchExpression(q.excludeTerms)})`;
    }
    if (q.queryTime === undefined) {
      where.push('v.superseded_at IS NULL');
    } else {
      where.push('v.acquired_at <= ?', '(v.superseded_at IS NULL OR v.superseded_at > ?)');
      params.push(q.queryTime, q.queryTime);
    }
    const bound = (column: string, op: string, value: number | undefined) => {
      if (value === undefined) return;
      where.push(`${column} ${op} ?`);
      params.push(value);
    };
    bound('v.acquired_at', '>=', q.acquiredAfter);
    bound('v.acquired_at', '<=', q.acquiredBefore);
    bound('v.published_at', '>=', q.publishedAfter);
    bound('v.published_at', '<=', q.publishedBefore);
    if (q.fileType !== undefined) {
      const type = sqlCondition({ kind: 'filetype', ext: q.fileType });
      where.push(type.sql);
      params.push(...type.params);
    }
    if (q.notFileType !== undefined) {
      const type = sqlCondition({ kind: 'filetype', ext: q.notFileType });
      where.push(`NOT (${type.sql})`);
      params.push(...type.params);
    }
    if (q.inUrl !== undefined) {
      const url = sqlCondition({ kind: 'inurl', text: q.inUrl });
      where.push(url.sql);
      params.push(...url.params);
    }
    if (q.site !== undefined) {
      const site = siteCondition(q.site);
      where.push(site.sql);
      params.push(...site.params);
    }
    if (q.anySites !== undefined) {
      const sites = q.anySites.map(siteCondition);
      where.push(sites.length === 0 ? '0' : `(${sites.map((c) => c.sql).join(' OR ')})`);
      for (const c of sites) params.push(...c.params);
    }
    for (const host of q.excludeSites ?? []) {
      const site = siteCondition(host);
      where.push(`NOT ${site.sql}`);
      params.push(...site.params);
    }
    const { title, description, content } = this.weights;
    // Pages are joined only for conditions on them (site, url, inurl, filetype).
    const pages = where.some((w) => /\bp\./.test(w)) ? 'JOIN pages p ON p.id = v.page_id' : '';
    const sql =
      match === undefined
        ? `SELECT v.id AS id, 0 AS rank FROM versions v ${pages}
           WHERE ${where.join(' AND ')} ORDER BY v.acquired_at DESC, v.id DESC LIMIT ?`
        : `SELECT v.id AS id, bm25(versions_fts, ${title}, ${description}, ${content}) AS rank
           FROM versions_fts JOIN versions v ON v.id = versions_fts.rowid ${pages}
           WHERE versions_fts MATCH ? AND ${where.join(' AND ')}
           ORDER BY rank LIMIT ?`;
    const all = match === undefined ? [...params, q.limit] : [match, ...params, q.limit];
    const stmt = this.statement(sql) as unknown as { all(...args: unknown[]): { id: number; rank: number }[] };
    const rows = stmt.all(...all);
    // FTS5's bm25() is negated so that ORDER BY ascending puts the best first.
    return rows.map((r) => ({ versionId: r.id, score: -r.rank }));
  }

  async rebuild(): Promise<void> {
    this.db.exec("INSERT INTO versions_fts(versions_fts) VALUES ('rebuild')");
  }
}
