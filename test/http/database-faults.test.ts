/**
 * Faults of the SQLite file under a request. A database locked by another process's write for
 * longer than a connection waits: 503 server_busy, not charged.
 *
 * A full disk (README "A full disk"). Pages are kept off a disk with less room than
 * WEBSEARCH_MIN_FREE_DISK_MB, so that requests can still be charged. And when there is no room
 * even so, SQLite answers SQLITE_FULL to a write that needs some (`fillDisk` makes it so with
 * SQLite's own page limit): a request whose own write is refused answers 503 storage_full and is
 * not charged; requests that write nothing of their own go on; once there is room again,
 * everything works and is charged as before.
 */
import assert from 'node:assert/strict';
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { type Db, openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { DiskLowError, isDiskFull, isStorageFault } from '../../src/core/errors.js';
import { html, startOrigin } from '../fixtures/origin.js';
import { createFundedKey, createTestEnv, fillDisk, page, roomAgain, tempDir, type TestEnv } from '../helpers.js';

const searchIn = (env: TestEnv, headers: Record<string, string>, path = '/v1/search') =>
  env.app.inject({ method: 'POST', url: path, headers, payload: { query: 'apples' } });

/** More MiB than the disk of the tests' files has free: a room kept that is never there. */
function moreThanFree(): number {
  const { bavail, bsize } = statfsSync(tmpdir());
  return Math.ceil((bavail * bsize) / 2 ** 20) + 1024;
}

describe('a full disk', () => {
  const dir = tempDir();
  let db: Db;
  let env: TestEnv;
  before(async () => {
    db = openDatabase({ path: join(dir.path, 'websearch.db') });
    env = await createTestEnv({ dataDir: dir.path }, undefined, { database: db });
    await env.services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
  });
  after(async () => {
    await env.close();
    dir.remove();
  });

  const search = (headers: Record<string, string>, path = '/v1/search') => searchIn(env, headers, path);

  test('a keyed request whose charge finds no room: 503 storage_full with Retry-After, nothing charged; charged again once there is room', async () => {
    const { key, org } = await createFundedKey(env.services, 100_000);
    const h = { 'x-api-key': key };
    assert.equal((await search(h)).statusCode, 200);
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - KEYED_REQUEST_COST);

    // The ledger's table filled by another organization's credits, each a ledger entry as a charge is.
    const { org: other } = await createFundedKey(env.services, 0, undefined, 'Filler');
    await fillDisk(db, () => env.services.ledger.credit(other.id, 1, 'fill'));
    for (const res of [await search(h), await env.app.inject({ url: '/v1/fetch?url=https://example.com/a', headers: h })]) {
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '60');
      assert.deepEqual(res.json(), { error: "The server's disk is full; nothing was charged", code: 'storage_full' });
    }
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - KEYED_REQUEST_COST, 'nothing charged, nothing held');

    // A keyless search writes nothing of its own (its usage row is the log's, and is only logged when lost).
    const keyless = await search({ 'x-service-title': 'disk test' }, '/v1/search/public');
    assert.equal(keyless.statusCode, 200);
    assert.equal(keyless.json().results[0].url, 'https://example.com/a');

    roomAgain(db);
    assert.equal((await search(h)).statusCode, 200);
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - 2 * KEYED_REQUEST_COST);
  });

  test('isDiskFull reads SQLite, the system and a cause', () => {
    const coded = (code: string) => Object.assign(new Error(code), { code });
    assert.equal(isDiskFull(coded('SQLITE_FULL')), true);
    assert.equal(isDiskFull(coded('ENOSPC')), true);
    assert.equal(isDiskFull(coded('EDQUOT')), true);
    assert.equal(isDiskFull(new Error('wrapped', { cause: coded('ENOSPC') })), true);
    assert.equal(isDiskFull(coded('SQLITE_BUSY')), false);
    assert.equal(isDiskFull(coded('EACCES')), false);
    assert.equal(isDiskFull('ENOSPC'), false);
    assert.equal(isDiskFull(undefined), false);
  });
});

describe('pages kept off a disk with less room than WEBSEARCH_MIN_FREE_DISK_MB', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ allowPrivateNetwork: true, liveFetchIndexes: true, minFreeDiskMb: moreThanFree() });
  });
  after(() => env.close());

  test('no version is stored; a live fetch answers its page all the same; keyed requests are served and charged', async () => {
    const refused = await env.services.pages.putVersion(page('https://example.com/b', { content: 'Bananas.' })).catch((e: unknown) => e);
    assert.ok(refused instanceof DiskLowError, String(refused));
    assert.ok(isDiskFull(refused));
    assert.match(refused.message, /^the disk of the data folder has [\d.]+ MiB free, less than the [\d.]+ MiB kept for charges and usage \(WEBSEARCH_MIN_FREE_DISK_MB\): pages are not stored$/);
    assert.ok(await env.services.pages.putVersions([page('https://example.com/c')]).then(() => false, (e: unknown) => e instanceof DiskLowError));
    assert.deepEqual(await env.services.pages.stats(), { pages: 0, versions: 0 });

    const origin = await startOrigin({ '/p': html('<article><p>Puffins nest in burrows on cliff tops by the sea.</p></article>') });
    try {
      const { key, org } = await createFundedKey(env.services, 100_000);
      const h = { 'x-api-key': key };
      const url = `${origin.url}/p`;
      const live = await env.app.inject({ url: `/v1/fetch?url=${encodeURIComponent(url)}&live=true`, headers: h });
      assert.equal(live.statusCode, 200);
      assert.match(live.json().content, /Puffins nest in burrows/);
      const stored = await env.app.inject({ url: `/v1/fetch?url=${encodeURIComponent(url)}`, headers: h });
      assert.equal(stored.statusCode, 404, 'the live page was not stored');
      assert.equal((await env.app.inject({ method: 'POST', url: '/v1/search', headers: h, payload: { query: 'puffins' } })).statusCode, 200);
      assert.equal(await env.services.ledger.balance(org.id), 100_000 - 2 * KEYED_REQUEST_COST, 'the live fetch and the search');
    } finally {
      await origin.close();
    }
  });
});

