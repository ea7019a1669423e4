/** SciFact (BEIR layout) loading, the synthetic corpus generator, and IR metrics. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { queryTerms } from '../src/core/text.js';
import type { NewVersion, PageStore } from '../src/ports/page-store.js';

export const SCIFACT_DIR = join(import.meta.dirname, '..', '..', 'shared', 'data', 'scifact');

export interface Doc {
  id: string;
  title: string;
  text: string;
}

export function loadCorpus(dir = SCIFACT_DIR): Doc[] {
  return readFileSync(join(dir, 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const o = JSON.parse(l) as { _id: string; title: string; text: string };
      return { id: o._id, title: o.title, text: o.text };
    });
}

export function loadQueries(dir = SCIFACT_DIR): Map<string, string> {
  const m = new Map<string, string>();
  for (const l of readFileSync(join(dir, 'queries.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const o = JSON.parse(l) as { _id: string; text: string };
    m.set(o._id, o.text);
  }
  return m;
}

/** query id -> relevant corpus ids. */
export function loadQrels(split: 'test' | 'train', dir = SCIFACT_DIR): Map<string, Set<string>> {
  const m = new Map<string, Set<string>>();
  const lines = readFileSync(join(dir, 'qrels', `${split}.tsv`), 'utf8').split('\n').slice(1).filter(Boolean);
  for (const l of lines) {
    const [q, d, score] = l.split('\t');
    if (Number(score) <= 0) continue;
    if (!m.has(q!)) m.set(q!, new Set());
    m.get(q!)!.add(d!);
  }
  return m;
}

