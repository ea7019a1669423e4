import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { crawl, crawlIdOf, type CrawlOptions, urlPattern } from '../../src/acquire/crawler.js';
import { html, type Route, startOrigin } from '../fixtures/origin.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { createTestEnv, page, type TestEnv } from '../helpers.js';
import { type Site, startSite } from '../fixtures/site.js';

const base = (site: Site, extra: Partial<CrawlOptions> = {}): CrawlOptions => ({
  seeds: [`${site.url}/p/0`],
  maxPages: 1000,
  maxDepth: 10,
  scope: 'same-site',
  concurrency: 4,
  delayMs: 0,
  sitemaps: true,
  ...extra,
});

describe('crawler', () => {
  let env: TestEnv;
  let site: Site;
  before(async () => {
    env = await createTestEnv({ allowPrivateNetwork: true, keylessPerSecond: 10000, keylessPerHour: 100000 });
    site = await startSite({ pages: 40 });
  });
  after(async () => {
    await env.close();
    await site.close();
  });
  // As `websearch crawl` composes it: pages are read on the reader thread.
  const deps = () => ({ client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages, read: env.services.reader?.readQueued });

  test('walks the site: links, the sitemap index (gzip), robots rules, canonical links, noindex', async () => {
    const r = await crawl(deps(), base(site));
    assert.equal(r.failed, 0);
    for (let i = 0; i < 40; i++) assert.ok(await env.services.pages.latest(`${site.url}/p/${i}`), `page ${i}`);
    assert.ok(await env.services.pages.latest(`${site.url}/orphan`), 'found through the sitemap');
    assert.equal(await env.services.pages.latest(`${site.url}/dup?ref=1`), undefined);
    assert.match((await env.services.pages.latest(`${site.url}/canonical`))!.content, /windmills/, 'stored under its canonical URL');
    assert.equal((await env.services.pages.latest(`${site.url}/hidden`))?.searchable, false);
    assert.ok(![...site.times.keys()].some((p) => p.startsWith('/private/')), 'robots.txt Disallow honoured');
    for (let i = 0; i < 40; i++) assert.equal(site.times.get(`/p/${i}`)?.length, 1, `page ${i} fetched once`);
    const hits = await env.app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 't' }, payload: { query: 'lighthouses tides' } });
    assert.equal(hits.json().results[0].url, `${site.url}/orphan`);
  });

  test('a page the operator removed is fetched but not stored, and its links are not followed', async () => {
    const origin = await startOrigin({
      '/robots.txt': html('', 404),
      '/a': html('<article><p>A page about gannets and their colonies on the northern cliffs.</p><a href="/b">next</a></article>'),
      '/b': html('<article><p>A page about razorbills, reached only from the removed page.</p></article>'),
    });
    try {
      await env.services.pages.removePages({ urls: [`${origin.url}/a`] }, Date.now());
      const r = await crawl(deps(), { seeds: [`${origin.url}/a`], maxPages: 10, maxDepth: 3, scope: 'same-site', concurrency: 1, delayMs: 0, sitemaps: false });
      assert.equal(r.stored, 0);
      assert.equal(r.skipped, 1);
      assert.equal(await env.services.pages.latest(`${origin.url}/a`), undefined);
      assert.ok(!origin.hits.includes('/b'), "the removed page's links were followed");
      assert.deepEqual(await env.services.frontier.reasons(r.crawlId, 5), [
        { state: 'skipped', reason: 'removed from the index by the operator (websearch pages remove)', pages: 1 },
      ]);
    } finally {
      await origin.close();
    }
  });

  test('a refresh uses conditional requests: unchanged pages answer 304 and add no version', async () => {
    const before = (await env.services.pages.stats()).versions;
    const r = await crawl(deps(), base(site, { refreshOlderThanMs: 0 }));
    assert.equal(r.notModified, 40);
    assert.equal((await env.services.pages.stats()).versions, before);
    site.setVersion(2);
    const changed = await crawl(deps(), base(site, { refreshOlderThanMs: 0 }));
    assert.equal(changed.stored, 40);
    assert.match((await env.services.pages.latest(`${site.url}/p/3`))!.content, /version 2/);
  });

  test('a 304 is a capture of the page as stored: an older capture imported later does not take the page over from then', async () => {
    const origin = await startOrigin({
      '/robots.txt': html('', 404),
      '/a': (q, r) => {
        if (q.headers['if-none-match'] === '"a1"') {
          r.writeHead(304, { etag: '"a1"' });
          return void r.end();
        }
        r.writeHead(200, { 'content-type': 'text/html', etag: '"a1"' });
        r.end('<html><body><article><p>Version A of the page about lighthouses and their keepers, as it still is.</p></article></body></html>');
      },
    });
    try {
      const options = { seeds: [`${origin.url}/a`], maxPages: 10, maxDepth: 0, scope: 'same-site' as const, concurrency: 1, delayMs: 0, sitemaps: false };
      await crawl(deps(), options);
      const url = `${origin.url}/a`;
      const first = (await env.services.pages.latest(url))!;
      await new Promise((r) => setTimeout(r, 20));
      const between = Date.now();
      await new Promise((r) => setTimeout(r, 20));
      assert.equal((await crawl(deps(), { ...options, refreshOlderThanMs: 0 })).notModified, 1);
      // A capture from between the two visits (an archive's, say) comes in afterwards.
      await env.services.pages.putVersion(page(url, { content: 'Version B, which the page showed for a while.', acquiredAt: between }));
      const history = (await env.services.pages.history(url)).map((v) => ({ content: v.content.slice(0, 9), at: v.acquiredAt }));
      assert.equal(history.length, 3, JSON.stringify(history));
      assert.deepEqual(history.map((v) => v.content), ['Version A', 'Version B', 'Version A']);
      assert.equal(history[0]!.at, first.acquiredAt);
      assert.ok(history[2]!.at > between, 'the page as stored again from the 304');
      assert.match((await env.services.pages.latest(url))!.content, /^Version A/);
    } finally {
      await origin.close();
    }
  });

  test("a page stored before media types were kept is asked for in full, not conditionally, and takes its type", async () => {
    const asked: string[] = [];
    const origin = await startOrigin({
      '/robots.txt': html('', 404),
      '/a': (q, r) => {
        asked.push(q.headers['if-none-match'] === undefined ? 'in full' : 'conditional');
        if (q.headers['if-none-match'] === '"a1"') {
          r.writeHead(304, { etag: '"a1"' });
          return void r.end();
        }
        r.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: '"a1"' });
        r.end('<html><body><article><p>The page about harbours and their cranes, as it still is.</p></article></body></html>');
      },
    });
    const db = openDatabase({ path: env.services.settings.sqlitePath });
    try {
      const url = `${origin.url}/a`;
      const options = { seeds: [url], maxPages: 10, maxDepth: 0, scope: 'same-site' as const, concurrency: 1, delayMs: 0, sitemaps: false, refreshOlderThanMs: 0 };
      await crawl(deps(), options);
      assert.equal((await env.services.pages.latest(url))!.mediaType, 'text/html');
      assert.equal((await crawl(deps(), options)).notModified, 1, 'typed: asked conditionally');
      // As an older release left it: the version without its type.
      db.prepare('UPDATE versions SET media_type = NULL WHERE page_id = (SELECT id FROM pages WHERE url = ?)').run(url);
      const again = await crawl(deps(), options);
      assert.deepEqual([again.notModified, again.unchanged], [0, 1]);
      assert.equal((await env.services.pages.latest(url))!.mediaType, 'text/html');
      assert.equal((await env.services.pages.history(url)).length, 1, 'the same content: no new version');
      assert.equal((await crawl(deps(), options)).notModified, 1, 'typed again: conditional again');
      assert.deepEqual(asked, ['in full', 'conditional', 'in full', 'conditional']);
    } finally {
      db.close();
      await origin.close();
    }
  });

  test('max pages, scope and include/exclude', async () => {
    const other = await startSite({ pages: 20 });
    try {
      const r = await crawl(deps(), base(other, { maxPages: 5, sitemaps: false }));
      assert.equal(r.done, 5);
      const r2 = await crawl(deps(), base(other, { maxPages: 100, sitemaps: false, exclude: urlPattern('/p/1\\d$'), maxDepth: 10 }));
      assert.ok(r2.done > 5);
      assert.equal(await env.services.pages.latest(`${other.url}/p/12`), undefined, 'excluded');
    } finally {
      await other.close();
    }
  });

  test('a failed page counts toward max pages: broken links cost no more requests than the limit, in this run or the next', async () => {
    const broken = await startSite({ pages: 20, brokenLinks: 6 });
    try {
      const fetched = () => [...broken.times.values()].reduce((n, t) => n + t.length, 0);
      const r = await crawl(deps(), base(broken, { maxPages: 12, sitemaps: false, concurrency: 1 }));
      assert.ok(r.failed > 0, 'broken links were visited');
      assert.equal(r.done + r.failed, 12);
      assert.equal(fetched(), 12);
      const again = await crawl(deps(), base(broken, { maxPages: 12, sitemaps: false, concurrency: 1 }));
      assert.equal(again.done + again.failed, 12);
      assert.equal(fetched(), 12, 'the resumed crawl had nothing left to spend');
    } finally {
      await broken.close();
    }
  });
});

