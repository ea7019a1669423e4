/**
 * npm run bench:extract [-- --only ours|readability-jsdom|readability-linkedom] [--show ID] [--dump DIR] [--heavy] [--stages]
 *
 * Main-content extraction on ../shared/data/article-extraction-benchmark (181 pages), with the metric
 * its SOURCE.md defines (upstream evaluate.py): tokens are Unicode \w+ runs, case-sensitive; each text
 * is a multiset of 4-token shingles; per page tp/fp/fn over the shingle counts; precision averaged
 * over pages with output, recall over all pages; F1 of the two averages. Our markdown is compared as
 * plain text (markdown syntax stripped). Speed: pages per second on one core (single thread, parse +
 * extract + markdown; the html is decompressed beforehand), measured in the same run for each tool.
 * Then how many pages' metadata (title, description, author) hold markup, an entity or U+FFFD, and
 * how many have a publication time before the year 1000 (a program's zero), and the time ours takes
 * for a page nested 100,000 levels deep and for a 10 MB page. `--heavy`
 * also reads four pages of a million or so elements on a reader thread with a 512 and a 1024 MiB heap.
 * `--stages` times ours stage by stage instead (below), and exits.
 * `--dump DIR` writes our markdown of each page to DIR/ID.md (run at two commits, `diff -rq`
 * counts the pages a change moves).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import { parseHTML } from 'linkedom';
import { parseHtml } from '../src/acquire/extract/dom.js';
import { extractHtml } from '../src/acquire/extract/index.js';
import { findMainContent, prune } from '../src/acquire/extract/main-content.js';
import { toMarkdown } from '../src/acquire/extract/markdown.js';
import { extractMetadata } from '../src/acquire/extract/metadata.js';
import { ReaderPool } from '../src/adapters/reader/reader-pool.js';
import { markdownToText } from '../src/core/text.js';
import { median } from './scifact.js';

const DIR = join(import.meta.dirname, '..', '..', 'shared', 'data', 'article-extraction-benchmark');
const { values } = parseArgs({ options: { only: { type: 'string' }, show: { type: 'string' }, worst: { type: 'string' }, dump: { type: 'string' }, heavy: { type: 'boolean', default: false }, stages: { type: 'boolean', default: false } } });

const truth = JSON.parse(readFileSync(join(DIR, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody: string; url?: string }>;
const pages = readdirSync(join(DIR, 'html'))
  .filter((f) => f.endsWith('.html.gz'))
  .map((f) => {
    const id = f.replace('.html.gz', '');
    return { id, html: gunzipSync(readFileSync(join(DIR, 'html', f))).toString('utf8'), url: truth[id]?.url ?? `https://example.com/${id}` };
  })
  .filter((p) => truth[p.id]);

function shingles(text: string): Map<string, number> {
  // Python's \w (the upstream metric) is Unicode-aware; JavaScript's \w is ASCII-only even with /u.
  const tokens = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  const m = new Map<string, number>();
  if (tokens.length === 0) return m;
  const n = Math.min(4, tokens.length);
  for (let i = 0; i + n <= tokens.length; i++) {
    const k = tokens.slice(i, i + n).join(' ');
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

function score(pred: string, gold: string): { p?: number; r: number } {
  const P = shingles(pred);
  const G = shingles(gold);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [k, c] of P) {
    const g = G.get(k) ?? 0;
    tp += Math.min(c, g);
    fp += Math.max(0, c - g);
  }
  for (const [k, c] of G) fn += Math.max(0, c - (P.get(k) ?? 0));
  const precision = tp + fp === 0 ? undefined : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  return { p: pred.trim() ? precision : undefined, r: recall };
}

const silent = new VirtualConsole();
const tools: Record<string, (html: string, url: string) => string> = {
  ours: (html, url) => markdownToText(extractHtml(html, url).content),
  'readability-linkedom': (html) => {
    const { document } = parseHTML(html);
    return new Readability(document as unknown as Document).parse()?.textContent ?? '';
  },
  'readability-jsdom': (html, url) => {
    const dom = new JSDOM(html, { url, virtualConsole: silent });
    return new Readability(dom.window.document).parse()?.textContent ?? '';
  },
};

// --stages: where ours spends its time, stage by stage (those `extractHtml` runs, its link list
// aside): over the 181 pages (the median of five passes after one to warm up), and over one page of
// 1,100,000 `<p>ab</p>` (one pass); then it exits. Copied into a worktree of an older commit, it
// times that commit's stages the same way.
if (values.stages) {
  const stages = ['parse', 'metadata', 'prune', 'main content', 'markdown'];
  const timeStages = (html: string, url: string, into: number[]) => {
    let t = performance.now();
    const lap = (k: number) => {
      const now = performance.now();
      into[k]! += now - t;
      t = now;
    };
    const doc = parseHtml(html);
    lap(0);
    extractMetadata(doc, url);
    lap(1);
    prune(doc);
    lap(2);
    const { nodes } = findMainContent(doc);
    lap(3);
    toMarkdown(nodes, url);
    lap(4);
  };
  const passes = Array.from({ length: 6 }, () => {
    const into = stages.map(() => 0);
    for (const p of pages) timeStages(p.html, p.url, into);
    return into;
  }).slice(1);
  const heavy = stages.map(() => 0);
  timeStages(`<html><body>${'<p>ab</p>'.repeat(1_100_000)}</body></html>`, 'https://example.com/', heavy);
  console.log('| stage | the 181 pages, ms (median of five passes) | a page of 1,100,000 `<p>ab</p>`, ms |\n|---|---|---|');
  stages.forEach((name, k) => console.log(`| ${name} | ${median(passes.map((p) => p[k]!)).toFixed(1)} | ${heavy[k]!.toFixed(0)} |`));
  process.exit(0);
}

if (values.show) {
  const p = pages.find((x) => x.id.startsWith(values.show!))!;
  const out = extractHtml(p.html, p.url);
  console.log(out.content.slice(0, 3000));
  console.log('\n---- truth ----\n', truth[p.id]!.articleBody.slice(0, 1500));
  console.log(score(markdownToText(out.content), truth[p.id]!.articleBody));
  process.exit(0);
}

console.log(`${pages.length} pages; metric as SOURCE.md; one core`);
console.log('| extractor | precision | recall | F1 | pages/s |\n|---|---|---|---|---|');
for (const [name, run] of Object.entries(tools)) {
  if (values.only && values.only !== name) continue;
  const outputs: string[] = [];
  for (const p of pages.slice(0, 5)) run(p.html, p.url); // warm-up
  const started = performance.now();
  for (const p of pages) outputs.push(run(p.html, p.url));
  const secs = (performance.now() - started) / 1000;
  const scored = pages.map((p, i) => ({ id: p.id, ...score(outputs[i]!, truth[p.id]!.articleBody) }));
  const ps = scored.filter((s) => s.p !== undefined).map((s) => s.p!);
  const precision = ps.reduce((a, b) => a + b, 0) / ps.length;
  const recall = scored.reduce((a, s) => a + s.r, 0) / scored.length;
  const f1 = (2 * precision * recall) / (precision + recall);
  console.log(`| ${name} | ${precision.toFixed(3)} | ${recall.toFixed(3)} | ${f1.toFixed(3)} | ${(pages.length / secs).toFixed(1)} |`);
  if (values.dump && name === 'ours') {
    mkdirSync(values.dump, { recursive: true });
    for (const p of pages) writeFileSync(join(values.dump!, `${p.id}.md`), extractHtml(p.html, p.url).content);
  }
  if (values.worst && name === 'ours') {
    const worst = scored.map((s) => ({ ...s, f: s.p === undefined ? 0 : (2 * s.p * s.r) / (s.p + s.r || 1) })).sort((a, b) => a.f - b.f);
    for (const w of worst.slice(0, Number(values.worst))) console.log(`  ${w.id.slice(0, 12)} P ${w.p?.toFixed(2)} R ${w.r.toFixed(2)}`);
  }
}

// Metadata as text: the pages whose title, description or author hold a tag of HTML, an entity
// (escaped twice by the site) or U+FFFD, and those with a publication time before the year 1000.
// Authors that are no name: a byline's label, date, time, handle or separator kept with it, a role
// or a news agency after a comma, or more than ten words (a teaser, a bio, a form's label).
if (!values.only || values.only === 'ours') {
  const marked = /<\/?(?:p|br|div|span|a|b|i|em|strong)\b[^<>]*>|&(?:#\d+|#x[0-9a-f]+|[a-z]+\d*);|\uFFFD/i;
  const notName = /^(?:\p{L}+\s+)?by\b|^\p{L}+:|\b(?:19|20)\d\d\b|\b\d{1,2}:\d\d\b|\s@\w|[|•]|\b(?:published|updated|said)\b|\(|,[^,]*\b(?:writer|reporter|correspondent|editor|columnist|associated press|reuters)\b/iu;
  let texts = 0;
  let zero = 0;
  let authors = 0;
  let badAuthors = 0;
  let dated = 0;
  for (const p of pages) {
    const out = extractHtml(p.html, p.url);
    if ([out.title, out.description, out.author].some((t) => t !== undefined && marked.test(t))) texts++;
    if (out.publishedAt !== undefined && out.publishedAt < Date.UTC(1000, 0, 1)) zero++;
    if (out.publishedAt !== undefined) dated++;
    if (out.author === undefined) continue;
    authors++;
    if (notName.test(out.author) || out.author.split(' ').length > 10) badAuthors++;
  }
  console.log(`Metadata (ours): ${texts} of ${pages.length} pages with markup, an entity or U+FFFD in a title, description or author; ${dated} with a publication time, ${zero} of them before the year 1000`);
  console.log(`Authors (ours): ${authors} of ${pages.length} pages name one; ${badAuthors} of them hold more than a name (a label, a date or time, a handle, a separator, "Published", a comment's "said", a role or news agency after a comma, more than ten words)`);
}

// A hostile page: one paragraph inside 100,000 nested <span>s (600 kB), then a paragraph after them.
if (!values.only || values.only === 'ours') {
  const levels = 100_000;
  const deep = `<html><body><article>${'<span>'.repeat(levels)}<p>The deepest paragraph.</p>${'</span>'.repeat(levels)}<p>${'after the nesting '.repeat(20)}</p></article></body></html>`;
  const started = performance.now();
  const out = extractHtml(deep, 'https://example.com/deep');
  if (!/The deepest paragraph\.[^]*after the nesting/.test(out.content)) throw new Error('the nested page lost its text');
  console.log(`A page nested ${levels.toLocaleString('en-US')} levels deep (${(deep.length / 1e3).toFixed(0)} kB), ours: ${(performance.now() - started).toFixed(0)} ms`);
  // The largest page a live fetch reads (10 MB after decompression): the benchmark's pages one after another.
  const parts = ['<html><body>'];
  for (let i = 0, size = 0; size < 10e6; i++) {
    const body = pages[i % pages.length]!.html.replace(/<\/?(?:html|head|body)\b[^>]*>/gi, '');
    parts.push(body);
    size += body.length;
  }
  const big = `${parts.join('')}</body></html>`;
  const t = performance.now();
  extractHtml(big, 'https://example.com/big');
  console.log(`A page of ${(big.length / 1e6).toFixed(1)} MB (the benchmark's pages one after another), ours: ${(performance.now() - t).toFixed(0)} ms on the thread that runs it`);
}

// --heavy: pages of about 10 MB made of a million or so elements, read as a live fetch reads them
// (a reader thread, its time limit out of the way) with a 512 and a 1024 MiB heap.
if (values.heavy) {
  const heavy: [string, string][] = [
    ['1,250,000 `<i>x</i>`', '<i>x</i>'.repeat(1_250_000)],
    ['1,100,000 `<p>ab</p>`', '<p>ab</p>'.repeat(1_100_000)],
    ['550,000 links', '<a href="/x">y</a>'.repeat(550_000)],
    ['a table of 350,000 rows', `<table>${'<tr><td>a</td><td>b</td></tr>'.repeat(350_000)}</table>`],
  ];
  console.log('| page | 512 MiB heap | 1024 MiB heap |\n|---|---|---|');
  const cells = new Map<string, string[]>();
  for (const maxHeapMb of [512, 1024]) {
    const pool = new ReaderPool({ threads: 1, timeoutMs: 120_000, maxWaiting: 1, maxHeapMb });
    await pool.start();
    for (const [name, body] of heavy) {
      const res = { requestedUrl: 'https://example.com/', url: 'https://example.com/', status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(`<html><body>${body}</body></html>`), fetchedAt: Date.now() };
      const t = performance.now();
      const cell = await pool.read(res).then(
        () => `${(performance.now() - t).toFixed(0)} ms`,
        (e: Error) => `fails after ${(performance.now() - t).toFixed(0)} ms: ${e.message}`,
      );
      cells.set(name, [...(cells.get(name) ?? []), cell]);
    }
    await pool.close();
  }
  for (const [name] of heavy) console.log(`| ${name} | ${cells.get(name)!.join(' | ')} |`);
}
