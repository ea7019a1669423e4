/**
 * npm run bench:engine-threads [-- --size 1000000 --queries 300 --passes 4]
 *
 * What splitting one query between both cores would give: each query of the six bench:search cells
 * answered by our engine on one thread, and split in two by document number (engine.ts `DocRange`),
 * the upper half on a worker thread and the lower half on this one at the same time, the two top
 * 10s merged (`mergeHits`): once with each half pruning by its own threshold, once with the halves
 * sharing the higher one (`SharedFloor`). The three ways take turns query by query (who goes first
 * rotating too); the first pass warms up and is not timed. Every split answer is checked against the one-thread
 * answer (the run stops at a difference). Also the round trip of an empty message to the worker,
 * which a split query pays on top of its half.
 *
 * Not the product: the worker loads its own copy of the saved segments (the product would share
 * them), so this process holds them twice. Uses the corpus and segments bench:search cached in
 * bench/.cache.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { type DocRange, type EngineHit, mergeHits, SharedFloor } from '../src/adapters/engine/engine.js';
import { startWorker } from '../src/adapters/engine/worker.js';
import { queryTerms } from '../src/core/text.js';
import type { IndexQuery } from '../src/ports/index-store.js';
import { openServedIndex } from './http-figure.js';
import { BENCH_WINDOWS, benchQuerySets, percentile } from './scifact.js';

interface Ask {
  id: number;
  query?: IndexQuery;
  range?: DocRange;
  floor?: SharedArrayBuffer;
}

if (!isMainThread) {
  const { path } = workerData as { path: string };
  const { engine } = await openServedIndex(path);
  parentPort!.on('message', ({ id, query, range, floor }: Ask) => {
    parentPort!.postMessage({ id, hits: query && range ? engine.searchPart(query, range, floor && new SharedFloor(floor)) : [] });
  });
  parentPort!.postMessage({ id: -1, hits: [] });
} else {
  const { values } = parseArgs({
    options: { size: { type: 'string', default: '1000000' }, queries: { type: 'string', default: '300' }, passes: { type: 'string', default: '4' } },
  });
  const path = join(import.meta.dirname, '.cache', `generated-${values.size}.db`);
  const { services, engine } = await openServedIndex(path);
  const cut = Math.floor(engine.documentCount / 2);
  const lower: DocRange = [0, cut];
  const upper: DocRange = [cut, 0x7fffffff];

  const worker = startWorker(new URL(import.meta.url), { path });
  const waiting = new Map<number, (hits: EngineHit[]) => void>();
  worker.on('message', ({ id, hits }: { id: number; hits: EngineHit[] }) => {
    waiting.get(id)?.(hits);
    waiting.delete(id);
  });
  let next = 0;
  const ask = (query?: IndexQuery, range?: DocRange, floor?: SharedFloor): Promise<EngineHit[]> => {
    const id = next++;
    const answer = new Promise<EngineHit[]>((resolve) => waiting.set(id, resolve));
    worker.postMessage({ id, query, range, floor: floor?.bits.buffer as SharedArrayBuffer | undefined } satisfies Ask);
    return answer;
  };
  await new Promise<void>((resolve) => waiting.set(-1, () => resolve()));

  /** The query split in two, the halves pruning with each other's thresholds when `shared`. */
  const split = async (query: IndexQuery, shared: boolean): Promise<EngineHit[]> => {
    const floor = shared ? new SharedFloor() : undefined;
    const theirs = ask(query, upper, floor);
    const mine = engine.searchPart(query, lower, floor);
    return mergeHits([mine, await theirs], query.limit);
  };
  const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
  const f = (ms: number) => ms.toFixed(2);
  const passes = Number(values.passes);

  const trip: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    await ask();
    if (i >= 200) trip.push(performance.now() - t);
  }
  console.log(`${engine.documentCount.toLocaleString('en-US')} documents, split at ${cut.toLocaleString('en-US')}; an empty message to the worker and back: p50 ${f(percentile(sorted(trip), 50))} ms, p99 ${f(percentile(sorted(trip), 99))} ms`);
  console.log('| queries | one thread p50 / p99 | split, halves alone p50 / p99 | split, shared threshold p50 / p99 | p50 ratios | p99 ratios |');
  console.log('|---|---|---|---|---|---|');
  const WAYS = ['one', 'alone', 'shared'] as const;
  try {
    for (const [set, qs] of benchQuerySets(Number(values.queries))) {
      for (const [win, window] of BENCH_WINDOWS) {
        const lat = { one: [] as number[], alone: [] as number[], shared: [] as number[] };
        for (let pass = 0; pass < passes; pass++) {
          for (const [i, q] of qs.entries()) {
            const query: IndexQuery = { terms: queryTerms(q), limit: 10, ...window };
            const hits = {} as Record<(typeof WAYS)[number], EngineHit[]>;
            for (let w = 0; w < WAYS.length; w++) {
              const way = WAYS[(i + pass + w) % WAYS.length]!;
              const t = performance.now();
              hits[way] = way === 'one' ? await engine.search(query) : await split(query, way === 'shared');
              const ms = performance.now() - t;
              if (pass > 0) lat[way].push(ms);
            }
            for (const way of ['alone', 'shared'] as const) {
              if (JSON.stringify(hits[way]) !== JSON.stringify(hits.one)) throw new Error(`the split answer (${way}) differs for ${JSON.stringify(q)} (${win})`);
            }
          }
        }
        const p = (way: (typeof WAYS)[number], at: number) => percentile(sorted(lat[way]), at);
        const ratios = (at: number) => `${f(p('alone', at) / p('one', at))} / ${f(p('shared', at) / p('one', at))}`;
        console.log(
          `| ${set} claims, ${win} | ${f(p('one', 50))} / ${f(p('one', 99))} | ${f(p('alone', 50))} / ${f(p('alone', 99))} | ` +
            `${f(p('shared', 50))} / ${f(p('shared', 99))} | ${ratios(50)} | ${ratios(99)} |`,
        );
      }
    }
  } finally {
    await worker.terminate();
    await services.close();
  }
}
