/**
 * npm run bench:hostile
 *
 * What inputs made to be slow cost the paths that read what origins send: each was a pattern whose
 * time grew with the square (or the cube) of a run in the input, and is linear now. For each, on
 * one input: the service now (the median of five runs on this thread), and in the same run the way
 * before, once (it takes seconds): robots-parser's own matcher, the regular expressions the code
 * had (kept here as they were), and pruning by `remove` one node at a time (which dom.ts keeps).
 * The inputs are sized for the way before to end in seconds; then the service alone on inputs the
 * way before would not finish (the tests' sizes), pages whose markdown grew far past them, and text
 * of markdown's characters escaped as text and read back.
 * Then a search whose ten results are pages of 5 MB: their versions read and their snippets made,
 * now (the part snippets read) and before (the whole content column). Last, a quoted phrase of two
 * common words never side by side, over 20,000 pages of 20 kB: read until the characters' bound,
 * and before until the reads' bound alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { looksBlocked } from '../src/acquire/challenge.js';
import type { AnyNode } from 'domhandler';
import { isElement, parseHtml, remove, removeAll, walk } from '../src/acquire/extract/dom.js';
import { pageFromResponse } from '../src/acquire/live-fetch.js';
import { robotsAllows } from '../src/acquire/robots.js';
import { parseSitemap } from '../src/acquire/sitemap.js';
import { buildMessages } from '../src/adapters/llm/openai-compatible.js';
import { EngineIndexStore } from '../src/adapters/engine/engine-index-store.js';
import { WEBQL_READ_CHARS_MAX, WEBQL_READS_MAX } from '../src/adapters/engine/webql-search.js';
import { type Db, openDatabase } from '../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import { holdEscapes } from '../src/core/escapes.js';
import { SCAN_LIMIT, segment } from '../src/core/passages.js';
import { cachedStem } from '../src/core/text.js';
import { parseWebql } from '../src/core/webql.js';
import { pageSnippet, SnippetQuery } from '../src/ops/snippet.js';
import { median } from './scifact.js';

const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, body: string) => { isAllowed(url: string, ua: string): boolean | undefined };

async function timed(f: () => unknown, runs = 5): Promise<number> {
  const times: number[] = [];
  for (let n = 0; n < runs; n++) {
    const t = performance.now();
    await f();
    times.push(performance.now() - t);
  }
  return median(times);
}

const kb = (s: string) => `${Math.round(Buffer.byteLength(s) / 1024)} KiB`;
const ms = (t: number) => `${t < 10 ? t.toFixed(2) : t.toFixed(0)} ms`;
const read = (html: string) => pageFromResponse({ requestedUrl: 'https://a.test/', url: 'https://a.test/', status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(html), fetchedAt: 0 });
const compare = async (what: string, now: () => unknown, before: () => unknown) => {
  const [n, b] = [await timed(now), await timed(before, 1)];
  console.log(`${what}: now ${ms(n)}, before ${ms(b)} (${(b / Math.max(n, 0.01)).toFixed(0)}x)`);
};

console.log('The service now against the way before, on the same input:');

// robots.txt: 500 KiB of wildcard rules, one check of a 2,000-character URL (the file parsed once).
const rule = `/${'*a'.repeat(50)}$`;
const robotsTxt = `User-agent: *\n${`Disallow: ${rule}\n`.repeat(Math.floor(500_000 / (rule.length + 11)))}`;
const url = `https://a.test/${'a'.repeat(2000)}b`;
const parsed = robotsParser('https://a.test/robots.txt', robotsTxt);
const parseOnly = await timed(() => robotsParser('https://a.test/robots.txt', robotsTxt));
const ours = Math.max((await timed(() => robotsAllows(robotsTxt, url, 'websearch'))) - parseOnly, 0);
const theirs = await timed(() => parsed.isAllowed(url, 'websearch'));
console.log(`robots.txt check, ${kb(robotsTxt)} of rules like ${rule.slice(0, 12)}..., a 2,000-character URL: now ${ms(ours)}, robots-parser's matcher ${ms(theirs)} (${(theirs / Math.max(ours, 0.01)).toFixed(0)}x)`);

const cdata = (n: number) => `<urlset><url><loc>https://a.test/1</loc></url><url><loc><![CDATA[${' '.repeat(n)}`;
const OLD_LOC = /<loc>\s*(?:<!\[CDATA\[\s*([^\]]*?)\s*\]\]>|([^<]+?))\s*<\/loc>/gi;
await compare('sitemap cut in a CDATA run of 2,000 spaces', () => parseSitemap(cdata(2000)), () => [...cdata(2000).matchAll(OLD_LOC)]);

// The list item's text as the markdown writer joined it: the code block's lines, then the patterns before.
const itemText = (n: number) => `one\`\`\`\na${' '.repeat(n)}b\n\`\`\``;
const pre = (n: number) => `<html><body><article><p>A page about herons.</p><ul><li>one<pre>a${' '.repeat(n)}b\n</pre></li></ul></article></body></html>`;
await compare(
  'a <pre> of 40,000 spaces in a list item (now: the page read to markdown; before: its two patterns)',
  () => read(pre(40_000)),
  () => `a${' '.repeat(40_000)}b\n`.replace(/^\n+|\s+$/g, '') && itemText(40_000).replace(/\s*\n\s*/g, ' '),
);

