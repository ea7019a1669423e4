/**
 * npm run bench:search [-- --sizes 100000,1000000 --queries 300 --skip-relevance --skip-latency]
 *
 * (a) Relevance on SciFact: nDCG@10, MRR@10, Recall@100 on qrels/test.tsv (300 queries); field
 *     weights are chosen on qrels/train.tsv (809 queries), never on the test split.
 * (b) Latency and single-client QPS of the index alone and of POST /v1/search/public over HTTP,
 *     over generated corpora (bench/scifact.ts generateDocs), with no filter and with a one-year
 *     published window. Corpora are cached in bench/.cache (build time is measured when built).
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { DEFAULT_WEIGHTS, type FieldWeights, ftsMatchExpression, SqliteIndexStore } from '../src/adapters/sqlite/index-store.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import { createServices } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';
import { queryTerms, words } from '../src/core/text.js';
import { buildApp } from '../src/http/app.js';
import type { IndexQuery } from '../src/ports/index-store.js';
import type { NewVersion } from '../src/ports/page-store.js';
import {
  generateDocs,
  loadCorpus,
  loadQrels,
  loadQueries,
  mrrAt,
  ndcgAt,
  percentile,
  recallAt,
  sentencesOf,
} from './scifact.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    queries: { type: 'string', default: '300' },
    'skip-relevance': { type: 'boolean', default: false },
    'skip-latency': { type: 'boolean', default: false },
    'skip-http': { type: 'boolean', default: false },
    analysis: { type: 'boolean', default: false },
  },
});

const CACHE = join(import.meta.dirname, '.cache');
mkdirSync(CACHE, { recursive: true });
const fmt = (n: number, d = 1) => n.toFixed(d);

async function relevance() {
  const dbPath = join(CACHE, 'scifact.db');
  rmSync(dbPath, { force: true });
  rmSync(`${dbPath}-wal`, { force: true });
  const db = openDatabase({ path: dbPath });
  const pages = new SqlitePageStore(db);
  const corpus = loadCorpus();
  const versionToDoc = new Map<number, string>();
  const started = performance.now();
  const batch: NewVersion[] = corpus.map((d) => ({
    url: `https://scifact.example/doc/${d.id}`,
    title: d.title,
    content: d.text,
    acquiredAt: Date.parse('2026-01-01T00:00:00Z'),
    searchable: true,
  }));
  const outcomes = await pages.putVersions(batch);
  for (const [i, o] of outcomes.entries()) versionToDoc.set(o.version.id, corpus[i]!.id);
  console.log(`SciFact: ${corpus.length} documents indexed in ${fmt((performance.now() - started) / 1000, 2)} s`);
  const queries = loadQueries();
  const evaluate = async (weights: FieldWeights, split: 'test' | 'train') => {
    const index = new SqliteIndexStore(db, weights);
    const qrels = loadQrels(split);
    let ndcg = 0;
    let mrr = 0;
    let recall = 0;
    for (const [qid, rel] of qrels) {
      const hits = await index.search({ terms: queryTerms(queries.get(qid)!), limit: 100 });
      const ranked = hits.map((h) => versionToDoc.get(h.versionId)!);
      ndcg += ndcgAt(ranked, rel, 10);
      mrr += mrrAt(ranked, rel, 10);
      recall += recallAt(ranked, rel, 100);
    }
    const n = qrels.size;
    return { ndcg: ndcg / n, mrr: mrr / n, recall: recall / n, n };
  };
  console.log('\nField weights on the train split (809 queries): title/description/content -> nDCG@10');
  const candidates: FieldWeights[] = [];
  for (const title of [0.5, 1, 2, 3, 4, 6, 8]) candidates.push({ title, description: 1, content: 1 });
  let best = { weights: DEFAULT_WEIGHTS, ndcg: -1 };
  for (const w of candidates) {
    const r = await evaluate(w, 'train');
    console.log(`  ${w.title}/${w.description}/${w.content}: ${fmt(r.ndcg, 4)}`);
    if (r.ndcg > best.ndcg) best = { weights: w, ndcg: r.ndcg };
  }
  const chosen = await evaluate(DEFAULT_WEIGHTS, 'test');
  const bestOnTest = await evaluate(best.weights, 'test');
  console.log(`\nRelevance on the test split (${chosen.n} queries), product weights ${JSON.stringify(DEFAULT_WEIGHTS)}:`);
  console.log(`  nDCG@10 ${fmt(chosen.ndcg, 4)}  MRR@10 ${fmt(chosen.mrr, 4)}  Recall@100 ${fmt(chosen.recall, 4)}`);
  console.log(`  (best weights on train ${JSON.stringify(best.weights)}: test nDCG@10 ${fmt(bestOnTest.ndcg, 4)})`);
  console.log('  reference: Lucene BM25 (k1 0.9, b 0.4, flat) nDCG@10 0.6789, R@100 0.9253');
  if (values.analysis) await analysisChoices(db, versionToDoc, queries);
  db.close();
}

/**
 * The analysis choices, measured on the test split: Porter stemming (porter unicode61) against none
 * (unicode61), and Lucene's English stop words removed from queries against kept. A second FTS5 table
 * with the other tokenizer is built over the same rows for the comparison.
 */
