/**
 * npm run bench:crawl [-- --pages 2000 --concurrency 16]
 *
 * Crawl throughput: a generated site of N pages (test/fixtures/site.ts: each page links to three
 * others, plus robots.txt and a sitemap) served on 127.0.0.1 in a separate process, crawled with
 * politeness off (--delay-ms 0) into a fresh SQLite database. Prints pages/s and the crawler
 * process's peak resident memory.
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { crawl } from '../src/acquire/crawler.js';
import { createServices } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';
import { tempDir } from '../test/helpers.js';

const { values } = parseArgs({
  options: { pages: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '16' }, child: { type: 'boolean', default: false } },
});
const pages = Number(values.pages);

if (values.child) {
  // The origin, in its own process so that serving does not share the crawler's core.
  const { startSite } = await import('../test/fixtures/site.js');
  const site = await startSite({ pages });
  process.send!({ url: site.url });
} else {
  const child = fork(new URL(import.meta.url).pathname, ['--child', '--pages', String(pages)], { execArgv: ['--import', 'tsx'] });
  const url = await new Promise<string>((r) => child.once('message', (m: { url: string }) => r(m.url)));
  const dir = tempDir();
  const services = await createServices(loadSettings({ env: {}, flags: { dataDir: dir.path, allowPrivateNetwork: true } }));
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const started = performance.now();
  const r = await crawl(
    { client: services.http, robots: services.robots, frontier: services.frontier, pages: services.pages, read: services.readPage },
    { seeds: [`${url}/p/0`], maxPages: pages + 10, maxDepth: 1000, scope: 'same-site', concurrency: Number(values.concurrency), delayMs: 0, sitemaps: true },
  );
  const secs = (performance.now() - started) / 1000;
  clearInterval(sampler);
  console.log(`generated site of ${pages} pages on 127.0.0.1, politeness off, concurrency ${values.concurrency} (one host: one request at a time)`);
  console.log(`| pages done | stored | failed | seconds | pages/s | peak RSS MiB |\n|---|---|---|---|---|---|`);
  console.log(`| ${r.done} | ${r.stored} | ${r.failed} | ${secs.toFixed(1)} | ${(r.done / secs).toFixed(1)} | ${(peakRss / 2 ** 20).toFixed(0)} |`);
  await services.close();
  dir.remove();
  child.kill();
}
