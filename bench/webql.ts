/**
 * npm run bench:webql [-- --size 1000000 --queries 100 --rounds 3 --skip-fts --import-pages 100000 --migration]
 *
 * webql queries (README "webql") on the engine, and on the FTS5 index it replaced, in the same run
 * over the corpus bench:search built and cached in bench/.cache (run it once first). The FTS5
 * table is built into the cached database the first time (the product's has none; minutes at 1M).
 *
 * The queries are made from SciFact test claims, one of each shape per claim, with a, b and c the
 * claim's first three content words: a phrase (the claim's first two adjacent content words), an
 * exclusion, `title:`, an OR group, `site:`, `inurl:`, `lang:` (the generated pages have none), `filetype:pdf`, `url:`
 * a host's pages, with a word and alone, and the claim's first hyphenated
 * compound alone (a bare word read both ways: `T-cell` is `"t cell" OR tcell`); and two standard
 * queries with a `-word` (ranked by BM25 over their words, no AND; FTS5 as `(words) NOT (word)`):
 * `a b -c` and the whole claim with `-c` (and without, to compare). Every query is
 * run by both, in lockstep (who goes first alternating by round), top 10; the result sets must be
 * equal (the webql test's property; but Porter in FTS5 and ours differ on a few words: FTS5 stems
 * "one" to "on", and FTS5 does not read a page's compound joined), which the benchmark checks and
 * reports, naming the queries that differ. Then the five slowest queries on the engine. After the
 * timed rounds, each shape's queries run on the engine once more with a chain of setImmediate
 * callbacks going, which times every stretch the event loop did not turn: the longest of them is
 * how long a query held up the other requests at most (FTS5, read synchronously, holds the loop
 * for a whole query). Last, standard queries with a `-"phrase"` through the search operation
 * (which checks the phrase on the stored pages), a quoted phrase, an `intitle:` (a word, a phrase),
 * an `inurl:` (a text a tenth of the URLs hold, one a few do, one none does), a `filetype:pdf`, a `-filetype:pdf` or a `-filetype:html`, or a word misspelt (asked for as its
 * correction), against the same claims without; phrases of stop words alone, in the text and in a
 * title, items of stop words alone, an OR with a `site:` and a `title:` word alone (webql, ranked
 * by no word), and a word OR stop words; and what the misspelt words were corrected to, and what finding a correction costs.
 *
 * The generator gives its pages no media type: the first run sets one in the cached corpus, one
 * page in a hundred served as a PDF, the others as web pages (so `filetype:pdf` holds for 1% of
 * them), after timing what opening the cached corpus of an older release takes (migrations 22 to
 * 24, when due).
 *
 * First, what keeping the FTS5 index cost the product before migration 10 dropped it: the same
 * `--import-pages` generated pages stored into a new database with and without its table and
 * triggers, twice each, alternating (0 skips it). With `--migration`, also what dropping it takes:
 * a copy of the cached corpus with its FTS5 table, made as it was at schema version 9, is opened
 * (migrations 10 and 11 run), then vacuumed; the FTS5 table's share of the file from `dbstat`.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { SqliteIndexStore } from '../src/adapters/sqlite/index-store.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import { cachedStem, stem, STOP_WORDS, words } from '../src/core/text.js';
import { parseWebql } from '../src/core/webql.js';
import { editsAllowed, nearestTerms, oneEditAway } from '../src/adapters/engine/spelling.js';
import { search, standardWords } from '../src/ops/search.js';
import type { IndexHit, IndexQuery, IndexStore } from '../src/ports/index-store.js';
import { openServedIndex } from './http-figure.js';
import { contentWords, firstCompound, firstPair } from './webql-queries.js';
import { cellOf, loadCorpus, loadQrels, loadQueries, median, sentencesOf, storeGenerated } from './scifact.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    'skip-fts': { type: 'boolean', default: false },
    'import-pages': { type: 'string', default: '100000' },
    migration: { type: 'boolean', default: false },
  },
});
const fmt = (n: number, d = 1) => n.toFixed(d);

/**
 * The claim's longest word of seven letters or more (ASCII, not a stop word), and the claim with
 * that word misspelt: two adjacent letters of its middle swapped (`inhibitors`: `inhibtiors`).
 */
