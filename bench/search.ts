/**
 * npm run bench:search [-- --sizes 100000,1000000 --queries 300 --rounds 3 --skip-relevance --skip-latency --query-compounds either|words|also-joined|joined]
 *
 * (a) Relevance on SciFact: nDCG@10, MRR@10, Recall@100 on qrels/test.tsv (300 queries); field
 *     weights are chosen on qrels/train.tsv (809 queries), never on the test split. With
 *     `--query-compounds` a query's hyphenated compounds are read otherwise than the product reads
 *     them (`either`, the default: a page scores the better of `e-mail` as `e` and `mail` and as
 *     `email`): `words` asks for `e` and `mail` alone (the product until the twenty-eighth
 *     session), `also-joined` for `email` too, `joined` for `email` instead of its words
 *     (docs/BENCHMARKS.md, "Search relevance").
 * (b) Latency and single-client QPS of the index alone and of POST /v1/search/public over HTTP,
 *     over generated corpora (bench/scifact.ts generateDocs), with no filter and with a one-year
 *     published window. Corpora are cached in bench/.cache (build time is measured when built).
 *     Ours and Lucene run in lockstep rounds (--rounds, default 3: each cell timed by one, then the
 *     other), pooled per cell.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ENGINE_WEIGHTS, EngineIndexStore, type EngineWeights } from '../src/adapters/engine/engine-index-store.js';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { DEFAULT_WEIGHTS, ftsMatchExpression, SqliteIndexStore } from '../src/adapters/sqlite/index-store.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import { compoundWord, queryReadings, queryTerms, scanWords, STOP_WORDS, words } from '../src/core/text.js';
import type { IndexHit, IndexStore } from '../src/ports/index-store.js';
import type { NewVersion } from '../src/ports/page-store.js';
import { describeHttpFigure, type HttpFigure } from './http-figure.js';
import { java, LineServer, luceneBench, luceneClasspath } from './lucene-peer.js';
import { samplePeaks } from './memory.js';
import {
  BENCH_WINDOWS,
  benchQuerySets,
  type Cell,
  cellOf,
  loadCorpus,
  loadQrels,
  loadQueries,
  mrrAt,
  ndcgAt,
  recallAt,
  sentencesOf,
  storeGenerated,
  timeQueries,
} from './scifact.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    queries: { type: 'string', default: '300' },
    'skip-relevance': { type: 'boolean', default: false },
    'skip-latency': { type: 'boolean', default: false },
    'skip-http': { type: 'boolean', default: false },
    'skip-lucene': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    fts: { type: 'boolean', default: false },
    analysis: { type: 'boolean', default: false },
    'query-compounds': { type: 'string', default: 'either' },
  },
});
const queryCompounds = values['query-compounds'];
if (!['either', 'words', 'also-joined', 'joined'].includes(queryCompounds)) throw new Error(`--query-compounds takes either, words, also-joined or joined, not ${queryCompounds}`);

/** A relevance query's terms for `--query-compounds also-joined` or `joined`. */
function relevanceTerms(q: string): string[] {
  const terms = queryTerms(q);
  const joined: string[] = [];
  const parts = new Set<string>();
  scanWords(q, () => {}, 0, q.length, (i, j) => {
    const w = compoundWord(q, i, j);
    if (!STOP_WORDS.has(w)) joined.push(w);
    for (const p of q.slice(i, j).toLowerCase().split('-')) parts.add(p);
  });
  return [...new Set([...(queryCompounds === 'joined' ? terms.filter((t) => !parts.has(t)) : terms), ...joined])];
}

