/**
 * Pages removed by the operator (README "Removing pages"): every version gone from search (at any
 * `query_time`) and fetch, kept out of later stores until allowed again. The removal is made as the
 * CLI makes it, on a connection of its own beside the running service's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { createTestEnv, page, tempDir, type TestEnv } from '../helpers.js';

describe('pages removed by the operator', () => {
  const dir = tempDir();
  let env: TestEnv;
  let cli: SqlitePageStore;
  let cliDb: ReturnType<typeof openDatabase>;
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  before(async () => {
    env = await createTestEnv({ dataDir: dir.path });
    const put = (url: string, content: string, acquiredAt = t0) => env.services.pages.putVersion(page(url, { content, acquiredAt }));
    await put('https://a.test/one', 'Puffins nest on the cliffs of zanzibarquux.');
    await put('https://b.a.test/two', 'Puffins fly over the bay.', t0);
    await put('https://b.a.test/two', 'Puffins fly over the bay at dawn.', t0 + 86_400_000);
    await put('https://other.test/x', 'Puffins fish in the sea.');
    await put('https://aa.test/y', 'Puffins sleep on the water.');
    cliDb = openDatabase({ path: join(dir.path, 'websearch.db') });
    cli = new SqlitePageStore(cliDb);
  });
  after(async () => {
    cliDb.close();
    await env.close();
    dir.remove();
  });

  const found = async (body: Record<string, unknown> = {}) => {
    const res = await env.app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 't' }, payload: { query: 'puffins', ...body } });
    assert.equal(res.statusCode, 200);
    return (res.json().results as { url: string }[]).map((r) => r.url).sort();
  };
  const fetched = async (url: string) =>
    (await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(url)}`, headers: { 'x-service-title': 't' } })).statusCode;

  test('a URL and a site (its subdomains, not a host that only ends alike) go from search, at any query_time, and from fetch', async () => {
    assert.deepEqual(await found(), ['https://a.test/one', 'https://aa.test/y', 'https://b.a.test/two', 'https://other.test/x']);
    assert.deepEqual(await cli.removePages({ urls: ['https://other.test/x'], site: 'a.test' }, Date.now(), 'takedown 12'), { pages: 3, versions: 4 });
    assert.deepEqual(await found(), ['https://aa.test/y']);
    assert.deepEqual(await found({ query_time: '2026-01-01T12:00:00Z' }), ['https://aa.test/y'], 'the history is gone too');
    for (const url of ['https://a.test/one', 'https://b.a.test/two', 'https://other.test/x']) assert.equal(await fetched(url), 404, url);
    assert.equal(await fetched('https://aa.test/y'), 200);
    assert.deepEqual(
      (await cli.removals()).map((r) => [r.kind, r.value, r.reason]),
      [
        ['site', 'a.test', 'takedown 12'],
        ['url', 'https://other.test/x', 'takedown 12'],
      ],
    );
    // Overwritten, not only unlinked: the text is nowhere in the database's files.
    const files = ['websearch.db', 'websearch.db-wal'].map((f) => {
      try {
        return readFileSync(join(dir.path, f));
      } catch {
        return Buffer.alloc(0);
      }
    });
    assert.ok(files.every((b) => !b.includes('zanzibarquux')), 'the removed text is left in the file');
  });

  test('stores of them are refused until allowed; the rest of a batch is stored', async () => {
    const pages = env.services.pages;
    assert.deepEqual(await pages.putVersion(page('https://c.a.test/new', { content: 'Puffins again.' })), { status: 'removed' });
    const batch = await pages.putVersions([page('https://other.test/x', { content: 'Puffins.' }), page('https://d.test/z', { content: 'Puffins dive.' })]);
    assert.deepEqual(batch.map((o) => o.status), ['removed', 'added']);
    assert.equal(await cli.allowPages({ urls: [], site: 'a.test' }), 1);
    assert.equal((await pages.putVersion(page('https://a.test/one', { content: 'Puffins are back.' }))).status, 'added');
    assert.deepEqual(await found(), ['https://a.test/one', 'https://aa.test/y', 'https://d.test/z']);
    assert.deepEqual((await cli.removals()).map((r) => r.value), ['https://other.test/x']);
  });
});
