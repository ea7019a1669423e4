/**
 * The engine's `inurl:` narrowing (IndexQuery `inUrl`) over the pages' URLs it holds in memory:
 * read in turns when many are missing (each turn bounded in time), read at once when a few are, and
 * renewed as pages are stored.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { EngineIndexStore } from '../../src/adapters/engine/engine-index-store.js';
import { openDatabase, type Db } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { tempDir } from '../helpers.js';

const dir = tempDir();
let db: Db;
let pages: SqlitePageStore;
const at = Date.parse('2026-01-01T00:00:00Z');
const version = (i: number, path = `/notes/${i}`) => ({
  url: `https://h${i % 5}.notes.test${path}`,
  title: `Note ${i}`,
  content: `A note on heron colonies, number ${i}, with words enough about the marsh where the herons nest.`,
  acquiredAt: at + i,
  searchable: true,
});

before(async () => {
  db = openDatabase({ path: `${dir.path}/notes.db` });
  pages = new SqlitePageStore(db);
  await pages.putVersions(Array.from({ length: 3000 }, (_, i) => version(i)));
});
after(() => {
  db.close();
  dir.remove();
});

test('the first inurl: of a large store is not narrowed while the URLs are read in turns; the searches after are', async () => {
  const index = await new EngineIndexStore(db, { urlsAtOnce: 500 }).open();
  const everything = await index.search({ terms: ['heron'], limit: 10 });
  // 3,000 pages to read, more than 500: this search is left to its caller's check.
  assert.deepEqual(await index.search({ terms: ['heron'], limit: 10, inUrl: '/NOTES/123' }), everything);
  await index.settled();
  const narrowed = await index.search({ terms: ['heron'], limit: 20, inUrl: '/NOTES/123' });
  const urls = await Promise.all(narrowed.map(async (h) => (await pages.getVersions([h.versionId]))[0]!.url));
  assert.deepEqual(urls.map((u) => new URL(u).pathname).sort(), ['/notes/123', '/notes/1230', '/notes/1231', '/notes/1232', '/notes/1233', '/notes/1234', '/notes/1235', '/notes/1236', '/notes/1237', '/notes/1238', '/notes/1239']);
  await index.close();
});

test("each turn of the reading reads for a bounded time, so the searches between wait little: with none, 1,024 pages a turn", async () => {
  const index = await new EngineIndexStore(db, { urlsAtOnce: 500, urlsTurnMs: 0 }).open();
  const everything = await index.search({ terms: ['heron'], limit: 10 });
  const ask = { terms: ['heron'], limit: 10, inUrl: '/NOTES/123' };
  // This search starts the reading: 1,024 of the 3,000 pages, then a turn.
  assert.deepEqual(await index.search(ask), everything);
  await turn();
  assert.deepEqual(await index.search(ask), everything, 'still reading after one turn: 2,048 read');
  await turn();
  await turn();
  assert.notDeepEqual(await index.search(ask), everything, 'read in three turns, then narrowed');
  await index.close();
});

test('pages stored since are found at once, and a kept lookup is renewed when the index moves on', async () => {
  const index = await new EngineIndexStore(db, { urlsAtOnce: 500 }).open();
  const ask = { terms: ['heron'], limit: 10, inUrl: 'Fresh-Heron' };
  await index.search(ask);
  await index.settled();
  assert.deepEqual(await index.search(ask), [], 'no URL holds it');
  await pages.putVersions([version(5000, '/fresh-heron/5000'), version(5001, '/fresh-heron/5001')]);
  const found = await index.search(ask);
  assert.equal(found.length, 2, 'the new pages, whose URLs were read after the search before');
  assert.deepEqual((await pages.getVersions(found.map((h) => h.versionId))).map((v) => v.url).sort(), ['https://h0.notes.test/fresh-heron/5000', 'https://h1.notes.test/fresh-heron/5001']);
  // Many at once: read in turns again, the search meanwhile not narrowed.
  await pages.putVersions(Array.from({ length: 800 }, (_, i) => version(6000 + i, `/fresh-heron/${6000 + i}`)));
  index.refresh();
  await index.settled();
  assert.equal((await index.search({ ...ask, limit: 5000 })).length, 3802, 'not narrowed: every page of the word');
  await index.settled();
  assert.equal((await index.search({ ...ask, limit: 5000 })).length, 802);
  await index.close();
});
