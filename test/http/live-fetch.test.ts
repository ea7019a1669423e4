import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import type { createLiveFetcher } from '../../src/acquire/live-fetch.js';
import { html, type Origin, startOrigin } from '../fixtures/origin.js';
import { createFundedKey, createTestEnv, page, type TestEnv } from '../helpers.js';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Otters | Nature Site</title>
<meta name="description" content="All about otters">
<meta name="author" content="Ada Lovelace">
<meta property="article:published_time" content="2025-03-04T05:06:07Z">
</head><body><nav><a href="/">Home</a><a href="/about">About</a></nav>
<article><h1>Otters</h1><p>Otters are semiaquatic mammals that eat fish, crabs and frogs, and they hold hands while sleeping.</p>
<p>Sea otters use stones as tools to open shellfish, one of the few mammals that do so.</p>
<pre><code class="language-python">print("otter")</code></pre></article>
<footer>Copyright Nature Site</footer></body></html>`;

describe('live fetch through the API', () => {
  let origin: Origin;
  let env: TestEnv;
  let body = 'Version one of the indexed page, about beavers building dams.';
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  before(async () => {
    origin = await startOrigin({
      '/robots.txt': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/plain' });
        r.end('User-agent: websearch\nDisallow: /private\n\nUser-agent: *\nDisallow:\n');
      },
      '/otters': html(ARTICLE),
      '/indexed': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html' });
        r.end(`<html><body><article><p>${body}</p></article></body></html>`);
      },
      '/noindex': html('<html><head><meta name="robots" content="noindex"></head><body><p>Please do not index this page about herons and egrets.</p></body></html>'),
      '/noindex-header': html('<html><body><p>Header says noindex for this page about storks and cranes.</p></body></html>', 200, { 'x-robots-tag': 'noindex' }),
      '/private/page': html('<p>private</p>'),
      '/missing': html('nope', 404),
      '/challenge': html('<html><head><title>Just a moment...</title></head><body><div id="cf-browser-verification">Checking your browser before accessing</div></body></html>', 503),
      '/login': html('<html><body><form><h2>Sign in</h2><input type="password" name="pw"></form></body></html>'),
      '/plain': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        r.end('Just some plain text about kingfishers.');
      },
      '/plain-de': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-language': 'de-AT' });
        r.end('Ein Text über Eisvögel.');
      },
      '/html-lang': html('<html lang="pt-BR"><body><p>The page declares its language, and that is the one stored for it.</p></body></html>', 200, { 'content-language': 'de' }),
      '/slow': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html' });
        r.write('<p>never finishes');
      },
      '/held': (_q, r) => {
        void held.then(() => html('<html><body><article><p>A page many asked for at once, about puffins on their cliffs.</p></article></body></html>')(_q, r));
      },
      '/moved': html('<html><head><meta http-equiv="refresh" content="0; URL=\'/otters\'"><title>Moved</title></head><body><p>This page has moved.</p></body></html>'),
      '/loop-a': html('<html><head><meta http-equiv="refresh" content="1;url=/loop-b"></head><body><p>Page A of a loop about terns.</p></body></html>'),
      '/loop-b': html('<html><head><meta http-equiv="refresh" content="1;url=/loop-a"></head><body><p>Page B of a loop about terns.</p></body></html>'),
      '/reloads': html('<html><head><meta http-equiv="refresh" content="300; url=/otters"></head><body><p>A page that reloads itself every five minutes, about gulls and their chicks.</p></body></html>'),
      '/nojs': html('<html><head><noscript><meta http-equiv="refresh" content="0; url=/otters"></noscript></head><body><p>A page that sends browsers without scripts elsewhere, about cormorants.</p></body></html>'),
      '/to-private': html('<html><head><meta http-equiv="refresh" content="0; url=/private/page"></head><body><p>Off to a page robots.txt keeps us from.</p></body></html>'),
      '/data.json': (_q, r) => {
        r.writeHead(200, { 'content-type': 'application/json' });
        r.end('{"bird": "kingfisher", "code": "```"}');
      },
      '/feed.xml': (_q, r) => {
        r.writeHead(200, { 'content-type': 'application/rss+xml' });
        const birds = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x82, 0xcc, 0x92, 0xb9]); // 日本の鳥 in Shift_JIS
        r.end(
          Buffer.concat([
            Buffer.from('<?xml version="1.0" encoding="Shift_JIS"?><rss version="2.0"><channel><title>'),
            birds,
            Buffer.from('</title><language>ja</language><item><title>Herons</title><link>/herons</link><pubDate>Wed, 01 May 2024 10:00:00 +0000</pubDate><description>&lt;p&gt;Grey &lt;b&gt;herons&lt;/b&gt; are back.&lt;/p&gt;</description></item></channel></rss>'),
          ]),
        );
      },
      '/atom': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/xml' });
        r.end('<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Tern news</title><entry><title>Terns return</title><link rel="alternate" href="https://terns.test/1"/><author><name>Ann</name></author><summary>The terns are back on the island.</summary></entry></feed>');
      },
      '/data.xml': (_q, r) => {
        r.writeHead(200, { 'content-type': 'application/xml' });
        r.end('<?xml version="1.0"?><birds><bird>plover</bird></birds>');
      },
      '/data.csv': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
        r.end('bird,count\nheron,3\n');
      },
      '/notes.py': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/x-python' });
        r.end('print("egret")\n');
      },
      '/binary': (_q, r) => {
        r.writeHead(200, { 'content-type': 'image/png' });
        r.end(Buffer.alloc(10));
      },
    });
    env = await createTestEnv({ allowPrivateNetwork: true, fetchTimeoutMs: 800, keylessPerSecond: 10000, keylessPerHour: 100000 });
    await env.services.pages.putVersion(page(`${origin.url}/indexed`, { content: body, title: 'Indexed page' }));
  });
  after(async () => {
    await env.close();
    await origin.close();
  });

  const get = async (path: string, headers: Record<string, string> = { 'x-service-title': 't' }) => {
    const res = await env.app.inject({ url: path, headers });
    return { status: res.statusCode, body: res.json() };
  };
  const live = (path: string, extra = '') => get(`/v1/fetch/public?url=${encodeURIComponent(`${origin.url}${path}`)}&live=true${extra}`);
  const search = async (query: string) =>
    (await env.app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 't' }, payload: { query } })).json().results as { url: string; snippet: string }[];

  test('main content as markdown with metadata; chrome removed', async () => {
    const r = await live('/otters');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.url, `${origin.url}/otters`);
    assert.equal(r.body.title, 'Otters', 'the site name after the separator is not part of the title');
    assert.equal(r.body.description, 'All about otters');
    assert.equal(r.body.author, 'Ada Lovelace');
    assert.equal(r.body.published_at, Date.parse('2025-03-04T05:06:07Z') / 1000);
    assert.match(r.body.content, /^Otters are semiaquatic mammals/);
    assert.match(r.body.content, /```python\nprint\("otter"\)\n```/);
    assert.doesNotMatch(r.body.content, /Home|About|Copyright/);
    assert.equal((await live('/otters', '&max_chars=6')).body.content, 'Otters');
  });

  test('a URL that was not indexed is stored but not added to the search index', async () => {
    await live('/otters');
    assert.equal((await env.services.pages.latest(`${origin.url}/otters`))?.searchable, false);
    assert.equal((await search('semiaquatic')).length, 0);
    assert.equal((await get(`/v1/fetch/public?url=${encodeURIComponent(`${origin.url}/otters`)}`)).status, 404);
  });

  test('an indexed URL gets a new searchable version with the fresh content', async () => {
    body = 'Version two of the indexed page, about beavers and their lodges.';
    const r = await live('/indexed');
    assert.equal(r.status, 200);
    const hits = await search('beavers lodges');
    assert.equal(hits[0]?.url, `${origin.url}/indexed`);
    assert.match(hits[0]!.snippet, /Version two/);
    assert.equal((await env.services.pages.history(`${origin.url}/indexed`)).length, 2);
  });

  test('noindex (meta or X-Robots-Tag) is never searchable', async () => {
    for (const path of ['/noindex', '/noindex-header']) {
      assert.equal((await live(path)).status, 200);
      assert.equal((await env.services.pages.latest(`${origin.url}${path}`))?.searchable, false, path);
    }
  });

  test('robots.txt is honoured: 403 blocked_by_robots, nothing fetched or stored', async () => {
    const r = await live('/private/page');
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'blocked_by_robots');
    assert.ok(!origin.hits.includes('/private/page'));
    assert.equal(await env.services.pages.latest(`${origin.url}/private/page`), undefined);
  });

  test('failures map to the error table and store nothing', async () => {
    const missing = await live('/missing');
    assert.equal(missing.status, 502);
    assert.equal(missing.body.code, 'origin_error');
    assert.equal(missing.body.origin_status, 404);
    for (const path of ['/challenge', '/login']) {
      const r = await live(path);
      assert.equal(r.status, 502, path);
      assert.equal(r.body.code, 'origin_blocked', path);
      assert.equal(await env.services.pages.latest(`${origin.url}${path}`), undefined);
    }
    const slow = await live('/slow');
    assert.equal(slow.status, 504);
    assert.equal(slow.body.code, 'origin_timeout');
    assert.equal((await live('/binary')).body.code, 'origin_error');
    assert.equal((await get(`/v1/fetch/public?url=${encodeURIComponent('http://127.0.0.1:9/')}&live=true`)).body.code, 'origin_error');
  });

  test('callers of one URL at once share one request to its origin; a later caller makes its own', async () => {
    const asked = Array.from({ length: 5 }, () => live('/held'));
    const shared = (env.services.live as ReturnType<typeof createLiveFetcher>).shared;
    while (shared.waiting(`${origin.url}/held`) < 5) await new Promise((r) => setTimeout(r, 5));
    release();
    const answers = await Promise.all(asked);
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200]);
    assert.ok(answers.every((a) => a.body.content === answers[0]!.body.content && /puffins/.test(a.body.content)));
    assert.equal(origin.hits.filter((h) => h === '/held').length, 1);
    assert.equal((await live('/held')).status, 200);
    assert.equal(origin.hits.filter((h) => h === '/held').length, 2);
  });

  test("a page whose refresh sends the reader on at once is followed there (twice at most); a later refresh, or one for browsers without scripts, is not", async () => {
    const moved = await live('/moved');
    assert.equal(moved.status, 200);
    assert.equal(moved.body.url, `${origin.url}/otters`);
    assert.match(moved.body.content, /Otters are semiaquatic mammals/);
    const hits = origin.hits.length;
    const loop = await live('/loop-a');
    assert.equal(loop.status, 200);
    assert.deepEqual(origin.hits.slice(hits), ['/loop-a', '/loop-b', '/loop-a']);
    assert.match((await live('/reloads')).body.content, /reloads itself/);
    assert.match((await live('/nojs')).body.content, /cormorants/);
    assert.equal((await live('/to-private')).status, 403, "a refresh's target is checked against robots.txt as a redirect's is");
  });

  test('plain text documents are returned as they are; data (JSON, XML, CSV) as a code block marked with its language; a feed (RSS, Atom) as its entries', async () => {
    assert.equal((await live('/plain')).body.content, 'Just some plain text about kingfishers.');
    assert.equal((await live('/notes.py')).body.content, 'print("egret")');
    assert.equal((await live('/data.json')).body.content, '````json\n{"bird": "kingfisher", "code": "```"}\n````');
    const feed = await live('/feed.xml');
    assert.equal(feed.body.title, '日本の鳥');
    assert.equal(feed.body.content, `## [Herons](${origin.url}/herons)\n\n2024-05-01T10:00:00Z\n\nGrey **herons** are back.`);
    assert.equal((await env.services.pages.latest(`${origin.url}/feed.xml`))?.lang, 'ja');
    assert.equal((await live('/atom')).body.content, '## [Terns return](https://terns.test/1)\n\nAnn\n\nThe terns are back on the island.');
    assert.equal((await live('/data.xml')).body.content, '```xml\n<?xml version="1.0"?><birds><bird>plover</bird></birds>\n```');
    assert.equal((await live('/data.csv')).body.content, '```csv\nbird,count\nheron,3\n```');
    const image = await live('/binary');
    assert.equal(image.status, 502);
    assert.match(image.body.error, /Unsupported content type image\/png/);
  });

  test('the language stored: <html lang>, else Content-Language, else a guess from the text', async () => {
    assert.equal((await live('/html-lang')).status, 200);
    assert.equal((await env.services.pages.latest(`${origin.url}/html-lang`))?.lang, 'pt-br');
    assert.equal((await live('/plain-de')).status, 200);
    assert.equal((await env.services.pages.latest(`${origin.url}/plain-de`))?.lang, 'de-at');
    await live('/otters');
    assert.equal((await env.services.pages.latest(`${origin.url}/otters`))?.lang, 'en');
  });

  test('keyed: a live fetch is charged on success only', async () => {
    const { key, org } = await createFundedKey(env.services, 100_000);
    const h = { 'x-api-key': key };
    assert.equal((await get(`/v1/fetch?url=${encodeURIComponent(`${origin.url}/otters`)}&live=true`, h)).status, 200);
    assert.equal((await get(`/v1/fetch?url=${encodeURIComponent(`${origin.url}/missing`)}&live=true`, h)).status, 502);
    assert.equal((await get(`/v1/fetch?url=${encodeURIComponent(`${origin.url}/private/page`)}&live=true`, h)).status, 403);
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - KEYED_REQUEST_COST);
  });

  test('pages are read on a reader thread: while 32 wait for it, a live fetch gets 503 server_busy with Retry-After, not charged', async () => {
    const { key, org } = await createFundedKey(env.services, 100_000);
    const otters = `/v1/fetch?url=${encodeURIComponent(`${origin.url}/otters`)}&live=true`;
    const reader = env.services.reader!;
    const fetched = (html: string) => ({ requestedUrl: origin.url, url: origin.url, status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(html), fetchedAt: Date.now() });
    // The thread busy for seconds (400,000 paragraphs) and 32 pages waiting behind it.
    const held = [reader.read(fetched(`<body>${'<p>ab</p>'.repeat(400_000)}</body>`)), ...Array.from({ length: 32 }, (_, i) => reader.read(fetched(`<p>page ${i}</p>`)))];
    assert.deepEqual(reader.load, { reading: 1, waiting: 32 });
    const res = await env.app.inject({ url: otters, headers: { 'x-api-key': key } });
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.json().code, 'server_busy');
    assert.equal(res.headers['retry-after'], '1');
    assert.equal(await env.services.ledger.balance(org.id), 100_000, 'a refused fetch is not charged');
    await Promise.all(held);
    assert.equal((await get(otters, { 'x-api-key': key })).status, 200, 'once the pages are read, fetches go through again');
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - KEYED_REQUEST_COST);
  });
});

describe('live fetch with the address policy on', () => {
  test('private targets are 400 url_not_allowed; configuration can index live fetches', async () => {
    const origin = await startOrigin({ '/p': html('<article><p>Puffins nest in burrows on cliff tops by the sea.</p></article>') });
    const strict = await createTestEnv();
    const indexing = await createTestEnv({ allowPrivateNetwork: true, liveFetchIndexes: true });
    try {
      for (const url of ['http://127.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://localhost/']) {
        const res = await strict.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(url)}&live=true`, headers: { 'x-service-title': 't' } });
        assert.equal(res.statusCode, 400, url);
        assert.equal(res.json().code, 'url_not_allowed', url);
      }
      const res = await indexing.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(`${origin.url}/p`)}&live=true`, headers: { 'x-service-title': 't' } });
      assert.equal(res.statusCode, 200);
      const found = await indexing.app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 't' }, payload: { query: 'puffins burrows' } });
      assert.equal(found.json().results[0].url, `${origin.url}/p`);
    } finally {
      await strict.close();
      await indexing.close();
      await origin.close();
    }
  });
});