/** A relevance query's top `limit`, its hyphenated compounds read as `--query-compounds` says (`either`: as the product reads them). */
function relevanceSearch(index: IndexStore, q: string, limit: number): Promise<IndexHit[]> {
  if (queryCompounds === 'either') return index.search({ ...queryReadings(q), limit });
  return index.search({ terms: queryCompounds === 'words' ? queryTerms(q) : relevanceTerms(q), limit });
}

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
  for (const [i, o] of outcomes.entries()) versionToDoc.set((o.status === 'removed' ? Number.NaN : o.version.id), corpus[i]!.id);
  console.log(`SciFact: ${corpus.length} documents indexed in ${fmt((performance.now() - started) / 1000, 2)} s`);
  const queries = loadQueries();
  const evaluate = async (index: IndexStore, split: 'test' | 'train') => {
    const qrels = loadQrels(split);
    let ndcg = 0;
    let mrr = 0;
    let recall = 0;
    for (const [qid, rel] of qrels) {
      const hits = await relevanceSearch(index, queries.get(qid)!, 100);
      const ranked = hits.map((h) => versionToDoc.get(h.versionId)!);
      ndcg += ndcgAt(ranked, rel, 10);
      mrr += mrrAt(ranked, rel, 10);
      recall += recallAt(ranked, rel, 100);
    }
    const n = qrels.size;
    return { ndcg: ndcg / n, mrr: mrr / n, recall: recall / n, n };
  };
  console.log('\nEngine field weights on the train split (809 queries): title/description/content/url -> nDCG@10');
  let best = { weights: ENGINE_WEIGHTS, ndcg: -1 };
  for (const title of [1, 2, 3, 4, 6]) {
    for (const url of [0, 1]) {
      const w: EngineWeights = { title, description: 1, content: 1, url };
      const r = await evaluate(await new EngineIndexStore(db, { weights: w }).open(), 'train');
      console.log(`  ${title}/1/1/${url}: ${fmt(r.ndcg, 4)}`);
      if (r.ndcg > best.ndcg) best = { weights: w, ndcg: r.ndcg };
    }
  }
  const chosen = await evaluate(await new EngineIndexStore(db).open(), 'test');
  const bestOnTest = await evaluate(await new EngineIndexStore(db, { weights: best.weights }).open(), 'test');
  console.log(`\nRelevance on the test split (${chosen.n} queries), engine with product weights ${JSON.stringify(ENGINE_WEIGHTS)}:`);
  console.log(`  nDCG@10 ${fmt(chosen.ndcg, 4)}  MRR@10 ${fmt(chosen.mrr, 4)}  Recall@100 ${fmt(chosen.recall, 4)}`);
  console.log(`  (best weights on train ${JSON.stringify(best.weights)}: test nDCG@10 ${fmt(bestOnTest.ndcg, 4)})`);
  const ftsResult = await evaluate(new SqliteIndexStore(db, DEFAULT_WEIGHTS), 'test');
  console.log(`  FTS5 reference (title weight 3): nDCG@10 ${fmt(ftsResult.ndcg, 4)}  Recall@100 ${fmt(ftsResult.recall, 4)}`);
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

async function ensureCorpus(size: number): Promise<{ path: string; buildSeconds?: number }> {
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
  await storeGenerated(pages, sentences, size, (done) => {
    if (done % 100_000 !== 0) return;
    const s = (performance.now() - started) / 1000;
    process.stderr.write(`  generated ${done}/${size} (${fmt(done / s, 0)} docs/s)\n`);
  });
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  rmSync(marker, { force: true });
  return { path, buildSeconds: (performance.now() - started) / 1000 };
}

function dirSize(path: string): number {
  let total = 0;
  for (const f of readdirSync(path)) total += statSync(join(path, f)).size;
  return total;
}