describe('politeness', () => {
  test('one host is spaced by the delay (Crawl-delay wins when longer) while another proceeds in parallel', async () => {
    const env = await createTestEnv({ allowPrivateNetwork: true });
    const slowSite = await startSite({ pages: 4, crawlDelay: 0.3 });
    const fastSite = await startSite({ pages: 4, host: '127.0.0.2' });
    try {
      await crawl(
        { client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages },
        { seeds: [`${slowSite.url}/p/0`, `${fastSite.url}/p/0`], maxPages: 100, maxDepth: 5, scope: 'any-site', concurrency: 4, delayMs: 100, sitemaps: false },
      );
      const spacing = (s: Site) => {
        const t = [...s.times.entries()].filter(([p]) => p.startsWith('/p/')).map(([, v]) => v[0]!).sort((a, b) => a - b);
        return t.slice(1).map((x, i) => x - t[i]!);
      };
      assert.equal(spacing(slowSite).length, 3);
      for (const gap of spacing(slowSite)) assert.ok(gap >= 280, `Crawl-delay 0.3 s kept (gap ${gap} ms)`);
      for (const gap of spacing(fastSite)) assert.ok(gap >= 90, `default delay kept (gap ${gap} ms)`);
      const firstSlow = Math.min(...[...slowSite.times.values()].flat());
      const lastFast = Math.max(...[...fastSite.times.values()].flat());
      assert.ok(lastFast - firstSlow < 900, 'the two hosts were crawled at the same time, not one after the other');
    } finally {
      await env.close();
      await slowSite.close();
      await fastSite.close();
    }
  });

  test('a host whose robots.txt asks for a Crawl-delay longer than the crawl waits is skipped, not requested', async () => {
    const env = await createTestEnv({ allowPrivateNetwork: true });
    const robots = (delay: string): Route => (_q, r) => {
      r.writeHead(200, { 'content-type': 'text/plain' });
      r.end(`User-agent: *\nCrawl-delay: ${delay}\n`);
    };
    const page = html('<html><body><article><p>A page about tides and the moon, long enough to be read as an article.</p><a href="/b">b</a></article></body></html>');
    const day = await startOrigin({ '/robots.txt': robots('86400'), '/a': page, '/b': page });
    const forever = await startOrigin({ '/robots.txt': robots('1e400'), '/a': page, '/b': page }, '127.0.0.2');
    const patient = await startOrigin({ '/robots.txt': robots('0.2'), '/a': page, '/b': page }, '127.0.0.3');
    try {
      const deps = { client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages };
      const seeds = [day, forever, patient].map((o) => `${o.url}/a`);
      const r = await crawl(deps, { seeds, maxPages: 100, maxDepth: 3, scope: 'any-site', concurrency: 4, delayMs: 0, sitemaps: false, signal: AbortSignal.timeout(10_000) });
      assert.equal(r.skipped, 2, JSON.stringify(r));
      assert.deepEqual([day.hits, forever.hits].map((h) => h.filter((p) => p !== '/robots.txt')), [[], []], 'nothing but robots.txt is asked of them');
      // The summary `websearch crawl` prints says why.
      assert.deepEqual(await env.services.frontier.reasons(r.crawlId, 5), [
        { state: 'skipped', reason: 'robots.txt asks for 86400 s between requests, longer than the crawl waits (600 s)', pages: 1 },
        { state: 'skipped', reason: 'robots.txt asks for a Crawl-delay too large to count between requests, longer than the crawl waits (600 s)', pages: 1 },
      ]);
      assert.deepEqual(patient.hits.filter((p) => p !== '/robots.txt').sort(), ['/a', '/b'], 'a Crawl-delay within the wait is kept to');
    } finally {
      await env.close();
      await Promise.all([day, forever, patient].map((o) => o.close()));
    }
  });
});

