/**
 * npm run bench:serve-load [-- --size 1000000 --seconds 10 --clients 1,8 --warmup 5 --tier keyless|keyed]
 *
 * `websearch serve` under load in its three ways of using both cores, on the corpus and saved
 * segments bench:search cached in bench/.cache: one process splitting each search over two threads
 * (the default), one process on one thread (`WEBSEARCH_SEARCH_THREADS=1`), and two worker processes
 * (`--workers 2`, one thread each). For each, N clients (each one kept-alive connection, one
 * request at a time, bench/wire-client.ts) post the SciFact long claims in turn to
 * /v1/search/public (`--tier keyless`, the default) or to /v1/search with an API key (`--tier
 * keyed`: a new organization `bench` with a key and credit, written to the cached database first)
 * for the given seconds after `--warmup` seconds (5): requests per second, p50 and p99. The clients run in this process, on the same two cores as the server: at 8 clients they
 * take part of the machine from it, alike for every way.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createFundedKey } from '../test/helpers.js';
import { benchQuerySets, percentile } from './scifact.js';
import { startServe, withServices } from './serve-process.js';
import { WireClient } from './wire-client.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '10' },
    clients: { type: 'string', default: '1,8' },
    warmup: { type: 'string', default: '5' },
    tier: { type: 'string', default: 'keyless' },
  },
});
if (values.tier !== 'keyless' && values.tier !== 'keyed') throw new Error(`--tier takes keyless or keyed, not ${values.tier}`);
const keyed = values.tier === 'keyed';
const warmup = Number(values.warmup);
const path = join(import.meta.dirname, '.cache', `generated-${values.size}.db`);
const seconds = Number(values.seconds);
const clientCounts = values.clients.split(',').map(Number);
const [[, queries]] = benchQuerySets(300) as [[string, string[]], ...unknown[]];
const bodies = queries.map((q) => JSON.stringify({ query: q.slice(0, 2000) }));

/** The headers of every request: a key of a new organization `bench` (its rate limit out of the way, a million USD of credit), or an application title. */
async function requestHeaders(): Promise<Record<string, string>> {
  if (!keyed) return { 'x-service-title': 'bench' };
  return { 'x-api-key': (await withServices(path, (services) => createFundedKey(services, 1e12, 1_000_000, 'bench'))).key };
}
const headers = await requestHeaders();

const WAYS: { name: string; args: string[]; env: Record<string, string> }[] = [
  { name: 'one process, search split over two threads (default)', args: [], env: {} },
  { name: 'one process, one search thread', args: [], env: { WEBSEARCH_SEARCH_THREADS: '1' } },
  { name: 'two worker processes (--workers 2)', args: ['--workers', '2'], env: {} },
];

/** The server with `args` and `env`, and the search path its requests go to. */
async function startServer(args: string[], env: Record<string, string>): Promise<{ url: URL; stop: () => Promise<void> }> {
  const server = await startServe(['--database-url', `sqlite:${path}`, '--log-level', 'warn', ...args], {
    ...process.env,
    WEBSEARCH_KEYLESS_RATE_PER_SECOND: '1000000',
    WEBSEARCH_KEYLESS_RATE_PER_HOUR: '1000000000',
    ...env,
  });
  return { url: new URL(keyed ? '/v1/search' : '/v1/search/public', server.base), stop: server.stop };
}

/** `n` clients posting for `ms` milliseconds; the latencies of the requests that ended in it. */
async function load(url: URL, n: number, ms: number, offset: number): Promise<number[]> {
  const clients = Array.from({ length: n }, () => new WireClient(url));
  const latencies: number[] = [];
  const end = performance.now() + ms;
  try {
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = offset + c * 37; performance.now() < end; i++) {
          const t = performance.now();
          const res = await client.post(url.pathname, bodies[i % bodies.length]!, headers);
          if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body}`);
          latencies.push(performance.now() - t);
        }
      }),
    );
  } finally {
    for (const c of clients) c.close();
  }
  return latencies;
}

const f = (x: number, d = 2) => x.toFixed(d);
console.log(`POST ${keyed ? '/v1/search (an API key)' : '/v1/search/public'}, SciFact long claims, ${seconds} s per cell after ${warmup} s of warm-up`);
console.log('| way | clients | requests/s | p50 ms | p99 ms |');
console.log('|---|---|---|---|---|');
for (const way of WAYS) {
  const server = await startServer(way.args, way.env);
  try {
    for (const n of clientCounts) {
      await load(server.url, n, warmup * 1000, 0);
      const lat = await load(server.url, n, seconds * 1000, 1000).then((a) => a.sort((x, y) => x - y));
      console.log(`| ${way.name} | ${n} | ${f(lat.length / seconds, 0)} | ${f(percentile(lat, 50))} | ${f(percentile(lat, 99))} |`);
    }
  } finally {
    await server.stop();
  }
}
