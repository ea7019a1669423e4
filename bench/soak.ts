/**
 * npm run bench:soak [-- --size 1000000 --minutes 10 --clients 4 --every 60 --workers 1 --seed 1]
 *
 * `websearch serve` left to run under a mixed keyed load, as a server that stays up for days sees
 * it: whether its memory levels off or keeps growing, whether its latency holds, and whether the
 * credit ledger charged exactly the requests that succeeded. On the corpus and saved segments
 * bench:search cached in bench/.cache, with a new organization `soak` (a key and credit written to
 * the cached database first). `--clients` kept-alive connections (bench/wire-client.ts) each send
 * one request at a time, drawn from a seeded mix in which almost no two requests are alike, so a
 * cache keyed by what a request asks could not stay small by seeing the same ones again:
 *
 * - searches of a SciFact claim's words, a random part of them in a random order (4 in 10);
 * - two to four words of the claims' vocabulary, a published window of a random year (15 in 100);
 * - such words, one of them misspelt by two letters swapped (the corrections' path, 1 in 10);
 * - webql: a quoted phrase of two words and a third, a word less another, `intitle:`, `inurl:`,
 *   `filetype:pdf` (7 in 100);
 * - standard queries with operators: `intitle:`, a quoted phrase, `after:`, `-word` (3 in 100);
 * - keyless searches of a claim (`/v1/search/public`, not charged: 2 in 100);
 * - a search on one site, a host seen in earlier results (3 in 100);
 * - fetches of a URL seen in earlier results, from the index (1 in 10);
 * - fetches of a URL not in the index (404, not charged: 1 in 20);
 * - searches the API refuses (400, not charged: 1 in 20).
 *
 * Every `--every` seconds it prints the requests per second, p50 and p99 of the requests that
 * ended in that interval, and the server's resident memory, anonymous and mapped files apart (with
 * `--workers N`, the sum over its processes); at the end, each kind's statuses, p50 and p99, the
 * growth of the anonymous memory over the second half of the run in MiB per hour, and the
 * ledger's check: the organization's balance after the server has stopped must be
 * its credit less 4,000 micro-USD for each keyed request answered 200, and none for the others. A
 * response of 5xx, a status other than the one its kind expects, or a balance off by any amount
 * ends the run with exit code 1.
 *
 * A client leaves its connection after a response that says `Connection: close` (as a closing
 * server answers) and opens another, as any HTTP client does.
 *
 * With `--restarts N` the server is stopped (SIGTERM: it finishes the requests under way, and
 * answers those its kept-alive connections bring in the next second, with `Connection: close`) and
 * started again N times, evenly through the run, while the clients keep sending: a request the
 * closing server closes before answering it is counted as cut (not answered, so
 * not charged) and sent no more; the ledger must still be exact. The memory's growth is not
 * given then (each start begins anew).
 *
 * With `--reloads N` (and `--workers 2` or more) the server is sent SIGHUP N times, evenly through
 * the run: the primary restarts its workers one at a time, the others answering meanwhile. A
 * request whose kept-alive connection a closing worker closes before answering it is counted as cut
 * and sent again at once on a new connection (a client's retry); every interval must still serve.
 * It prints each reload's duration and the requests cut.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { KEYED_REQUEST_COST } from '../src/access/keyed/keyed-tier.js';
import { queryTerms } from '../src/core/text.js';
import { createFundedKey } from '../test/helpers.js';
import { benchQuerySets, percentile, picker, rng } from './scifact.js';
import { startServe, withServices } from './serve-process.js';
import { WireClient } from './wire-client.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    minutes: { type: 'string', default: '10' },
    clients: { type: 'string', default: '4' },
    every: { type: 'string', default: '60' },
    workers: { type: 'string', default: '1' },
    seed: { type: 'string', default: '1' },
    restarts: { type: 'string', default: '0' },
    reloads: { type: 'string', default: '0' },
  },
});
const minutes = Number(values.minutes);
const clients = Number(values.clients);
const every = Number(values.every);
const workers = Number(values.workers);
const seed = Number(values.seed);
const restarts = Number(values.restarts);
for (const [name, x] of [['--minutes', minutes], ['--clients', clients], ['--every', every], ['--workers', workers], ['--seed', seed]] as const) {
  if (!(x > 0)) throw new Error(`${name} takes a positive number, not ${String(x)}`);
}
if (!Number.isInteger(restarts) || restarts < 0) throw new Error(`--restarts takes a count, not ${values.restarts}`);
const reloads = Number(values.reloads);
if (!Number.isInteger(reloads) || reloads < 0) throw new Error(`--reloads takes a count, not ${values.reloads}`);
if (reloads > 0 && (workers < 2 || restarts > 0)) throw new Error('--reloads needs --workers 2 or more, and no --restarts');
const path = join(import.meta.dirname, '.cache', `generated-${values.size}.db`);

const [[, claims]] = benchQuerySets(300) as [[string, string[]], ...unknown[]];
const vocabulary = [...new Set(claims.flatMap((c) => queryTerms(c)))].filter((w) => /^[a-z]{3,}$/.test(w));

/** What a request is and the status it must be answered with. */
interface Ask {
  kind: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  status: number;
  /** Keyless (`/public`, no key): answered without a charge. */
  keyless?: boolean;
}

