/**
 * Opens a saved engine in a fresh process and prints its load time and resident memory as JSON:
 * what a server restart costs. Args: <db path> <engine dir> [search threads, 1 or 2]. With 2, as
 * `serve` by default, the helper thread and what it holds are counted when the index is large
 * enough to start one; `split` says how many of the two searches were split. Then every dense
 * list's bitset is made (engine.ts `Members`: made as searches ask for them, so a server's memory
 * grows to this as it serves): `rssAllMiB`. Also the heap then (`heapMiB`) and how long one more
 * full collection takes (`fullGcMs`): what every mark-compact of a server traces. Used by
 * bench/search.ts.
 */
import { performance } from 'node:perf_hooks';
import { EngineIndexStore } from '../src/adapters/engine/engine-index-store.js';
import { makeAllMembers } from '../src/adapters/engine/engine.js';
import { openDatabase } from '../src/adapters/sqlite/database.js';

const [path, dir, threads = '1'] = process.argv.slice(2) as [string, string, string?];
const rssBefore = process.memoryUsage().rss;
const t = performance.now();
const db = openDatabase({ path });
const engine = await new EngineIndexStore(db, { dir, searchThreads: threads === '2' ? 2 : 1 }).open();
const loadSeconds = (performance.now() - t) / 1000;
await engine.search({ terms: ['cell'], limit: 10 });
await engine.search({ terms: ['cell', 'protein', 'expression'], limit: 10 });
global.gc?.();
await new Promise((r) => setTimeout(r, 200));
const { rss, heapUsed } = process.memoryUsage();
const rssMiB = rss / 2 ** 20;
const heapMiB = heapUsed / 2 ** 20;
const gcStarted = performance.now();
global.gc?.();
const fullGcMs = performance.now() - gcStarted;
for (const s of engine.inUse().segments) makeAllMembers(s);
global.gc?.();
const rssAllMiB = process.memoryUsage().rss / 2 ** 20;
console.log(JSON.stringify({ fromDisk: engine.loadedFromDisk, loadSeconds, rssMiB, rssAllMiB, baseMiB: rssBefore / 2 ** 20, heapMiB, fullGcMs, split: engine.splitSearches }));
await engine.close();
db.close();
