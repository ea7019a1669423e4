/**
 * npm run bench:engine-threads [-- --size 1000000 --queries 300 --passes 4]
 *
 * What splitting one query between both cores gives (`serve`'s default, search threads 2): each
 * query of the six bench:search cells answered by our engine on one thread, and as `serve` answers
 * it, split in two by document number (engine.ts `DocRange`): the upper half of every segment on
 * the helper thread (search-helper.ts), which reads the same segments in shared memory, the lower
 * half on this one at the same time, the halves pruning with the higher of their thresholds
 * (`SharedFloor`) and their top 10s merged (`mergeHits`). The two ways take turns query by query
 * (who goes first rotating too); the first pass warms up and is not timed. Every split answer is
 * checked against the one-thread answer (the run stops at a difference).
 *
 * The two ways are two engines over the same saved segments (this process loads them twice); uses
 * the corpus and segments bench:search cached in bench/.cache.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { IndexHit, IndexQuery } from '../src/ports/index-store.js';
import { queryTerms } from '../src/core/text.js';
import { openServedIndex } from './http-figure.js';
import { BENCH_WINDOWS, benchQuerySets, percentile } from './scifact.js';

const { values } = parseArgs({
  options: { size: { type: 'string', default: '1000000' }, queries: { type: 'string', default: '300' }, passes: { type: 'string', default: '4' } },
});
const path = join(import.meta.dirname, '.cache', `generated-${values.size}.db`);
const one = await openServedIndex(path, 1);
const two = await openServedIndex(path, 2);
const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
const f = (ms: number) => ms.toFixed(2);
const passes = Number(values.passes);

console.log(`${one.engine.documentCount.toLocaleString('en-US')} documents in ${one.engine.segmentCount} segment(s)`);
console.log('| queries | one thread p50 / p99 | split over two threads p50 / p99 | p50 ratio | p99 ratio |');
console.log('|---|---|---|---|---|');
const WAYS = { one: one.engine, split: two.engine } as const;
const names = Object.keys(WAYS) as (keyof typeof WAYS)[];
try {
  for (const [set, qs] of benchQuerySets(Number(values.queries))) {
    for (const [win, window] of BENCH_WINDOWS) {
      const lat = { one: [] as number[], split: [] as number[] };
      const splitBefore = two.engine.splitSearches;
      for (let pass = 0; pass < passes; pass++) {
        for (const [i, q] of qs.entries()) {
          const query: IndexQuery = { terms: queryTerms(q), limit: 10, ...window };
          const hits = {} as Record<keyof typeof WAYS, IndexHit[]>;
          for (let w = 0; w < names.length; w++) {
            const way = names[(i + pass + w) % names.length]!;
            const t = performance.now();
            hits[way] = await WAYS[way].search(query);
            const ms = performance.now() - t;
            if (pass > 0) lat[way].push(ms);
          }
          if (JSON.stringify(hits.split) !== JSON.stringify(hits.one)) throw new Error(`the split answer differs for ${JSON.stringify(q)} (${win})`);
        }
      }
      if (two.engine.splitSearches - splitBefore !== passes * qs.length) throw new Error('not every search was split');
      const p = (way: keyof typeof WAYS, at: number) => percentile(sorted(lat[way]), at);
      console.log(
        `| ${set} claims, ${win} | ${f(p('one', 50))} / ${f(p('one', 99))} | ${f(p('split', 50))} / ${f(p('split', 99))} | ` +
          `${f(p('split', 50) / p('one', 50))} | ${f(p('split', 99) / p('one', 99))} |`,
      );
    }
  }
} finally {
  await one.services.close();
  await two.services.close();
}
