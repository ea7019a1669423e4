/**
 * The query side of `npm run bench:search`, in a fresh process as a server runs: it opens the
 * database and the saved segments, times every cell (our engine, and exhaustive BM25 on the same
 * index for the first 100 queries), then POST /v1/search/public over HTTP against the engine alone,
 * and where an HTTP request's time goes.
 * Prints one JSON line per figure. Args: <db path> <query count> [--skip-http]. Used by bench/search.ts,
 * which builds and saves the segments first (so the build's garbage is not in this process).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { EngineIndexStore } from '../src/adapters/engine/engine-index-store.js';
import { createServices } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';
import { queryTerms } from '../src/core/text.js';
import { buildApp } from '../src/http/app.js';
import { benchQuerySets, BENCH_WINDOWS, type Cell, timeQueries } from './scifact.js';

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

for (const [set, qs] of sets) {
  for (const [w, f] of BENCH_WINDOWS) {
    const ours = await timeQueries((q) => engine.search({ terms: queryTerms(q), limit: 10, ...f }), qs);
    // The exhaustive reference is slow at 1M: its first 100 queries, 5 of them as warm-up.
    const full = await timeQueries((q) => engine.exhaustiveSearch({ terms: queryTerms(q), limit: 10, ...f }), qs.slice(0, 100), 5);
    out({ cell: `${set} ${w}`, ours, full });
  }
}

if (flag !== '--skip-http') {
  const long = sets[0]![1];
  const app = await buildApp(services, { logger: false });
  const spent = { server: 0, engine: 0, versions: 0 };
  let measuring = false;
  const begun = new WeakMap<object, number>();
  app.addHook('onRequest', async (request) => void begun.set(request, performance.now()));
  app.addHook('onResponse', async (request) => {
    if (measuring) spent.server += performance.now() - (begun.get(request) ?? performance.now());
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL('/v1/search/public', address);
  // A plain node:http client on a kept-alive connection: the figure is the API's cost, not a heavier client's.
  const post = (q: string) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ query: q.slice(0, 2000) });
      const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-service-title': 'bench' };
      const req = http.request(target, { method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString()}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  const overHttp: Cell = await timeQueries(post, long);
  const direct: Cell = await timeQueries((q) => engine.search({ terms: queryTerms(q), limit: 10 }), long);
  // Where a request's time goes (means): one more pass with the server's time, the engine's and
  // the version reads measured inside it; the rest of the server's time is snippets, tier and JSON.
  const timed = <A extends unknown[], R>(f: (...a: A) => Promise<R>, key: keyof typeof spent) =>
    async (...a: A): Promise<R> => {
      const t = performance.now();
      try {
        return await f(...a);
      } finally {
        spent[key] += performance.now() - t;
      }
    };
  const search = engine.search.bind(engine);
  const getVersions = services.pages.getVersions.bind(services.pages);
  engine.search = timed(search, 'engine');
  services.pages.getVersions = timed(getVersions, 'versions');
  measuring = true;
  const started = performance.now();
  for (const q of long) await post(q);
  const n = long.length;
  const client = (performance.now() - started) / n;
  out({ http: overHttp, direct, means: { client, server: spent.server / n, engine: spent.engine / n, versions: spent.versions / n } });
  agent.destroy();
  await app.close();
}
await services.close();