/** URLs and hosts from earlier results, for fetches and `site`; the first requests are searches. */
const seenUrls: string[] = [];
const seenHosts: string[] = [];

function asker(next: () => number): () => Ask {
  const pick = picker(next);
  const someWords = (min: number, max: number) => Array.from({ length: min + Math.floor(next() * (max - min + 1)) }, () => pick(vocabulary));
  const search = (kind: string, body: Record<string, unknown>, status = 200): Ask => ({ kind, method: 'POST', path: '/v1/search', body: JSON.stringify(body), status });
  return () => {
    const r = next();
    const seen = seenUrls.length > 0;
    if (r < 0.4 || !seen) {
      const words = pick(claims).split(' ');
      const part = words.filter(() => next() < 0.7).sort(() => next() - 0.5);
      return search('claim', { query: (part.length >= 3 ? part : words).join(' '), max_results: 1 + Math.floor(next() * 20) });
    }
    if (r < 0.55) {
      const year = 2015 + Math.floor(next() * 11);
      return search('window', { query: someWords(2, 4).join(' '), published_after: `${year}-01-01`, published_before: `${year}-12-31` });
    }
    if (r < 0.65) {
      const words = someWords(2, 4);
      const w = words[0]!;
      const i = Math.floor(next() * (w.length - 1));
      words[0] = w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
      return search('misspelt', { query: words.join(' '), snippet_max_length: 180 + Math.floor(next() * 800) });
    }
    if (r < 0.72) {
      const [a, b, c] = someWords(3, 3) as [string, string, string];
      const query = pick([`"${a} ${b}" ${c}`, `${a} ${b} -${c}`, `intitle:${a} ${b}`, `${a} inurl:${b.slice(0, 4)}`, `${a} ${b} filetype:pdf`]);
      return search('webql', { query, mode: 'webql' });
    }
    if (r < 0.75) {
      const [a, b] = someWords(2, 2) as [string, string];
      const query = pick([`intitle:${a} ${b}`, `"${a} ${b}"`, `${a} ${b} after:${2015 + Math.floor(next() * 11)}`, `${a} -${b} ${pick(vocabulary)}`]);
      return search('operators', { query });
    }
    if (r < 0.77) return { ...search('keyless', { query: pick(claims) }), path: '/v1/search/public', keyless: true };
    if (r < 0.8) return search('site', { query: someWords(1, 3).join(' '), site: pick(seenHosts) });
    if (r < 0.9) return { kind: 'fetch', method: 'GET', path: `/v1/fetch?url=${encodeURIComponent(pick(seenUrls))}&max_chars=${500 + Math.floor(next() * 20_000)}`, status: 200 };
    if (r < 0.95) return { kind: 'fetch, not indexed', method: 'GET', path: `/v1/fetch?url=${encodeURIComponent(`https://not-indexed.example/${Math.floor(next() * 1e9)}`)}`, status: 404 };
    return search('refused', pick([{ query: pick(vocabulary), max_results: 0 }, { query: pick(vocabulary), snippet_max_length: 5 }, { query: pick(vocabulary), published_after: 'last tuesday' }, { site: 'example.com' }]), 400);
  };
}

/**
 * The resident memory of `pid` and of the processes it started, MiB, split as bench/memory.ts
 * splits it: anonymous (heaps, the segments' arrays: what a leak grows) and mapped files (the
 * database's pages read through SQLite's memory map, shared with the page cache and given back
 * under pressure: they grow as requests touch more of the 2 GB file).
 */
function residentMib(pid: number): { anon: number; file: number } {
  const sum = { anon: 0, file: 0 };
  const add = (p: number) => {
    const status = readFileSync(`/proc/${p}/status`, 'utf8');
    const kib = (key: string) => Number(new RegExp(`${key}:\\s*(\\d+)`).exec(status)?.[1] ?? 0);
    sum.anon += kib('RssAnon') / 1024;
    sum.file += (kib('RssFile') + kib('RssShmem')) / 1024;
  };
  add(pid);
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) add(Number(d));
    } catch {
      // ended meanwhile
    }
  }
  return sum;
}

