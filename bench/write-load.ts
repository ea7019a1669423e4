/**
 * npm run bench:write-load [-- --size 100000 --seconds 20 --batch 20]
 *
 * Searching while pages keep arriving, as when `serve` answers during a crawl or an import: on a
 * copy of the corpus bench:search cached (bench/.cache/generated-SIZE.db and its saved segments),
 * one loop writes BATCH new pages and then searches (a short SciFact claim), for SECONDS. Every
 * search first takes in what was written since the last (a new small segment), so the segments
 * pile up and must be merged. Prints the searches' p50 / p99 / slowest, the time they spent over
 * 50 ms, the segments' count and the merges done; then checks the answers against an index
 * built afresh. The event loop turns between rounds, as it does between a server's requests.
 */
import { copyFileSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { EngineIndexStore } from '../src/adapters/engine/engine-index-store.js';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import { queryTerms } from '../src/core/text.js';
import { benchQuerySets, generateDocs, loadCorpus, percentile, sentencesOf } from './scifact.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '20' },
    batch: { type: 'string', default: '20' },
  },
});
const source = join(import.meta.dirname, '.cache', `generated-${values.size}.db`);
if (!existsSync(`${source}.engine`)) throw new Error(`${source}.engine is missing: run npm run bench:search -- --sizes ${values.size} first`);
const seconds = Number(values.seconds);
const batch = Number(values.batch);
const dir = mkdtempSync(join(tmpdir(), 'websearch-write-load-'));
try {
  const path = join(dir, 'pages.db');
  copyFileSync(source, path);
  cpSync(`${source}.engine`, `${path}.engine`, { recursive: true, dereference: true });
  const db = openDatabase({ path });
  const pages = new SqlitePageStore(db);
  const engine = await new EngineIndexStore(db, { dir: `${path}.engine` }).open();
  if (!engine.loadedFromDisk) throw new Error('the saved segments were not loaded');
  const queries = benchQuerySets(300).find(([set]) => set === 'short')![1];
  const docs = generateDocs(sentencesOf(loadCorpus()), 10_000_000, 7);
  const latencies: number[] = [];
  let slowMs = 0;
  let written = 0;
  let maxSegments = 0;
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const versions = [];
    for (let k = 0; k < batch; k++) {
      const d = docs.next().value!;
      versions.push({ ...d, url: d.url.replace('bench.example', 'write.example'), searchable: true });
    }
    await pages.putVersions(versions);
    written += batch;
    const t = performance.now();
    await engine.search({ terms: queryTerms(queries[i % queries.length]!), limit: 10 });
    const ms = performance.now() - t;
    latencies.push(ms);
    if (ms > 50) slowMs += ms;
    maxSegments = Math.max(maxSegments, engine.segmentCount);
    // The event loop turns between rounds, as between a server's requests (a merge's result arrives so).
    await new Promise((resolve) => setImmediate(resolve));
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(2);
  console.log(`${latencies.length} searches in ${seconds} s, each after ${batch} new pages (${written} written), on a copy of ${source}:`);
  console.log(`search p50 ${f(percentile(sorted, 50))} ms, p99 ${f(percentile(sorted, 99))} ms, slowest ${f(sorted.at(-1)!)} ms; ${f(slowMs)} ms in searches over 50 ms; segments at most ${maxSegments}, at the end ${engine.segmentCount}; merges ${(engine as { merges?: number }).merges ?? 'not counted'}`);
  // The same answers as an index built afresh from the pages (after any merge under way ends).
  await (engine as { settled?: () => Promise<void> }).settled?.();
  const fresh = await new EngineIndexStore(db).open();
  let differ = 0;
  for (const q of queries.slice(0, 100)) {
    const terms = queryTerms(q);
    const a = await engine.search({ terms, limit: 10 });
    const b = await fresh.search({ terms, limit: 10 });
    if (JSON.stringify(a.map((h) => h.versionId)) !== JSON.stringify(b.map((h) => h.versionId))) differ++;
  }
  console.log(`against an index built afresh: ${differ} of 100 queries differ; segments after settling ${engine.segmentCount}`);
  if (differ > 0) process.exitCode = 1;
  await engine.close();
  await fresh.close();
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
