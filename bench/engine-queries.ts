/**
 * The query side of `npm run bench:search`, in a fresh process as a server runs: it opens the
 * database and the saved segments, then times the cell named by each line of stdin (a warm-up pass
 * the first time a cell is named) until a line says `done`, so that bench/search.ts can interleave
 * these passes with Lucene's; then exhaustive BM25 on the same index for every cell, then POST
 * /v1/search (an API key) and POST /v1/search/public (keyless) over HTTP against the engine alone (a
 * client in this process, and one in its own process: bench/http-client.ts), and where an HTTP
 * request's time goes.
 * Prints one JSON line per figure. Args: <db path> <query count> [--skip-http]. bench/search.ts
 * builds and saves the segments first (so the build's garbage is not in this process).
 */
import { createInterface } from 'node:readline';
import { queryReadings } from '../src/core/text.js';
import { httpFigure, openServedIndex } from './http-figure.js';
import { benchQuerySets, BENCH_WINDOWS, timeLatencies, timeQueries } from './scifact.js';

const [path, count, flag] = process.argv.slice(2) as [string, string, string | undefined];
const { services, engine } = await openServedIndex(path);
const sets = benchQuerySets(Number(count));
const out = (o: object) => console.log(JSON.stringify(o));

const cells = sets.flatMap(([set, qs]) => BENCH_WINDOWS.map(([w, f]) => ({ name: `${set} ${w}`, qs, f })));
const warm = new Set<string>();
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'done') break;
  const cell = cells.find((c) => c.name === line);
  if (!cell) throw new Error(`no such cell: ${line}`);
  const { qs, f } = cell;
  const { latencies, totalMs } = await timeLatencies((q) => engine.search({ ...queryReadings(q), limit: 10, ...f }), qs, warm.has(line) ? 0 : qs.length);
  warm.add(line);
  out({ cell: line, latencies, totalMs });
}
// The exhaustive reference after every timed pass: it allocates heavily, and its garbage would
// otherwise be collected during a timed pass. It is slow at 1M: its first 100 queries, 5 of them as warm-up.
for (const { name, qs, f } of cells) {
  const full = await timeQueries((q) => engine.exhaustiveSearch({ ...queryReadings(q), limit: 10, ...f }), qs.slice(0, 100), 5);
  out({ cell: name, full });
}

if (flag !== '--skip-http') {
  for (const [set, qs] of sets) for (const tier of ['keyed', 'keyless'] as const) out(await httpFigure(services, engine, set, qs, tier));
}
await services.close();