const links = (n: number) => `<html><body><article><p>A page about herons.</p>${'<link rel="x" href="/y">'.repeat(n)}</article></body></html>`;
// Collected by `walk` as prune collects what it drops, then taken out as prune took them before, and now.
const pruned = (one: boolean) => () => {
  const doc = parseHtml(links(80_000));
  const doomed: AnyNode[] = [];
  walk(doc, (n) => {
    if (isElement(n) && n.name === 'link') {
      doomed.push(n);
      return false;
    }
  });
  if (one) for (const n of doomed) remove(n);
  else removeAll(doomed);
};
await compare('pruning 80,000 <link> tags out of one parent (parsed, collected, taken out)', pruned(false), pruned(true));

const inputs = '<input '.repeat(20_000);
await compare(`login-wall check of 20,000 unclosed <input tags (${kb(inputs)})`, () => looksBlocked(200, inputs, 10), () => /<input[^>]+type\s*=\s*["']?password/i.test(inputs));

const pages = '<page '.repeat(40_000);
await compare(
  `prompt delimiter, 40,000 unclosed <page tags (${kb(pages)})`,
  () => buildMessages('x', { url: 'https://a.test/', markdown: pages }, 1_000_000),
  () => pages.replace(/<\/?page\b[^>]*>/gi, (m) => m.replace('<', '‹')),
);

console.log('The service alone, on inputs the way before would not finish:');
console.log(`sitemap cut in a CDATA run of 200,000 spaces: ${ms(await timed(() => parseSitemap(cdata(200_000))))}`);
console.log(`page with a <pre> of 1,000,000 spaces in a list item (${kb(pre(1_000_000))}), read to markdown: ${ms(await timed(() => read(pre(1_000_000))))}`);
console.log(`page with 80,000 <link> tags in its body (${kb(links(80_000))}), read to markdown: ${ms(await timed(() => read(links(80_000))))}`);
// Pages whose markdown grew far past them: rows padded to a wide row (a reader ran out of memory),
// each level of 250 nested quotes prefixing every line under it (19 s, 125 times the page), links
// resolved against a 20 kB <base> (400 MB of markdown).
const article = (body: string, head = '') => `<html><head>${head}</head><body><article><p>A page about herons and the water they wade in.</p>${body}</article></body></html>`;
const grown = [
  ['a table of one 20,000-cell row over 20,000 rows', article(`<table><tr>${'<td>x</td>'.repeat(20_000)}</tr>${'<tr><td>a</td><td>b</td></tr>'.repeat(20_000)}</table>`)],
  ['250 nested quotes around 100,000 paragraphs', article(`${'<blockquote>'.repeat(250)}${'<p>x</p>'.repeat(100_000)}`)],
  // Links standing alone between the article's blocks are teasers, left out: each asked its 40,000 siblings once (14 s).
  ['20,000 links standing alone beside a paragraph', article(Array.from({ length: 20_000 }, (_, i) => `<a href="b${i}">x</a> `).join(''))],
  // In a paragraph, the links stay.
  ['20,000 links under a <base> of 20,000 characters', article(`<p>${Array.from({ length: 20_000 }, (_, i) => `<a href="b${i}">x</a> `).join('')}</p>`, `<base href="https://a.test/${'a'.repeat(20_000)}/">`)],
] as const;
for (const [what, html] of grown) {
  const t = await timed(() => read(html));
  console.log(`page of ${what} (${kb(html)}), read to markdown: ${ms(t)}, ${kb((await read(html)).content)} of markdown`);
}
// Text of markdown's characters, escaped as text (core/escapes.ts): a paragraph of 10 MB of one
// (`_` overflowed the stack in a break's pattern), and a line of runs of 1, 2, 3, ... backticks,
// whose code spans reading markdown as text looks for (a bounded search).
for (const unit of ['_', '*', '\\', 'a_b ', '[x](y) ']) {
  const html = article(`<p>${unit.repeat(Math.floor(10_000_000 / unit.length))}</p>`);
  console.log(`page of a paragraph of 10 MB of ${JSON.stringify(unit)}, read to markdown: ${ms(await timed(() => read(html)))}`);
}
let ticks = '';
for (let n = 1; ticks.length < 200_000; n++) ticks += `${'`'.repeat(n)} `;
ticks += '\\*';
console.log(`a line of runs of 1, 2, 3, ... backticks (${kb(ticks)}) and an escape, read as text: ${ms(await timed(() => holdEscapes(ticks)))}`);
// Markdown read as text, as a snippet's scan and a passage index read a page's first SCAN_LIMIT
// characters (core/text.ts `withoutMarks`: a pipe is a mark on a table row's line only, a `_` inside a
// word and a `*` between spaces are text, a code span's text is held; core/escapes.ts `codeLines`:
// a code block's lines are held; `withoutRuleLines`, `withoutClosingHashes`: breaks, underlines and
// a heading's closing #s hold no text).
const repeated = (unit: string) => unit.repeat(Math.floor(SCAN_LIMIT / unit.length));
const texts: [string, string][] = [
  ...['a|', '|a|\n', 'a_', '* ', '`a_b*c` ', '`', '```\nx\n', '~~~\na*b_c|d\n', '# a #\n', '***\n', '=\n'].map((u) => [JSON.stringify(u), repeated(u)] as [string, string]),
  ['one code block of lines of marks', `\`\`\`\n${repeated('a*b_c|d `x` [y](z)\n')}`],
  ['a heading of spaces and a #', `# ${' '.repeat(SCAN_LIMIT - 4)}#x`],
];
for (const [what, md] of texts) {
  console.log(`markdown of ${kb(md)} of ${what}, cut into sentences: ${ms(await timed(() => segment(md)))}`);
}
const many = '<page '.repeat(300_000);
console.log(`prompt delimiter, 300,000 unclosed <page tags (${kb(many)}): ${ms(await timed(() => buildMessages('x', { url: 'https://a.test/', markdown: many }, 1_000_000)))}`);

/** `use` on a new database and its page store, in a folder removed after. */
async function withStore(use: (db: Db, store: SqlitePageStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'websearch-hostile-'));
  try {
    const db = openDatabase({ path: join(dir, 'pages.db') });
    try {
      await use(db, new SqlitePageStore(db));
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Ten pages of 5 MB of sentences, stored as an import stores them (with their passage indexes).
await withStore(async (db, store) => {
  const words = 'the otter swims in cold rivers and eats fish while the heron waits near reeds for frogs'.split(' ');
  const bigPage = (i: number) => {
    const lines: string[] = [`# Page ${i}`];
    for (let k = i, n = 0; n < 5_000_000; ) {
      const sentence = Array.from({ length: 12 }, () => words[(k = (k * 1103515245 + 12345) % 2147483648) % words.length]).join(' ');
      lines.push(`${sentence}.`);
      n += sentence.length + 2;
    }
    return { url: `https://a.test/${i}`, host: 'a.test', content: lines.join('\n\n'), acquiredAt: 1_700_000_000_000 + i, searchable: true };
  };
  const ids = (await store.putVersions(Array.from({ length: 10 }, (_, i) => bigPage(i)))).map((o) => (o.status === 'removed' ? Number.NaN : o.version.id));
  const whole = db.prepare<number[], { content: string; passages: Buffer | null }>(
    `SELECT content, passages FROM versions WHERE id IN (${ids.map(() => '?').join(', ')})`,
  );
  const query = new SnippetQuery(['otter', 'heron', 'frog'].map(cachedStem));
  await compare(
    'a search of ten 5 MB pages: their versions read and their snippets made',
    async () => {
      for (const v of await store.getVersions(ids)) pageSnippet(v.content, v.passages, query, 300, { describe: true });
    },
    () => {
      for (const v of whole.all(...ids)) pageSnippet(v.content, v.passages ?? undefined, query, 300, { describe: true });
    },
  );
});

// A quoted phrase of two words that every page holds but none side by side, over pages of 20 kB:
// every page is a candidate, and each is read and looked through. Now (the reads' bound and the
// characters' bound) against the reads' bound alone.
await withStore(async (db, store) => {
  const vocabulary = 'the otter swims in cold rivers and eats fish while a heron waits near reeds for frogs at dawn'.split(' ');
  const pageOf = (i: number) => {
    const sentences: string[] = [];
    let k = i + 1;
    let last = '';
    for (let n = 0; n < 20_000; ) {
      const ws: string[] = [];
      while (ws.length < 12) {
        const w = vocabulary[(k = (k * 48271) % 2147483647) % vocabulary.length]!;
        if (w === 'otter' && last === 'heron') continue; // never "heron otter", in a sentence or across two
        ws.push((last = w));
      }
      const sentence = `${ws.join(' ')}.`;
      sentences.push(sentence);
      n += sentence.length + 1;
    }
    // And a word with an accent, as many real pages hold one (a name, a café): the phrase's sieve
    // (core/phrase.ts) then no longer rules the page out alone, and the page is looked through
    // around it (here passed over: no word of its run may be the phrase's).
    sentences[i % sentences.length] = `At the café, ${sentences[i % sentences.length]}`;
    return { url: `https://p${i % 100}.test/${i}`, host: `p${i % 100}.test`, title: `Page ${i}`, content: sentences.join(' '), acquiredAt: 1_700_000_000_000 + i, searchable: true };
  };
  const PHRASE_PAGES = 20_000;
  for (let i = 0; i < PHRASE_PAGES; i += 500) await store.putVersions(Array.from({ length: 500 }, (_, j) => pageOf(i + j)));
  const node = parseWebql('"heron otter"');
  const phraseSearch = async (options: ConstructorParameters<typeof EngineIndexStore>[1]) => {
    const engine = await new EngineIndexStore(db, options).open();
    let found = 0;
    const t = await timed(async () => (found = (await engine.search({ terms: [], webql: node, limit: 10 })).length), 3);
    await engine.close();
    return { t, found };
  };
  const [now, before] = [await phraseSearch({}), await phraseSearch({ webqlReadCharsMax: Number.POSITIVE_INFINITY })];
  console.log(
    `"heron otter" over ${PHRASE_PAGES.toLocaleString('en-US')} pages of 20 kB holding both words, never side by side, and a café (${WEBQL_READS_MAX.toLocaleString('en-US')} candidates read at most): now ${ms(now.t)} (reads end after ${WEBQL_READ_CHARS_MAX.toLocaleString('en-US')} characters), ${now.found} found; the reads' bound alone ${ms(before.t)}, ${before.found} found (${(before.t / now.t).toFixed(1)}x)`,
  );
});
