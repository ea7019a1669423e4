/** The search index: ranks versions for a query under filters. Derived from the PageStore. */
import type { WebqlNode } from '../core/webql.js';

export interface IndexQuery {
  /** Analysed query terms (core/text.ts queryTerms): folded, stop words removed (a query of them alone: as a title's, `stopTerm`). */
  terms: string[];
  /**
   * The same query read another way (core/text.ts `joinedQueryTerms`: its hyphenated compounds as
   * joined words): a page then scores the better of its scores for `terms` and for these, and the
   * hits are the best `limit` by that score.
   */
  alternative?: string[];
  /**
   * A webql expression (core/webql.ts); when present it decides what matches and `terms` is unused.
   * Ranking is BM25 over the expression's text items; an expression whose top level has no text
   * item (only fields, or only OR groups mixing text and fields) lists the newest versions first.
   */
  webql?: WebqlNode;
  /**
   * With `webql`: analysed words (as `terms`) that rank its matches beside its text items' words
   * but need not be held (a standard query's words beside its quoted phrases).
   */
  rankTerms?: string[];
  /** Bare host; matches the host and its subdomains. */
  site?: string;
  /** Bare hosts; a version matches when its host is one of them or a subdomain of one (none: nothing matches). */
  anySites?: string[];
  /** Bare hosts whose pages (the host's and its subdomains') are left out. */
  excludeSites?: string[];
  /** Analysed terms (as `terms`) whose pages are left out: a standard query's `-word`s (its `-"phrase"`s are checked by the search operation on the stored pages). */
  excludeTerms?: string[];
  acquiredAfter?: number;
  acquiredBefore?: number;
  publishedAfter?: number;
  publishedBefore?: number;
  /** Point in time: only versions alive then (acquired at or before it, not yet replaced). */
  queryTime?: number;
  /**
   * A file type (a `filetype:`, core/webql.ts `pageMatches`): only versions whose URL names it or
   * that were served as a type answering to it. A store that cannot look them up cheaply may leave
   * this to its caller, which checks its hits (ops/search.ts): the engine narrows to them when at
   * most FILE_TYPE_VERSIONS_MAX versions are of the type and pages served as HTML do not answer to
   * it (most pages do).
   */
  fileType?: string;
  /**
   * A file type left out (a `-filetype:`): only versions whose URL does not name it and that were
   * not served as a type answering to it. As with `fileType`, a store may leave this to its caller:
   * the engine narrows to them for a type pages served as HTML answer to (`-filetype:html`, where
   * checking the ranked pages finds few) when at most FILE_TYPE_VERSIONS_MAX versions are not of it.
   */
  notFileType?: string;
  /**
   * Text the page's URL holds (an `inurl:`, compared lowercased). As with `fileType`, a store may
   * leave this to its caller: the engine narrows to the pages holding it when their versions are
   * at most FILE_TYPE_VERSIONS_MAX (a text few URLs hold, which checking the ranked pages would
   * look for long).
   */
  inUrl?: string;
  /**
   * Whether the caller has gone (its connection closed). A store that answers in turns of the event
   * loop (the engine's webql reads) asks at each and then rejects with `client_closed_request`.
   */
  stopped?: () => boolean;
  limit: number;
}

export interface IndexHit {
  versionId: number;
  /** Higher is better. */
  score: number;
}

export interface IndexStore {
  search(query: IndexQuery): Promise<IndexHit[]>;
  /**
   * Each stemmed term's inverse document frequency over the index (BM25's, never negative), for
   * weighing the words of a snippet's sentences; absent where the store keeps no statistics.
   */
  idf?(stems: readonly string[]): number[];
  /**
   * Up to `max` words that many pages hold but most do not, for the searches a server makes of
   * its own index before it takes requests (ops/warm-up.ts); absent where the store keeps no
   * vocabulary of its own.
   */
  commonTerms?(max: number): string[];
  /**
   * For each query term (a word, as IndexQuery `terms`) that no page holds, or a few do and a far
   * commoner word is near, the word nearest in spelling that pages hold (a query term too, which a
   * standard query then asks for as well), or undefined: a term many pages hold, or none near
   * enough. Absent where the store keeps no dictionary of its terms.
   */
  corrections?(terms: readonly string[]): (string | undefined)[];
  /** Prepares the index for serving (load or build); searching does it on first use otherwise. */
  open?(): Promise<unknown>;
  /** Rebuilds the index from the page store. */
  rebuild(): Promise<void>;
  /** Stops what the index runs beside the database (threads); the database is the caller's to close. */
  close?(): Promise<void>;
}
