/** The fetch operation, tier-blind. Live fetch and prompt extraction plug in here later. */
import { ServiceError } from '../core/errors.js';
import { type FetchRequest, type FetchResponse, truncateChars } from '../core/requests.js';
import type { PageStore, StoredVersion } from '../ports/page-store.js';

export interface FetchDeps {
  pages: PageStore;
}

export function toFetchResponse(v: StoredVersion, maxChars: number): FetchResponse {
  const res: FetchResponse = { url: v.url, content: truncateChars(v.content, maxChars) };
  if (v.title) res.title = v.title;
  if (v.description) res.description = v.description;
  if (v.author) res.author = v.author;
  if (v.publishedAt !== undefined) res.published_at = Math.floor(v.publishedAt / 1000);
  return res;
}

export async function fetchPage(deps: FetchDeps, req: FetchRequest): Promise<FetchResponse> {
  if (req.prompt !== undefined) {
    throw new ServiceError('extraction_unavailable', 'prompt extraction is not available: no language model is configured', {
      param: 'prompt',
    });
  }
  if (req.live) {
    throw new ServiceError('not_implemented', 'live=true is not implemented yet; fetch an indexed URL', { param: 'live' });
  }
  const version = await deps.pages.latest(req.url);
  if (!version?.searchable) throw new ServiceError('not_indexed');
  return toFetchResponse(version, req.maxChars);
}
