/**
 * A server's searches of its own index before it takes requests. The code of a search (the
 * engine's traversal, the reading of versions, the snippets) runs slowly until the JavaScript
 * engine has seen it run often and compiled it: a server started on 1M pages answered its first
 * three seconds of searches at several times its warm latency (p50 31-59 ms, against 8-12 once
 * warm; with the warm-up, 11: `npm run bench:start`). Run first on the index's own words, those
 * searches are made before the first caller's (at 1M, /healthz answers 4 s later).
 */
import { parseSearchRequest } from '../core/requests.js';
import { search, type SearchDeps } from './search.js';

/** The most searches a warm-up makes: the engine's code is compiled within them (bench:start). */
export const WARM_UP_SEARCHES = 200;
/** Words the searches are made of (IndexStore `commonTerms`). */
const WARM_UP_WORDS = 400;
/** The searches' lengths in words, in turn: a search of one word takes other paths than one of twelve. */
const LENGTHS = [1, 2, 3, 5, 8, 12];

/**
 * Makes up to WARM_UP_SEARCHES searches of the index's common words, of one to twelve words, every
 * fifth in a one-year published window, as the search operation makes them (no tier: nothing is
 * charged, counted or recorded), until `budgetMs` has passed. None where the index offers no words.
 */
export async function warmUp(deps: SearchDeps, budgetMs: number): Promise<{ searches: number; ms: number }> {
  const words = budgetMs > 0 ? (deps.index.commonTerms?.(WARM_UP_WORDS) ?? []) : [];
  const started = performance.now();
  let searches = 0;
  while (words.length > 0 && searches < WARM_UP_SEARCHES && performance.now() - started < budgetMs) {
    const k = searches++;
    const query = Array.from({ length: LENGTHS[k % LENGTHS.length]! }, (_, i) => words[(7 * k + 13 * i) % words.length]).join(' ');
    await search(deps, parseSearchRequest({ query, ...(k % 5 === 4 && { published_after: '1y' }) }, { now: Date.now() }));
  }
  return { searches, ms: Math.round(performance.now() - started) };
}
