/** Fetching a page from its origin now: robots, SSRF rules and extraction included. */

export interface LivePage {
  /** Normalised URL that answered (after redirects). */
  url: string;
  title?: string;
  description?: string;
  author?: string;
  publishedAt?: number;
  canonicalUrl?: string;
  lang?: string;
  /** The media type it was served as (`text/html`, `application/pdf`), lowercased, without parameters (live-fetch.ts `servedAs`). */
  mediaType?: string;
  /** Where the page's `<meta http-equiv="refresh">` sends the reader at once (a live fetch goes on there). */
  refreshUrl?: string;
  content: string;
  noindex: boolean;
  links: string[];
  fetchedAt: number;
  /** Validators for a later conditional request. */
  etag?: string;
  lastModified?: string;
  /** The content's passage index, built by the reader thread that read the page (so the serving thread does not). */
  passages?: Uint8Array;
  /** The content's near-duplicate fingerprint, made there too (empty: the text is too short for one). */
  near?: Uint8Array;
  /**
   * The language stored with the page (`lang` when it is a language tag, else the guess from the
   * content: core/language.ts `pageLanguage`), null for none: made on the reader thread for a
   * request's page (`ReaderPool.read`); absent, it is made where the page is stored
   * (acquire/live-fetch.ts `languageOf`).
   */
  language?: string | null;
}

export interface LiveFetcher {
  /** Throws a ServiceError from the error table on any failure (url_not_allowed, blocked_by_robots, origin_*). */
  fetch(url: string, options?: { signal?: AbortSignal }): Promise<LivePage>;
  close(): Promise<void>;
}
