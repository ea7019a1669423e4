/**
 * npm run bench:import [-- --pages 500 --chars 20000 --runs 3 --text scifact|french]
 *
 * Imports of pages of real length. The 1M benchmark's pages hold about 850 characters; web pages
 * hold tens of thousands, and what an import makes of each page (its language's guess, its passage
 * index, its near-duplicate fingerprint) grows with its length. Writes a JSONL file of `--pages`
 * markdown pages of about `--chars` characters each (paragraphs of five SciFact sentences drawn at
 * random, the same every run; with `--text french`, about 130 common French words drawn at random,
 * a fifth of them accented, as a page in a language of Latin letters with accents is written:
 * made-up text, as no French corpus is at hand) to a temporary folder, then:
 * - `websearch import` of it, the real CLI in a fresh process and a fresh data directory, `--runs`
 *   times: the seconds the CLI reports for the file (its start not counted) and the milliseconds a
 *   page, the median run last;
 * - what each page costs on one thread, each part alone over all the pages (the median of three
 *   passes): the language's guess (`detectLanguage`), the passage index (`buildPassages`), the
 *   near-duplicate fingerprint (`nearFingerprint`), and a webql phrase's check of a page for a
 *   phrase it lacks (`hasPhrase`, "heron otter": the pattern rules the page out, and it is read
 *   only around its accented words that may be the phrase's, of which French pages hold many).
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { detectLanguage } from '../src/core/language.js';
import { nearFingerprint } from '../src/core/near-duplicate.js';
import { buildPassages } from '../src/core/passages.js';
import { hasPhrase, wordKey } from '../src/core/phrase.js';
import { loadCorpus, median, picker, rng, sentencesOf } from './scifact.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '500' },
    chars: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '3' },
    text: { type: 'string', default: 'scifact' },
  },
});
const count = Number(values.pages);
const chars = Number(values.chars);
const runs = Number(values.runs);
for (const [name, v] of [['--pages', count], ['--chars', chars], ['--runs', runs]] as const) {
  if (!(Number.isInteger(v) && v >= 1)) throw new Error(`${name} takes a count, not ${String(v)}`);
}

if (values.text !== 'scifact' && values.text !== 'french') throw new Error(`--text takes scifact or french, not ${values.text}`);
const FRENCH = (
  'le la les un une des de du et à en est sont pour dans sur par avec plus que qui ne pas ce cette ces il elle ils nous vous on son sa ses leur été être avoir fait ' +
  'très où même après déjà aussi comme mais donc car entre sous depuis pendant avant toujours jamais souvent année années ville pays monde état général première ' +
  'premier dernière période économie société politique système santé développement élèves étudient littérature française français Paris longtemps maison école ' +
  'enfant travail vie temps histoire région médecin hôpital étude études résultat résultats problème réponse côté là qualité intérêt préférence théâtre musée église siècle rôle'
).split(' ');
const sentences = values.text === 'french' ? [] : sentencesOf(loadCorpus());
const pick = picker(rng(7));
const random = rng(11);
/** A French sentence of 8 to 20 words, its first capitalized. */
const frenchSentence = () => {
  const words = Array.from({ length: 8 + Math.floor(random() * 13) }, () => pick(FRENCH));
  return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
};
const sentence = values.text === 'french' ? frenchSentence : () => pick(sentences);
const pages: string[] = [];
for (let i = 0; i < count; i++) {
  let markdown = '';
  while (markdown.length < chars) markdown += `${Array.from({ length: 5 }, sentence).join(' ')}\n\n`;
  pages.push(markdown);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
try {
  const file = join(dir, 'pages.jsonl');
  const out = createWriteStream(file);
  for (const [i, markdown] of pages.entries()) {
    const line = { url: `https://site${i % 100}.example/doc/${i}`, title: sentence().slice(0, 80), markdown, published_at: '2024-01-01' };
    if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const mb = pages.reduce((n, p) => n + p.length, 0) / 1e6;
  console.log(`${count} pages of about ${chars.toLocaleString('en-US')} characters of ${values.text === 'french' ? 'French' : 'SciFact sentences'} (${mb.toFixed(1)} MB of markdown):`);

  const main = join(import.meta.dirname, '..', 'src', 'cli', 'main.ts');
  const seconds: number[] = [];
  for (let run = 0; run < runs; run++) {
    const data = join(dir, `data-${run}`);
    const child = spawnSync(process.execPath, ['--import', 'tsx', main, '--data-dir', data, 'import', file], { encoding: 'utf8' });
    const summary = /imported (\d+), .*\(([\d.]+) s\)\s*$/m.exec(child.stderr);
    if (child.status !== 0 || summary === null || Number(summary[1]) !== count) throw new Error(`websearch import failed (exit ${child.status}):\n${child.stderr}`);
    seconds.push(Number(summary[2]));
    rmSync(data, { recursive: true, force: true });
  }
  const perPage = (s: number) => `${((1000 * s) / count).toFixed(1)} ms a page`;
  console.log(`websearch import: ${seconds.map((s) => `${s.toFixed(1)} s`).join(', ')}; median ${median(seconds).toFixed(1)} s, ${perPage(median(seconds))}`);

  const part = (name: string, f: (page: string) => unknown) => {
    const times: number[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const t = performance.now();
      for (const page of pages) f(page);
      times.push(performance.now() - t);
    }
    console.log(`  ${name}: ${((1000 * median(times)) / count).toFixed(0)} us a page`);
  };
  console.log('Each part alone, on one thread:');
  part('the language (detectLanguage)', detectLanguage);
  part('the passage index (buildPassages)', buildPassages);
  part('the near-duplicate fingerprint (nearFingerprint)', nearFingerprint);
  const lacked = ['heron', 'otter'].map(wordKey);
  part('a phrase the page lacks, "heron otter" (hasPhrase)', (page) => hasPhrase(page, lacked));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