export function ndcgAt(ranked: readonly string[], relevant: Set<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export function mrrAt(ranked: readonly string[], relevant: Set<string>, k: number): number {
  const i = ranked.slice(0, k).findIndex((id) => relevant.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

export function recallAt(ranked: readonly string[], relevant: Set<string>, k: number): number {
  return ranked.slice(0, k).filter((id) => relevant.has(id)).length / relevant.size;
}

/** Where `computeFor` leaves its arithmetic, so that the loop is not optimized away. */
export let computed = 0;

/**
 * Computes for `ms` milliseconds touching no memory: a pause as long as an engine's, without its
 * data. Integer arithmetic, with the clock read every 4,096 steps (a few microseconds): reading it
 * in a tight loop, as this did until the ninth session of 2026-11-24, allocates a number per read,
 * a scavenge of the young generation every few milliseconds (`node --trace-gc`).
 */
export function computeFor(ms: number): void {
  const end = performance.now() + ms;
  let x = computed;
  do {
    for (let i = 0; i < 4096; i++) x = (Math.imul(x, 1103515245) + 12345) | 0;
  } while (performance.now() < end);
  computed = x;
}

/** Deterministic PRNG (mulberry32) so every run generates the same corpus. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks an element of an array at random, by `random` (an `rng`). */
export function picker(random: () => number): <T>(from: readonly T[]) => T {
  return (from) => from[Math.floor(random() * from.length)]!;
}

export function sentencesOf(corpus: readonly Doc[]): string[] {
  const out: string[] = [];
  for (const d of corpus) {
    for (const s of d.text.split(/(?<=[.!?])\s+(?=[A-Z0-9])/)) if (s.length >= 20) out.push(s);
  }
  return out;
}

export interface GeneratedDoc {
  url: string;
  title: string;
  content: string;
  publishedAt: number;
  acquiredAt: number;
}

const PUB_START = Date.parse('2016-01-01T00:00:00Z');
const PUB_END = Date.parse('2026-01-01T00:00:00Z');
const ACQ_START = Date.parse('2025-01-01T00:00:00Z');
const ACQ_END = Date.parse('2026-11-01T00:00:00Z');

/**
 * Synthetic document n: a title made of one random SciFact sentence (first 12 words), and 3 to 12
 * random SciFact sentences as content; publication uniform over 2016-2025, acquisition over
 * 2025-01..2026-10; 1,000 hosts. Same n, same document, every run.
 */
export function* generateDocs(sentences: readonly string[], count: number, seed = 42): Generator<GeneratedDoc> {
  const r = rng(seed);
  const pick = () => sentences[Math.floor(r() * sentences.length)]!;
  for (let n = 0; n < count; n++) {
    const title = pick().split(/\s+/).slice(0, 12).join(' ');
    const k = 3 + Math.floor(r() * 10);
    const parts: string[] = [];
    for (let i = 0; i < k; i++) parts.push(pick());
    yield {
      url: `https://host${n % 1000}.bench.example/doc/${n}`,
      title,
      content: parts.join(' '),
      publishedAt: PUB_START + Math.floor(r() * (PUB_END - PUB_START)),
      acquiredAt: ACQ_START + Math.floor(r() * (ACQ_END - ACQ_START)),
    };
  }
}

/**
 * Stores generated documents 0..count-1 (`generateDocs`, searchable) into `pages`, 5,000 to a
 * call; `stored` is told how many are stored after each call.
 */
export async function storeGenerated(pages: PageStore, sentences: readonly string[], count: number, stored?: (done: number) => void): Promise<void> {
  let batch: NewVersion[] = [];
  let done = 0;
  const flush = async () => {
    await pages.putVersions(batch);
    done += batch.length;
    batch = [];
    stored?.(done);
  };
  let n = 0;
  for (const d of generateDocs(sentences, count)) {
    // As served: one in a hundred a PDF (version ids 100, 200, ... in a new database), the others web pages.
    batch.push({ ...d, searchable: true, mediaType: n++ % 100 === 99 ? 'application/pdf' : 'text/html' });
    if (batch.length === 5000) await flush();
  }
  if (batch.length > 0) await flush();
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** The p50 (`percentile`'s) of values in any order. */
export function median(values: readonly number[]): number {
  return percentile([...values].sort((x, y) => x - y), 50);
}

/** The latency benchmark's query sets: SciFact test claims (long) and their first three content words (short). */
export function benchQuerySets(count: number): [string, string[]][] {
  const all = loadQueries();
  const long = [...loadQrels('test').keys()].slice(0, count).map((id) => all.get(id)!);
  return [
    ['long', long],
    ['short', long.map((q) => queryTerms(q).slice(0, 3).join(' '))],
  ];
}

type AcquiredWindow = { acquiredAfter?: number; acquiredBefore?: number; queryTime?: number };
const MINUTE = 60_000;

/**
 * Time bounds of the acquired kind (bench:engine-ab `--windows acquired`) over the generated
 * corpus, whose pages were acquired uniformly over 2025-01..2026-10 (`generateDocs`): a year (about
 * half of them; also moved a minute on for each query, and two years in turn), a month (about 1
 * in 22), a day, a `query_time` two weeks after the first (about 1 in 44 alive then), one two
 * months before the last (about 20 in 22), and one before any page was acquired (none).
 */
export const ACQUIRED_WINDOWS: [string, AcquiredWindow | ((query: number) => AcquiredWindow)][] = [
  ['acquired one-year window', { acquiredAfter: Date.parse('2025-06-01T00:00:00Z'), acquiredBefore: Date.parse('2026-05-31T23:59:59.999Z') }],
  // A year before each query's time, a minute later for each (a relative window as the clock goes on).
  ['acquired one-year window, a minute later each query', (i) => ({ acquiredAfter: Date.parse('2025-06-01T00:00:00Z') + i * MINUTE, acquiredBefore: Date.parse('2026-05-31T23:59:59.999Z') + i * MINUTE })],
  // Two years, half a year apart, in turn: each query's window is far from the last one's.
  ['acquired one-year windows, two in turn', (i) => ({ acquiredAfter: Date.parse(i % 2 === 0 ? '2025-03-01T00:00:00Z' : '2025-09-01T00:00:00Z'), acquiredBefore: Date.parse(i % 2 === 0 ? '2026-02-28T23:59:59.999Z' : '2026-08-31T23:59:59.999Z') })],
  ['acquired one-month window', { acquiredAfter: Date.parse('2026-06-01T00:00:00Z'), acquiredBefore: Date.parse('2026-06-30T23:59:59.999Z') }],
  ['acquired one-day window', { acquiredAfter: Date.parse('2026-06-15T00:00:00Z'), acquiredBefore: Date.parse('2026-06-15T23:59:59.999Z') }],
  ['query_time 2025-01-15', { queryTime: Date.parse('2025-01-15T00:00:00Z') }],
  // (About 20 in 22 acquired by then.)
  ['query_time 2026-09-01', { queryTime: Date.parse('2026-09-01T00:00:00Z') }],
  ['query_time 2024-06-01 (none)', { queryTime: Date.parse('2024-06-01T00:00:00Z') }],
];

/** The latency benchmark's published windows. */
export const BENCH_WINDOWS: [string, { publishedAfter?: number; publishedBefore?: number }][] = [
  ['no filter', {}],
  ['one-year window', { publishedAfter: Date.parse('2024-01-01T00:00:00Z'), publishedBefore: Date.parse('2024-12-31T23:59:59.999Z') }],
  ['one-month window', { publishedAfter: Date.parse('2024-06-01T00:00:00Z'), publishedBefore: Date.parse('2024-06-30T23:59:59.999Z') }],
];

export interface Cell {
  p50: number;
  p99: number;
  qps: number;
  mean: number;
}

/** One client: a warm-up pass (by default the whole set, as the Lucene side does), then the timed pass. */
export async function timeQueries(run: (q: string) => unknown, queries: readonly string[], warmup = queries.length): Promise<Cell> {
  const { latencies, totalMs } = await timeLatencies(run, queries, warmup);
  return cellOf(latencies, totalMs);
}

/** As `timeQueries`, with each query's latency (in query order) and the timed pass's wall time. */
export async function timeLatencies(run: (q: string) => unknown, queries: readonly string[], warmup = queries.length): Promise<{ latencies: number[]; totalMs: number }> {
  for (const q of queries.slice(0, warmup)) await run(q);
  const latencies: number[] = [];
  const started = performance.now();
  for (const q of queries) {
    const t = performance.now();
    await run(q);
    latencies.push(performance.now() - t);
  }
  return { latencies, totalMs: performance.now() - started };
}

/** p50, p99, QPS and mean of latencies (ms); QPS over `totalMs` of wall time, their sum by default. */
export function cellOf(latencies: readonly number[], totalMs = latencies.reduce((a, b) => a + b, 0)): Cell {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), qps: (latencies.length / totalMs) * 1000, mean: totalMs / latencies.length };
}

/**
 * The path of the cached corpus of `size` generated documents (bench/.cache/generated-SIZE.db),
 * which `npm run bench:search -- --sizes SIZE` builds; a script that times it ends here when it is
 * not there. Opened missing, it would be made empty, and a search of it times nothing (the HTTP
 * figure of a fresh machine was of an empty index).
 */
export function cachedCorpus(size: string | number): string {
  const path = join(import.meta.dirname, '.cache', `generated-${size}.db`);
  if (!existsSync(path) || existsSync(`${path}.building`)) {
    console.error(`No cached corpus of ${size} documents (${path}): run \`npm run bench:search -- --sizes ${size}\` first.`);
    process.exit(1);
  }
  return path;
}
