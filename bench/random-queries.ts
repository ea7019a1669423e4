/**
 * npm run bench:random-queries [-- --size 1000000 --queries 3000 --seed 1 --warm 300 --search-threads 1|2 --out FILE]
 *
 * Queries of random shapes through the search operation (what POST /v1/search does after the
 * tier), on the corpus bench:search built and cached in bench/.cache, to find the slowest shapes
 * rather than time known ones: standard queries (a claim or words from the SciFact claims, with
 * `-word`s, quoted phrases, `-"phrase"`s, `intitle:`, `inurl:`, `site:`, `-site:`, `filetype:pdf`
 * and stop words) and webql expressions (words, phrases with and without a stop word, `title:`,
 * exclusions, `site:`, `inurl:`, `filetype:`, `url:`, `lang:`, groups of AND and OR three deep),
 * each with a random filter (none, a published year or month, `acquired_after: 30d`, a `query_time`
 * before any page of the corpus was acquired, `published_after: 1y`, and since 2026-12-07 an
 * acquired year and a `query_time` of 2026-01-01, which the corpus's pages, acquired 2025-01 to
 * 2026-10, fill: the first two now find none) and result count (1, 10, 50).
 * First `--warm` other queries of the same kinds (the pages' URLs for `inurl:`, the lookups of
 * types and languages, the acquired orders, the lists' bitsets are made as searches ask), then the
 * timed ones, one at a time: p50, p99, the slowest, and the 25 slowest with their answers' sizes.
 * The same seed gives the same queries. A query webql refuses (only exclusions) is skipped.
 * `--out` writes every timed query's line (ms, results, request, in the order run) to FILE, so
 * two runs of one seed (two commits, in two worktrees) can be compared query by query.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { parseSearchRequest, type SearchRequest } from '../src/core/requests.js';
import { search } from '../src/ops/search.js';
import { openServedIndex } from './http-figure.js';
import { benchQuerySets, cachedCorpus, percentile, picker, rng } from './scifact.js';
import { contentWords } from './webql-queries.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '3000' },
    seed: { type: 'string', default: '1' },
    warm: { type: 'string', default: '300' },
    'search-threads': { type: 'string', default: '2' },
    out: { type: 'string' },
  },
});
const threads = Number(values['search-threads']);
if (threads !== 1 && threads !== 2) throw new Error(`--search-threads takes 1 or 2, not ${values['search-threads']}`);
const { services } = await openServedIndex(cachedCorpus(values.size), threads);
const claims = benchQuerySets(300)[0]![1];
const vocabulary = [...new Set(claims.flatMap((c) => contentWords(c)))];
const random = rng(Number(values.seed));
const pick = picker(random);
const word = () => pick(vocabulary);
const STOPS = ['the', 'of', 'and', 'in', 'to', 'a', 'is', 'with', 'for', 'by', 'not', 'be'];
const host = () => `host${Math.floor(random() * 1000)}.bench.example`;

/** A webql item, groups up to three deep. */
function item(depth: number): string {
  const x = random();
  if (x < 0.35) return word();
  if (x < 0.5) return `"${word()} ${word()}"`;
  if (x < 0.55) return `"${word()} ${pick(STOPS)} ${word()}"`;
  if (x < 0.62) return `title:${word()}`;
  if (x < 0.66) return `title:"${word()} ${word()}"`;
  if (x < 0.7) return `-${word()}`;
  if (x < 0.73) return `-"${word()} ${word()}"`;
  if (x < 0.76) return `site:${host()}`;
  if (x < 0.78) return `inurl:/doc/${Math.floor(random() * 100)}`;
  if (x < 0.8) return 'filetype:pdf';
  if (x < 0.82) return `url:https://${host()}/`;
  if (x < 0.84) return 'lang:en';
  if (x < 0.86) return pick(STOPS);
  if (depth >= 3) return word();
  const parts = Array.from({ length: 2 + Math.floor(random() * 3) }, () => item(depth + 1));
  return random() < 0.5 ? `(${parts.join(' OR ')})` : `(${parts.join(' ')})`;
}

/** Words of a standard query with its operators. */
function standard(): string {
  const parts: string[] = [];
  for (let n = 1 + Math.floor(random() * 6); n > 0; n--) {
    const x = random();
    if (x < 0.6) parts.push(word());
    else if (x < 0.7) parts.push(`-${word()}`);
    else if (x < 0.78) parts.push(`"${word()} ${word()}"`);
    else if (x < 0.83) parts.push(`-"${word()} ${word()}"`);
    else if (x < 0.87) parts.push(`intitle:${word()}`);
    else if (x < 0.9) parts.push(`inurl:/doc/${Math.floor(random() * 100)}`);
    else if (x < 0.92) parts.push(`site:${host()}`);
    else if (x < 0.94) parts.push(`-site:${host()}`);
    else if (x < 0.96) parts.push('filetype:pdf');
    else parts.push(pick(STOPS));
  }
  return parts.join(' ');
}

const FILTERS = [
  {},
  { published_after: '2024-01-01', published_before: '2024-12-31' },
  { published_after: '2024-06-01', published_before: '2024-06-30' },
  { acquired_after: '30d' },
  { query_time: '2024-06-01' },
  { published_after: '1y' },
  { acquired_after: '2025-06-01', acquired_before: '2026-05-31' },
  { query_time: '2026-01-01' },
];

/** A random request body and the request it parses to (undefined: refused, as only exclusions). */
function request(): { body: object; req?: SearchRequest } {
  const mode = random() < 0.5 ? 'webql' : 'standard';
  const query =
    mode === 'webql' ? Array.from({ length: 1 + Math.floor(random() * 3) }, () => item(0)).join(' ') : random() < 0.15 ? `${pick(claims)} ${standard()}` : standard();
  const body = { query, mode, ...pick(FILTERS), max_results: pick([10, 10, 10, 1, 50]) };
  try {
    return { body, req: parseSearchRequest(body, { now: services.clock.now() }) };
  } catch {
    return { body };
  }
}

const rows: { ms: number; body: object; results: number }[] = [];
const warm = Number(values.warm);
let refused = 0;
for (let i = 0; i < warm + Number(values.queries); i++) {
  const { body, req } = request();
  if (!req) {
    refused++;
    continue;
  }
  const started = performance.now();
  let results: number;
  try {
    results = (await search(services, req)).results.length;
  } catch (e) {
    // A webql expression of exclusions alone is refused here (a 400 over HTTP), as in the product.
    if (!/only excludes/.test((e as Error).message)) throw new Error(`${JSON.stringify(body)}: ${(e as Error).message}`);
    refused++;
    continue;
  }
  if (i >= warm) rows.push({ ms: performance.now() - started, body, results });
}
const line = (r: (typeof rows)[number]) => `${r.ms.toFixed(1)}\t${r.results}\t${JSON.stringify(r.body)}`;
if (values.out) writeFileSync(values.out, rows.map((r) => `${line(r)}\n`).join(''));
const sorted = rows.map((r) => r.ms).sort((a, b) => a - b);
console.log(
  `${rows.length} random queries after ${warm} to warm up (seed ${values.seed}, ${threads} search thread${threads === 2 ? 's' : ''}; ${refused} refused as only exclusions): p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, the slowest ${sorted.at(-1)!.toFixed(1)} ms`,
);
console.log('The 25 slowest (ms, results, request):');
for (const r of rows.sort((a, b) => b.ms - a.ms).slice(0, 25)) console.log(line(r));
await services.close();
