import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestEnv, page, type TestEnv } from '../helpers.js';

describe('fetch over HTTP', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ keylessPerSecond: 100000, keylessPerHour: 100000 });
    await env.services.pages.putVersion(
      page('https://example.com/article', {
        title: 'An article',
        description: 'About things',
        author: 'Ada',
        content: '# An article\n\nFirst version.',
        publishedAt: Date.parse('2025-05-06T07:08:09.999Z'),
        acquiredAt: Date.parse('2026-01-01T00:00:00Z'),
      }),
    );
    await env.services.pages.putVersion(
      page('https://example.com/article', {
        title: 'An article',
        description: 'About things',
        author: 'Ada',
        content: `# An article\n\nSecond version. ${'x'.repeat(60_000)}`,
        publishedAt: Date.parse('2025-05-06T07:08:09.999Z'),
        acquiredAt: Date.parse('2026-02-01T00:00:00Z'),
      }),
    );
    await env.services.pages.putVersion(page('https://example.com/emoji', { content: 'ab😀cd', title: undefined }));
    await env.services.pages.putVersion(page('https://example.com/private', { content: 'live only', searchable: false }));
  });
  after(() => env.close());

  const get = async (query: string) => {
    const res = await env.app.inject({ url: `/v1/fetch/public?${query}`, headers: { 'x-service-title': 'tests' } });
    return { status: res.statusCode, body: res.json() };
  };

  test('the newest version, its metadata, published_at as integer Unix seconds, 50,000 characters by default', async () => {
    const r = await get(`url=${encodeURIComponent('https://example.com/article')}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.url, 'https://example.com/article');
    assert.equal(r.body.title, 'An article');
    assert.equal(r.body.description, 'About things');
    assert.equal(r.body.author, 'Ada');
    assert.equal(r.body.published_at, Math.floor(Date.parse('2025-05-06T07:08:09Z') / 1000));
    assert.ok(Number.isInteger(r.body.published_at));
    assert.match(r.body.content, /^# An article\n\nSecond version\./);
    assert.equal(r.body.content.length, 50_000);
  });

  test('max_chars truncates, never inside a surrogate pair', async () => {
    assert.equal((await get('url=https://example.com/article&max_chars=12')).body.content, '# An article');
    assert.equal((await get('url=https://example.com/emoji&max_chars=3')).body.content, 'ab');
    const r = await get('url=https://example.com/emoji&max_chars=4');
    assert.equal(r.body.content, 'ab😀');
    assert.equal('title' in r.body, false);
  });

  test('a URL in another spelling finds the same page', async () => {
    assert.equal((await get(`url=${encodeURIComponent('HTTPS://EXAMPLE.com:443/article#top')}`)).status, 200);
    // A link shared from a newsletter: its tracking parameters name no other page.
    const shared = await get(`url=${encodeURIComponent('https://example.com/article?utm_source=newsletter&utm_medium=email&fbclid=x')}`);
    assert.equal(shared.status, 200);
    assert.equal(shared.body.url, 'https://example.com/article');
    // Escapes written another way: an unreserved character escaped, hex digits in lower case.
    const escaped = await get(`url=${encodeURIComponent('https://example.com/%61rtic%6Ce')}`);
    assert.equal(escaped.status, 200);
    assert.equal(escaped.body.url, 'https://example.com/article');
  });

  test('a URL its site would redirect (the other scheme, a trailing slash, www.) finds the indexed page, under its own URL', async () => {
    for (const spelling of ['http://example.com/article', 'https://example.com/article/', 'http://www.example.com/article/']) {
      const r = await get(`url=${encodeURIComponent(spelling)}`);
      assert.equal(r.status, 200, spelling);
      assert.equal(r.body.url, 'https://example.com/article');
      assert.match(r.body.content, /Second version/);
    }
    // Another path, or a live-only copy under a twin, is no twin of the index.
    assert.equal((await get(`url=${encodeURIComponent('http://example.com/articles')}`)).status, 404);
    assert.equal((await get(`url=${encodeURIComponent('http://example.com/private/')}`)).status, 404);
  });

  test('not indexed: 404 not_indexed; a live-only (unsearchable) copy is not the index', async () => {
    const r = await get('url=https://example.com/nope');
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'not_indexed');
    assert.equal((await get('url=https://example.com/private')).status, 404);
  });

  test('prompt answers 501 until a language model is configured, never a fake result', async () => {
    const prompt = await get('url=https://example.com/article&prompt=summarise');
    assert.equal(prompt.status, 501);
    assert.equal(prompt.body.code, 'extraction_unavailable');
  });

  test('bad parameters', async () => {
    assert.equal((await get('')).body.param, 'url');
    assert.equal((await get('url=ftp://example.com/x')).body.code, 'url_not_allowed');
    assert.equal((await get('url=https://example.com/article&max_chars=0')).body.param, 'max_chars');
    assert.equal((await get('url=https://example.com/article&max_chars=abc')).body.param, 'max_chars');
    assert.equal((await get('url=https://example.com/article&bogus=1')).body.param, 'bogus');
    assert.equal((await get(`url=https://example.com/article&prompt=${'p'.repeat(2001)}`)).body.param, 'prompt');
  });
});
