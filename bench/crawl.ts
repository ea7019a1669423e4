/**
 * npm run bench:crawl [-- --pages 2000 --concurrency 16 --sites 1 --reader-threads 1]
 *
 * Crawl throughput: a generated site of N pages (test/fixtures/site.ts: each page links to three
 * others, plus robots.txt and a sitemap) served on 127.0.0.1 in a separate process, crawled with
 * politeness off (--delay-ms 0) into a fresh SQLite database. Prints pages/s and the crawler
 * process's peak resident memory. `--sites K` splits the pages over K sites on 127.0.0.1,
 * 127.0.0.2, ... (hosts are fetched in parallel, one request at a time each); `--reader-threads`
 * is WEBSEARCH_READER_THREADS (0: pages are read on the crawler's own thread). `--backlog N` queues N
 * more URLs of the first site at depth 1000 before the crawl starts, picked after every page of the
 * site so never fetched: a large crawl's frontier, which each pick reads (the median time of a
 * pick is printed first).
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { type CrawlOptions, crawl, crawlIdOf } from '../src/acquire/crawler.js';
import { createServices } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';
import { tempDir } from '../test/helpers.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    'reader-threads': { type: 'string', default: '1' },
    sites: { type: 'string', default: '1' },
    backlog: { type: 'string', default: '0' },
    child: { type: 'boolean', default: false },
  },
});
const pages = Number(values.pages);
const sites = Number(values.sites);

if (values.child) {
  // The origin, in its own process so that serving does not share the crawler's core.
  const { startSite } = await import('../test/fixtures/site.js');
  const started = await Promise.all(Array.from({ length: sites }, (_, k) => startSite({ pages: Math.ceil(pages / sites), host: `127.0.0.${k + 1}` })));
  process.send!({ urls: started.map((s) => s.url) });
} else {
  const child = fork(new URL(import.meta.url).pathname, ['--child', '--pages', String(pages), '--sites', String(sites)], { execArgv: ['--import', 'tsx'] });
  const urls = await new Promise<string[]>((r) => child.once('message', (m: { urls: string[] }) => r(m.urls)));
  const dir = tempDir();
  const services = await createServices(loadSettings({ env: {}, flags: { dataDir: dir.path, allowPrivateNetwork: true, readerThreads: values['reader-threads'] } }));
  const options: CrawlOptions = {
    seeds: urls.map((url) => `${url}/p/0`),
    maxPages: pages + 10 * sites,
    maxDepth: 1000,
    scope: 'same-site',
    concurrency: Number(values.concurrency),
    delayMs: 0,
    sitemaps: true,
  };
  const backlog = Number(values.backlog);
  const host = new URL(urls[0]!).host;
  for (let i = 0; i < backlog; i += 10_000) {
    const items = Array.from({ length: Math.min(10_000, backlog - i) }, (_, k) => ({ url: `${urls[0]}/backlog/${i + k}`, host, depth: 1000 }));
    await services.frontier.enqueue(crawlIdOf(options), items, Date.now());
  }
  if (backlog > 0) {
    // What one pick of the next pages costs with this frontier (the crawl makes one per page it ends).
    const picks: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t = performance.now();
      await services.frontier.due(crawlIdOf(options), Date.now(), 500);
      picks.push(performance.now() - t);
    }
    picks.sort((a, b) => a - b);
    console.log(`a pick of the next pages (up to 500) with ${backlog} more queued: ${picks[10]!.toFixed(2)} ms (median of 21)`);
  }
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const started = performance.now();
  const r = await crawl({ client: services.http, robots: services.robots, frontier: services.frontier, pages: services.pages, read: services.reader?.readQueued }, options);
  const secs = (performance.now() - started) / 1000;
  clearInterval(sampler);
  console.log(
    `generated site of ${pages} pages on ${sites} host(s) of 127.0.0.x, politeness off, concurrency ${values.concurrency} (one request at a time per host), ${values['reader-threads']} reader thread(s), ${backlog} more URLs queued`,
  );
  console.log(`| pages done | stored | failed | seconds | pages/s | peak RSS MiB |\n|---|---|---|---|---|---|`);
  console.log(`| ${r.done} | ${r.stored} | ${r.failed} | ${secs.toFixed(1)} | ${(r.done / secs).toFixed(1)} | ${(peakRss / 2 ** 20).toFixed(0)} |`);
  await services.close();
  dir.remove();
  child.kill();
}
