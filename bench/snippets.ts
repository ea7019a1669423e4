/**
 * npm run bench:snippets [-- --queries 100]
 *
 * What a search's results cost after the engine, by page size: the plain text of a page
 * (`pageText`), its query-biased snippet and its fallback description, for markdown pages of about
 * 1.5, 10, 30 and 100 kB generated from SciFact sentences (headings, paragraphs, lists), with the
 * SciFact claims as queries. The search benchmark's corpus has pages of about 850 characters and no
 * markdown; real pages are longer, and this is where their cost shows.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { queryTerms, stem } from '../src/core/text.js';
import { fallbackDescription, pageText, SnippetQuery, snippetOf } from '../src/ops/snippet.js';
import { benchQuerySets, loadCorpus, sentencesOf } from './scifact.js';

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

console.log('| page (markdown characters) | page text us | snippet us | description us | ten results ms |');
console.log('|---|---|---|---|---|');
for (const size of [1_500, 10_000, 30_000, 100_000]) {
  const md = page(size);
  const t = { text: 0, snippet: 0, description: 0 };
  let check = 0;
  for (let pass = 0; pass < 3; pass++) {
    const timed = pass > 0; // the first pass warms up
    for (const query of queries) {
      const t0 = performance.now();
      const text = pageText(md);
      const t1 = performance.now();
      check += snippetOf(text, query, 500).length;
      const t2 = performance.now();
      check += fallbackDescription(md, text).length;
      const t3 = performance.now();
      if (timed) {
        t.text += t1 - t0;
        t.snippet += t2 - t1;
        t.description += t3 - t2;
      }
    }
  }
  const us = (ms: number) => (ms / (2 * queries.length)) * 1000;
  const all = us(t.text) + us(t.snippet) + us(t.description);
  console.log(`| ${md.length.toLocaleString('en-US')} | ${us(t.text).toFixed(0)} | ${us(t.snippet).toFixed(0)} | ${us(t.description).toFixed(0)} | ${((all * 10) / 1000).toFixed(2)} |`);
  if (check === 0) throw new Error('no snippet was made');
}
