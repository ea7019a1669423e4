/**
 * npm run bench:engine-passes [-- --size 1000000 --queries 300 --set short --window "one-month window" --passes 6]
 *
 * Our engine alone on one cell of bench:search (a query set and a published window), each query
 * read as a search reads it (a compound both ways: `queryReadings`), pass after pass in one
 * process: each pass's p50, p99 and slowest query, then the five queries slowest at their median
 * over the passes. bench:search times a cell in three rounds; this shows how much a cell's tail
 * moves with this machine's moment when nothing else changes. Uses the segments bench:search
 * cached in bench/.cache.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { queryReadings } from '../src/core/text.js';
import { openServedIndex } from './http-figure.js';
import { BENCH_WINDOWS, benchQuerySets, cachedCorpus, percentile } from './scifact.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '300' },
    set: { type: 'string', default: 'short' },
    window: { type: 'string', default: 'one-month window' },
    passes: { type: 'string', default: '6' },
  },
});
const queries = benchQuerySets(Number(values.queries)).find(([set]) => set === values.set)?.[1];
const window = BENCH_WINDOWS.find(([name]) => name === values.window)?.[1];
if (!queries || !window) throw new Error(`no such cell: ${values.set} claims, ${values.window} (windows: ${BENCH_WINDOWS.map(([n]) => n).join(', ')})`);
const { services, engine } = await openServedIndex(cachedCorpus(values.size));
console.log(`Our engine alone, ${values.set} claims, ${values.window}, ${queries.length} queries a pass:`);
const perQuery = queries.map(() => [] as number[]);
for (let pass = 1; pass <= Number(values.passes); pass++) {
  const lat: number[] = [];
  for (const [i, q] of queries.entries()) {
    const t = performance.now();
    await engine.search({ ...queryReadings(q), limit: 10, ...window });
    lat.push(performance.now() - t);
    perQuery[i]!.push(lat.at(-1)!);
  }
  lat.sort((a, b) => a - b);
  console.log(`pass ${pass}: p50 ${percentile(lat, 50).toFixed(2)} ms, p99 ${percentile(lat, 99).toFixed(2)} ms, slowest ${lat.at(-1)!.toFixed(2)} ms`);
}
const medians = perQuery.map((a) => percentile([...a].sort((x, y) => x - y), 50));
const slowest = medians
  .map((ms, i) => ({ ms, q: queries[i]! }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, 5);
console.log(`Slowest queries (median over the passes): ${slowest.map(({ ms, q }) => `${JSON.stringify(q)} ${ms.toFixed(2)} ms`).join(', ')}`);
await services.close();
