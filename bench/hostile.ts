/**
 * npm run bench:hostile
 *
 * What inputs made to be slow cost the paths that read what origins send: each was a pattern whose
 * time grew with the square (or the cube) of a run in the input, and is linear now. For each, the
 * input, its size and the median of five runs on this thread. robots.txt has a peer in the same
 * run: robots-parser's own matcher, which the service used before, on the same rules and URL. The
 * page of 80,000 <link> tags is one whose pruning was quadratic (each tag spliced out of its parent's list).
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { looksBlocked } from '../src/acquire/challenge.js';
import { pageFromResponse } from '../src/acquire/live-fetch.js';
import { robotsAllows } from '../src/acquire/robots.js';
import { parseSitemap } from '../src/acquire/sitemap.js';
import { buildMessages } from '../src/adapters/llm/openai-compatible.js';
import { median } from './scifact.js';

const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, body: string) => { isAllowed(url: string, ua: string): boolean | undefined };

async function timed(f: () => unknown): Promise<number> {
  const runs: number[] = [];
  for (let n = 0; n < 5; n++) {
    const t = performance.now();
    await f();
    runs.push(performance.now() - t);
  }
  return median(runs);
}

const kb = (s: string) => `${Math.round(Buffer.byteLength(s) / 1024)} KiB`;
const ms = (t: number) => `${t < 10 ? t.toFixed(2) : t.toFixed(0)} ms`;

// robots.txt: 500 KiB of wildcard rules, one check of a 2,000-character URL (the file parsed once).
const rule = `/${'*a'.repeat(50)}$`;
const robotsTxt = `User-agent: *\n${`Disallow: ${rule}\n`.repeat(Math.floor(500_000 / (rule.length + 11)))}`;
const url = `https://a.test/${'a'.repeat(2000)}b`;
const parsed = robotsParser('https://a.test/robots.txt', robotsTxt);
const parseOnly = await timed(() => robotsParser('https://a.test/robots.txt', robotsTxt));
const ours = (await timed(() => robotsAllows(robotsTxt, url, 'websearch'))) - parseOnly;
const theirs = await timed(() => parsed.isAllowed(url, 'websearch'));
console.log(`robots.txt check, ${kb(robotsTxt)} of rules like ${rule.slice(0, 12)}..., a 2,000-character URL: ours ${ms(Math.max(ours, 0))}, robots-parser's matcher ${ms(theirs)} (${(theirs / Math.max(ours, 0.01)).toFixed(0)}x)`);

const sitemap = `<urlset><url><loc>https://a.test/1</loc></url><url><loc><![CDATA[${' '.repeat(200_000)}`;
console.log(`sitemap cut in a CDATA run of 200,000 spaces (${kb(sitemap)}): ${ms(await timed(() => parseSitemap(sitemap)))}`);

const pre = `<html><body><article><p>A page about herons.</p><ul><li>one<pre>a${' '.repeat(1_000_000)}b\n</pre></li></ul></article></body></html>`;
const read = () => pageFromResponse({ requestedUrl: 'https://a.test/', url: 'https://a.test/', status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(pre), fetchedAt: 0 });
console.log(`page with a <pre> of 1,000,000 spaces in a list item (${kb(pre)}), read to markdown: ${ms(await timed(read))}`);

const links = `<html><body><article><p>A page about herons.</p>${'<link rel="x" href="/y">'.repeat(80_000)}</article></body></html>`;
const readLinks = () => pageFromResponse({ requestedUrl: 'https://a.test/', url: 'https://a.test/', status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(links), fetchedAt: 0 });
console.log(`page with 80,000 <link> tags in its body (${kb(links)}), read to markdown: ${ms(await timed(readLinks))}`);

const inputs = '<input '.repeat(28_000);
console.log(`login-wall check of 28,000 unclosed <input tags (${kb(inputs)}): ${ms(await timed(() => looksBlocked(200, inputs, 10)))}`);

const pages = '<page '.repeat(300_000);
console.log(`prompt delimiter kept, 300,000 unclosed <page tags (${kb(pages)}): ${ms(await timed(() => buildMessages('x', { url: 'https://a.test/', markdown: pages }, 1_000_000)))}`);
