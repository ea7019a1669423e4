/** The search operation, tier-blind: a validated request in, the spec's response out. */
import { ServiceError } from '../core/errors.js';
import type { SearchRequest, SearchResponse, SearchResult } from '../core/requests.js';
import { queryTerms, stem } from '../core/text.js';
import { toIso } from '../core/time.js';
import type { IndexStore } from '../ports/index-store.js';
import type { PageStore, StoredVersion } from '../ports/page-store.js';
import { buildSnippet, fallbackDescription } from './snippet.js';

export interface SearchDeps {
  index: IndexStore;
  pages: PageStore;
}

function toResult(v: StoredVersion, stems: readonly string[], snippetMaxLength: number): SearchResult {
  const result: SearchResult = {
    title: v.title?.trim() || v.url,
    url: v.url,
    description: v.description?.trim() || fallbackDescription(v.content),
  };
  const snippet = buildSnippet(v.content, stems, snippetMaxLength);
  if (snippet) result.snippet = snippet;
  if (v.publishedAt !== undefined) result.published_at = toIso(v.publishedAt);
  result.acquired_at = toIso(v.acquiredAt);
  return result;
}

export async function search(deps: SearchDeps, req: SearchRequest): Promise<SearchResponse> {
  if (req.mode !== 'standard') {
    throw new ServiceError('not_implemented', `Search mode ${req.mode} is not implemented yet; use mode standard`, {
      param: 'mode',
    });
  }
  const terms = queryTerms(req.query);
  const hits = await deps.index.search({
    terms,
    site: req.site,
    acquiredAfter: req.acquiredAfter,
    acquiredBefore: req.acquiredBefore,
    publishedAfter: req.publishedAfter,
    publishedBefore: req.publishedBefore,
    queryTime: req.queryTime,
    limit: req.maxResults,
  });
  const versions = await deps.pages.getVersions(hits.slice(0, req.maxResults).map((h) => h.versionId));
  const stems = terms.map(stem);
  return { query: req.query, results: versions.map((v) => toResult(v, stems, req.snippetMaxLength)) };
}
