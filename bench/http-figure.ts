/**
 * The search benchmark's HTTP figure: what POST /v1/search (an API key, its organization's rate
 * limit, credits reserved and committed in the ledger) or POST /v1/search/public (keyless: an
 * application title, the keyless rate limits) adds to the engine's own time, and where that time
 * goes. Used by bench/engine-queries.ts (inside `npm run bench:search`) and by bench/http.ts (`npm
 * run bench:http`, the same figure alone on a cached corpus).
 *
 * A new server first answers at least 3,000 requests (the queries in turn): V8 optimizes the
 * request path's functions, most of which run once a request, over a server's first few thousand
 * requests (`node --trace-opt` shows them still being optimized in the tenth pass of 300), and a
 * running service is past that; each warm-up pass's p50 is reported too, the first as a new server's. Then three
 * rounds of the engine alone and over HTTP in turn, pooled, so both see the same drift of the
 * machine's speed; the client is the lean one (bench/wire-client.ts) in this process, then one in its
 * own process (bench/http-client.ts). Each in-process request is also cut into stages by timestamps
 * taken in the request's path (the server's request event, the start and end of the tier's
 * identify, admit and settle, the engine, the version reads, the start and the return of the
 * response's `end` (its write to the socket), the usage row queued, the access line written, the
 * response's last bytes at the client), so a change to one stage shows there and not only in the
 * total. What follows `end` runs in this one thread before the client's turn: the usage row and
 * the access line (the request's work after its response),
 * the event loop's turn to the client's socket (to the data), and the client's own reading of the
 * response (to the client).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, writeSync } from 'node:fs';
import { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { text } from 'node:stream/consumers';
import type { EngineIndexStore } from '../src/adapters/engine/engine-index-store.js';
import { KEYED_REQUEST_COST } from '../src/access/keyed/keyed-tier.js';
import { createServices, type ServiceOptions, type Services } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';
import { queryReadings } from '../src/core/text.js';
import type { IndexQuery } from '../src/ports/index-store.js';
import { buildApp } from '../src/http/app.js';
import { type Cell, cellOf, median } from './scifact.js';
import { createFundedKey } from '../test/helpers.js';
import { WireClient } from './wire-client.js';

/** The stages of one request, in order, each from the previous mark (the first from the client's write). */
const STAGES = [
  'to the server',
  'to the tier',
  'identify',
  'validation',
  'admit',
  'to the engine',
  'engine',
  'versions',
  'results',
  'settle',
  'to the reply',
  'the end',
  'to the usage',
  'to the log',
  'to the data',
  'to the client',
] as const;
type Stage = (typeof STAGES)[number];
const MARKS = ['request', 'tier', 'identified', 'admit', 'admitted', 'engine', 'engineEnd', 'versionsEnd', 'settle', 'settled', 'end', 'ended', 'recorded', 'logged', 'data'] as const;
type Mark = (typeof MARKS)[number];

/** What the figure times the engine alone with: the query's readings, ten results. */
export const engineAloneQuery = (q: string): IndexQuery => ({ ...queryReadings(q), limit: 10 });

/** Which way in is timed: the API key's (`/v1/search`) or the keyless one (`/v1/search/public`). */
export type HttpTier = 'keyed' | 'keyless';

export interface HttpFigure {
  set: string;
  tier: HttpTier;
  path: string;
  http: Cell;
  direct: Cell;
  addedMedian: number;
  means: { client: number; engine: number; versions: number };
  /** The median of each stage over the in-process requests (ms). */
  stages: Record<Stage, number>;
  remote: Cell;
  remoteAddedMedian: number;
  /** The p50 of each warm-up pass over HTTP, in order: the first a new server's (and, in the process's first figure, of code not yet optimized). */
  warmUp: number[];
}

/** Requests a new server answers before the figure is timed (see above). */
const WARM_UP_REQUESTS = 3_000;

/**
 * The services a server would run on the benchmark's database and saved segments: the default
 * settings (logging at info) but for rate limits out of the way, and one search thread unless told
 * (the engine figures are of one thread, as Lucene's; `serve` splits a search over two by default).
 */