describe('links to what is no page', () => {
  test('an image, a script or JSON behind a link is skipped as no page, not counted as a failure', async () => {
    const env = await createTestEnv({ allowPrivateNetwork: true });
    const typed = (type: string, body: string | Buffer): Route => (_q, r) => {
      r.writeHead(200, { 'content-type': type });
      r.end(body);
    };
    const site = await startOrigin({
      '/a': html('<html><body><article><p>A page about tides and the moon, long enough to be read as an article.</p><a href="/logo.png">logo</a> <a href="/app.js">app</a> <a href="/api.json">api</a></article></body></html>'),
      '/logo.png': typed('image/png', Buffer.alloc(8)),
      '/app.js': typed('application/javascript', 'var tides = 1;'),
      '/api.json': typed('application/json', '{"tides": 1}'),
    });
    try {
      const deps = { client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages };
      const r = await crawl(deps, { seeds: [`${site.url}/a`], maxPages: 100, maxDepth: 3, scope: 'same-site', concurrency: 4, delayMs: 0, sitemaps: false, signal: AbortSignal.timeout(10_000) });
      assert.deepEqual([r.stored, r.failed, r.skipped], [1, 0, 3], JSON.stringify(r));
      assert.deepEqual(
        (await env.services.frontier.reasons(r.crawlId, 5)).map((x) => x.reason).sort(),
        ['not a page (application/javascript)', 'not a page (application/json)', 'not a page (image/png)'],
      );
    } finally {
      await env.close();
      await site.close();
    }
  });
});

