/**
 * `websearch share`: a service that ran on one machine's SQLite file moves to PostgreSQL, and a
 * second machine on that database serves its keys, credits and pages.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { AlreadyShared, copyFromSqlite } from '../../src/adapters/postgres/copy-from-sqlite.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { createServices } from '../../src/config/services.js';
import { loadSettings } from '../../src/config/settings.js';
import { buildApp } from '../../src/http/app.js';
import { freshPostgres, postgresUrl, skipUnless } from '../fixtures/backends.js';
import { createFundedKey, createTestEnv, page, tempDir, TestClock } from '../helpers.js';

describe('websearch share', skipUnless(postgresUrl, 'TEST_POSTGRES_URL'), () => {
  test("a machine's accounts, usage, pages and removals move to PostgreSQL; another machine serves them; pages removed by the command go on every machine; a second copy is refused", async () => {
    const dir = tempDir();
    const pg = await freshPostgres();
    const databaseUrl = pg.databaseUrl();
    const clock = new TestClock();
    try {
      // The one machine, as it ran before: SQLite only. A key, a charged search, two versions of a page.
      const settings = loadSettings({ env: {}, flags: { dataDir: dir.path } });
      const before = await createServices(settings, { clock });
      const app = await buildApp(before, { logger: false });
      await before.pages.putVersion(page('https://x.test/narwhal', { content: 'Narwhals have a long tusk.' }));
      await before.pages.putVersion(
        page('https://x.test/narwhal', { content: 'Narwhals live in the Arctic.', acquiredAt: Date.parse('2026-02-01T00:00:00Z'), mediaType: 'text/html' }),
      );
      await before.pages.putVersion(page('https://x.test/mistake', { content: 'Published by mistake.' }));
      await before.pages.removePages({ urls: ['https://x.test/mistake'] }, Date.parse('2026-03-01T00:00:00Z'), 'erasure 4');
      const { org, key } = await createFundedKey(before, 10 * KEYED_REQUEST_COST, 1000);
      const search = async (a: typeof app, query: string) => {
        const res = await a.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query } });
        assert.equal(res.statusCode, 200, res.body);
        return (res.json().results as { url: string; snippet: string }[]).map((r) => `${r.url} ${r.snippet}`);
      };
      assert.deepEqual(await search(app, 'narwhals arctic'), ['https://x.test/narwhal Narwhals live in the Arctic.']);
      await app.close();
      await before.close();

      const db = openDatabase({ path: settings.sqlitePath });
      const summary = await copyFromSqlite(db, pg.pool);
      assert.deepEqual(summary, {
        rows: { orgs: 1, api_keys: 1, ledger_entries: 2, reservations: 0, usage: 1, usage_outbox: 0, storefront_accounts: 0, x402_nonces: 0, payments: 0 },
        released: 0,
        versions: 2,
        removals: 1,
      });
      await assert.rejects(copyFromSqlite(db, pg.pool), AlreadyShared);
      db.close();

      // Another machine on the shared database, its data folder empty.
      const other = await createTestEnv({ databaseUrl }, clock);
      try {
        assert.equal(await other.services.ledger.balance(org.id), 9 * KEYED_REQUEST_COST);
        assert.deepEqual(
          (await other.services.usage.list({ orgId: org.id, limit: 10 })).map((r) => [r.operation, r.status, r.costMicroUsd]),
          [['search', 200, KEYED_REQUEST_COST]],
        );
        assert.equal(await other.services.sharedPages!.sync(), 2);
        assert.deepEqual(await other.services.pages.removals(), [{ kind: 'url', value: 'https://x.test/mistake', removedAt: Date.parse('2026-03-01T00:00:00Z'), reason: 'erasure 4' }]);
        assert.equal((await other.services.pages.putVersion(page('https://x.test/mistake'))).status, 'removed', 'kept out on the other machine too');
        assert.deepEqual(
          (await other.services.pages.history('https://x.test/narwhal')).map((v) => [v.content, v.mediaType]),
          [
            ['Narwhals have a long tusk.', undefined],
            ['Narwhals live in the Arctic.', 'text/html'],
          ],
        );
        let found: string[] = [];
        for (let i = 0; i < 50 && found.length === 0; i++, await sleep(100)) found = await search(other.app, 'narwhals arctic');
        assert.deepEqual(found, ['https://x.test/narwhal Narwhals live in the Arctic.']);
        assert.equal(await other.services.ledger.balance(org.id), 8 * KEYED_REQUEST_COST, 'charged on the shared balance');
        // New usage rows get ids after the copied ones.
        await other.services.usage.flush();
        assert.equal((await other.services.usage.list({ orgId: org.id, limit: 10 })).length, 2);

        // The command on the first machine's folder removes the page there, and on this machine once it syncs.
        const removed = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'pages', 'remove', 'https://x.test/narwhal', '--data-dir', dir.path], {
          env: { ...process.env, DATABASE_URL: databaseUrl },
          encoding: 'utf8',
          timeout: 30_000,
        });
        assert.equal(removed.status, 0, removed.stderr);
        assert.match(removed.stdout, /^removed 1 page \(2 versions\) from the index; the text of 2 versions erased from the page log; .*the other machines sharing the page log do the same as they sync\n$/);
        assert.equal(await other.services.sharedPages!.sync(), 0);
        assert.deepEqual(await other.services.pages.history('https://x.test/narwhal'), []);
        for (let i = 0; i < 50 && found.length > 0; i++, await sleep(100)) found = await search(other.app, 'narwhals arctic');
        assert.deepEqual(found, [], "gone from the other machine's searches");
      } finally {
        await other.close();
      }

      // The first machine itself, now on the shared database: its file has the log's versions already, and the removal.
      const same = await createServices(loadSettings({ env: {}, flags: { dataDir: dir.path, databaseUrl } }), { clock });
      try {
        assert.equal(await same.sharedPages!.sync(), 0);
        const removals = (await same.pages.removals()).map((r) => r.value);
        // The command's URL with its seven other spellings (urlTwins), then the copied removal.
        assert.equal(removals.length, 9);
        assert.ok(removals.includes('https://x.test/narwhal') && removals.includes('http://www.x.test/narwhal/'), removals.join(' '));
        assert.equal(removals.at(-1), 'https://x.test/mistake');
      } finally {
        await same.close();
      }

      // The command: refused now, in one line, exit 1.
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'share', '--data-dir', dir.path], {
        env: { ...process.env, DATABASE_URL: databaseUrl },
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /^websearch: PostgreSQL already holds organizations, usage or payments/);

      // Pruning the page log: the rows both files have said they applied (test/contract/page-log.test.ts has the rules).
      const prune = (...args: string[]) =>
        spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'share', 'prune', ...args], {
          env: { ...process.env, DATABASE_URL: databaseUrl },
          encoding: 'utf8',
          timeout: 30_000,
        });
      const pruned = prune('--json');
      assert.equal(pruned.status, 0, pruned.stderr);
      const result = JSON.parse(pruned.stdout) as { floor: number; deleted: number; readers: number; forgotten: number };
      assert.equal(result.readers, 2);
      assert.equal(result.deleted, result.floor);
      const refused = prune('--unseen-days', '0');
      assert.equal(refused.status, 2);
      assert.match(refused.stderr, /--unseen-days must be a number of days/);
    } finally {
      await pg.drop();
      dir.remove();
    }
  });
});
