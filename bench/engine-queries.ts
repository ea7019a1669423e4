/**
 * The query side of `npm run bench:search`, in a fresh process as a server runs: it opens the
 * database and the saved segments, then times the cell named by each line of stdin (a warm-up pass
 * the first time a cell is named) until a line says `done`, so that bench/search.ts can interleave
 * these passes with Lucene's; then exhaustive BM25 on the same index for every cell, then POST
 * /v1/search/public over HTTP against the engine alone (a client in this process, and one in its own
 * process: bench/http-client.ts), and where an HTTP request's time goes.
 * Prints one JSON line per figure. Args: <db path> <query count> [--skip-http]. bench/search.ts
 * builds and saves the segments first (so the build's garbage is not in this process).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { text } from 'node:stream/consumers';
import type { EngineIndexStore } from '../src/adapters/engine/engine-index-store.js';
import { createServices } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';
import { queryTerms } from '../src/core/text.js';
import { buildApp } from '../src/http/app.js';
import { benchQuerySets, BENCH_WINDOWS, cellOf, percentile, timeLatencies, timeQueries } from './scifact.js';
import { WireClient } from './wire-client.js';

const [path, count, flag] = process.argv.slice(2) as [string, string, string | undefined];
const settings = loadSettings({
  env: {},
  flags: { databaseUrl: `sqlite:${path}`, keylessPerSecond: 1_000_000, keylessPerHour: 1_000_000_000, logLevel: 'warn' },
});
const services = await createServices(settings);
const engine = services.index as EngineIndexStore;
await engine.open();
if (!engine.loadedFromDisk) throw new Error('the saved segments were not loaded');
const sets = benchQuerySets(Number(count));
const out = (o: object) => console.log(JSON.stringify(o));

const cells = sets.flatMap(([set, qs]) => BENCH_WINDOWS.map(([w, f]) => ({ name: `${set} ${w}`, qs, f })));
const warm = new Set<string>();
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'done') break;
  const cell = cells.find((c) => c.name === line);
  if (!cell) throw new Error(`no such cell: ${line}`);
  const { qs, f } = cell;
  const { latencies, totalMs } = await timeLatencies((q) => engine.search({ terms: queryTerms(q), limit: 10, ...f }), qs, warm.has(line) ? 0 : qs.length);
  warm.add(line);
  out({ cell: line, latencies, totalMs });
}
// The exhaustive reference after every timed pass: it allocates heavily, and its garbage would
// otherwise be collected during a timed pass. It is slow at 1M: its first 100 queries, 5 of them as warm-up.
for (const { name, qs, f } of cells) {
  const full = await timeQueries((q) => engine.exhaustiveSearch({ terms: queryTerms(q), limit: 10, ...f }), qs.slice(0, 100), 5);
  out({ cell: name, full });
}

if (flag !== '--skip-http') {
  const long = sets[0]![1].map((q) => q.slice(0, 2000));
  const app = await buildApp(services, { logger: false });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const target = new URL('/v1/search/public', address);
  // The engine's and the version reads' time inside each request, in order, while `into` is set.
  let into: { engine: number[]; versions: number[] } | undefined;
  const timed = <A extends unknown[], R>(f: (...a: A) => Promise<R>, key: 'engine' | 'versions') =>
    async (...a: A): Promise<R> => {
      const t = performance.now();
      const r = await f(...a);
      into?.[key].push(performance.now() - t);
      return r;
    };
  const search = engine.search.bind(engine);
  engine.search = timed(search, 'engine');
  services.pages.getVersions = timed(services.pages.getVersions.bind(services.pages), 'versions');

  const engineAlone = async (): Promise<number[]> => {
    const lat: number[] = [];
    for (const q of long) {
      const t = performance.now();
      await search({ terms: queryTerms(q), limit: 10 });
      lat.push(performance.now() - t);
    }
    return lat;
  };
  // A lean client (bench/wire-client.ts) on a kept-alive connection in this process: the figure is
  // the API's cost, not a heavier client's.
  const client = new WireClient(target);
  const post = async (q: string) => {
    const res = await client.post(target.pathname, JSON.stringify({ query: q }), { 'x-service-title': 'bench' });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body}`);
  };
  const overHttp = async (): Promise<number[]> => {
    const lat: number[] = [];
    for (const q of long) {
      const t = performance.now();
      await post(q);
      lat.push(performance.now() - t);
    }
    return lat;
  };

  // Warm-up passes, then three rounds of the engine alone and over HTTP in turn, pooled, so that
  // both sides see the same drift of this machine's speed.
  await engineAlone();
  await overHttp();
  const direct: number[] = [];
  const local: number[] = [];
  const inside = { engine: [] as number[], versions: [] as number[] };
  for (let round = 0; round < 3; round++) {
    direct.push(...(await engineAlone()));
    into = inside;
    local.push(...(await overHttp()));
    into = undefined;
  }
  client.close();
  // The same through a client in its own process, as a remote user's is (it warms up first itself).
  const remoteInside = { engine: [] as number[], versions: [] as number[] };
  into = remoteInside;
  const remote = await clientLatencies(target.href, long);
  into = undefined;
  const timedPass = (a: number[]) => a.slice(a.length - long.length);

  // The same request's latency less its engine time, the median: what the API adds, paired.
  const added = (lat: number[], engineMs: number[]) => percentile(lat.map((c, i) => c - engineMs[i]!).sort((a, b) => a - b), 50);
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  out({
    http: cellOf(local),
    direct: cellOf(direct),
    addedMedian: added(local, inside.engine),
    means: { client: mean(local), engine: mean(inside.engine), versions: mean(inside.versions) },
    remote: cellOf(remote),
    remoteAddedMedian: added(remote, timedPass(remoteInside.engine)),
  });
  await app.close();
}

async function clientLatencies(url: string, queries: readonly string[]): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'http-client.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify({ url, queries }));
  const [stdout, [code]] = await Promise.all([text(child.stdout), once(child, 'exit')]);
  if (code !== 0) throw new Error(`the HTTP client exited with ${code}`);
  return (JSON.parse(stdout) as { latencies: number[] }).latencies;
}
await services.close();
