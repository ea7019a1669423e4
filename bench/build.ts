/**
 * npm run bench:build [-- --size 1000000 --runs 2 --search-threads 2 --build-part N --malloc returning|default]
 *
 * The engine's build alone, as `websearch index rebuild` and a first start do it: from the cached
 * corpus of `npm run bench:search` (bench/.cache/generated-SIZE.db; run that once first), both
 * cores, saved to a temporary directory, each run in a fresh process, for a store that searches on
 * two threads as `serve` does by default (its segments in shared memory), or on one with
 * `--search-threads 1`. Prints each run's seconds and peak resident memory (anonymous, and mapped
 * files such as the database's pages read through SQLite's map: bench/memory.ts) and the saved
 * segments' size. A minute at 1M instead of the whole benchmark, for working on the build.
 * `--build-part N` builds in parts of at most N versions instead of the store's default
 * (BUILD_PART; 500000 gives the two halves of 1M the build used before 4 parts). Each build runs
 * with glibc's malloc told to give large freed blocks back to the system
 * (the MALLOC_MMAP_THRESHOLD_ that package.json's start script sets), or with `--malloc default`
 * with glibc's own threshold, which rises as large blocks are freed and then keeps them. Then a
 * restart's load of what the last run saved, in a fresh process: its seconds, its peak anonymous
 * memory and the RSS after it. Last, the pass over the versions for passage indexes and
 * near-duplicate fingerprints to fill in, which `index rebuild` makes first and a server after an
 * upgrade makes in a background thread: the database marked as an older release leaves it (every
 * fingerprint cleared, so each is made again), the pass timed (this corpus's pages are too short
 * for an index, so it builds none). The database is left with its fingerprints made again.
 *
 * With `--builder N`, instead: one builder (SegmentBuilder) of the first N versions on this thread,
 * and what it holds just before its finish (V8 heap and typed arrays, after a full GC), its time,
 * and its segment's postings.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ENGINE_WEIGHTS, EngineIndexStore, rangeBuilder } from '../src/adapters/engine/engine-index-store.js';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import { samplePeaks } from './memory.js';
import { cachedCorpus } from './scifact.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '2' },
    builder: { type: 'string' },
    'search-threads': { type: 'string', default: '2' },
    'load-from': { type: 'string' },
    'build-into': { type: 'string' },
    'build-part': { type: 'string' },
    malloc: { type: 'string', default: 'returning' },
  },
});
const path = cachedCorpus(values.size);
const runs = Number(values.runs);
const searchThreads = Number(values['search-threads']);
if (searchThreads !== 1 && searchThreads !== 2) throw new Error(`--search-threads takes 1 or 2, not ${values['search-threads']}`);
if (!(runs >= 1)) throw new Error(`--runs takes a count, not ${values.runs}`);
if (values.malloc !== 'returning' && values.malloc !== 'default') throw new Error(`--malloc takes returning or default, not ${values.malloc}`);
/** The threshold `npm start` sets (package.json's start script); the children of this script run with it unless `--malloc default`. */
const startScript = (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
const threshold = /\bMALLOC_MMAP_THRESHOLD_=(\d+)/.exec(startScript)?.[1];
if (threshold === undefined) throw new Error(`npm start sets no MALLOC_MMAP_THRESHOLD_: ${startScript}`);
const buildPart = values['build-part'] === undefined ? undefined : Number(values['build-part']);
if (buildPart !== undefined && !(buildPart >= 1)) throw new Error(`--build-part takes a count, not ${values['build-part']}`);

if (values.builder !== undefined) {
  const n = Number(values.builder);
  if (!(n >= 1)) throw new Error(`--builder takes a count, not ${values.builder}`);
  const db = openDatabase({ path, readonly: true, mapped: false });
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  global.gc!();
  const before = process.memoryUsage();
  const t = performance.now();
  const builder = rangeBuilder(db, 1, n, ENGINE_WEIGHTS);
  const seconds = (performance.now() - t) / 1000;
  global.gc!();
  const held = process.memoryUsage();
  const seg = builder.finish();
  console.log(
    `One builder of versions 1-${n} of ${path}: ${seconds.toFixed(1)} s; before its finish it holds ${mib(held.heapUsed - before.heapUsed)} MiB of heap and ${mib(held.arrayBuffers - before.arrayBuffers)} MiB of typed arrays; its segment's postings ${mib(seg.postings.byteLength)} MiB`,
  );
  db.close();
  process.exit(0);
}
if (values['load-from'] !== undefined || values['build-into'] !== undefined) {
  // A child process of the loop below: one build into an empty folder, or a restart's load of
  // what a run saved. Prints its seconds, peak memory, the RSS after it and the folder's size.
  const load = values['load-from'] !== undefined;
  const dir = (values['load-from'] ?? values['build-into'])!;
  const db = openDatabase({ path, readonly: load });
  global.gc!();
  const peaksOf = await samplePeaks();
  const t = performance.now();
  const engine = await new EngineIndexStore(db, { dir, searchThreads, readOnly: load, ...(buildPart && { buildPart }) }).open();
  const seconds = (performance.now() - t) / 1000;
  const peak = await peaksOf();
  if (engine.loadedFromDisk !== load) throw new Error(load ? 'the saved segments were not loaded' : 'the segments were loaded, not built');
  global.gc!();
  const after = process.memoryUsage().rss / 2 ** 20;
  const disk = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  console.log(JSON.stringify({ seconds, ...peak, after, disk }));
  await engine.close();
  db.close();
  process.exit(0);
}

/** This script again in a fresh process with these arguments; what it prints last, parsed. */
function child<T>(args: string[]): T {
  const part = buildPart === undefined ? [] : ['--build-part', String(buildPart)];
  const env = { ...process.env };
  if (values.malloc === 'returning') env.MALLOC_MMAP_THRESHOLD_ = threshold;
  else delete env.MALLOC_MMAP_THRESHOLD_;
  const run = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, '--size', values.size, '--search-threads', String(searchThreads), ...part, ...args], {
    encoding: 'utf8',
    env,
  });
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as T;
}

