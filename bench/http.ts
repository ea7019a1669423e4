/**
 * npm run bench:http [-- --size 1000000 --queries 300 --stand-in MS --search-threads 1|2 --tier keyed|keyless|both]
 *
 * The HTTP figure of `npm run bench:search` alone (bench/http-figure.ts): what POST /v1/search
 * (an API key; `--tier keyed`) and POST /v1/search/public (keyless; `--tier keyless`) add to the
 * engine's time (both by default, keyed first), and their stages, on the corpus and saved segments
 * that bench:search built and cached in bench/.cache (run it once first). A few minutes instead
 * of the whole benchmark, for working on the request path.
 *
 * With `--stand-in MS` the engine is replaced by a stand-in that computes for MS milliseconds
 * (integer arithmetic, touching no memory) and answers the query's own hits, found by the engine
 * beforehand: the same versions, snippets and response as the real search, with the engine's
 * time and its variance taken out. `--stand-in 0` gives what the API costs warm (nothing runs
 * between requests); a few milliseconds, what it costs after a pause as long as the engine's.
 */
import { parseArgs } from 'node:util';
import type { IndexHit, IndexQuery } from '../src/ports/index-store.js';
import { parseSearchRequest } from '../src/core/requests.js';
import { search as searchOp } from '../src/ops/search.js';
import { describeHttpFigure, engineAloneQuery, httpFigure, type HttpTier, openServedIndex } from './http-figure.js';
import { benchQuerySets, cachedCorpus, computeFor } from './scifact.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '300' },
    'stand-in': { type: 'string' },
    'search-threads': { type: 'string', default: '1' },
    tier: { type: 'string', default: 'both' },
  },
});
const tiers: HttpTier[] = values.tier === 'both' ? ['keyed', 'keyless'] : [values.tier as HttpTier];
if (!tiers.every((t) => t === 'keyed' || t === 'keyless')) throw new Error(`--tier takes keyed, keyless or both, not ${values.tier}`);
const searchThreads = Number(values['search-threads']);
if (searchThreads !== 1 && searchThreads !== 2) throw new Error(`--search-threads takes 1 or 2, not ${values['search-threads']}`);
const standIn = values['stand-in'] === undefined ? undefined : Number(values['stand-in']);
if (standIn !== undefined && !(standIn >= 0)) throw new Error(`--stand-in takes milliseconds, not ${values['stand-in']}`);
const path = cachedCorpus(values.size);
const { services, engine } = await openServedIndex(path, searchThreads);
console.log(`Search threads: ${searchThreads}${searchThreads === 2 ? ' (a search split between the serving thread and a helper, as `serve` does by default)' : ''}`);
const search = engine.search;
for (const [set, qs] of benchQuerySets(Number(values.queries))) {
  if (standIn !== undefined) {
    // The hits of each query as the request path asks for them, recorded from the search operation
    // itself: it may ask for more than the query's words (a misspelt word's correction, a
    // compound's joined reading), so the stand-in answers exactly what the real engine was asked.
    const hits = new Map<string, IndexHit[]>();
    const key = (query: IndexQuery) => JSON.stringify(query);
    engine.search = async (query: IndexQuery) => {
      const found = await search.call(engine, query);
      hits.set(key(query), found);
      return found;
    };
    for (const q of qs) {
      await searchOp(services, parseSearchRequest({ query: q }, { now: services.clock.now() }));
      // And as the figure times the engine alone (bench/http-figure.ts).
      await engine.search(engineAloneQuery(q));
    }
    engine.search = async (query: IndexQuery) => {
      computeFor(standIn);
      const found = hits.get(key(query));
      if (!found) throw new Error(`no hits stored for ${key(query)}`);
      return found.map((h) => ({ ...h }));
    };
    console.log(`The engine replaced by a stand-in that computes for ${standIn} ms and answers the query's own hits:`);
  }
  for (const tier of tiers) console.log(describeHttpFigure(await httpFigure(services, engine, set, qs, tier)));
  engine.search = search;
}
await services.close();
