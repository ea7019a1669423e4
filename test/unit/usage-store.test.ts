import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteUsageStore } from '../../src/adapters/sqlite/usage-store.js';
import type { UsageEntry } from '../../src/ports/usage-store.js';
import { tempDir } from '../helpers.js';

const entry = (i: number): UsageEntry => ({
  at: 1_700_000_000_000 + i,
  requestId: `req-${i}`,
  tier: 'keyless',
  operation: 'search',
  status: 200,
  costMicroUsd: 0,
  latencyMs: 1.5,
  appTitle: 'app',
  clientIp: '127.0.0.1',
});

describe('SqliteUsageStore (written behind the response)', () => {
  test('a recorded row is stored a moment later, in one transaction with its neighbours, and list() sees it at once', async () => {
    const dir = tempDir();
    const db = openDatabase({ path: `${dir.path}/u.db` });
    const rows = () => (db.prepare('SELECT count(*) AS n FROM usage').get() as { n: number }).n;
    try {
      const store = new SqliteUsageStore(db);
      await store.record(entry(1));
      await store.record(entry(2));
      assert.equal(rows(), 0, 'queued, not yet written');
      await sleep(120);
      assert.equal(rows(), 2, 'written by the timer');

      await store.record(entry(3));
      const listed = await store.list({ limit: 10 });
      assert.deepEqual(
        listed.map((e) => e.requestId),
        ['req-3', 'req-2', 'req-1'],
      );
      assert.deepEqual(listed[0], entry(3));
    } finally {
      db.close();
      dir.remove();
    }
  });

  test('flush() writes the queue (services.close() calls it), and a failed write is reported, not thrown', async () => {
    const dir = tempDir();
    const path = `${dir.path}/u.db`;
    const db = openDatabase({ path });
    const errors: unknown[] = [];
    const store = new SqliteUsageStore(db, (e) => errors.push(e));
    await store.record(entry(1));
    await store.flush();
    db.close();
    const reopened = openDatabase({ path, readonly: true });
    assert.equal((reopened.prepare('SELECT request_id AS id FROM usage').get() as { id: string }).id, 'req-1');
    reopened.close();

    const broken = openDatabase({ path });
    const failing = new SqliteUsageStore(broken, (e) => errors.push(e));
    broken.exec('DROP TABLE usage');
    await failing.record(entry(2));
    await failing.flush();
    assert.equal(errors.length, 1);
    broken.close();
    dir.remove();
  });
});
