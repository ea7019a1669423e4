/**
 * The FTS5 index: BM25 over title, description and content with per-field weights, filters
 * evaluated in the same SQL. FTS5 scores every matching row before sorting, which is why a
 * dedicated engine will replace it (docs/BENCHMARKS.md).
 */
import { reverseHost } from '../../core/url.js';
import type { IndexHit, IndexQuery, IndexStore } from '../../ports/index-store.js';
import type { Db } from './database.js';

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

export class SqliteIndexStore implements IndexStore {
  private readonly cache = new Map<string, ReturnType<Db['prepare']>>();

  constructor(
    private readonly db: Db,
    private readonly weights: FieldWeights = DEFAULT_WEIGHTS,
  ) {}

  private statement(sql: string) {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  async search(q: IndexQuery): Promise<IndexHit[]> {
    if (q.terms.length === 0 || q.limit <= 0) return [];
    const where = ['versions_fts MATCH @match', 'v.searchable = 1'];
    const params: Record<string, unknown> = { match: ftsMatchExpression(q.terms), limit: q.limit };
    if (q.queryTime === undefined) {
      where.push('v.superseded_at IS NULL');
    } else {
      where.push('v.acquired_at <= @queryTime', '(v.superseded_at IS NULL OR v.superseded_at > @queryTime)');
      params.queryTime = q.queryTime;
    }
    if (q.acquiredAfter !== undefined) {
      where.push('v.acquired_at >= @acquiredAfter');
      params.acquiredAfter = q.acquiredAfter;
    }
    if (q.acquiredBefore !== undefined) {
      where.push('v.acquired_at <= @acquiredBefore');
      params.acquiredBefore = q.acquiredBefore;
    }
    if (q.publishedAfter !== undefined) {
      where.push('v.published_at >= @publishedAfter');
      params.publishedAfter = q.publishedAfter;
    }
    if (q.publishedBefore !== undefined) {
      where.push('v.published_at <= @publishedBefore');
      params.publishedBefore = q.publishedBefore;
    }
    let join = '';
    if (q.site !== undefined) {
      // Reversed hosts put a site and its subdomains under one prefix: [com.example., com.example/).
      join = 'JOIN pages p ON p.id = v.page_id';
      where.push('p.rev_host >= @siteLow AND p.rev_host < @siteHigh');
      const rev = reverseHost(q.site);
      params.siteLow = rev;
      params.siteHigh = `${rev.slice(0, -1)}/`;
    }
    const { title, description, content } = this.weights;
    const sql = `SELECT v.id AS id, bm25(versions_fts, ${title}, ${description}, ${content}) AS rank
      FROM versions_fts JOIN versions v ON v.id = versions_fts.rowid ${join}
      WHERE ${where.join(' AND ')}
      ORDER BY rank LIMIT @limit`;
    const rows = this.statement(sql).all(params) as { id: number; rank: number }[];
    // FTS5's bm25() is negated so that ORDER BY ascending puts the best first.
    return rows.map((r) => ({ versionId: r.id, score: -r.rank }));
  }

  async rebuild(): Promise<void> {
    this.db.exec("INSERT INTO versions_fts(versions_fts) VALUES ('rebuild')");
  }
}
