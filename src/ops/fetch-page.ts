/** The fetch operation, tier-blind: the newest indexed version, or (live=true) the origin now. */
import { ServiceError } from '../core/errors.js';
import { type FetchRequest, type FetchResponse, truncateChars } from '../core/requests.js';
import { versionOf } from '../acquire/live-fetch.js';
import type { LogSink } from '../core/log.js';
import { isStorableTime } from '../core/time.js';
import { urlTwins } from '../core/url.js';
import type { LiveFetcher, LivePage } from '../ports/live-fetcher.js';
import type { LlmExtractor } from '../ports/llm-extractor.js';
import type { PageStore, StoredVersion } from '../ports/page-store.js';
import { shortDescription } from './snippet.js';

export interface FetchDeps {
  pages: PageStore;
  /** Where a live page that could not be stored is reported (the answer goes out all the same). */
  logs?: Pick<LogSink, 'log'>;
  live?: LiveFetcher;
  /** Whether a live fetch of a URL not yet in the search index adds it (DESIGN: off by default). */
  liveFetchIndexes?: boolean;
  llm?: LlmExtractor;
}

/** What a request used, for the usage record. */
export interface Meter {
  promptTokens?: number;
  completionTokens?: number;
}

export function toFetchResponse(v: Pick<StoredVersion, 'url' | 'title' | 'description' | 'author' | 'publishedAt' | 'content'>, maxChars: number): FetchResponse {
  const res: FetchResponse = { url: v.url, content: truncateChars(v.content, maxChars) };
  if (v.title) res.title = v.title;
  const description = v.description && shortDescription(v.description);
  if (description) res.description = description;
  if (v.author) res.author = v.author;
  if (v.publishedAt !== undefined && isStorableTime(v.publishedAt)) res.published_at = Math.floor(v.publishedAt / 1000);
  return res;
}

/**
 * Stores a live-fetched page as a new version. It is searchable only if its URL was already in the
 * search index (or configuration says live fetches index), and never when the page says noindex.
 */
export async function storeLivePage(deps: FetchDeps, page: LivePage, requestedUrl: string): Promise<void> {
  if (!page.content.trim()) return;
  const known = (await deps.pages.latest(page.url)) ?? (await deps.pages.latest(requestedUrl));
  const searchable = !page.noindex && (known?.searchable === true || deps.liveFetchIndexes === true);
  await deps.pages.putVersion(versionOf(page, { searchable }));
}

type PageLike = Parameters<typeof toFetchResponse>[0];

/** With `prompt`, the model's answer replaces the page content; `max_chars` applies to the answer. */
async function answer(deps: FetchDeps, req: FetchRequest, page: PageLike, meter: Meter, signal: AbortSignal | undefined): Promise<FetchResponse> {
  if (req.prompt === undefined) return toFetchResponse(page, req.maxChars);
  const out = await deps.llm!.extract(req.prompt, { url: page.url, title: page.title, markdown: page.content }, { signal });
  meter.promptTokens = out.promptTokens;
  meter.completionTokens = out.completionTokens;
  return toFetchResponse({ ...page, content: out.text }, req.maxChars);
}

/**
 * What this server cannot do of a fetch request (a model for `prompt`, a live fetcher for `live`),
 * known before any work: the HTTP layer asks before a tier admits the call (no credits reserved, no
 * payment verified, no allowance asked for a request that must fail).
 */
export function fetchUnavailable(deps: Pick<FetchDeps, 'llm' | 'live'>, req: FetchRequest): ServiceError | undefined {
  if (req.prompt !== undefined && !deps.llm) {
    return new ServiceError('extraction_unavailable', 'prompt extraction is not available: no language model is configured', { param: 'prompt' });
  }
  if (req.live && !deps.live) return new ServiceError('not_implemented', 'live fetch is not configured on this server', { param: 'live' });
  return undefined;
}

/** `signal` stops the live fetch and the model call early (the caller went away). */
export async function fetchPage(deps: FetchDeps, req: FetchRequest, meter: Meter = {}, signal?: AbortSignal): Promise<FetchResponse> {
  const unavailable = fetchUnavailable(deps, req);
  if (unavailable) throw unavailable;
  if (req.live) {
    const page = await deps.live!.fetch(req.url, { signal });
    try {
      await storeLivePage(deps, page, req.url);
    } catch (e) {
      // Storing is what the fetch leaves behind, not what it answers: a store that is away (the
      // shared database down) or full costs the index this version, not the caller the page.
      deps.logs?.log('error', 'live page not stored', { url: page.url, err: String(e) });
    }
    return answer(deps, req, page, meter, signal);
  }
  const version = await indexedVersion(deps.pages, req.url);
  if (!version) throw new ServiceError('not_indexed');
  return answer(deps, req, version, meter, signal);
}

/**
 * The URL's newest searchable version or, when it has none, a twin's (`urlTwins`: the other scheme,
 * the trailing slash, `www.`), nearest first: `http://example.com/a` finds the page stored as
 * `https://www.example.com/a`, which its site redirects to. The answer's `url` says which it is.
 */
async function indexedVersion(pages: PageStore, url: string): Promise<StoredVersion | undefined> {
  for (const candidate of [url, ...urlTwins(url)]) {
    const version = await pages.latest(candidate);
    if (version?.searchable) return version;
  }
  return undefined;
}
