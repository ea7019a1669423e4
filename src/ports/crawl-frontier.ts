/** The crawl frontier: what to fetch next, kept in the database so a crawl resumes after a stop. */

export interface FrontierItem {
  url: string;
  host: string;
  depth: number;
  attempts: number;
  /** When this crawl last finished this URL; set only on a refresh. */
  doneAt?: number;
}

export interface FetchValidators {
  etag?: string;
  lastModified?: string;
  fetchedAt: number;
}

export interface CrawlFrontier {
  /**
   * Adds URLs not yet known to this crawl; returns how many were new. A known one found at a lower
   * depth (by a shorter path, its host busy while a longer one's was free) takes that depth; one done
   * at `maxDepth` or deeper, whose links were not followed, is queued again to be fetched afresh.
   */
  enqueue(crawlId: string, items: { url: string; host: string; depth: number }[], now: number, maxDepth?: number): Promise<number>;
  /** The depth this crawl knows a URL at (lowered by `enqueue` when found closer), or undefined. */
  depth(crawlId: string, url: string): Promise<number | undefined>;
  /** Queued items due now, shallowest first. */
  due(crawlId: string, now: number, limit: number): Promise<FrontierItem[]>;
  /** The earliest time a queued item becomes due (undefined when none is queued). */
  nextDueAt(crawlId: string): Promise<number | undefined>;
  markDone(crawlId: string, url: string, now: number): Promise<void>;
  markFailed(crawlId: string, url: string, error: string): Promise<void>;
  /** Not fetched by choice (robots.txt), not a failure. */
  markSkipped(crawlId: string, url: string, reason: string): Promise<void>;
  retryLater(crawlId: string, url: string, at: number, error: string): Promise<void>;
  /** Queues again the done items fetched before `before` (a refresh). */
  requeueOlderThan(crawlId: string, before: number, now: number): Promise<number>;
  counts(crawlId: string): Promise<{ queued: number; done: number; failed: number; skipped: number }>;
  /** Why pages were skipped or failed: the commonest reasons first, each with how many pages it holds for. */
  reasons(crawlId: string, limit: number): Promise<{ state: 'skipped' | 'failed'; reason: string; pages: number }[]>;
  validators(url: string): Promise<FetchValidators | undefined>;
  saveValidators(url: string, v: FetchValidators): Promise<void>;
}
