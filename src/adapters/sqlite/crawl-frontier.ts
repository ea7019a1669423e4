import type { CrawlFrontier, FetchValidators, FrontierItem } from '../../ports/crawl-frontier.js';
import type { Db } from './database.js';

/**
 * The next pages of a crawl, shallowest first. Read in crawl_frontier_pick's order: the planner
 * prefers crawl_frontier_due (a range on next_at) and then sorts every due row, on each pick.
 */
export const DUE_SQL = `SELECT url, host, depth, attempts, done_at AS doneAt FROM crawl_frontier INDEXED BY crawl_frontier_pick
  WHERE crawl_id = ? AND state = 'queued' AND next_at <= ? ORDER BY depth, next_at LIMIT ?`;

export class SqliteCrawlFrontier implements CrawlFrontier {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      insert: db.prepare<[string, string, string, number, number]>(
        "INSERT OR IGNORE INTO crawl_frontier (crawl_id, url, host, depth, state, next_at) VALUES (?, ?, ?, ?, 'queued', ?)",
      ),
      // Known and found closer: the depth lowered; done at a depth whose links were not followed
      // (at or past `follow`, the crawl's maximum), queued again afresh (no conditional request).
      closer: db.prepare<{ crawlId: string; url: string; depth: number; now: number; follow: number }>(
        `UPDATE crawl_frontier SET depth = @depth,
           state = CASE WHEN state = 'done' AND depth >= @follow THEN 'queued' ELSE state END,
           next_at = CASE WHEN state = 'done' AND depth >= @follow THEN @now ELSE next_at END,
           attempts = CASE WHEN state = 'done' AND depth >= @follow THEN 0 ELSE attempts END,
           done_at = CASE WHEN state = 'done' AND depth >= @follow THEN NULL ELSE done_at END
         WHERE crawl_id = @crawlId AND url = @url AND depth > @depth`,
      ),
      due: db.prepare<[string, number, number], FrontierItem & { doneAt: number | null }>(DUE_SQL),
      depthOf: db.prepare<[string, string], number>('SELECT depth FROM crawl_frontier WHERE crawl_id = ? AND url = ?').pluck(),
      nextDue: db.prepare<[string], { t: number | null }>(
        "SELECT min(next_at) AS t FROM crawl_frontier WHERE crawl_id = ? AND state = 'queued'",
      ),
      done: db.prepare("UPDATE crawl_frontier SET state = 'done', done_at = ?, last_error = NULL WHERE crawl_id = ? AND url = ?"),
      failed: db.prepare(
        "UPDATE crawl_frontier SET state = 'failed', attempts = attempts + 1, last_error = ? WHERE crawl_id = ? AND url = ?",
      ),
      skip: db.prepare("UPDATE crawl_frontier SET state = 'skipped', last_error = ? WHERE crawl_id = ? AND url = ?"),
      retry: db.prepare(
        "UPDATE crawl_frontier SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE crawl_id = ? AND url = ?",
      ),
      requeue: db.prepare(
        "UPDATE crawl_frontier SET state = 'queued', next_at = ?, attempts = 0 WHERE crawl_id = ? AND state = 'done' AND done_at <= ?",
      ),
      counts: db.prepare<[string], { state: string; n: number }>(
        'SELECT state, count(*) AS n FROM crawl_frontier WHERE crawl_id = ? GROUP BY state',
      ),
      reasons: db.prepare<[string, number], { state: 'skipped' | 'failed'; reason: string; pages: number }>(
        `SELECT state, coalesce(last_error, '') AS reason, count(*) AS pages FROM crawl_frontier
         WHERE crawl_id = ? AND state IN ('skipped', 'failed') GROUP BY state, reason ORDER BY pages DESC, reason LIMIT ?`,
      ),
      getValidators: db.prepare<[string], { etag: string | null; last_modified: string | null; fetched_at: number }>(
        'SELECT etag, last_modified, fetched_at FROM fetch_validators WHERE url = ?',
      ),
      putValidators: db.prepare(
        'INSERT INTO fetch_validators (url, etag, last_modified, fetched_at) VALUES (?, ?, ?, ?) ON CONFLICT(url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified, fetched_at = excluded.fetched_at',
      ),
    };
  }

  async enqueue(crawlId: string, items: { url: string; host: string; depth: number }[], now: number, maxDepth = Number.MAX_SAFE_INTEGER): Promise<number> {
    return this.db
      .transaction(() =>
        items.reduce((n, i) => {
          if (this.s.insert.run(crawlId, i.url, i.host, i.depth, now).changes === 1) return n + 1;
          this.s.closer.run({ crawlId, url: i.url, depth: i.depth, now, follow: maxDepth });
          return n;
        }, 0),
      )
      .immediate();
  }

  async depth(crawlId: string, url: string): Promise<number | undefined> {
    return this.s.depthOf.get(crawlId, url);
  }

  async due(crawlId: string, now: number, limit: number): Promise<FrontierItem[]> {
    return this.s.due.all(crawlId, now, limit).map(({ doneAt, ...rest }) => (doneAt === null ? rest : { ...rest, doneAt }));
  }

  async nextDueAt(crawlId: string): Promise<number | undefined> {
    return this.s.nextDue.get(crawlId)?.t ?? undefined;
  }

  async markDone(crawlId: string, url: string, now: number): Promise<void> {
    this.s.done.run(now, crawlId, url);
  }

  async markFailed(crawlId: string, url: string, error: string): Promise<void> {
    this.s.failed.run(error.slice(0, 500), crawlId, url);
  }

  async markSkipped(crawlId: string, url: string, reason: string): Promise<void> {
    this.s.skip.run(reason, crawlId, url);
  }

  async retryLater(crawlId: string, url: string, at: number, error: string): Promise<void> {
    this.s.retry.run(at, error.slice(0, 500), crawlId, url);
  }

  async requeueOlderThan(crawlId: string, before: number, now: number): Promise<number> {
    return this.s.requeue.run(now, crawlId, before).changes;
  }

  async counts(crawlId: string): Promise<{ queued: number; done: number; failed: number; skipped: number }> {
    const c = { queued: 0, done: 0, failed: 0, skipped: 0 };
    for (const r of this.s.counts.all(crawlId)) c[r.state as keyof typeof c] = r.n;
    return c;
  }

  async reasons(crawlId: string, limit: number): Promise<{ state: 'skipped' | 'failed'; reason: string; pages: number }[]> {
    return this.s.reasons.all(crawlId, limit);
  }

  async validators(url: string): Promise<FetchValidators | undefined> {
    const r = this.s.getValidators.get(url);
    if (!r) return undefined;
    const v: FetchValidators = { fetchedAt: r.fetched_at };
    if (r.etag !== null) v.etag = r.etag;
    if (r.last_modified !== null) v.lastModified = r.last_modified;
    return v;
  }

  async saveValidators(url: string, v: FetchValidators): Promise<void> {
    this.s.putValidators.run(url, v.etag ?? null, v.lastModified ?? null, v.fetchedAt);
  }
}