describe('a feed in a crawl', () => {
  test("a feed is no page to store, but its entries' pages are followed, as a sitemap's", async () => {
    const env = await createTestEnv({ allowPrivateNetwork: true });
    const page = (topic: string) => html(`<html><body><article><p>A page about ${topic}, long enough to be read as an article of its own.</p></article></body></html>`);
    const site = await startOrigin({
      '/feed.xml': (_q, r) => {
        r.writeHead(200, { 'content-type': 'application/xml' });
        r.end('<?xml version="1.0"?><rss version="2.0"><channel><title>Tides</title><item><title>Neap</title><link>/neap</link></item><item><title>Spring</title><link>/spring?utm_source=rss</link></item></channel></rss>');
      },
      '/neap': page('neap tides'),
      '/spring': page('spring tides'),
    });
    try {
      const deps = { client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages };
      const r = await crawl(deps, { seeds: [`${site.url}/feed.xml`], maxPages: 100, maxDepth: 3, scope: 'same-site', concurrency: 4, delayMs: 0, sitemaps: false, signal: AbortSignal.timeout(10_000) });
      assert.deepEqual([r.stored, r.failed, r.skipped], [2, 0, 0], JSON.stringify(r));
      assert.ok(await env.services.pages.latest(`${site.url}/neap`));
      assert.ok(await env.services.pages.latest(`${site.url}/spring`), 'the tracking parameter is not part of the page');
      assert.equal(await env.services.pages.latest(`${site.url}/feed.xml`), undefined);
    } finally {
      await env.close();
      await site.close();
    }
  });
});

