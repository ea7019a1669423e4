/**
 * Crawls of made-up sites: pages on three hosts of one site (three origins on 127.0.0.1), each
 * answering after a delay of its own, linking to one another at random. A crawl to depth D stores
 * exactly the pages within D links of its seed, whatever order the hosts answer in: a page found
 * first by a longer path (its host was free while a shorter path's was busy) is not left at that depth.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rng } from '../../bench/scifact.js';
import { crawl } from '../../src/acquire/crawler.js';
import { startMadeUpOrigin } from '../fixtures/made-up-origin.js';
import { type Origin, startOrigin } from '../fixtures/origin.js';
import { createTestEnv, type TestEnv } from '../helpers.js';

describe('crawls of made-up sites', () => {
  let env: TestEnv;
  const hosts: Origin[] = [];
  /** Each round's graph: the links of page k of round r, as [host, page] pairs. */
  const graphs = new Map<number, number[][]>();
  const homes = new Map<number, number[]>();
  before(async () => {
    env = await createTestEnv({ allowPrivateNetwork: true });
    for (const delay of [0, 4, 25]) {
      hosts.push(
        await startOrigin({
          '*': (req, res) => {
            const m = /^\/r(\d+)\/n\/(\d+)$/.exec(req.url ?? '');
            const links = m ? graphs.get(Number(m[1]))?.[Number(m[2])] : undefined;
            if (!m || !links) {
              res.writeHead(404, { 'content-type': 'text/plain' });
              res.end('no');
              return;
            }
            const round = Number(m[1]);
            const body = `<html><head><title>Page ${m[2]}</title></head><body><article><p>Page ${m[2]} of round ${round}, with words enough to be read as an article about orchards.</p>${links
              .map((k) => `<a href="${hosts[homes.get(round)![k]!]!.url}/r${round}/n/${k}">page ${k}</a>`)
              .join(' ')}</article></body></html>`;
            setTimeout(() => {
              res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
              res.end(body);
            }, delay);
          },
        }),
      );
    }
  });
  after(async () => {
    await env.close();
    for (const h of hosts) await h.close();
  });

  test('a crawl to depth D stores exactly the pages within D links of its seed', async () => {
    const random = rng(29);
    for (let round = 0; round < 12; round++) {
      const count = 24;
      const home = Array.from({ length: count }, () => Math.floor(random() * hosts.length));
      const links = Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => Math.floor(random() * count)));
      homes.set(round, home);
      graphs.set(round, links);
      const url = (k: number) => `${hosts[home[k]!]!.url}/r${round}/n/${k}`;
      const maxDepth = 1 + Math.floor(random() * 4);
      // Breadth first from page 0: each page's distance.
      const distance = new Map([[0, 0]]);
      for (const queue = [0]; queue.length > 0; ) {
        const k = queue.shift()!;
        for (const l of links[k]!) {
          if (!distance.has(l)) {
            distance.set(l, distance.get(k)! + 1);
            queue.push(l);
          }
        }
      }
      const expected = [...distance].filter(([, d]) => d <= maxDepth).map(([k]) => k).sort((a, b) => a - b);
      await crawl(
        { client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages },
        { seeds: [url(0)], maxPages: 1000, maxDepth, scope: 'same-site', concurrency: 4, delayMs: 0, sitemaps: false },
      );
      const stored = [];
      for (let k = 0; k < count; k++) if (await env.services.pages.latest(url(k))) stored.push(k);
      assert.deepEqual(stored, expected, `round ${round}, depth ${maxDepth}: ${JSON.stringify(links)} on hosts ${JSON.stringify(home)}`);
    }
  });
});

describe('crawls of made-up origins', () => {
  test('a crawl over pages that misbehave in every way ends, each page visited to an end', { timeout: 120_000 }, async () => {
    const random = rng(37);
    const origin = await startMadeUpOrigin(random, { links: true, wellFormed: 0.4 });
    const env = await createTestEnv({ allowPrivateNetwork: true, fetchTimeoutMs: 400 });
    try {
      const seeds = Array.from({ length: 12 }, () => `${origin.base}${origin.answer()}`);
      const deps = { client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages };
      // Waits capped at 20 ms: a made-up Retry-After of 3,000 years must not hold the crawl.
      const options = { seeds, maxPages: 5000, maxDepth: 3, scope: 'same-site' as const, concurrency: 4, delayMs: 0, sitemaps: false, maxWaitMs: 20 };
      const result = await crawl(deps, options);
      assert.equal(result.queued, 0, JSON.stringify(result));
      assert.ok(result.stored >= 5 && result.failed >= 5, JSON.stringify(result));
      // Run again, the crawl is over: nothing left to visit, nothing stored.
      const again = await crawl(deps, options);
      assert.deepEqual([again.done, again.failed, again.queued, again.stored], [result.done, result.failed, 0, 0]);
    } finally {
      await env.close();
      await origin.close();
    }
  });
});