function misspelt(claim: string): { word: string; typo: string; text: string } | undefined {
  const longest = words(claim)
    .filter((w) => /^[a-z]{7,}$/.test(w) && !STOP_WORDS.has(w))
    .sort((a, b) => b.length - a.length)[0];
  if (!longest) return undefined;
  const i = Math.floor(longest.length / 2);
  const typo = longest.slice(0, i - 1) + longest[i] + longest[i - 1] + longest.slice(i + 1);
  if (typo === longest) return undefined;
  const at = claim.toLowerCase().indexOf(longest);
  return at < 0 ? undefined : { word: longest, typo, text: claim.slice(0, at) + typo + claim.slice(at + longest.length) };
}

/** Each shape's name, its query made from a claim, and `standard` for a standard query (`-word`s left out, no AND) rather than webql. */
const SHAPES: [string, (claim: string, n: number) => string | undefined, 'standard'?][] = [
  ['phrase "a b"', (c) => firstPair(c)],
  ['a b -c', (c) => { const [a, b, x] = contentWords(c); return x ? `${a} ${b} -${x}` : undefined; }],
  ['title:a b', (c) => { const [a, b] = contentWords(c); return b ? `title:${a} ${b}` : undefined; }],
  ['(a OR b) c', (c) => { const [a, b, x] = contentWords(c); return x ? `(${a} OR ${b}) ${x}` : undefined; }],
  ['a b site:', (c, n) => { const [a, b] = contentWords(c); return b ? `${a} ${b} site:host${n % 1000}.bench.example` : undefined; }],
  ['a inurl:', (c, n) => { const [a] = contentWords(c); return a ? `${a} inurl:/doc/${n % 10}` : undefined; }],
  ['a filetype:pdf', (c) => { const [a] = contentWords(c); return a ? `${a} filetype:pdf` : undefined; }],
  ['a b lang:en', (c) => { const [a, b] = contentWords(c); return b ? `${a} ${b} lang:en` : undefined; }],
  ['a url: (a host\'s pages)', (c, n) => { const [a] = contentWords(c); return a ? `${a} url:https://host${n % 1000}.bench.example/` : undefined; }],
  ['url: alone (a host\'s pages)', (_c, n) => `url:host${n % 1000}.bench.example/doc/`],
  ['a-b (a compound)', (c) => firstCompound(c)],
  ['standard: a b -c', (c) => { const [a, b, x] = contentWords(c); return x ? `${a} ${b} -${x}` : undefined; }, 'standard'],
  ['standard: the claim', (c) => (contentWords(c)[2] ? c : undefined), 'standard'],
  ['standard: the claim -c', (c) => { const x = contentWords(c)[2]; return x ? `${c} -${x}` : undefined; }, 'standard'],
];