async function latency(size: number, queryCount: number) {
  const { path, buildSeconds } = await ensureCorpus(size);
  const sets = benchQuerySets(queryCount);
  const windows = BENCH_WINDOWS;

  const db = openDatabase({ path, readonly: false });
  const rssBefore = process.memoryUsage().rss;
  const engineDir = `${path}.engine`;
  rmSync(engineDir, { recursive: true, force: true });
  const peaksOf = await samplePeaks();
  const t = performance.now();
  const engine = await new EngineIndexStore(db, { dir: engineDir }).open();
  const engineBuild = (performance.now() - t) / 1000;
  const peak = await peaksOf();
  global.gc?.();
  const rss = process.memoryUsage().rss;
  const engineBytes = engine.memoryBytes();
  const engineDisk = dirSize(engineDir);
  // A restart: a fresh process loads the saved segments, with one search thread and with two (as `serve` by default).
  const restartWith = (threads: 1 | 2) => {
    const loaded = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, 'engine-load.ts'), path, engineDir, String(threads)], { encoding: 'utf8' });
    return JSON.parse(loaded.stdout.trim().split('\n').pop() ?? '{}') as { fromDisk: boolean; loadSeconds: number; rssMiB: number; rssAllMiB: number; baseMiB: number; heapMiB: number; fullGcMs: number; split: number };
  };
  const restart = restartWith(1);
  const restartSplit = restartWith(2);

  // Lucene over the same documents (exported once to TSV in the cache).
  const cp = values['skip-lucene'] ? undefined : luceneClasspath();
  let qfile: string | undefined;
  const luceneDir = join(CACHE, `lucene-${size}`);
  let luceneBuild: number | undefined;
  let luceneDisk: number | undefined;
  if (cp) {
    const tsv = join(CACHE, `generated-${size}.tsv`);
    if (!statSync(tsv, { throwIfNoEntry: false })) {
      const out: string[] = [];
      for (const r of db.prepare('SELECT v.published_at AS p, v.title AS t, v.content AS c FROM versions v ORDER BY v.id').iterate() as Iterable<{ p: number; t: string; c: string }>) {
        out.push(`${r.p}\t${r.t.replace(/[\t\n]/g, ' ')}\t${r.c.replace(/[\t\n]/g, ' ')}`);
        if (out.length === 50_000) {
          appendFileSync(tsv, `${out.join('\n')}\n`);
          out.length = 0;
        }
      }
      if (out.length > 0) appendFileSync(tsv, `${out.join('\n')}\n`);
    }
    rmSync(luceneDir, { recursive: true, force: true });
    luceneBuild = Number(java(cp, ['build', luceneDir, tsv])[0]!.build_s);
    luceneDisk = dirSize(luceneDir);
    qfile = join(CACHE, 'lucene-queries.tsv');
    const lines: string[] = [];
    for (const [set, qs] of sets) {
      for (const [w, f] of windows) {
        for (const q of qs) lines.push(`${set} ${w}\t${f.publishedAfter ?? ''}\t${f.publishedBefore ?? ''}\t${q.replace(/[\t\n]/g, ' ')}`);
      }
    }
    writeFileSync(qfile, `${lines.join('\n')}\n`);
  }
  db.close();

  // Rounds in lockstep: each cell is timed by Lucene and by ours in turn (which goes first alternates
  // by round), both kept open in their own processes, the other one idle meanwhile, each query's
  // latency pooled per cell. This machine's speed drifts by tens of percent within minutes; a cell's
  // two passes are seconds apart. Ours is a fresh process that loads the saved segments, as a server
  // does (and as the Lucene side opens its index in its own JVM), so the build's garbage is not in
  // its heap; after the rounds it also times the exhaustive reference and HTTP.
  type Figure = { cell?: string; full?: Cell } & Partial<HttpFigure>;
  const rounds = Math.max(1, Number(values.rounds));
  const pooled = { ours: new Map<string, { lat: number[][]; totalMs: number }>(), lucene: new Map<string, { lat: number[][]; totalMs: number }>() };
  const add = (side: 'ours' | 'lucene', cell: string, lat: number[], totalMs: number) => {
    const entry = pooled[side].get(cell) ?? pooled[side].set(cell, { lat: [], totalMs: 0 }).get(cell)!;
    entry.lat.push(lat);
    entry.totalMs += totalMs;
  };
  const ours = new LineServer(
    'engine queries',
    spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, 'engine-queries.ts'), path, String(queryCount), ...(values['skip-http'] ? ['--skip-http'] : [])]),
  );
  const lucene = cp && qfile ? new LineServer('Lucene', spawn('java', luceneBench(cp, ['serve', luceneDir, qfile]))) : undefined;
  for (let round = 0; round < rounds; round++) {
    for (const [set] of sets) {
      for (const [w] of windows) {
        const cell = `${set} ${w}`;
        for (const side of round % 2 === 0 ? (['lucene', 'ours'] as const) : (['ours', 'lucene'] as const)) {
          const server = side === 'ours' ? ours : lucene;
          if (!server) continue;
          const r = await server.ask(cell);
          add(side, cell, r.latencies as number[], Number(r.totalMs ?? r.total_ms));
        }
      }
    }
  }
  // Lucene's JVM ends first: ours times the exhaustive reference and HTTP after 'done', alone on the machine.
  await lucene?.finish();
  const figures = (await ours.finish('done')) as Figure[];
  const pooledCell = (side: 'ours' | 'lucene', cell: string): Cell | undefined => {
    const e = pooled[side].get(cell);
    return e && cellOf(e.lat.flat(), e.totalMs);
  };
  // Each round's p50 (or p99) ratio for one cell: how far the drift moves it.
  const roundRatios = (cell: string, p: 'p50' | 'p99' = 'p50'): string => {
    const o = pooled.ours.get(cell)?.lat;
    const l = pooled.lucene.get(cell)?.lat;
    if (!o || !l) return 'n/a';
    return o.map((lat, i) => (l[i] ? fmt(cellOf(lat)[p] / cellOf(l[i]!)[p], 2) : '?')).join(' / ');
  };
  const rows: string[] = [];
  const ms = (c: Cell | undefined) => (c ? `${fmt(c.p50)} / ${fmt(c.p99)} / ${fmt(c.qps, 0)}` : 'n/a');
  const ratio = (a: number, b: number | undefined) => (b ? fmt(a / b, 2) : 'n/a');
  for (const [set, qs] of sets) {
    for (const [w, f] of windows) {
      const cell = `${set} ${w}`;
      const figure = figures.find((x) => x.cell === cell)!;
      const ours = pooledCell('ours', cell)!;
      const fts = values.fts ? await timeQueries((q) => ftsIndex(path).search({ terms: queryTerms(q), limit: 10, ...f }), qs) : undefined;
      const luc = pooledCell('lucene', cell);
      rows.push(
        `| ${set} claims, ${w} | ${ms(ours)} | ${ms(figure.full)} | ${ms(luc)} | ${ratio(ours.p50, luc?.p50)} | ${ratio(ours.p99, luc?.p99)} | ${roundRatios(cell)} | ${roundRatios(cell, 'p99')} |${values.fts ? ` ${ms(fts)} |` : ''}`,
      );
    }
  }
  const httpLines = figures.filter((x) => x.http).map((h) => describeHttpFigure(h as HttpFigure));
  console.log(
    `\n${size.toLocaleString('en-US')} documents (SQLite ${fmt(statSync(path).size / 1e6, 0)} MB${buildSeconds ? `, built in ${fmt(buildSeconds)} s` : ', cached'}), ${sets[0]![1].length} SciFact test claims, top 10, one client`,
  );
  console.log(`Engine build from SQLite (both cores) and save: ${fmt(engineBuild)} s, ${fmt(engineDisk / 2 ** 20, 0)} MiB on disk, ${fmt(engineBytes / 2 ** 20, 0)} MiB of segment arrays; RSS of this process after the build ${fmt(rss / 2 ** 20, 0)} MiB (${fmt(rssBefore / 2 ** 20, 0)} MiB before); peak RSS during the build ${fmt(peak.total, 0)} MiB: anonymous ${fmt(peak.anon, 0)} MiB, mapped files ${fmt(peak.file, 0)} MiB`);
  console.log(`Restart (fresh process, segments loaded from disk${restart.fromDisk ? '' : ' FAILED: it rebuilt'}): ${fmt(restart.loadSeconds, 2)} s, RSS ${fmt(restart.rssMiB, 0)} MiB (${fmt(restart.baseMiB, 0)} MiB of it before opening), ${fmt(restart.rssAllMiB, 0)} MiB once every dense list's bitset is made; heap ${fmt(restart.heapMiB)} MiB, a full collection ${fmt(restart.fullGcMs)} ms`);
  console.log(`The same with two search threads (the helper thread reads the same shared segments; ${restartSplit.split} of 2 searches split): RSS ${fmt(restartSplit.rssMiB, 0)} MiB, ${fmt(restartSplit.rssAllMiB, 0)} MiB with every bitset`);
  if (cp) console.log(`Lucene 8 build (forceMerge to one segment): ${fmt(luceneBuild!)} s, ${fmt(luceneDisk! / 2 ** 20, 0)} MiB on disk; build ratio ours/Lucene ${fmt(engineBuild / luceneBuild!, 2)}`);
  console.log(`Ours and Lucene: ${rounds} rounds in lockstep (each cell timed by one and then the other, who goes first alternating by round), each query's latency pooled over the rounds; the last columns are each round's p50 and p99 ratios`);
  console.log(`| queries | ours p50 / p99 / QPS | exhaustive BM25 (first 100) p50 / p99 / QPS | Lucene p50 / p99 / QPS | p50 ratio | p99 ratio | p50 ratio by round | p99 ratio by round |${values.fts ? ' FTS5 |' : ''}`);
  console.log(`|---|---|---|---|---|---|---|---|${values.fts ? '---|' : ''}`);
  console.log(rows.join('\n'));
  for (const line of httpLines) console.log(line);
}

let fts: SqliteIndexStore | undefined;
function ftsIndex(path: string): SqliteIndexStore {
  fts ??= new SqliteIndexStore(openDatabase({ path }));
  return fts;
}

if (!values['skip-relevance']) await relevance();
if (!values['skip-latency']) {
  for (const size of values.sizes!.split(',').map(Number)) await latency(size, Number(values.queries));
}
