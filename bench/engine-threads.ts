/**
 * npm run bench:engine-threads [-- --size 1000000 --queries 300 --passes 4 --every | --no-split]
 *
 * What splitting one query between both cores gives (`serve`'s default, search threads 2): each
 * query of the six bench:search cells answered by our engine on one thread, and as `serve` answers
 * it, split in two by document number (engine.ts `DocRange`): the upper half of every segment on
 * the helper thread (search-helper.ts), which reads the same segments in shared memory, the lower
 * half on this one at the same time, the halves pruning with the higher of their thresholds
 * (`SharedFloor`) and their top 10s merged (`mergeHits`). The two ways take turns query by query
 * (who goes first rotating too); the first pass warms up and is not timed. A query is read as a
 * search reads it: a hyphenated compound both ways (text.ts `queryReadings`). Every split answer is
 * checked against the one-thread answer (the run stops at a difference). Each cell says how many
 * searches were split (`serve` splits those with enough work: engine-index-store.ts SPLIT_WORK);
 * `--every` splits all of them, and the last table gives, by the postings of the query's terms,
 * the median per-query ratio of split to one-thread time: what SPLIT_WORK was chosen from.
 * `--no-split` splits none: then the two ways differ only in their buffers (the two-thread store's
 * segments are in shared memory), which is what shared buffers cost a search.
 *
 * The two ways are two engines over the same saved segments (this process loads them twice); uses
 * the corpus and segments bench:search cached in bench/.cache.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { IndexHit, IndexQuery } from '../src/ports/index-store.js';
import { cachedStem, queryReadings } from '../src/core/text.js';
import { openServedIndex } from './http-figure.js';
import { BENCH_WINDOWS, benchQuerySets, cachedCorpus, median, percentile } from './scifact.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '300' },
    passes: { type: 'string', default: '4' },
    every: { type: 'boolean', default: false },
    'no-split': { type: 'boolean', default: false },
  },
});
const path = cachedCorpus(values.size);
const one = await openServedIndex(path, 1);
// The split thresholds as `serve` has them, or set so that every search is split, or none.
const two = await openServedIndex(path, 2, values.every ? { splitFrom: 0, splitWork: 0 } : values['no-split'] ? { splitWork: Infinity } : undefined);
const { stats } = one.engine.inUse();
/** Per query and cell: the postings of its distinct terms, and its median time each way. */
const perQuery: { postings: number; one: number; split: number }[] = [];
const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
const f = (ms: number) => ms.toFixed(2);
const passes = Number(values.passes);

console.log(`${one.engine.documentCount.toLocaleString('en-US')} documents in ${one.engine.segmentCount} segment(s)`);
console.log('| queries | one thread p50 / p99 | two search threads p50 / p99 | p50 ratio | p99 ratio | searches split |');
console.log('|---|---|---|---|---|---|');
const WAYS = { one: one.engine, split: two.engine } as const;
const names = Object.keys(WAYS) as (keyof typeof WAYS)[];
try {
  for (const [set, qs] of benchQuerySets(Number(values.queries))) {
    for (const [win, window] of BENCH_WINDOWS) {
      const lat = { one: [] as number[], split: [] as number[] };
      const mine = qs.map(() => ({ one: [] as number[], split: [] as number[] }));
      // Both readings of a query's compounds, as a search reads them (ops/search.ts).
      const readings = qs.map(queryReadings);
      const splitBefore = two.engine.splitSearches;
      for (let pass = 0; pass < passes; pass++) {
        for (const [i, q] of qs.entries()) {
          const query: IndexQuery = { ...readings[i]!, limit: 10, ...window };
          const hits = {} as Record<keyof typeof WAYS, IndexHit[]>;
          for (let w = 0; w < names.length; w++) {
            const way = names[(i + pass + w) % names.length]!;
            const t = performance.now();
            hits[way] = await WAYS[way].search(query);
            const ms = performance.now() - t;
            if (pass > 0) {
              lat[way].push(ms);
              mine[i]![way].push(ms);
            }
          }
          if (JSON.stringify(hits.split) !== JSON.stringify(hits.one)) throw new Error(`the split answer differs for ${JSON.stringify(q)} (${win})`);
        }
      }
      const splitShare = (two.engine.splitSearches - splitBefore) / (passes * qs.length);
      qs.forEach((_, i) => {
        const { terms, alternative = [] } = readings[i]!;
        const postings = [...new Set([...terms, ...alternative].map(cachedStem))].reduce((n, t) => n + stats.df(t), 0);
        perQuery.push({ postings, one: median(mine[i]!.one), split: median(mine[i]!.split) });
      });
      const p = (way: keyof typeof WAYS, at: number) => percentile(sorted(lat[way]), at);
      console.log(
        `| ${set} claims, ${win} | ${f(p('one', 50))} / ${f(p('one', 99))} | ${f(p('split', 50))} / ${f(p('split', 99))} | ` +
          `${f(p('split', 50) / p('one', 50))} | ${f(p('split', 99) / p('one', 99))} | ${(splitShare * 100).toFixed(0)}% |`,
      );
    }
  }
  console.log('\n| postings of the query\'s terms | queries (all cells) | one thread p50 | median per-query ratio, two threads / one |');
  console.log('|---|---|---|---|');
  const edges = [0, 10e3, 30e3, 100e3, 200e3, 400e3, 800e3, 1.6e6, 3.2e6, Infinity];
  for (let e = 0; e + 1 < edges.length; e++) {
    const r = perQuery.filter((x) => x.postings >= edges[e]! && x.postings < edges[e + 1]!);
    if (r.length === 0) continue;
    const k = (x: number) => (x === Infinity ? '' : `${x / 1000}k`);
    console.log(`| ${k(edges[e]!)}-${k(edges[e + 1]!)} | ${r.length} | ${f(median(r.map((x) => x.one)))} | ${f(median(r.map((x) => x.split / x.one)))} |`);
  }
} finally {
  await one.services.close();
  await two.services.close();
}