const importPages = Number(values['import-pages']);
if (importPages > 0) {
  const sentences = sentencesOf(loadCorpus());
  const dir = mkdtempSync(join(tmpdir(), 'webql-import-'));
  try {
    for (const withFts of [false, true, true, false]) {
      const db = openDatabase({ path: join(dir, `${withFts}.db`) });
      if (withFts) new SqliteIndexStore(db);
      const pages = new SqlitePageStore(db);
      const started = performance.now();
      await storeGenerated(pages, sentences, importPages);
      db.pragma('wal_checkpoint(TRUNCATE)');
      const s = (performance.now() - started) / 1000;
      const bytes = (db.prepare('SELECT page_count * page_size AS b FROM pragma_page_count, pragma_page_size').get() as { b: number }).b;
      console.log(`Import of ${importPages.toLocaleString('en')} generated pages ${withFts ? 'with' : 'without'} the FTS5 index: ${fmt(s)} s, ${fmt(importPages / s, 0)} pages/s, ${fmt(bytes / 2 ** 20, 0)} MiB`);
      db.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, `${withFts}.db${suffix}`), { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const path = join(import.meta.dirname, '.cache', `generated-${values.size}.db`);
{
  const before = new Database(path, { readonly: true });
  const version = before.pragma('user_version', { simple: true }) as number;
  before.close();
  let started = performance.now();
  const db = openDatabase({ path });
  if (version < 24) {
    console.log(
      `Migrations from schema version ${version} on opening the cached corpus (22: the versions' media types; 23: the types their URLs name; 24: the index of the versions of none): ${fmt((performance.now() - started) / 1000, 2)} s`,
    );
  }
  started = performance.now();
  const set = db
    .prepare("UPDATE versions SET media_type = CASE WHEN id % 100 = 0 THEN 'application/pdf' ELSE 'text/html' END WHERE media_type IS NULL")
    .run().changes;
  if (set > 0) console.log(`Media types set in the cached corpus (one page in a hundred a PDF): ${set.toLocaleString('en')} versions, ${fmt((performance.now() - started) / 1000)} s`);
  db.close();
}
const { services, engine } = await openServedIndex(path);
{
  // The first search with an inurl: reads the pages' URLs into memory, in turns of the event loop
  // (it is not narrowed by its inurl: meanwhile); the searches timed below find them there.
  const rss = process.memoryUsage().rss;
  const started = performance.now();
  await engine.search({ terms: ['expression'], inUrl: '/nowhere/', limit: 10 });
  await engine.settled();
  const mib = (n: number) => fmt(n / 2 ** 20);
  console.log(
    `The pages' URLs read into memory for inurl: ${fmt((performance.now() - started) / 1000, 2)} s, ${mib(engine.pageUrlsBytes)} MiB held (RSS ${mib(rss)} MiB before, ${mib(process.memoryUsage().rss)} after)`,
  );
}
let fts: IndexStore | undefined;
if (!values['skip-fts']) {
  const started = performance.now();
  fts = new SqliteIndexStore(openDatabase({ path }));
  const s = (performance.now() - started) / 1000;
  if (s > 1) console.log(`FTS5 table built into the cached corpus: ${fmt(s)} s`);
}

if (fts && values.migration) {
  const dir = mkdtempSync(join(tmpdir(), 'webql-migration-'));
  const copy = join(dir, 'copy.db');
  try {
    const source = openDatabase({ path });
    source.prepare('VACUUM INTO ?').run(copy);
    source.close();
    const raw = new Database(copy);
    const sizes = new Map((raw.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name').all() as { name: string; bytes: number }[]).map((r) => [r.name, r.bytes]));
    const total = [...sizes.values()].reduce((a, b) => a + b, 0);
    const ftsBytes = [...sizes].filter(([name]) => name.startsWith('versions_fts')).reduce((a, [, b]) => a + b, 0);
    raw.exec('DROP INDEX IF EXISTS versions_lang'); // migration 11's
    raw.pragma('user_version = 9');
    raw.close();
    const started = performance.now();
    const db = openDatabase({ path: copy });
    const migrated = (performance.now() - started) / 1000;
    const vacuumStarted = performance.now();
    db.exec('VACUUM');
    const vacuumed = (performance.now() - vacuumStarted) / 1000;
    db.close();
    console.log(
      `Migrations 10 and 11 on a copy of the corpus at schema version 9 (${fmt(total / 2 ** 20, 0)} MiB, of which the FTS5 index ${fmt(ftsBytes / 2 ** 20, 0)} MiB, ${fmt((100 * ftsBytes) / total, 0)}%): ${fmt(migrated, 2)} s; VACUUM after: ${fmt(vacuumed)} s, the file ${fmt(statSync(copy).size / 2 ** 20, 0)} MiB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const all = loadQueries();
const claims = [...loadQrels('test').keys()].slice(0, Number(values.queries)).map((id) => all.get(id)!);
const rounds = Number(values.rounds);
const time = async (index: IndexStore, q: IndexQuery): Promise<[number, IndexHit[]]> => {
  const t = performance.now();
  const hits = await index.search(q);
  return [performance.now() - t, hits];
};
const ids = (hits: IndexHit[]) => hits.map((h) => h.versionId).sort((x, y) => x - y).join(',');

/** The longest time, in ms, the event loop went without turning while `run` ran (a setImmediate chain timestamps each turn). */
async function longestStall(run: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  let going = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (going) setImmediate(tick);
  };
  setImmediate(tick);
  await run();
  going = false;
  await new Promise((resolve) => setImmediate(resolve));
  return Math.max(longest, performance.now() - last);
}

console.log(`webql at ${Number(values.size).toLocaleString('en')} documents, top 10, ${claims.length} claims, ${rounds} rounds (each query's latency pooled over them)`);
console.log(`| shape | queries | hits (mean) | engine p50 / p99 ms | FTS5 p50 / p99 ms | p50 ratio | same results | engine's longest stall of the event loop ms |`);
console.log('|---|---|---|---|---|---|---|---|');
/** Each query's engine times over the rounds, for the slowest list after the table. */
const perQuery: { shape: string; text: string; ms: number[] }[] = [];
/** The queries whose results were not the same as FTS5's, listed after the table. */
const differing: string[] = [];
for (const [shape, make, mode] of SHAPES) {
  const queries = claims
    .map(make)
    .flatMap((text, n) => (text ? [{ text, q: mode === 'standard' ? { ...standardWords(text), limit: 10 } : ({ terms: [], webql: parseWebql(text), limit: 10 } satisfies IndexQuery), n }] : []));
  for (const { q } of queries) await engine.search(q); // warm, as bench:search warms
  const timed = queries.map(({ text }) => ({ shape, text, ms: [] as number[] }));
  perQuery.push(...timed);
  const ours: number[] = [];
  const theirs: number[] = [];
  let hits = 0;
  let same = 0;
  let compared = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [n, { q }] of queries.entries()) {
      const order = fts ? (round % 2 === 0 ? ['engine', 'fts'] : ['fts', 'engine']) : ['engine'];
      const got: Record<string, IndexHit[]> = {};
      for (const who of order) {
        const [ms, found] = await time(who === 'engine' ? engine : fts!, q);
        (who === 'engine' ? ours : theirs).push(ms);
        if (who === 'engine') timed[n]!.ms.push(ms);
        got[who] = found;
      }
      if (round === 0) {
        hits += got.engine!.length;
        if (got.fts) {
          compared++;
          // Equal sets when both found fewer than 10; at 10 the orders differ (the engine's BM25 weighs URL words) and only the counts must agree.
          if (got.engine!.length < 10 ? ids(got.engine!) === ids(got.fts) : got.fts.length === 10) same++;
          else differing.push(`\`${queries[n]!.text}\` (${got.engine!.length} against ${got.fts.length})`);
        }
      }
    }
  }
  const e = cellOf(ours);
  const f = theirs.length > 0 ? cellOf(theirs) : undefined;
  let stall = 0;
  for (const { q } of queries) stall = Math.max(stall, await longestStall(() => engine.search(q)));
  console.log(
    `| ${shape} | ${queries.length} | ${fmt(hits / queries.length)} | ${fmt(e.p50)} / ${fmt(e.p99)} | ${f ? `${fmt(f.p50)} / ${fmt(f.p99)}` : '-'} | ${f ? fmt(e.p50 / f.p50, 2) : '-'} | ${f ? `${same}/${compared}` : '-'} | ${fmt(stall)} |`,
  );
}
const slowest = perQuery.map((p) => ({ ...p, ms: median(p.ms) })).sort((a, b) => b.ms - a.ms).slice(0, 5);
console.log(`The slowest queries on the engine (median over the rounds): ${slowest.map((p) => `\`${p.text}\` (${p.shape}) ${fmt(p.ms)} ms`).join('; ')}`);
if (differing.length > 0) console.log(`Results not the same as FTS5's (the engine's count against FTS5's): ${differing.join('; ')}`);

// A standard query's `-"phrase"` is checked on the stored pages by the search operation (the
// engine keeps no positions), reading further down the ranking while pages hold it: timed through
// search() with its snippets, against the claim without it. `-"a b"` is the claim's own first pair
// of adjacent content words, which its best pages hold (the costly case); `-"b a"` the pair
// reversed. A quoted `"a b"` keeps the pages holding it, ranked by the claim's words (as webql).
const PHRASE_SHAPES: [string, (claim: string, n: number) => string | undefined][] = [
  ['the claim', (c) => (firstPair(c) ? c : undefined)],
  ['the claim -"a b"', (c) => { const p = firstPair(c); return p && `${c} -${p}`; }],
  ['the claim -"b a"', (c) => { const p = firstPair(c); return p && `${c} -"${p.slice(1, -1).split(' ').reverse().join(' ')}"`; }],
  ['"a b" the claim', (c) => { const p = firstPair(c); return p && `${p} ${c}`; }],
  ['intitle:a the claim', (c) => { const p = firstPair(c); return p && `intitle:${p.slice(1).split(' ')[0]} ${c}`; }],
  ['intitle:"a b" the claim', (c) => { const p = firstPair(c); return p && `intitle:${p} ${c}`; }],
  ['the claim inurl:', (c, n) => (firstPair(c) ? `${c} inurl:/doc/${n % 10}` : undefined)],
  // A text a few URLs hold (about 11 of the 1M: /doc/12345 and /doc/123450 to 123459), and one none does.
  ['the claim inurl:, a rare text', (c, n) => (firstPair(c) ? `${c} inurl:/doc/${10_000 + ((n * 7919) % 90_000)}` : undefined)],
  ['the claim inurl:, no URL', (c, n) => (firstPair(c) ? `${c} inurl:/nowhere/${n}` : undefined)],
  ['the claim filetype:pdf', (c) => (firstPair(c) ? `${c} filetype:pdf` : undefined)],
  ['the claim -filetype:pdf', (c) => (firstPair(c) ? `${c} -filetype:pdf` : undefined)],
  ['the claim -filetype:html', (c) => (firstPair(c) ? `${c} -filetype:html` : undefined)],
  ['the claim, a word misspelt', (c) => misspelt(c)?.text],
];
console.log(`\nStandard queries through the search operation (snippets included), top 10, ${rounds} rounds`);
console.log('| shape | queries | results (mean) | fewer than 10 | p50 / p99 ms | slowest two (median over the rounds) ms |');
console.log('|---|---|---|---|---|---|');
const request = (query: string) => ({ query, mode: 'standard' as const, snippetMaxLength: 500, maxResults: 10 });
/** The slowest query of all the shapes, named after the table. */
let slowestPhrase = { ms: 0, text: '' };
for (const [shape, make] of PHRASE_SHAPES) {
  const texts = claims.map((c, n) => make(c, n)).filter((t) => t !== undefined).map((t) => t.slice(0, 2000));
  for (const text of texts) await search(services, request(text));
  const ms: number[] = [];
  const each = texts.map(() => [] as number[]);
  let results = 0;
  let fewer = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [n, text] of texts.entries()) {
      const started = performance.now();
      const found = (await search(services, request(text))).results.length;
      ms.push(performance.now() - started);
      each[n]!.push(ms[ms.length - 1]!);
      if (round === 0) {
        results += found;
        if (found < 10) fewer++;
      }
    }
  }
  const c = cellOf(ms);
  const medians = each.map((m, n) => ({ ms: median(m), text: texts[n]! })).sort((a, b) => b.ms - a.ms);
  if (medians[0] && medians[0].ms > slowestPhrase.ms) slowestPhrase = medians[0];
  console.log(`| ${shape} | ${texts.length} | ${fmt(results / texts.length)} | ${fewer} | ${fmt(c.p50)} / ${fmt(c.p99)} | ${medians.slice(0, 2).map((m) => fmt(m.ms)).join(', ')} |`);
}
console.log(`The slowest of these queries (median over the rounds): \`${slowestPhrase.text}\` ${fmt(slowestPhrase.ms)} ms`);

// Phrases of stop words alone, which the index holds only in titles: in the text every page is a
// candidate (the reads bounded by WEBQL_READS_MAX), in a title the pages so titled are. Then items
// of stop words alone, an OR with a site: and a title: word alone, which rank by no word: every
// page is a candidate, or every page holding the word, read newest first (the newest 64 listed
// first, engine.ts `newestAccepted`); and an OR of a word and stop words alone, ranked by the word.
{
  const lines: string[] = [];
  const alone = ['"to be or not to be"', 'cells "to be or not to be"', '"the who"', 'title:"to be or not to be"', 'title:"the who"'];
  for (const text of [...alone, 'be', '"to be"', 'the -cells', '(cells OR site:host7.bench.example)', 'title:cells', 'cells OR "to be"']) {
    const q: IndexQuery = { terms: [], webql: parseWebql(text), limit: 10 };
    const ms: number[] = [];
    let hits = 0;
    for (let round = 0; round < 3; round++) {
      const [took, found] = await time(engine, q);
      ms.push(took);
      hits = found.length;
    }
    lines.push(`\`${text}\` ${fmt(median(ms))} ms (${hits} hits)`);
  }
  console.log(`\nwebql phrases of stop words alone, and queries that rank by no word (median of 3 runs): ${lines.join('; ')}`);
}

// What the misspelt words were asked for instead (IndexStore `corrections`), and what finding it cost.
{
  const typos = claims.map(misspelt).filter((m) => m !== undefined);
  const { stats } = engine.inUse();
  let back = 0;
  let held = 0;
  let none = 0;
  let absent = 0;
  const other: string[] = [];
  const ms: number[] = [];
  for (const m of typos) {
    // What finding one costs, as `corrections` finds it: the scan of the dictionaries and the stems
    // of the spellings one edit away looked up, with statistics of their own (the search operation
    // ran these queries already, so the engine keeps their corrections).
    const own = cachedStem(m.typo);
    const started = performance.now();
    const fresh = engine.inUse().stats;
    nearestTerms(engine.segmentData, own, editsAllowed(own.length));
    for (const spelling of oneEditAway(m.typo)) fresh.df(stem(spelling));
    ms.push(performance.now() - started);
    const [fix] = engine.corrections([m.typo]);
    if (stats.df(cachedStem(m.word)) === 0) absent++;
    else if (fix !== undefined && cachedStem(fix) === cachedStem(m.word)) back++;
    else if (fix !== undefined) other.push(`${m.typo} -> ${fix} (${m.word})`);
    else if (stats.df(cachedStem(m.typo)) > 0) held++;
    else none++;
  }
  const c = cellOf(ms);
  console.log(
    `Misspelt words (${typos.length}, a claim's longest word with two middle letters swapped): the word itself on no page ${absent}; of the others, corrected to a word of its stem ${back}, to another word ${other.length}, held by some page (asked as written) ${held}, not corrected ${none}; finding one (nearestTerms and oneEditAway's stems looked up) p50 / p99 ${fmt(c.p50)} / ${fmt(c.p99)} ms${other.length > 0 ? `. To another word: ${other.slice(0, 5).join('; ')}` : ''}`,
  );
}
await services.close();
