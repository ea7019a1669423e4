/**
 * npm run bench:start [-- --size 1000000 --seconds 6 --rounds 2]
 *
 * A server's first seconds: `websearch serve` as `npm start` runs it (compiled), on the corpus and
 * saved segments bench:search cached in bench/.cache, started with its warm-up searches
 * (ops/warm-up.ts, `WEBSEARCH_WARM_UP_MS` at its default) and without (`WEBSEARCH_WARM_UP_MS=0`),
 * in turn, `--rounds` times each. Once it answers /healthz, one client (a kept-alive connection,
 * one request at a time) posts the SciFact long claims in turn to /v1/search/public for
 * `--seconds`: the time to /healthz, each second's p50, and the p50 of the first three seconds,
 * with the ratio of the two ways' in the same run. Then, the server warm from those seconds, the
 * first search of each kind the claims do not make (an acquired window, a `query_time`, a site,
 * a quoted phrase, an `inurl:`: what the engine makes on their first use) and the same search
 * again, each timed, and the phrase again after the `inurl:`.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { benchQuerySets, cachedCorpus, median, percentile } from './scifact.js';
import { buildDist, startServe } from './serve-process.js';
import { WireClient } from './wire-client.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '2' },
  },
});
const path = cachedCorpus(values.size);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
if (!(seconds >= 3) || !(rounds >= 1)) throw new Error('--seconds takes 3 or more, --rounds 1 or more');
// Built once, before the starts are timed.
buildDist();
const bodies = benchQuerySets(300)[0]![1].map((q) => JSON.stringify({ query: q.slice(0, 2000) }));
const headers = { 'x-service-title': 'bench' };

/**
 * Searches of the kinds the claims do not make, in this order, each made twice: a claim with a
 * filter over the generated corpus (its pages acquired 2025-01 to 2026-10, on host0 to host999,
 * under /doc/N), a quoted phrase (searched as webql searches it: keyless callers have no webql
 * mode), then a claim with an `inurl:` (whose first reads the pages' URLs into memory, in turns of
 * the event loop), then the phrase again while they are read.
 */
const PHRASE = { query: '"tumor suppressor"' };
const KINDS: [string, (claim: string) => Record<string, string>][] = [
  ['an acquired window', (claim) => ({ query: claim, acquired_after: '2025-06-01', acquired_before: '2026-05-31' })],
  ['a query_time', (claim) => ({ query: claim, query_time: '2026-01-01' })],
  ['a site', (claim) => ({ query: claim, site: 'host7.bench.example' })],
  ['a phrase', () => PHRASE],
  ['an inurl:', (claim) => ({ query: `${claim} inurl:/doc/5` })],
  ['the phrase after it', () => PHRASE],
];

/**
 * One start: the time to /healthz, then each request's latency by the second (from /healthz) it
 * ended in, then each of KINDS' first search and the same again (ms).
 */
async function start(warmUp: boolean): Promise<{ ready: number; perSecond: number[][]; kinds: [first: number, again: number][] }> {
  const began = performance.now();
  const server = await startServe(
    ['--database-url', `sqlite:${path}`, '--log-level', 'warn'],
    {
      MALLOC_MMAP_THRESHOLD_: '131072',
      ...process.env,
      WEBSEARCH_KEYLESS_RATE_PER_SECOND: '1000000',
      WEBSEARCH_KEYLESS_RATE_PER_HOUR: '1000000000',
      ...(!warmUp && { WEBSEARCH_WARM_UP_MS: '0' }),
    },
    true,
  );
  const ready = performance.now();
  const perSecond: number[][] = Array.from({ length: seconds }, () => []);
  const kinds: [number, number][] = [];
  const client = new WireClient(new URL('/v1/search/public', server.base));
  try {
    for (let i = 0; performance.now() - ready < seconds * 1000; i++) {
      const t = performance.now();
      const res = await client.post('/v1/search/public', bodies[i % bodies.length]!, headers);
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body}`);
      const end = performance.now();
      perSecond[Math.min(seconds - 1, Math.floor((end - ready) / 1000))]!.push(end - t);
    }
    const claim = (JSON.parse(bodies[0]!) as { query: string }).query;
    for (const [, made] of KINDS) {
      const body = JSON.stringify(made(claim));
      const times: number[] = [];
      for (let i = 0; i < 2; i++) {
        const t = performance.now();
        const res = await client.post('/v1/search/public', body, headers);
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body}`);
        times.push(performance.now() - t);
      }
      kinds.push([times[0]!, times[1]!]);
    }
  } finally {
    client.close();
    await server.stop();
  }
  return { ready: ready - began, perSecond, kinds };
}

const f = (x: number) => x.toFixed(1);
const p50 = (xs: readonly number[]) => (xs.length === 0 ? NaN : percentile([...xs].sort((a, b) => a - b), 50));
const runs: Record<'with' | 'without', { ready: number[]; firstThree: number[]; kinds: string[] }> = {
  with: { ready: [], firstThree: [], kinds: [] },
  without: { ready: [], firstThree: [], kinds: [] },
};
console.log(`websearch serve (compiled) on ${values.size} pages, one client posting SciFact long claims to /v1/search/public from /healthz on, ${rounds} start(s) each way`);
console.log(`| start | to /healthz s | ${Array.from({ length: seconds }, (_, s) => `p50 second ${s + 1} ms`).join(' | ')} | p50 first 3 s ms |`);
console.log(`|---|---|${'---|'.repeat(seconds)}---|`);
for (let round = 0; round < rounds; round++) {
  for (const way of ['without', 'with'] as const) {
    const { ready, perSecond, kinds } = await start(way === 'with');
    runs[way].kinds.push(`| ${way} warm-up | ${kinds.map(([first, again]) => `${f(first)} / ${f(again)}`).join(' | ')} |`);
    const firstThree = p50(perSecond.slice(0, 3).flat());
    runs[way].ready.push(ready);
    runs[way].firstThree.push(firstThree);
    console.log(`| ${way} warm-up | ${(ready / 1000).toFixed(2)} | ${perSecond.map((xs) => `${f(p50(xs))} (${xs.length})`).join(' | ')} | ${f(firstThree)} |`);
  }
}
const ratio = median(runs.with.firstThree) / median(runs.without.firstThree);
console.log(
  `Medians over the starts: to /healthz ${(median(runs.without.ready) / 1000).toFixed(2)} s without the warm-up, ${(median(runs.with.ready) / 1000).toFixed(2)} s with it; ` +
    `p50 of the first three seconds ${f(median(runs.without.firstThree))} ms without, ${f(median(runs.with.firstThree))} ms with (${ratio.toFixed(2)}x). ` +
    'Each second\'s cell is its p50 and, in brackets, the requests answered in it.',
);
console.log(`\nThen the first search of each kind the claims do not make, and the same again (ms), in this order:`);
console.log(`| start | ${KINDS.map(([name]) => `${name}, first / again`).join(' | ')} |`);
console.log(`|---|${'---|'.repeat(KINDS.length)}`);
for (let round = 0; round < rounds; round++) for (const way of ['without', 'with'] as const) console.log(runs[way].kinds[round]);