async function analysisChoices(db: ReturnType<typeof openDatabase>, versionToDoc: Map<number, string>, queries: Map<string, string>) {
  db.exec(`CREATE VIRTUAL TABLE plain_fts USING fts5(title, description, content, content='versions', content_rowid='id', tokenize='unicode61');
           INSERT INTO plain_fts(plain_fts) VALUES ('rebuild');`);
  const plain = db.prepare(
    `SELECT rowid AS id FROM plain_fts WHERE plain_fts MATCH ? ORDER BY bm25(plain_fts, 3, 1, 1) LIMIT 100`,
  );
  const stemmed = new SqliteIndexStore(db);
  const qrels = loadQrels('test');
  const variants: [string, (q: string) => Promise<number[]>][] = [
    ['porter unicode61, stop words removed (product)', async (q) => (await stemmed.search({ terms: queryTerms(q), limit: 100 })).map((h) => h.versionId)],
    ['porter unicode61, stop words kept', async (q) => (await stemmed.search({ terms: [...new Set(words(q))], limit: 100 })).map((h) => h.versionId)],
    ['unicode61 (no stemming), stop words removed', async (q) => {
      const terms = queryTerms(q);
      return terms.length === 0 ? [] : (plain.all(ftsMatchExpression(terms)) as { id: number }[]).map((r) => r.id);
    }],
  ];
  console.log('\nAnalysis choices on the test split (title weight 3):');
  for (const [name, run] of variants) {
    let ndcg = 0;
    let recall = 0;
    for (const [qid, rel] of qrels) {
      const ranked = (await run(queries.get(qid)!)).map((id) => versionToDoc.get(id)!);
      ndcg += ndcgAt(ranked, rel, 10);
      recall += recallAt(ranked, rel, 100);
    }
    console.log(`  ${name}: nDCG@10 ${fmt(ndcg / qrels.size, 4)}  Recall@100 ${fmt(recall / qrels.size, 4)}`);
  }
  const corpus = join(CACHE, 'generated-100000.db');
  if (statSync(corpus, { throwIfNoEntry: false })) {
    const big = openDatabase({ path: corpus });
    const index = new SqliteIndexStore(big);
    const claims = [...qrels.keys()].slice(0, 100).map((id) => queries.get(id)!);
    const removed = await timeQueries((q) => index.search({ terms: queryTerms(q), limit: 10 }), claims);
    const kept = await timeQueries((q) => index.search({ terms: [...new Set(words(q))], limit: 10 }), claims);
    console.log(`  latency at 100,000 documents (100 claims): stop words removed p50 ${fmt(removed.p50)} ms p99 ${fmt(removed.p99)} ms; kept p50 ${fmt(kept.p50)} ms p99 ${fmt(kept.p99)} ms`);
    big.close();
  }
}

