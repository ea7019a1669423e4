/**
 * npm run bench:removal [-- --size 1000000 --pages 1]
 *
 * What `websearch pages remove` costs a running server at scale: on a scratch copy of the corpus
 * and saved segments that bench:search cached (bench/.cache, run it once first; the copy goes in
 * bench/.cache/tmp and is deleted after), a store opened as `serve` opens it (two search threads,
 * saving its index) loads the segments; `--pages` pages are removed as the command removes them;
 * then it prints how long the removal took, how long until the segments that held them were made
 * again without them and saved (engine-index-store.ts `startPurge`), the process's anonymous
 * memory (its own, not the database's pages mapped from the file) at its highest meanwhile
 * (sampled every 50 ms) and after, the p50 of searches made meanwhile, and whether the removed
 * versions and the words only they held are gone from the segments in memory and from those saved.
 */
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EngineIndexStore } from '../src/adapters/engine/engine-index-store.js';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { blockDocs, docOf, type SegmentData, termAt, termNumber } from '../src/adapters/engine/segment.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import { cachedCorpus } from './scifact.js';

const { values } = parseArgs({ options: { size: { type: 'string', default: '1000000' }, pages: { type: 'string', default: '1' } } });
const count = Number(values.pages);
if (!Number.isInteger(count) || count < 1) throw new Error(`--pages takes a number of pages, not ${values.pages}`);
const source = cachedCorpus(values.size!);
const scratch = join(import.meta.dirname, '.cache', 'tmp', 'removal');
rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
const path = join(scratch, 'websearch.db');
const engineDir = join(scratch, 'websearch.db.engine');
const anonMib = () => Math.round(Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024);
/** The terms that only these versions hold (a term of one document, in a segment where it is one of them). */
function onlyTheirs(segments: readonly SegmentData[], ids: readonly number[]): string[] {
  const terms: string[] = [];
  const docs = new Int32Array(128);
  for (const d of segments) {
    const mine = new Set(ids.map((id) => docOf(d, id)).filter((doc) => doc >= 0));
    if (mine.size === 0) continue;
    for (let t = 0; t < d.termDf.length; t++) {
      if (d.termDf[t] !== 1) continue;
      blockDocs(d.postings, d.blockOffset[d.termBlockStart[t]!]!, d.blockBase[d.termBlockStart[t]!]! - 1, docs);
      if (mine.has(docs[0]!)) terms.push(termAt(d, t));
    }
  }
  return terms;
}

/** How many of `ids` some segment holds, and how many of `terms` some segment's dictionary has. */
function held(segments: readonly SegmentData[], ids: readonly number[], terms: readonly string[]): { versions: number; terms: number } {
  return {
    versions: ids.filter((id) => segments.some((d) => docOf(d, id) >= 0)).length,
    terms: terms.filter((t) => segments.some((d) => termNumber(d, t) !== undefined)).length,
  };
}

try {
  let t = performance.now();
  cpSync(source, path);
  cpSync(`${source}.engine`, engineDir, { recursive: true });
  console.log(`Copied the ${values.size}-page corpus and its segments in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const db = openDatabase({ path });
  const pages = new SqlitePageStore(db);
  const logs: string[] = [];
  const index = await new EngineIndexStore(db, { dir: engineDir, searchThreads: 2, log: (_level, msg, fields) => logs.push(`${msg} ${JSON.stringify(fields ?? {})}`) }).open();
  if (!index.loadedFromDisk) throw new Error('the saved segments were not loaded: run `npm run bench:search` first');
  await index.search({ terms: ['cell'], limit: 10 });
  await index.settled();
  console.log(`Loaded ${index.segmentCount} segment(s); anonymous memory ${anonMib()} MiB`);

  // Pages spread over the corpus, and a word each holds that few others do (to look for in the files after).
  const every = Math.floor(db.prepare<[], number>('SELECT count(*) FROM pages').pluck().get()! / count);
  const urls = db.prepare<[number, number], string>('SELECT url FROM pages WHERE id % ? = 7 LIMIT ?').pluck().all(every, count);
  const ids = urls.map((u) => db.prepare<[string], number>('SELECT v.id FROM versions v JOIN pages p ON p.id = v.page_id WHERE p.url = ?').pluck().get(u)!);
  const own = onlyTheirs(index.segmentData, ids);
  const before = held(index.segmentData, ids, own);
  t = performance.now();
  const removed = await pages.removePages({ urls }, Date.now());
  const removeMs = performance.now() - t;

  t = performance.now();
  let highest = 0;
  const sampler = setInterval(() => (highest = Math.max(highest, anonMib())), 50);
  const latencies: number[] = [];
  await index.search({ terms: ['protein'], limit: 10 });
  const firstMs = performance.now() - t;
  while (index.mergesUnderway > 0) {
    const s = performance.now();
    await index.search({ terms: ['protein', 'binding'], limit: 10 });
    latencies.push(performance.now() - s);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await index.settled();
  clearInterval(sampler);
  const purgeMs = performance.now() - t;
  latencies.sort((a, b) => a - b);
  const after = held(index.segmentData, ids, own);
  const anonAfter = anonMib();
  // And once the old segments are collected (the helper thread lets go of them at its next search).
  for (let i = 0; i < 3; i++) {
    await index.search({ terms: ['cell'], limit: 10 });
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const anonCollected = anonMib();
  const saved = await new EngineIndexStore(db, { dir: engineDir, readOnly: true }).open();
  const onDisk = held(saved.segmentData, ids, own);
  const loaded = saved.loadedFromDisk;
  await saved.close();
  console.log(`Removed ${removed.pages} page(s) (${removed.versions} versions) in ${removeMs.toFixed(0)} ms; the next search took ${firstMs.toFixed(0)} ms`);
  console.log(
    `Segments made again without them and saved ${(purgeMs / 1000).toFixed(1)} s after the removal; anonymous memory at most ${highest} MiB meanwhile, ${anonAfter} MiB after, ${anonCollected} MiB once the old segments are collected; ${latencies.length} searches meanwhile, p50 ${latencies[latencies.length >> 1]?.toFixed(1) ?? '-'} ms`,
  );
  const say = (h: { versions: number; terms: number }) =>
    `${h.versions} of the ${ids.length} versions, ${own.length === 0 ? 'no word only they held (remove more pages to count some)' : `${h.terms} of the ${own.length} words only they held`}`;
  console.log(`In the segments: before ${say(before)}; after, in memory ${say(after)}, in the saved files${loaded ? '' : ' (not loaded!)'} ${say(onDisk)}`);
  for (const line of logs) console.log(`  engine: ${line}`);
  await index.close();
  db.close();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