export async function openServedIndex(
  path: string,
  searchThreads: 1 | 2 = 1,
  split?: ServiceOptions['split'],
): Promise<{ services: Services; engine: EngineIndexStore }> {
  const settings = loadSettings({
    env: {},
    flags: { databaseUrl: `sqlite:${path}`, keylessPerSecond: 1_000_000, keylessPerHour: 1_000_000_000, searchThreads },
  });
  const services = await createServices(settings, { split });
  const engine = services.index as EngineIndexStore;
  await engine.open();
  if (!engine.loadedFromDisk) {
    // It has just built them instead (none saved, or saved under another analysis or weights), and saved them for the next run.
    throw new Error('the saved segments were not loaded, so this run would time a fresh build\'s memory; they are saved now: run again');
  }
  return { services, engine };
}

/** The figure for one query set (`set` names it: long or short claims), no filter; each query is cut to the API's 2,000 characters. */
export async function httpFigure(
  services: Services,
  engine: EngineIndexStore,
  set: string,
  queryTexts: readonly string[],
  tier: HttpTier = 'keyed',
): Promise<HttpFigure> {
  const queries = queryTexts.map((q) => q.slice(0, 2000));
  const warmUpPasses = Math.ceil(WARM_UP_REQUESTS / queries.length);
  // Keyed: a new organization `bench` (its rate limit out of the way) with credit for the figure's
  // passes (a warm-up's and three timed here, a warm-up's and one timed in the client's process).
  const headers: Record<string, string> =
    tier === 'keyed'
      ? { 'x-api-key': (await createFundedKey(services, queries.length * (2 * warmUpPasses + 4) * KEYED_REQUEST_COST, 1_000_000, 'bench')).key }
      : { 'x-service-title': 'bench' };
  const path = tier === 'keyed' ? '/v1/search' : '/v1/search/public';
  // The marks of the request under way, while `recording` is set; one request at a time.
  let recording = false;
  let marks: Partial<Record<Mark, number>> = {};
  const rows: Record<'start' | Mark | 'done', number>[] = [];
  /** The engine's time in each request while recording, in order (the in-process and the remote client's). */
  let engineTimes: number[] = [];
  const mark = (m: Mark) => {
    if (!recording) return;
    marks[m] = performance.now();
    if (m === 'engineEnd') engineTimes.push(marks.engineEnd! - marks.engine!);
  };
  // The server logs as `websearch serve` does by default (its access line at info, written as it is
  // logged, as to stdout), to /dev/null.
  const devNull = openSync('/dev/null', 'w');
  const log = (line: string) => {
    mark('logged');
    writeSync(devNull, line);
  };
  const app = await buildApp(services, { logStream: { write: log } });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const target = new URL(path, address);

  const around = <A extends unknown[], R>(f: (...a: A) => Promise<R>, before: Mark | undefined, after: Mark | undefined) =>
    async (...a: A): Promise<R> => {
      if (before) mark(before);
      const r = await f(...a);
      if (after) mark(after);
      return r;
    };
  const search = engine.search.bind(engine);
  const restore = [
    patch(engine, 'search', around(search, 'engine', 'engineEnd')),
    patch(services.pages, 'getVersions', around(services.pages.getVersions.bind(services.pages), undefined, 'versionsEnd')),
    patch(services.usage, 'record', around(services.usage.record.bind(services.usage), undefined, 'recorded')),
    ...services.tiers.flatMap((access) => [
      patch(access, 'identify', around(access.identify.bind(access), 'tier', 'identified')),
      patch(access, 'admit', around(access.admit.bind(access), 'admit', 'admitted')),
      patch(access, 'settle', around(access.settle.bind(access), 'settle', 'settled')),
    ]),
  ];
  app.server.prependListener('request', () => mark('request'));
  const end = ServerResponse.prototype.end;
  ServerResponse.prototype.end = function (this: ServerResponse, ...a: unknown[]) {
    mark('end');
    const res = (end as (...x: unknown[]) => ServerResponse).apply(this, a);
    mark('ended');
    return res;
  } as typeof end;

  const engineAlone = async (): Promise<number[]> => {
    const lat: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await search(engineAloneQuery(q));
      lat.push(performance.now() - t);
    }
    return lat;
  };
  const client = new WireClient(target, () => mark('data'));
  const overHttp = async (): Promise<number[]> => {
    const lat: number[] = [];
    for (const q of queries) {
      marks = {};
      const t = performance.now();
      const res = await client.post(target.pathname, JSON.stringify({ query: q }), headers);
      const done = performance.now();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body}`);
      lat.push(done - t);
      if (recording) rows.push({ ...(marks as Record<Mark, number>), start: t, done });
    }
    return lat;
  };

  try {
    await engineAlone();
    const warmUp: number[] = [];
    for (let pass = 0; pass < warmUpPasses; pass++) warmUp.push(median(await overHttp()));
    const direct: number[] = [];
    const local: number[] = [];
    for (let round = 0; round < 3; round++) {
      direct.push(...(await engineAlone()));
      recording = true;
      local.push(...(await overHttp()));
      recording = false;
    }
    client.close();
    const engines = engineTimes;
    // The same through a client in its own process, as a remote user's is (it warms up first itself,
    // as long as the server did: its timed pass is the last of its requests).
    engineTimes = [];
    recording = true;
    const remote = await clientLatencies(target.href, queries, headers, warmUpPasses);
    recording = false;
    const remoteEngine = engineTimes.slice(engineTimes.length - remote.length);

    const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
    const stages = {} as Record<Stage, number>;
    const order = ['start', ...MARKS, 'done'] as const;
    STAGES.forEach((stage, i) => {
      stages[stage] = median(rows.map((r) => r[order[i + 1]!] - r[order[i]!]));
    });
    return {
      set,
      tier,
      path,
      http: cellOf(local),
      direct: cellOf(direct),
      addedMedian: median(local.map((c, i) => c - engines[i]!)),
      means: { client: mean(local), engine: mean(engines), versions: mean(rows.map((r) => r.versionsEnd - r.engineEnd)) },
      stages,
      remote: cellOf(remote),
      remoteAddedMedian: median(remote.map((c, i) => c - remoteEngine[i]!)),
      warmUp,
    };
  } finally {
    ServerResponse.prototype.end = end;
    for (const undo of restore) undo();
    client.close();
    await app.close();
    closeSync(devNull);
  }
}

/** Replaces `object[key]` for the figure's run; the returned function puts back what was there (own or inherited). */
function patch<T extends object, K extends keyof T>(object: T, key: K, value: T[K]): () => void {
  const own = Object.getOwnPropertyDescriptor(object, key);
  object[key] = value;
  return () => {
    if (own) Object.defineProperty(object, key, own);
    else delete object[key];
  };
}

async function clientLatencies(url: string, queries: readonly string[], headers: Record<string, string>, warmUpPasses: number): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'http-client.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify({ url, queries, headers, warmUpPasses }));
  const [stdout, [code]] = await Promise.all([text(child.stdout), once(child, 'exit')]);
  if (code !== 0) throw new Error(`the HTTP client exited with ${code}`);
  return (JSON.parse(stdout) as { latencies: number[] }).latencies;
}

/** One paragraph of the figure, as bench/search.ts and bench/http.ts print it. */
export function describeHttpFigure(h: HttpFigure): string {
  const f = (n: number) => n.toFixed(2);
  return (
    `HTTP POST ${h.path} (${h.tier}), ${h.set} claims, no filter (after a warm-up of ${WARM_UP_REQUESTS.toLocaleString('en')} requests, three rounds of the engine alone and over HTTP in turn, pooled): ` +
    `p50 ${f(h.http.p50)} ms, p99 ${f(h.http.p99)} ms against the engine alone p50 ${f(h.direct.p50)} ms: the API adds ${f(h.http.p50 - h.direct.p50)} ms at p50; ` +
    `paired (each request's latency less its own engine time), the median added is ${f(h.addedMedian)} ms. ` +
    `Means per request: ${f(h.means.client)} ms at the client, of which ${f(h.means.engine)} ms the engine and ${f(h.means.versions)} ms reading the 10 versions. ` +
    `Stage medians: ${STAGES.map((s) => `${s} ${f(h.stages[s])}`).join(', ')} ms. ` +
    `From a client in its own process: p50 ${f(h.remote.p50)} ms, p99 ${f(h.remote.p99)} ms, paired median added ${f(h.remoteAddedMedian)} ms. ` +
    `The warm-up's passes, p50 of each: ${h.warmUp.map(f).join(', ')} ms`
  );
}