describe('resume', () => {
  test('a crawl killed with SIGKILL resumes where it stopped when the same command runs again', async () => {
    const site = await startSite({ pages: 30, pageDelayMs: 60 });
    const env = await createTestEnv();
    const dataDir = env.services.settings.dataDir;
    await env.close();
    const cmd = ['--import', 'tsx', 'src/cli/main.ts', 'crawl', `${site.url}/p/0`, '--max-depth', '10', '--concurrency', '1', '--delay-ms', '0', '--no-sitemaps', '--json'];
    const childEnv = { ...process.env, WEBSEARCH_DATA_DIR: dataDir, WEBSEARCH_ALLOW_PRIVATE_NETWORK: 'true' };
    try {
      const child = spawn(process.execPath, cmd, { env: childEnv, stdio: 'ignore' });
      // Kill it once it is truly part-way: after the origin has served five pages (not after a fixed time).
      const served = () => [...site.times.keys()].filter((p) => p.startsWith('/p/')).length;
      const deadline = Date.now() + 60_000;
      while (served() < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      // A child that ended by itself (it could not start) has sent its 'exit' already: not waited for again.
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
      }
      const fetchedBefore = [...site.times.keys()].filter((p) => p.startsWith('/p/')).length;
      assert.ok(fetchedBefore > 0 && fetchedBefore < 30, `killed part-way (${fetchedBefore} pages fetched)`);
      // Not spawnSync: the origin lives in this process and must keep answering.
      const again = spawn(process.execPath, cmd, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      again.stdout!.on('data', (d) => (stdout += d));
      again.stderr!.on('data', (d) => (stderr += d));
      const code = await new Promise((r) => again.once('close', r));
      assert.equal(code, 0, stderr);
      const result = JSON.parse(stdout);
      assert.equal(result.done, 30);
      assert.equal(result.queued, 0);
      for (let i = 0; i < 30; i++) {
        const n = site.times.get(`/p/${i}`)?.length ?? 0;
        assert.ok(n >= 1 && n <= 2, `page ${i} fetched ${n} times (once, or twice if it was in flight at the kill)`);
      }
      assert.ok([...site.times.values()].filter((t) => t.length === 2).length <= 1);
    } finally {
      await site.close();
    }
  });
});

describe('include and exclude patterns', () => {
  test('a pattern takes time linear in the URL: a crafted link on a crawled page cannot stop the crawl', async () => {
    // JavaScript's RegExp takes 0.5 s for `(a+)+$` on 26 a's and an exclamation mark on this
    // machine, doubling with every two more: on these 4,000 it would never end.
    const crafted = `/${'a'.repeat(4000)}!`;
    const article = (text: string) => html(`<html><body><article><p>${text}, with words enough to be read as an article about harbours.</p></article></body></html>`);
    const site = await startOrigin({
      '/start': html(`<html><body><article><p>The start page links to a banana, a crafted link and the harbour, with words enough to be an article.</p><a href="/banana">a</a> <a href="${crafted}">b</a> <a href="/harbour">c</a></article></body></html>`),
      '/banana': article('The banana page'),
      '/harbour': article('The harbour page'),
      [crafted]: article('The crafted page'),
    });
    const env = await createTestEnv({ allowPrivateNetwork: true });
    try {
      const deps = { client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages };
      const options = { seeds: [`${site.url}/start`], maxPages: 100, maxDepth: 3, scope: 'same-site' as const, concurrency: 2, delayMs: 0, sitemaps: false };
      const r = await crawl(deps, { ...options, exclude: urlPattern('(a+)+$') });
      assert.equal(r.stored, 3, JSON.stringify(r));
      assert.ok(await env.services.pages.latest(`${site.url}${crafted}`), 'the crafted URL ends in "!": not excluded, and crawled');
      assert.ok(await env.services.pages.latest(`${site.url}/harbour`));
      assert.ok(!site.hits.includes('/banana'), 'a URL ending in a run of a\'s is excluded, never requested');
      // Include: only what the pattern finds something in, anywhere in the URL (as RegExp.test).
      const only = await crawl(deps, { ...options, seeds: [`${site.url}/start?again`], include: urlPattern('(a+)+$|\\?again$') });
      assert.equal(only.stored, 2, JSON.stringify(only));
      assert.ok(await env.services.pages.latest(`${site.url}/banana`), 'included');
    } finally {
      await env.close();
      await site.close();
    }
  });

  test('urlPattern reads RE2 syntax and refuses what cannot be matched in linear time', () => {
    assert.ok(urlPattern('/blog/\\d+').test('https://a.test/blog/12/post'));
    assert.ok(!urlPattern('^/blog/').test('https://a.test/blog/12'), 'anchored at the URL\'s start, not the path\'s');
    assert.equal(urlPattern('\\.pdf$').source, '\\.pdf$', 'the source names the crawl');
    // The id the release before gave this crawl, when patterns were RegExps (`/\/blog\//`, `/\.pdf$/`): it resumes.
    const ids = { seeds: ['https://a.test/'], scope: 'same-site' as const, maxDepth: 3 };
    assert.equal(crawlIdOf({ ...ids, include: urlPattern('/blog/'), exclude: urlPattern('\\.pdf$') }), '10602a691b6b5c84');
    assert.notEqual(crawlIdOf({ ...ids, include: urlPattern('/blog/') }), crawlIdOf(ids));
    for (const [source, words] of [['(?=x)', /unsupported Perl syntax/], ['a\\1', /invalid escape/], ['(a', /missing closing \)/]] as const) {
      assert.throws(() => urlPattern(source), (e: Error) => e instanceof SyntaxError && words.test(e.message), source);
    }
  });
});

