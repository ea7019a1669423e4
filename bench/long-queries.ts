/**
 * npm run bench:long-queries [-- --size 1000000 --per-length 20 --rounds 3]
 *
 * Queries far longer than a claim: SciFact's claims (those bench:search times) joined into texts
 * of 250, 500, 1,000 and 2,000 characters (the API's longest query), 25 to 180 distinct terms,
 * ours against Lucene in lockstep rounds as bench:search runs them (each length timed by one, then
 * the other, which goes first alternating by round), p50 and p99 pooled per length. Ours answers
 * with the top 10 of exhaustive BM25 on every query (checked here, as the rank-safety test checks
 * it for claims). Needs bench:search's cache for the size (its generated corpus, saved segments
 * and Lucene index): run `npm run bench:search` first.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { queryReadings } from '../src/core/text.js';
import { openServedIndex } from './http-figure.js';
import { LineServer, luceneBench, luceneClasspath } from './lucene-peer.js';
import { benchQuerySets, cellOf, timeLatencies } from './scifact.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    'per-length': { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
  },
});
const CACHE = join(import.meta.dirname, '.cache');
const path = join(CACHE, `generated-${values.size}.db`);
const luceneDir = join(CACHE, `lucene-${values.size}`);
if (!existsSync(path) || !existsSync(luceneDir)) {
  console.error(`No cached corpus of ${values.size} documents with its Lucene index: run \`npm run bench:search -- --sizes ${values.size}\` first.`);
  process.exit(1);
}
const cp = luceneClasspath();
if (!cp) throw new Error('Lucene could not be installed');

// Claims in turn from a different start per query, joined until the length, cut at the last whole word.
const claims = benchQuerySets(300)[0]![1];
const perLength = Number(values['per-length']);
const lengths = [250, 500, 1000, 2000];
const cells = lengths.map((length) => {
  const qs = Array.from({ length: perLength }, (_, i) => {
    let q = '';
    for (let k = i * 7; q.length < length; k++) q += `${claims[k % claims.length]} `;
    return q.slice(0, length).replace(/\s+\S*$/, '');
  });
  return { name: `${length} characters`, qs };
});

const dir = mkdtempSync(join(tmpdir(), 'websearch-long-queries-'));
const qfile = join(dir, 'queries.tsv');
writeFileSync(qfile, cells.flatMap(({ name, qs }) => qs.map((q) => `${name}\t\t\t${q}\n`)).join(''));
const lucene = new LineServer('Lucene', spawn('java', luceneBench(cp, ['serve', luceneDir, qfile])));
const { services, engine } = await openServedIndex(path);
try {
  const pooled = new Map<string, { ours: number[]; lucene: number[] }>(cells.map((c) => [c.name, { ours: [], lucene: [] }]));
  const warm = new Set<string>();
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const { name, qs } of cells) {
      for (const side of round % 2 === 0 ? (['lucene', 'ours'] as const) : (['ours', 'lucene'] as const)) {
        if (side === 'lucene') {
          pooled.get(name)!.lucene.push(...((await lucene.ask(name)).latencies as number[]));
        } else {
          const { latencies } = await timeLatencies((q) => engine.search({ ...queryReadings(q), limit: 10 }), qs, warm.has(name) ? 0 : qs.length);
          warm.add(name);
          pooled.get(name)!.ours.push(...latencies);
        }
      }
    }
  }
  console.log(`Long queries over ${Number(values.size).toLocaleString('en')} generated documents, ${perLength} per length, ${values.rounds} rounds pooled (ms):`);
  console.log('| query | distinct terms (mean) | ours p50 / p99 | Lucene p50 / p99 | p50 ratio | p99 ratio | top 10 as exhaustive BM25 |');
  console.log('|---|---|---|---|---|---|---|');
  for (const { name, qs } of cells) {
    const ours = cellOf(pooled.get(name)!.ours);
    const luc = cellOf(pooled.get(name)!.lucene);
    let same = 0;
    let terms = 0;
    for (const q of qs) {
      const query = { ...queryReadings(q), limit: 10 };
      terms += new Set(query.terms).size;
      const [pruned, full] = [await engine.search(query), engine.exhaustiveSearch(query)];
      if (JSON.stringify(pruned) === JSON.stringify(full)) same++;
    }
    const f = (n: number) => n.toFixed(1);
    console.log(
      `| ${name} | ${(terms / qs.length).toFixed(0)} | ${f(ours.p50)} / ${f(ours.p99)} | ${f(luc.p50)} / ${f(luc.p99)} | ${(ours.p50 / luc.p50).toFixed(2)} | ${(ours.p99 / luc.p99).toFixed(2)} | ${same} of ${qs.length} |`,
    );
  }
} finally {
  await lucene.finish();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}