function ensureCorpus(size: number): { path: string; buildSeconds?: number } {
  const path = join(CACHE, `generated-${size}.db`);
  try {
    if (statSync(path).size > 0 && !statSync(`${path}.building`, { throwIfNoEntry: false })) return { path };
  } catch {
    // not built yet
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  mkdirSync(CACHE, { recursive: true });
  // The marker stays if a build is interrupted, so a half-built corpus is never taken as cached.
  const marker = `${path}.building`;
  writeFileSync(marker, '');
  const db = openDatabase({ path });
  const pages = new SqlitePageStore(db);
  const sentences = sentencesOf(loadCorpus());
  const started = performance.now();
  let batch: NewVersion[] = [];
  let done = 0;
  const flush = () => {
    if (batch.length === 0) return;
    void pages.putVersions(batch);
    done += batch.length;
    batch = [];
    if (done % 100_000 === 0) {
      const s = (performance.now() - started) / 1000;
      process.stderr.write(`  generated ${done}/${size} (${fmt(done / s, 0)} docs/s)\n`);
    }
  };
  for (const d of generateDocs(sentences, size)) {
    batch.push({ ...d, searchable: true });
    if (batch.length === 5000) flush();
  }
  flush();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec("INSERT INTO versions_fts(versions_fts) VALUES('optimize')");
  db.close();
  rmSync(marker, { force: true });
  return { path, buildSeconds: (performance.now() - started) / 1000 };
}

interface Cell {
  p50: number;
  p99: number;
  qps: number;
  mean: number;
}

async function timeQueries(run: (q: string) => Promise<unknown>, queries: readonly string[]): Promise<Cell> {
  for (const q of queries.slice(0, 5)) await run(q); // warm-up
  const lat: number[] = [];
  const started = performance.now();
  for (const q of queries) {
    const t = performance.now();
    await run(q);
    lat.push(performance.now() - t);
  }
  const total = performance.now() - started;
  lat.sort((a, b) => a - b);
  return { p50: percentile(lat, 50), p99: percentile(lat, 99), qps: (queries.length / total) * 1000, mean: total / queries.length };
}

async function latency(size: number, queryCount: number) {
  const { path, buildSeconds } = ensureCorpus(size);
  const sizeMb = (statSync(path).size / 1e6).toFixed(0);
  const all = loadQueries();
  const queries = [...loadQrels('test').keys()].slice(0, queryCount).map((id) => all.get(id)!);
  // Short queries: the first three content words of each claim (stop words left out).
  const short = queries.map((q) => queryTerms(q).slice(0, 3).join(' '));
  const year = { publishedAfter: Date.parse('2024-01-01T00:00:00Z'), publishedBefore: Date.parse('2024-12-31T23:59:59.999Z') };

  const db = openDatabase({ path, readonly: false });
  const index = new SqliteIndexStore(db);
  const rows: string[] = [];
  const cell = (name: string, c: Cell) =>
    rows.push(`| ${size.toLocaleString('en-US')} | ${name} | ${fmt(c.p50)} | ${fmt(c.p99)} | ${fmt(c.qps)} |`);
  const ask = (extra: Partial<IndexQuery>) => (q: string) => index.search({ terms: queryTerms(q), limit: 10, ...extra });
  cell('index, no filter', await timeQueries(ask({}), queries));
  cell('index, one-year published window', await timeQueries(ask(year), queries));
  cell('index, short queries, no filter', await timeQueries(ask({}), short));
  cell('index, short queries, one-year window', await timeQueries(ask(year), short));
  db.close();

  if (!values['skip-http']) {
    const settings = loadSettings({
      env: {},
      flags: { databaseUrl: `sqlite:${path}`, keylessPerSecond: 1_000_000, keylessPerHour: 1_000_000_000, logLevel: 'warn' },
    });
    const services = await createServices(settings);
    const app = await buildApp(services, { logger: false });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const post = (extra: object) => async (q: string) => {
      const res = await fetch(`${address}/v1/search/public`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-title': 'bench' },
        body: JSON.stringify({ query: q.slice(0, 2000), ...extra }),
      });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };
    cell('HTTP /v1/search, no filter', await timeQueries(post({}), queries));
    cell('HTTP /v1/search, one-year published window', await timeQueries(post({ published_after: '2024-01-01', published_before: '2024-12-31' }), queries));
    cell('HTTP /v1/search, short queries, no filter', await timeQueries(post({}), short));
    await app.close();
    await services.close();
  }
  console.log(
    `\n${size.toLocaleString('en-US')} documents: ${sizeMb} MB on disk${buildSeconds ? `, built in ${fmt(buildSeconds)} s (${fmt(size / buildSeconds, 0)} docs/s)` : ' (cached build)'}, ${queries.length} SciFact test claims as queries, top 10, one client`,
  );
  console.log('| documents | path | p50 ms | p99 ms | QPS |\n|---|---|---|---|---|');
  console.log(rows.join('\n'));
  console.log(`RSS ${fmt(process.memoryUsage().rss / 2 ** 20, 0)} MiB`);
}

if (!values['skip-relevance']) await relevance();
if (!values['skip-latency']) {
  for (const size of values.sizes!.split(',').map(Number)) await latency(size, Number(values.queries));
}