// Each run in a fresh process, as `index rebuild` and a first start run it: in one process a run
// saw what the allocator kept of the one before (1.7 GiB peaks in a second run).
console.log(
  `Engine build from ${path} (both cores, in parts of at most ${buildPart ?? 'the default number of'} versions, saved, for ${searchThreads} search thread(s), ` +
    `${values.malloc === 'returning' ? `MALLOC_MMAP_THRESHOLD_=${threshold} as npm start sets it` : "glibc malloc's default threshold"}), ${runs} run(s), each in a fresh process:`,
);
console.log('| run | seconds | peak RSS MiB | anonymous MiB | mapped files MiB | on disk MiB |\n|---|---|---|---|---|---|');
const f = (n: number) => n.toFixed(0);
for (let run = 1; run <= runs; run++) {
  const dir = mkdtempSync(join(tmpdir(), 'websearch-build-'));
  try {
    const built = child<{ seconds: number; total: number; anon: number; file: number; disk: number }>(['--build-into', dir]);
    console.log(`| ${run} | ${built.seconds.toFixed(1)} | ${f(built.total)} | ${f(built.anon)} | ${f(built.file)} | ${f(built.disk / 2 ** 20)} |`);
    if (run === runs) {
      const load = child<{ seconds: number; anon: number; after: number }>(['--load-from', dir]);
      console.log(`\nA restart's load of the last run's segments, in a fresh process: ${load.seconds.toFixed(2)} s, peak anonymous ${f(load.anon)} MiB, RSS after ${f(load.after)} MiB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

{
  const db = openDatabase({ path, mapped: false });
  // As an older release leaves it: no record of a fill, and no fingerprints (the fill makes them all again).
  db.exec('UPDATE passages_filled SET format = 0; UPDATE versions SET near_fingerprint = NULL');
  const t = performance.now();
  const built = await new SqlitePageStore(db).fillDerived();
  const seconds = (performance.now() - t) / 1000;
  db.close();
  console.log(
    `\nThe fill's pass over the versions, as \`index rebuild\` and a server after an upgrade make it: ${seconds.toFixed(2)} s, ` +
      `${built.fingerprints} near-duplicate fingerprints and ${built.passages} passage indexes made`,
  );
}