describe('redirects in a crawl', () => {
  test('a redirect is followed only within the scope and robots.txt, and nothing outside them is requested', async () => {
    const article = (text: string) => html(`<html><body><article><p>${text}, with words enough to be read as an article about harbours.</p></article></body></html>`);
    const redirect = (to: string): Route => (_q, r) => {
      r.writeHead(302, { location: to });
      r.end();
    };
    const other = await startOrigin({ '/elsewhere': article('A page on another site') }, '127.0.0.2');
    const site = await startOrigin({
      '/robots.txt': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/plain' });
        r.end('User-agent: *\nDisallow: /private\n');
      },
      '/start': html('<html><body><article><p>The start page links to three redirects, each somewhere else, and to the harbour.</p><a href="/to-private">a</a> <a href="/to-other">b</a> <a href="/to-harbour">c</a></article></body></html>'),
      '/to-private': redirect('/private/x'),
      '/to-other': redirect(`${other.url}/elsewhere`),
      '/to-harbour': redirect('/harbour'),
      '/private/x': article('A private page'),
      '/harbour': article('The harbour page'),
    });
    const env = await createTestEnv({ allowPrivateNetwork: true });
    try {
      const deps = { client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages };
      const r = await crawl(deps, { seeds: [`${site.url}/start`], maxPages: 100, maxDepth: 3, scope: 'same-site', concurrency: 2, delayMs: 0, sitemaps: false });
      assert.ok(await env.services.pages.latest(`${site.url}/harbour`), 'a redirect within the site is followed');
      assert.equal(r.skipped, 2, JSON.stringify(r));
      assert.ok(!site.hits.includes('/private/x'), 'robots.txt forbids the target: it is never requested');
      assert.deepEqual(other.hits, [], 'another site is never requested in a same-site crawl');
      assert.equal(await env.services.pages.latest(`${site.url}/private/x`), undefined);
      assert.equal(await env.services.pages.latest(`${other.url}/elsewhere`), undefined);
      // A live fetch follows redirects to any site, but not where robots.txt forbids, and asks nothing there.
      const live = (path: string) => env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(`${site.url}${path}`)}&live=true`, headers: { 'x-service-title': 't' } });
      assert.equal((await live('/to-other')).statusCode, 200);
      const blocked = await live('/to-private');
      assert.equal(blocked.statusCode, 403);
      assert.equal(blocked.json().code, 'blocked_by_robots');
      assert.ok(!site.hits.includes('/private/x'));
    } finally {
      await env.close();
      await site.close();
      await other.close();
    }
  });
});
