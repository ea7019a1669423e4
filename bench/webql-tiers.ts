/**
 * npm run bench:webql-tiers [-- --size 1000000 --queries 100 --shapes 'a inurl:,(a OR b) c' --search-threads 1|2 --aside CONFIG ...]
 *
 * How webql's reading of its best candidates first (`WEBQL_BEST_FIRST`: tiers of the engine's top k
 * before the whole listing) pays, shape by shape, on the corpus bench:search built and cached in
 * bench/.cache. Each CONFIG is `from:k,from:k,.../words/few`: the tiers, ascending, the most ranking
 * words a query with a phrase or a field is taken for, and at most how many pages holding every
 * required word leave the tiers out (`BestFirst.few`; `none` for no tiers, `default` for
 * WEBQL_BEST_FIRST; default: `none default`). Every query of a shape runs under each config in turn,
 * three times, and its median counts: the line gives each config's p50 / p99 and the total of the
 * medians, then each config's three slowest queries. The same queries as bench:webql's shapes.
 * `--search-threads 2` runs them as `serve` does by default (a search split with the helper thread
 * where it pays); with `--aside`, each config runs twice in turn: with the serving thread checking
 * every candidate it reads (`here`), and with each large batch shared with the helper (`aside`,
 * engine-index-store.ts ASIDE_MIN), as `serve` does.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { type BestFirst, WEBQL_BEST_FIRST } from '../src/adapters/engine/webql-search.js';
import { search } from '../src/ops/search.js';
import { openServedIndex } from './http-figure.js';
import { loadQrels, loadQueries } from './scifact.js';
import { contentWords, firstCompound, firstPair } from './webql-queries.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '100' },
    shapes: { type: 'string' },
    'search-threads': { type: 'string', default: '1' },
    aside: { type: 'boolean', default: false },
  },
});
const searchThreads = Number(values['search-threads']);
if (searchThreads !== 1 && searchThreads !== 2) throw new Error(`--search-threads takes 1 or 2, not ${values['search-threads']}`);
if (values.aside && searchThreads !== 2) throw new Error('--aside compares the helper thread\'s checks, which --search-threads 2 has');

const SHAPES: [string, (claim: string, n: number) => string | undefined, 'standard' | 'webql'][] = [
  ['phrase "a b"', (c) => firstPair(c), 'webql'],
  ['a b -c', (c) => { const [a, b, x] = contentWords(c); return x ? `${a} ${b} -${x}` : undefined; }, 'webql'],
  ['title:a b', (c) => { const [a, b] = contentWords(c); return b ? `title:${a} ${b}` : undefined; }, 'webql'],
  ['(a OR b) c', (c) => { const [a, b, x] = contentWords(c); return x ? `(${a} OR ${b}) ${x}` : undefined; }, 'webql'],
  ['a inurl:', (c, n) => { const [a] = contentWords(c); return a ? `${a} inurl:/doc/${n % 10}` : undefined; }, 'webql'],
  ['a-b (a compound)', (c) => firstCompound(c), 'webql'],
  ['"a b" the claim', (c) => { const p = firstPair(c); return p && `${p} ${c}`; }, 'standard'],
  ['intitle:a the claim', (c) => { const p = firstPair(c); return p && `intitle:${p.slice(1).split(' ')[0]} ${c}`; }, 'standard'],
  ['intitle:"a b" the claim', (c) => { const p = firstPair(c); return p && `intitle:${p} ${c}`; }, 'standard'],
];

/** A config from the command line: `none`, `default`, or `from:k,from:k/words/few`. */
function configOf(text: string): BestFirst {
  if (text === 'none') return { tiers: [], words: 0, few: 0 };
  if (text === 'default') return WEBQL_BEST_FIRST;
  const [tiers, words, few] = text.split('/');
  return {
    tiers: tiers!.split(',').map((t) => {
      const [from, k] = t.split(':').map(Number);
      if (!Number.isFinite(from) || !Number.isInteger(k)) throw new Error(`not a tier: ${t}`);
      return { from: from!, k: k! };
    }),
    words: Number(words ?? WEBQL_BEST_FIRST.words),
    few: Number(few ?? WEBQL_BEST_FIRST.few),
  };
}

const wanted = values.shapes?.split(',');
const { services, engine } = await openServedIndex(join(import.meta.dirname, '.cache', `generated-${values.size}.db`), searchThreads);
// The engine's own settings, as EngineOptions `webqlBestFirst` and `asideMin` set them (no setters in the product).
const asideMin = Reflect.get(engine, 'asideMin') as number;
const runs = (positionals.length > 0 ? positionals : ['none', 'default']).flatMap((label) =>
  (values.aside ? [false, true] : [undefined]).map((aside) => ({ label: aside === undefined ? label : `${label} ${aside ? 'aside' : 'here'}`, config: configOf(label), aside })),
);
const all = loadQueries();
const claims = [...loadQrels('test').keys()].slice(0, Number(values.queries)).map((id) => all.get(id)!);
const ask = (query: string, mode: 'standard' | 'webql') => search(services, { query: query.slice(0, 2000), mode, snippetMaxLength: 200, maxResults: 10 });
// The first inurl: reads the pages' URLs into memory: before any config is timed.
await ask('x inurl:/doc/1', 'webql');
await engine.settled();
const at = (xs: readonly number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

console.log(`webql's best candidates first at ${values.size} documents, ${claims.length} claims, search threads ${searchThreads}, each query's median of 3 under each config in turn`);
for (const [name, make, mode] of SHAPES.filter(([n]) => !wanted || wanted.includes(n))) {
  const queries = claims.flatMap((c, n) => make(c, n) ?? []);
  const medians = runs.map(() => [] as [number, string][]);
  const checkedBefore = engine.asideChecks;
  for (const query of queries) {
    for (const [i, { config, aside }] of runs.entries()) {
      Reflect.set(engine, 'webqlBestFirst', config);
      if (aside !== undefined) Reflect.set(engine, 'asideMin', aside ? asideMin : Infinity);
      const times: number[] = [];
      for (let r = 0; r < 3; r++) {
        const started = performance.now();
        await ask(query, mode);
        times.push(performance.now() - started);
      }
      medians[i]!.push([at(times, 0.5), query]);
    }
  }
  const cells = runs.map(({ label }, i) => {
    const ms = medians[i]!.map(([m]) => m);
    return `${label} ${at(ms, 0.5).toFixed(1)} / ${at(ms, 0.99).toFixed(1)} ms, ${ms.reduce((a, b) => a + b, 0).toFixed(0)} in all`;
  });
  await engine.checksSettled(); // the helper's counts come with its answers
  const checked = engine.asideChecks - checkedBefore;
  console.log(`${name} (${queries.length}): ${cells.join(' | ')}${searchThreads === 2 ? ` (candidates checked on the helper: ${checked.toLocaleString('en-US')})` : ''}`);
  for (const [i, { label }] of runs.entries()) {
    const slowest = [...medians[i]!].sort((a, b) => b[0] - a[0]).slice(0, 3);
    console.log(`  ${label} slowest: ${slowest.map(([m, q]) => `${m.toFixed(0)} ms ${q.slice(0, 40)}`).join('; ')}`);
  }
}
process.exit(0);
