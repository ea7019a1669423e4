/**
 * A full disk (README "A full disk"): SQLite answers SQLITE_FULL to a write that needs room, as it
 * does when the disk has none (`fillDisk` makes it so with SQLite's own page limit). A request whose
 * own write is refused answers 503 storage_full and is not charged; requests that write nothing of
 * their own go on; once there is room again, everything works and is charged as before.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { type Db, openDatabase } from '../../src/adapters/sqlite/database.js';
import { isDiskFull } from '../../src/core/errors.js';
import { createFundedKey, createTestEnv, fillDisk, page, roomAgain, tempDir, type TestEnv } from '../helpers.js';

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

  const search = (headers: Record<string, string>, path = '/v1/search') =>
    env.app.inject({ method: 'POST', url: path, headers, payload: { query: 'apples' } });

  test('a keyed request whose charge finds no room: 503 storage_full with Retry-After, nothing charged; charged again once there is room', async () => {
    const { key, org } = await createFundedKey(env.services, 100_000);
    const h = { 'x-api-key': key };
    assert.equal((await search(h)).statusCode, 200);
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - KEYED_REQUEST_COST);

    // The ledger's table filled by another organization's credits, each a ledger entry as a charge is.
    const { org: other } = await createFundedKey(env.services, 0, undefined, 'Filler');
    const filled = await fillDisk(db, () => env.services.ledger.credit(other.id, 1, 'fill'));
    assert.ok(filled >= 0);
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