describe("the shared page log's versions on a full disk", () => {
  test('a batch that finds no room is not applied at all, nor its position: the next sync applies it', async () => {
    const dir = tempDir();
    const db = openDatabase({ path: join(dir.path, 'websearch.db') });
    try {
      const pages = new SqlitePageStore(db);
      const versions = Array.from({ length: 20 }, (_, i) => page(`https://log.test/${i}`, { content: `Page ${i} of the log. `.repeat(200) }));
      let n = 0;
      await fillDisk(db, () => pages.putVersion(page(`https://filler.test/${n++}`, { content: `Filler ${n}. `.repeat(300) })));
      const before = await pages.stats();
      await assert.rejects(pages.applyLog(versions, 20), (e: unknown) => isDiskFull(e));
      assert.equal(pages.logApplied(), 0, 'the position stays before the batch');
      assert.deepEqual(await pages.stats(), before);

      roomAgain(db);
      assert.deepEqual((await pages.applyLog(versions, 20)).map((o) => (o instanceof Error ? o.message : o.status)), Array(20).fill('added'));
      assert.equal(pages.logApplied(), 20);
      assert.equal((await pages.stats()).pages, before.pages + 20);

      const low = new SqlitePageStore(db, { minFreeBytes: moreThanFree() * 2 ** 20 });
      await assert.rejects(low.applyLog([page('https://log.test/late')], 21), DiskLowError);
      assert.equal(low.logApplied(), 20);
    } finally {
      db.close();
      dir.remove();
    }
  });
});

describe('a database locked by another write for longer than a request waits', () => {
  test('503 server_busy with Retry-After: 1, nothing charged; served and charged once the lock is let go', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'websearch.db');
    const db = openDatabase({ path });
    db.pragma('busy_timeout = 200'); // the service waits 5 s; the test, less
    const env = await createTestEnv({ dataDir: dir.path }, undefined, { database: db });
    const other = openDatabase({ path });
    try {
      await env.services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
      const { key, org } = await createFundedKey(env.services, 100_000);
      const h = { 'x-api-key': key };
      other.exec('BEGIN IMMEDIATE'); // another process's write under way, as an import's batch is
      const res = await searchIn(env, h);
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '1');
      assert.deepEqual(res.json(), { error: 'The database was busy with another write for too long; retry shortly', code: 'server_busy' });
      other.exec('COMMIT');
      assert.equal(await env.services.ledger.balance(org.id), 100_000);
      assert.equal((await searchIn(env, h)).statusCode, 200);
      assert.equal(await env.services.ledger.balance(org.id), 100_000 - KEYED_REQUEST_COST);
    } finally {
      other.close();
      await env.close();
      dir.remove();
    }
  });
});

describe('a data folder that cannot be written (a read-only file system, a failing disk)', () => {
  test('keyed requests: 503 storage_unavailable with Retry-After, nothing charged; keyless ones answered', async () => {
    const dir = tempDir();
    // Written first, as the service ran before its disk went read-only: a page, an organization with credit.
    const before = await createTestEnv({ dataDir: dir.path });
    await before.services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
    const { key, org } = await createFundedKey(before.services, 100_000);
    await before.app.close();
    await before.services.close();
    const db = openDatabase({ path: join(dir.path, 'websearch.db'), readonly: true });
    const env = await createTestEnv({ dataDir: dir.path }, undefined, { database: db });
    try {
      for (const res of [await searchIn(env, { 'x-api-key': key }), await env.app.inject({ url: '/v1/fetch?url=https://example.com/a', headers: { 'x-api-key': key } })]) {
        assert.equal(res.statusCode, 503);
        assert.equal(res.headers['retry-after'], '60');
        assert.deepEqual(res.json(), { error: 'The server cannot write to its disk; nothing was charged', code: 'storage_unavailable' });
      }
      assert.equal(await env.services.ledger.balance(org.id), 100_000);
      const keyless = await searchIn(env, { 'x-service-title': 'read-only test' }, '/v1/search/public');
      assert.equal(keyless.statusCode, 200);
      assert.equal(keyless.json().results[0].url, 'https://example.com/a');
    } finally {
      await env.close();
    }
  });

  test('isStorageFault reads SQLite, the system and a cause', () => {
    const coded = (code: string) => Object.assign(new Error(code), { code });
    for (const code of ['SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN', 'EROFS', 'EIO']) assert.equal(isStorageFault(coded(code)), true, code);
    assert.equal(isStorageFault(new Error('wrapped', { cause: coded('EROFS') })), true);
    for (const code of ['SQLITE_FULL', 'SQLITE_BUSY', 'SQLITE_IOERRX', 'ENOENT']) assert.equal(isStorageFault(coded(code)), false, code);
  });
});