const CREDIT = 1e12;
const { org, key } = await withServices(path, (services) => createFundedKey(services, CREDIT, 1_000_000, 'soak'));
const headers = { 'x-api-key': key };
const keylessHeaders = { 'x-service-title': 'soak' };
// Run as `npm start` runs it (glibc's threshold: README, MALLOC_MMAP_THRESHOLD_).
const serve = () =>
  startServe(['--database-url', `sqlite:${path}`, '--log-level', 'warn', ...(workers > 1 ? ['--workers', String(workers)] : [])], {
    MALLOC_MMAP_THRESHOLD_: '131072',
    ...process.env,
    WEBSEARCH_KEYLESS_RATE_PER_SECOND: '1000000',
    WEBSEARCH_KEYLESS_RATE_PER_HOUR: '1000000000',
  });
let server = await serve();
/**
 * Set from the SIGTERM of a restart until the next server answers; `epoch` counts the SIGTERMs. A
 * request on a connection to a server that is closing or gone (opened before the last SIGTERM) may
 * have its connection closed; on any other, that is a failure. The clients
 * do not wait for a restart to send: they go on over their open connections until one fails.
 */
let restarting: Promise<void> | undefined;
let epoch = 0;
let cut = 0;
/** Set while a reload (SIGHUP) is under way: a request cut then is sent again at once. */
let reloading = false;
const reloadTimes: number[] = [];

const statuses = new Map<string, Map<number, number>>();
/** Each kind's latencies over the whole run. */
const byKind = new Map<string, number[]>();
let charges = 0;
let wrong = 0;
let interval: number[] = [];
const samples: { at: number; mib: number }[] = []; // anonymous
const f = (x: number, d = 1) => x.toFixed(d);
console.log(`websearch serve${workers > 1 ? ` --workers ${workers}` : ''} for ${minutes} min, ${clients} clients, keyed requests of a seeded mix (seed ${seed})`);
console.log('| minute | requests/s | p50 ms | p99 ms | anonymous MiB | mapped files MiB |');
console.log('|---|---|---|---|---|---|');
const start = performance.now();
const end = start + minutes * 60_000;
const sampler = setInterval(() => {
  const lat = interval.sort((a, b) => a - b);
  interval = [];
  const at = (performance.now() - start) / 60_000;
  const row = `| ${f(at)} | ${f(lat.length / every, 0)} | ${f(percentile(lat, 50), 2)} | ${f(percentile(lat, 99), 2)} |`;
  // While the server is being replaced, there is none to measure.
  if (restarting) return console.log(`${row} (restarting) | |`);
  const { anon, file } = residentMib(server.pid);
  samples.push({ at, mib: anon });
  console.log(`${row} ${f(anon, 0)} | ${f(file, 0)} |`);
}, every * 1000);
/** The server stopped (SIGTERM, in-flight requests finished) and started again, `restarts` times evenly through the run, under load. */
const halt = new AbortController();
const restarter = (async () => {
  for (let r = 1; r <= restarts; r++) {
    await delay(Math.max(0, start + (r * minutes * 60_000) / (restarts + 1) - performance.now()), undefined, { signal: halt.signal });
    let up!: () => void;
    restarting = new Promise((resolve) => (up = resolve));
    epoch++;
    try {
      await server.stop();
      server = await serve();
    } finally {
      // (Had the new server not started, the clients' next requests fail, and the run with them.)
      restarting = undefined;
      up();
    }
  }
})();
/** SIGHUP `reloads` times, evenly through the run, under load; each waits for the primary to say every worker restarted. */
const reloader = (async () => {
  for (let r = 1; r <= reloads; r++) {
    await delay(Math.max(0, start + (r * minutes * 60_000) / (reloads + 1) - performance.now()), undefined, { signal: halt.signal });
    reloading = true;
    const t = performance.now();
    try {
      await server.reload();
    } finally {
      reloading = false;
    }
    reloadTimes.push(performance.now() - t);
  }
})();
try {
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      let client = new WireClient(server.base);
      /** The epoch the connection was opened in. */
      let opened = epoch;
      const ask = asker(rng(seed * 1000 + c));
      const reconnect = async () => {
        client.close();
        await restarting;
        opened = epoch;
        client = new WireClient(server.base);
      };
      try {
        /** A request cut by a reload, sent again on the new connection (a client's retry). */
        let again: ReturnType<typeof ask> | undefined;
        while (performance.now() < end) {
          // A connection the server said it closes (its last answer's `Connection: close`) is left, as a client leaves it.
          if (!client.reusable) await reconnect();
          const a = again ?? ask();
          again = undefined;
          const t = performance.now();
          const sent = a.keyless ? keylessHeaders : headers;
          const answered = a.method === 'POST' ? client.post(a.path, a.body!, sent) : client.get(a.path, sent);
          const res = await answered.catch((e: unknown) => {
            if (!restarting && opened === epoch && !reloading) throw e;
            return undefined;
          });
          if (!res) {
            // Cut by a restart: not answered, so never charged. A reload's leaves the service up: sent again.
            cut++;
            if (reloading) again = a;
            await reconnect();
            continue;
          }
          const took = performance.now() - t;
          interval.push(took);
          const kindTimes = byKind.get(a.kind) ?? [];
          byKind.set(a.kind, kindTimes);
          kindTimes.push(took);
          const byStatus = statuses.get(a.kind) ?? new Map<number, number>();
          statuses.set(a.kind, byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1));
          if (res.status === 200 && !a.keyless) charges++;
          if (res.status !== a.status) {
            wrong++;
            if (wrong <= 5) console.error(`${a.kind} ${a.method} ${a.path} ${a.body ?? ''}: ${res.status} (expected ${a.status}) ${res.body.slice(0, 300)}`);
          }
          if (a.kind !== 'claim' || res.status !== 200 || seenUrls.length >= 5_000) continue;
          for (const { url } of (JSON.parse(res.body) as { results: { url: string }[] }).results) {
            seenUrls.push(url);
            seenHosts.push(new URL(url).hostname);
          }
        }
      } finally {
        client.close();
      }
    }),
  );
  await restarter;
  await reloader;
} finally {
  clearInterval(sampler);
  halt.abort();
  await restarter.catch(() => {});
  await reloader.catch(() => {});
  await server.stop();
}

