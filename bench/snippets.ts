/**
 * npm run bench:snippets [-- --queries 100]
 *
 * What a search's results cost after the engine, by page size: a page's query-biased snippet and
 * fallback description, found by scanning the page and by its passage index (core/passages.ts),
 * and, once per page, what storing the index costs (time to build, bytes) and the time to make
 * its near-duplicate fingerprint (core/near-duplicate.ts), for
 * markdown pages of about 1.5, 10, 30 and 100 kB generated from SciFact sentences (headings,
 * paragraphs, lists), with the SciFact claims as queries. The search benchmark's corpus has pages
 * of about 850 characters and no markdown (its line comes first: those are the results of
 * bench:http's figure); real pages are longer, and this is where their cost shows. Scanned and
 * indexed results are checked to be the same.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { queryTerms, stem } from '../src/core/text.js';
import { nearFingerprint } from '../src/core/near-duplicate.js';
import { buildPassages } from '../src/core/passages.js';
import { pageSnippet, SnippetQuery } from '../src/ops/snippet.js';
import { benchQuerySets, generateDocs, loadCorpus, median, sentencesOf } from './scifact.js';

const { values } = parseArgs({ options: { queries: { type: 'string', default: '100' } } });
const sentences = sentencesOf(loadCorpus());
const queries = benchQuerySets(Number(values.queries))[0]![1].map((q) => new SnippetQuery(queryTerms(q).map(stem)));

/** A markdown page of about `size` characters: a heading every seventh block, a two-item list every eleventh, paragraphs of four sentences. */
function page(size: number): string {
  const blocks: string[] = [];
  let n = 0;
  for (let k = 0; n < size; k++) {
    const s = (i: number) => sentences[i % sentences.length]!;
    const block = k % 7 === 0 ? `## ${s(k).slice(0, 40)}` : k % 11 === 0 ? `- ${s(k * 3)}\n- ${s(k * 5)}` : [0, 1, 2, 3].map((i) => s(k * 13 + i * 101)).join(' ');
    blocks.push(block);
    n += block.length + 2;
  }
  return blocks.join('\n\n');
}

// The search benchmark's own pages (bench:search, bench:http): plain sentences, no markdown, scanned at search time.
{
  const docs = Array.from(generateDocs(sentences, 1_000));
  const plain = docs.map((d) => d.content);
  const long = plain.filter((md) => md.length > 500).length;
  const passes: number[] = [];
  for (let pass = 0; pass < 8; pass++) {
    const t = performance.now();
    queries.forEach((query, k) => {
      for (let i = 0; i < 10; i++) {
        const d = docs[(k * 10 + i) % docs.length]!;
        pageSnippet(d.content, undefined, query, 500, { describe: true, title: d.title });
      }
    });
    if (pass > 0) passes.push(performance.now() - t); // the first pass warms up
  }
  const us = (median(passes) / (10 * queries.length)) * 1000;
  console.log(
    `The search benchmark's pages (generated: plain SciFact sentences, ${long} of 1,000 over the 500-character snippet, ` +
      `${Math.round(plain.reduce((a, md) => a + md.length, 0) / plain.length)} characters on average): a result ${us.toFixed(1)} us, ten results ${((us * 10) / 1000).toFixed(3)} ms (the median of seven passes)`,
  );
}

console.log('| page (markdown characters) | a result, scanned us | a result, indexed us | ten results, scanned ms | ten results, indexed ms | index build ms | index bytes | fingerprint ms |');
console.log('|---|---|---|---|---|---|---|---|');
// Pages under PASSAGE_INDEX_MIN store no index; the 1.5 kB row builds one to show what it would give.
const pages = [1_500, 10_000, 30_000, 100_000].map((size) => {
  const md = page(size);
  return { md, passages: buildPassages(md, 0)! };
});
// One untimed pass over every page first: the first row's own warm-up pass left it timed while the
// code was still being optimized (1.5 kB pages read 77-127 us a result that way, 28-52 us after).
for (const { md, passages } of pages) {
  for (const query of queries) {
    pageSnippet(md, undefined, query, 500, { describe: true });
    pageSnippet(md, passages, query, 500, { describe: true });
  }
  for (let k = 0; k < 10; k++) nearFingerprint(md);
}
for (const { md, passages } of pages) {
  let built = performance.now();
  for (let k = 0; k < 10; k++) buildPassages(md, 0);
  built = (performance.now() - built) / 10;
  let printed = performance.now();
  for (let k = 0; k < 20; k++) nearFingerprint(md);
  printed = (performance.now() - printed) / 20;
  const t = { scanned: 0, indexed: 0 };
  for (let pass = 0; pass < 3; pass++) {
    const timed = pass > 0; // the first pass warms up
    for (const query of queries) {
      const t0 = performance.now();
      const scanned = pageSnippet(md, undefined, query, 500, { describe: true });
      const t1 = performance.now();
      const indexed = pageSnippet(md, passages, query, 500, { describe: true });
      const t2 = performance.now();
      if (scanned.snippet !== indexed.snippet || scanned.description !== indexed.description) {
        throw new Error(`scanned and indexed results differ:\n${JSON.stringify(scanned)}\n${JSON.stringify(indexed)}`);
      }
      if (scanned.snippet.length === 0 || scanned.description.length === 0) throw new Error('no snippet or description was made');
      if (timed) {
        t.scanned += t1 - t0;
        t.indexed += t2 - t1;
      }
    }
  }
  const us = (ms: number) => (ms / (2 * queries.length)) * 1000;
  const row = [md.length.toLocaleString('en-US'), us(t.scanned).toFixed(0), us(t.indexed).toFixed(0)];
  row.push(((us(t.scanned) * 10) / 1000).toFixed(2), ((us(t.indexed) * 10) / 1000).toFixed(2), built.toFixed(1));
  row.push(`${passages.byteLength.toLocaleString('en-US')} (${((100 * passages.byteLength) / md.length).toFixed(0)}%)`, printed.toFixed(2));
  console.log(`| ${row.join(' | ')} |`);
}
