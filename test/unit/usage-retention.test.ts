import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteUsageStore } from '../../src/adapters/sqlite/usage-store.js';
import { pruneUsage, startUsageRetention, USAGE_PRUNE_ROWS } from '../../src/ops/usage-retention.js';
import type { UsageEntry } from '../../src/ports/usage-store.js';
import { TestClock, tempDir, until } from '../helpers.js';

const DAY = 86_400_000;
const row = (i: number, at: number): UsageEntry => ({ at, requestId: `r-${i}`, tier: 'keyless', operation: 'search', status: 200, costMicroUsd: 0, latencyMs: 1, clientIp: '192.0.2.1' });

function withUsage(use: (usage: SqliteUsageStore) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const db = openDatabase({ path: join(dir.path, 'websearch.db') });
  return use(new SqliteUsageStore(db)).finally(() => {
    db.close();
    dir.remove();
  });
}

test('pruneUsage deletes every row older than the time, in steps, and none newer', () =>
  withUsage(async (usage) => {
    const clock = new TestClock();
    const old = 2 * USAGE_PRUNE_ROWS + 345;
    for (let i = 0; i < old; i++) await usage.record(row(i, clock.now() - 100 * DAY + i));
    for (let i = 0; i < 10; i++) await usage.record(row(old + i, clock.now() - DAY + i));
    let steps = 0;
    const counted = { prune: usage.prune.bind(usage) };
    usage.prune = (before, max) => {
      steps++;
      return counted.prune(before, max);
    };
    assert.equal(await pruneUsage(usage, clock.now() - 90 * DAY), old);
    assert.equal(steps, 3, 'two full steps and the rest');
    const left = await usage.list({ limit: 100 });
    assert.equal(left.length, 10);
    assert.ok(left.every((r) => r.at > clock.now() - 90 * DAY));
  }));

test('startUsageRetention prunes after its first delay and logs how many rows went; stop ends it', () =>
  withUsage(async (usage) => {
    const clock = new TestClock();
    for (let i = 0; i < 30; i++) await usage.record(row(i, clock.now() - (i < 20 ? 91 : 89) * DAY));
    const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
    const retention = startUsageRetention(usage, 90 * DAY, clock, (_level, msg, fields) => logged.push({ msg, ...(fields ? { fields } : {}) }), {
      firstMs: 20,
      everyMs: 60_000,
    });
    try {
      await until('the old rows pruned', async () => logged.some((l) => l.msg === 'usage pruned'));
      assert.deepEqual(logged, [{ msg: 'usage pruned', fields: { rows: 20, olderThanDays: 90 } }]);
      assert.equal((await usage.list({ limit: 100 })).length, 10);
    } finally {
      await retention.stop();
    }
  }));
