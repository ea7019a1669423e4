/**
 * npm run bench:engine-ab -- <commit> [--size 1000000] [--queries 300] [--passes 3] [--windows published|acquired|sites]
 *
 * Our engine's traversal at <commit> against the working tree's, on the same segments of the
 * cached generated corpus (`npm run bench:search` builds it), query by query in alternating order in
 * one process, so both see the same moments of this machine (whose speed drifts by tens of
 * percent within minutes): per cell, each side's p50, their ratio, the median of the per-query
 * ratios, and how many top 10s differ. The commit's src is compiled with tsc into a temporary
 * directory (a git worktree); its own `searchable` and `searchTopK` run on the segment data that
 * the working tree loaded (the segment format must be the same at both). p99s are of all the
 * passes' latencies pooled, as bench:search pools its rounds'. `--windows acquired` times the
 * acquired windows and `query_time`s of ACQUIRED_WINDOWS instead of bench:search's published ones;
 * `--windows sites` the sites of SITES, asked for and left out (the generated pages' hosts are
 * host0 to host999.bench.example, a thousandth of the pages each).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { EngineIndexStore } from '../src/adapters/engine/engine-index-store.js';
import * as current from '../src/adapters/engine/engine.js';
import type { EngineFilter, SearchableSegment } from '../src/adapters/engine/engine.js';
import { createServices } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';
import { cachedStem, queryTerms } from '../src/core/text.js';
import { reverseHost } from '../src/core/url.js';
import { ACQUIRED_WINDOWS, BENCH_WINDOWS, benchQuerySets, cachedCorpus, median, percentile } from './scifact.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '300' },
    passes: { type: 'string', default: '3' },
    windows: { type: 'string', default: 'published' },
  },
});
/**
 * Sites (reversed hosts, as the engine's filter takes them) for `--windows sites`. A site of every
 * host comes first: it takes the traversal that no site's documents lead, and timed after the cells
 * they lead it was 4-11% slower on the side that had run them (the order in one process, not the
 * code: first, 0.99-1.01).
 */
const SITES: [string, EngineFilter][] = [
  ['site of every host (bench.example)', { revSite: reverseHost('bench.example') }],
  ['site of one host', { revSite: reverseHost('host7.bench.example') }],
  ['one of ten hosts', { anyRevSites: Array.from({ length: 10 }, (_, i) => reverseHost(`host${100 * i + 3}.bench.example`)) }],
  // (More than half of the pages: the others are left out.)
  ['one of six hundred hosts', { anyRevSites: Array.from({ length: 600 }, (_, i) => reverseHost(`host${i}.bench.example`)) }],
  ['site of one host, one-year window', { revSite: reverseHost('host7.bench.example'), ...BENCH_WINDOWS[1]![1] }],
  ['one host left out', { notRevSites: [reverseHost('host7.bench.example')] }],
  ['ten hosts left out', { notRevSites: Array.from({ length: 10 }, (_, i) => reverseHost(`host${100 * i + 3}.bench.example`)) }],
];
if (!['published', 'acquired', 'sites'].includes(values.windows)) throw new Error(`--windows takes published, acquired or sites, not ${values.windows}`);
/** Each cell's filter, or its filter of each query (by the query's place in the set). */
/** bench:search's published windows, and one that holds more than half of the pages (published uniformly over 2016-2025). */
const PUBLISHED: [string, EngineFilter][] = [...BENCH_WINDOWS, ['six-year window (since 2020)', { publishedAfter: Date.parse('2020-01-01T00:00:00Z') }]];
const windows: [string, EngineFilter | ((query: number) => EngineFilter)][] = values.windows === 'acquired' ? ACQUIRED_WINDOWS : values.windows === 'sites' ? SITES : PUBLISHED;
const commit = positionals[0];
if (!commit) throw new Error('usage: npm run bench:engine-ab -- <commit> [--size N] [--queries N] [--passes N] [--windows published|acquired|sites]');
const root = join(import.meta.dirname, '..');

// The commit's engine, compiled.
const tmp = mkdtempSync(join(tmpdir(), 'engine-ab-'));
const tree = join(tmp, 'tree');
type Engine = Pick<typeof current, 'searchable' | 'searchTopK'>;
let base: Engine;
try {
  execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', tree, commit], { stdio: 'ignore' });
  symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(tree, 'tsconfig.build.json'), '--outDir', join(tmp, 'dist')], { stdio: 'inherit' });
  copyFileSync(join(root, 'package.json'), join(tmp, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(tmp, 'node_modules'));
  base = (await import(join(tmp, 'dist', 'adapters', 'engine', 'engine.js'))) as Engine;
} catch (e) {
  rmSync(tmp, { recursive: true, force: true });
  throw e;
} finally {
  rmSync(tree, { recursive: true, force: true });
  execFileSync('git', ['-C', root, 'worktree', 'prune']);
}

const path = cachedCorpus(values.size);
const services = await createServices(loadSettings({ env: {}, flags: { databaseUrl: `sqlite:${path}`, logLevel: 'warn' } }));
const store = services.index as EngineIndexStore;
await store.open();
const { segments, stats } = store.inUse();
const sides: [Engine, readonly SearchableSegment[]][] = [
  [base, segments.map((s) => base.searchable(s.data, stats.avgLength))],
  [current, segments],
];

console.log(`Engine at ${commit} (old) against the working tree (new), ${values.size} documents, one process, query by query in alternating order`);
console.log('| queries | old p50 ms | new p50 ms | p50 new/old | median per-query new/old | old p99 ms | new p99 ms | p99 new/old | top 10s that differ |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [set, qs] of benchQuerySets(Number(values.queries))) {
  for (const [w, f] of windows) {
    const terms = qs.map((q) => queryTerms(q).map(cachedStem));
    const run = (k: number, t: string[], i: number) => sides[k]![0].searchTopK(sides[k]![1], stats, t, typeof f === 'function' ? f(i) : f, 10);
    let differ = 0;
    for (const [i, t] of terms.entries()) if (JSON.stringify(run(0, t, i)) !== JSON.stringify(run(1, t, i))) differ++; // also the warm-up
    const lat: [number[], number[]] = [[], []];
    for (let p = 0; p < Number(values.passes); p++) {
      for (const [i, t] of terms.entries()) {
        for (const k of (i + p) % 2 === 0 ? [0, 1] : [1, 0]) {
          const started = performance.now();
          run(k, t, i);
          lat[k]!.push(performance.now() - started);
        }
      }
    }
    const [o, n] = [median(lat[0]), median(lat[1])];
    const perQuery = median(lat[1].map((x, i) => x / lat[0][i]!));
    const [o99, n99] = lat.map((l) => percentile([...l].sort((a, b) => a - b), 99)) as [number, number];
    console.log(`| ${set} claims, ${w} | ${o.toFixed(3)} | ${n.toFixed(3)} | ${(n / o).toFixed(3)} | ${perQuery.toFixed(3)} | ${o99.toFixed(3)} | ${n99.toFixed(3)} | ${(n99 / o99).toFixed(3)} | ${differ} of ${terms.length} |`);
  }
}
await services.close();
rmSync(tmp, { recursive: true, force: true });
