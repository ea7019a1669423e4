/** Pages and their versions: the source of truth. Each acquisition of a URL is a version. */

export interface NewVersion {
  /** Normalised absolute URL (core/url.ts normalizeUrl). */
  url: string;
  title?: string;
  description?: string;
  author?: string;
  /** Main content as markdown. */
  content: string;
  publishedAt?: number;
  acquiredAt: number;
  /** Lowercase language tag (core/language.ts); not part of the content hash. */
  lang?: string;
  /**
   * The media type the page was served as (`application/pdf`), lowercased, without parameters;
   * not part of the content hash. `filetype:` reads it (core/webql.ts `pageMatches`).
   */
  mediaType?: string;
  /** Whether this version may appear in search results (live fetches of unindexed URLs may not). */
  searchable: boolean;
  /** The content's passage index (core/passages.ts `buildPassages`) when a reader thread built it already; built on store otherwise. */
  passages?: Uint8Array;
  /**
   * The content's near-duplicate fingerprint (core/near-duplicate.ts `nearFingerprint`; empty: the
   * text is too short for one) when a reader thread made it already; made on store otherwise.
   */
  near?: Uint8Array;
}

export interface StoredVersion {
  id: number;
  url: string;
  host: string;
  title?: string;
  description?: string;
  author?: string;
  content: string;
  publishedAt?: number;
  acquiredAt: number;
  lang?: string;
  mediaType?: string;
  contentHash: string;
  searchable: boolean;
}

/**
 * What a search result is made of: `getVersions` reads only these. `passages` is the version's
 * passage index (core/passages.ts `buildPassages`, made when it was stored), absent for short
 * pages and for versions stored before there were indexes. `content` is the page's markdown up to
 * the part snippets read (core/passages.ts `SCAN_LIMIT`, in UTF-16 units; it may hold more): a
 * result of a page of megabytes does not read it all.
 */
export type ResultVersion = Pick<StoredVersion, 'id' | 'url' | 'title' | 'description' | 'content' | 'publishedAt' | 'acquiredAt' | 'mediaType'> & {
  passages?: Uint8Array;
  /** Another page of the same host, of other content, has the same description (a site's one for all its pages). */
  sharedDescription?: boolean;
  /**
   * The content's near-duplicate fingerprint (core/near-duplicate.ts `nearFingerprint`), absent
   * for a text too short for one and for a version stored before fingerprints until the fill.
   */
  near?: Uint8Array;
};

/**
 * `unchanged`: the version alive at that instant already had the same content; nothing was stored.
 * `removed`: the operator removed the page, or its site, from the index (`removePages`); nothing was stored.
 */
export type PutOutcome = { status: 'added'; version: StoredVersion } | { status: 'unchanged'; version: StoredVersion } | { status: 'removed' };

/** What `removePages` removes: pages by their URL (normal form), and a site's pages (a host and its subdomains, as `site` matches). */
export interface Removal {
  urls: readonly string[];
  site?: string;
}

/** A URL or a site the operator removed, and when. */
export interface Removed {
  kind: 'url' | 'site';
  /** The URL, or the site's host. */
  value: string;
  removedAt: number;
  reason?: string;
}

export interface PageStore {
  /** Stores one version atomically; refused (nothing stored) when the disk is full or has less room than is kept for requests (core/errors.ts `isDiskFull`). */
  putVersion(version: NewVersion): Promise<PutOutcome>;
  /** Stores several versions in one transaction: all or none. */
  putVersions(versions: readonly NewVersion[]): Promise<PutOutcome[]>;
  /** The newest version of a URL, or undefined when it was never acquired. */
  latest(url: string): Promise<StoredVersion | undefined>;
  /** Versions by id as search results show them, in the order asked; unknown ids are left out. */
  getVersions(ids: readonly number[]): Promise<ResultVersion[]>;
  /** Every version of a URL, oldest first. */
  history(url: string): Promise<StoredVersion[]>;
  stats(): Promise<{ pages: number; versions: number }>;
  /**
   * Makes what a version stores derived from its content where versions stored before lack it: the
   * near-duplicate fingerprint of every version that has none, and the passage index of every
   * version long enough to have one that has none, or one of an older format, a batch per
   * transaction; returns how many of each it made. Having gone through them all, it records that
   * they are filled (`derivedFilled`); `signal` stops it between batches, and a later fill goes
   * through the rest.
   */
  fillDerived(signal?: AbortSignal): Promise<{ fingerprints: number; passages: number }>;
  /**
   * Whether every stored version has its fingerprint and the passage index of this release's
   * format, if it is long enough for one: a fill went through them all, or none is stored.
   * Versions stored by an older release make it false until a fill.
   */
  derivedFilled(): Promise<boolean>;
  /**
   * Removes pages from the index for good (a takedown, a page published by mistake): every version
   * of them deleted, and the URLs and the site kept out from then on (a later store of one answers
   * `removed`) until `allowPages`. Answers how many pages and versions went. Pages shared through
   * PostgreSQL are removed on every machine, each as its file applies the page log, and `erased`
   * says how many of the log's rows had their text erased.
   */
  removePages(removal: Removal, at: number, reason?: string): Promise<{ pages: number; versions: number; erased?: number }>;
  /** Lets the URLs and the site of `removal` be stored again; answers how many removals were lifted. */
  allowPages(removal: Removal): Promise<number>;
  /** The removals in force, newest first. */
  removals(): Promise<Removed[]>;
}
