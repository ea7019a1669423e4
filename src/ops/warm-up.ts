/**
 * A server's searches of its own index before it takes requests. The code of a search (the
 * engine's traversal, the reading of versions, the snippets) runs slowly until the JavaScript
 * engine has seen it run often and compiled it: a server started on 1M pages answered its first
 * three seconds of searches at several times its warm latency (p50 31-59 ms, against 8-12 once
 * warm; with the warm-up, 11: `npm run bench:start`). Run first on the index's own words, those
 * searches are made before the first caller's (at 1M, /healthz answers 4 s later).
 *
 * Some of them are in an acquired window, at a `query_time` or under a site, because the engine
 * makes what those filters read on their first use and keeps it: a large segment's documents in
 * acquired order (49-62 ms at 1M), which every acquired window and `query_time` reads, and its
 * documents by host (in each search thread), which a site reads; and their code is compiled
 * with the rest. Without them the first caller to ask for one waited for it (`npm run
 * bench:start`, its first searches of each kind).
 */
import { parseSearchRequest } from '../core/requests.js';
import { parseSiteFilter } from '../core/url.js';
import { search, type SearchDeps } from './search.js';

/** The most searches a warm-up makes: the engine's code is compiled within them (bench:start). */
export const WARM_UP_SEARCHES = 200;
/** Words the searches are made of (IndexStore `commonTerms`). */
const WARM_UP_WORDS = 400;
/** The searches' lengths in words, in turn: a search of one word takes other paths than one of twelve. */
const LENGTHS = [1, 2, 3, 5, 8, 12];

/**
 * Makes up to WARM_UP_SEARCHES searches of the index's common words, of one to twelve words, as
 * the search operation makes them (no tier: nothing is charged, counted or recorded), until
 * `budgetMs` has passed: of each seven, one in a one-year published window, one in a one-year
 * acquired window, one under the site of a page an earlier one found and one at that page's
 * acquired time as `query_time` (once one has found any). None where the index offers no words.
 */
export async function warmUp(deps: SearchDeps, budgetMs: number): Promise<{ searches: number; ms: number }> {
  const words = budgetMs > 0 ? (deps.index.commonTerms?.(WARM_UP_WORDS) ?? []) : [];
  const started = performance.now();
  let searches = 0;
  // The site and the acquired time of a page an earlier search found.
  let site: string | undefined;
  let acquired: string | undefined;
  while (words.length > 0 && searches < WARM_UP_SEARCHES && performance.now() - started < budgetMs) {
    const k = searches++;
    const query = Array.from({ length: LENGTHS[k % LENGTHS.length]! }, (_, i) => words[(7 * k + 13 * i) % words.length]).join(' ');
    // Seven filters in turn against six lengths: each filter with every length.
    const filter = [{}, site !== undefined && { site }, { acquired_after: '1y' }, {}, { published_after: '1y' }, {}, acquired !== undefined && { query_time: acquired }][k % 7];
    const { results } = await search(deps, parseSearchRequest({ query, ...filter }, { now: Date.now() }));
    const found = results[0];
    if (found === undefined) continue;
    site ??= URL.canParse(found.url) ? parseSiteFilter(new URL(found.url).hostname) : undefined;
    acquired ??= found.acquired_at;
  }
  return { searches, ms: Math.round(performance.now() - started) };
}