console.log('\n| kind | statuses | p50 ms | p99 ms |');
console.log('|---|---|---|---|');
for (const [kind, byStatus] of [...statuses].sort()) {
  const lat = byKind.get(kind)!.sort((a, b) => a - b);
  console.log(`| ${kind} | ${[...byStatus].map(([s, n]) => `${n} x ${s}`).join(', ')} | ${f(percentile(lat, 50), 2)} | ${f(percentile(lat, 99), 2)} |`);
}
if (restarts > 0) console.log(`\nRestarts under load: ${restarts}; requests cut by them (their connection closed by the closing server): ${cut}`);
if (reloads > 0) {
  console.log(
    `\nReloads under load (SIGHUP, ${workers} workers restarted one at a time): ${reloadTimes.length} of ${reloads}, taking ${reloadTimes.map((t) => f(t / 1000)).join(', ')} s; ` +
      `requests cut by them (their connection closed by a closing worker), each sent again at once: ${cut}`,
  );
}
const later = samples.filter((s) => s.at >= minutes / 2);
if (restarts === 0 && reloads === 0 && later.length >= 2) {
  // The least-squares slope of the second half's samples.
  const mx = later.reduce((a, s) => a + s.at, 0) / later.length;
  const my = later.reduce((a, s) => a + s.mib, 0) / later.length;
  const slope = later.reduce((a, s) => a + (s.at - mx) * (s.mib - my), 0) / later.reduce((a, s) => a + (s.at - mx) ** 2, 0);
  console.log(`\nAnonymous memory: ${f(samples[0]!.mib, 0)} MiB at the first sample, ${f(samples.at(-1)!.mib, 0)} at the last; over the second half ${f(slope * 60)} MiB per hour`);
}
const balance = await withServices(path, (services) => services.ledger.balance(org.id));
const charged = CREDIT - (balance ?? NaN);
const expected = charges * KEYED_REQUEST_COST;
console.log(`Ledger: ${charges} keyed requests answered 200, ${charged} micro-USD charged, ${expected} expected: ${charged === expected ? 'exact' : 'OFF'}`);
const fiveHundreds = [...statuses.values()].reduce((n, m) => n + [...m].reduce((k, [s, x]) => k + (s >= 500 ? x : 0), 0), 0);
if (charged !== expected || wrong > 0 || fiveHundreds > 0) {
  console.error(`failed: ${wrong} answers not as expected (${fiveHundreds} of 5xx), ledger ${charged === expected ? 'exact' : 'off'}`);
  process.exitCode = 1;
}
