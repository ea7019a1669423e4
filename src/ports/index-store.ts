/** The search index: ranks versions for a query under filters. Derived from the PageStore. */

export interface IndexQuery {
  /** Analysed query terms (core/text.ts queryTerms): folded, stop words removed. */
  terms: string[];
  /** Bare host; matches the host and its subdomains. */
  site?: string;
  acquiredAfter?: number;
  acquiredBefore?: number;
  publishedAfter?: number;
  publishedBefore?: number;
  /** Point in time: only versions alive then (acquired at or before it, not yet replaced). */
  queryTime?: number;
  limit: number;
}

export interface IndexHit {
  versionId: number;
  /** Higher is better. */
  score: number;
}

export interface IndexStore {
  search(query: IndexQuery): Promise<IndexHit[]>;
  /** Rebuilds the index from the page store. */
  rebuild(): Promise<void>;
}
