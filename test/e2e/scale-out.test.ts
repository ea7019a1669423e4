/**
 * Two machines on one PostgreSQL and one Redis (DATABASE_URL, REDIS_URL): each is a whole service
 * (its own data folder and SQLite file for pages), and they share keys, credits, usage and rate limits.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { createServices, StoreUnreachable } from '../../src/config/services.js';
import { loadSettings } from '../../src/config/settings.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { html, startOrigin } from '../fixtures/origin.js';
import { type FreshPostgres, freshPostgres, postgresUrl, redisUrl, skipUnless } from '../fixtures/backends.js';
import { type Relay, relay } from '../fixtures/relay.js';
import { createFundedKey, createTestEnv, page, tempDir, TestClock, type TestEnv, until } from '../helpers.js';

const configured = postgresUrl && redisUrl ? postgresUrl : undefined;

describe('two machines on one PostgreSQL and one Redis', skipUnless(configured, 'TEST_POSTGRES_URL and TEST_REDIS_URL'), () => {
  let a: TestEnv;
  let b: TestEnv;
  let drop: () => Promise<void>;
  const clock = new TestClock();

  before(async () => {
    const pg = await freshPostgres();
    drop = pg.drop;
    const flags = { databaseUrl: pg.databaseUrl(), redisUrl: redisUrl!, keylessPerSecond: 2 };
    const options = { redisKeyPrefix: `test:${randomBytes(6).toString('hex')}:` };
    a = await createTestEnv(flags, clock, options);
    b = await createTestEnv(flags, clock, options);
    for (const env of [a, b]) await env.services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  const keyed = (env: TestEnv, key: string) =>
    env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query: 'apples' } });

  test('a key made on one machine works on the other, and their charges draw on one balance', async () => {
    const { org, key } = await createFundedKey(a.services, 2 * KEYED_REQUEST_COST);
    const first = await keyed(b, key);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().results[0].url, 'https://example.com/a');
    assert.equal((await keyed(a, key)).statusCode, 200);
    const third = await keyed(b, key);
    assert.equal(third.statusCode, 402);
    assert.equal(third.json().code, 'insufficient_credits');
    assert.equal(await a.services.ledger.balance(org.id), 0);
    assert.equal(await b.services.ledger.balance(org.id), 0);
    // Usage rows of both machines are in the shared database (in the order they were written).
    await b.services.usage.flush();
    const rows = await a.services.usage.list({ orgId: org.id, limit: 10 });
    assert.deepEqual(rows.map((r) => `${r.status} ${r.costMicroUsd}`).sort(), [`200 ${KEYED_REQUEST_COST}`, `200 ${KEYED_REQUEST_COST}`, '402 0']);
  });

  test('concurrent requests on both machines never overdraw: as many succeed as the credit pays for', async () => {
    const { org, key } = await createFundedKey(a.services, 5 * KEYED_REQUEST_COST, 1000);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => keyed(i % 2 ? a : b, key)));
    assert.equal(answers.filter((r) => r.statusCode === 200).length, 5);
    assert.equal(answers.filter((r) => r.statusCode === 402).length, 7);
    assert.equal(await a.services.ledger.balance(org.id), 0);
  });

  test("an organization's rate limit counts the requests of both machines", async () => {
    const { key } = await createFundedKey(a.services, 100 * KEYED_REQUEST_COST, 2);
    assert.equal((await keyed(a, key)).statusCode, 200);
    assert.equal((await keyed(b, key)).statusCode, 200);
    const refused = await keyed(a, key);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    clock.advance(1000);
    assert.equal((await keyed(b, key)).statusCode, 200, 'the next second');
  });

  test('the keyless limit per address counts both machines', async () => {
    clock.advance(1000);
    const publicSearch = (env: TestEnv) =>
      env.app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 'app' }, payload: { query: 'apples' } });
    assert.equal((await publicSearch(a)).statusCode, 200);
    assert.equal((await publicSearch(b)).statusCode, 200);
    assert.equal((await publicSearch(b)).statusCode, 429);
  });

  test('a page stored on one machine is found by searches on the other, once its sync has run', async () => {
    b.services.sharedPages!.start(50); // as `serve` starts it (every second there)
    await a.services.pages.putVersion(page('https://example.com/walrus', { content: 'Walruses haul out on ice floes.' }));
    const { key } = await createFundedKey(a.services, 100 * KEYED_REQUEST_COST, 1000);
    const search = async (env: TestEnv) => {
      const res = await env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query: 'walruses ice' } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().results as { url: string }[];
    };
    let found: string[] = [];
    for (let i = 0; i < 50 && found.length === 0; i++, await sleep(100)) found = (await search(b)).map((r) => r.url);
    assert.deepEqual(found, ['https://example.com/walrus']);
    assert.equal((await b.services.pages.latest('https://example.com/walrus'))!.content, 'Walruses haul out on ice floes.');
  });

  test('/healthz answers for the database and Redis', async () => {
    const res = await a.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
  });
});

describe('two machines on PostgreSQL alone (no Redis)', skipUnless(postgresUrl, 'TEST_POSTGRES_URL'), () => {
  test("rate limits count both machines' requests in PostgreSQL", async () => {
    const pg = await freshPostgres();
    const clock = new TestClock();
    const flags = { databaseUrl: pg.databaseUrl(), keylessPerSecond: 2 };
    const a = await createTestEnv(flags, clock);
    const b = await createTestEnv(flags, clock);
    try {
      await a.services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
      await b.services.sharedPages!.sync();
      const { key } = await createFundedKey(a.services, 100 * KEYED_REQUEST_COST, 2);
      const keyed = (env: TestEnv) => env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query: 'apples' } });
      assert.equal((await keyed(a)).statusCode, 200);
      assert.equal((await keyed(b)).statusCode, 200);
      const refused = await keyed(a);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
      const publicSearch = (env: TestEnv) =>
        env.app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 'app' }, payload: { query: 'apples' } });
      assert.equal((await publicSearch(b)).statusCode, 200);
      assert.equal((await publicSearch(a)).statusCode, 200);
      assert.equal((await publicSearch(b)).statusCode, 429);
      clock.advance(1000);
      assert.equal((await keyed(b)).statusCode, 200, 'the next second');
      assert.equal((await publicSearch(a)).statusCode, 200, 'the next second');
    } finally {
      await a.close();
      await b.close();
      await pg.drop();
    }
  });
});

describe('a shared store that stops answering', skipUnless(configured, 'TEST_POSTGRES_URL and TEST_REDIS_URL'), () => {
  test('requests get 503 store_unavailable with Retry-After and are not charged; service resumes when it is back', async () => {
    const pg = await freshPostgres();
    const pgRelay = await relay(new URL(postgresUrl!));
    const redisRelay = await relay(new URL(redisUrl!));
    const env = await createTestEnv(
      { databaseUrl: pg.databaseUrl(pgRelay.port), redisUrl: `redis://127.0.0.1:${redisRelay.port}` },
      new TestClock(),
      { redisKeyPrefix: `test:${randomBytes(6).toString('hex')}:` },
    );
    try {
      await env.services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
      const { org, key } = await createFundedKey(env.services, 10 * KEYED_REQUEST_COST, 1000);
      const search = () => env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query: 'apples' } });
      const health = async () => (await env.app.inject({ method: 'GET', url: '/healthz' })).statusCode;
      assert.equal((await search()).statusCode, 200);

      await redisRelay.cut();
      const noRedis = await search();
      assert.equal(noRedis.statusCode, 503, noRedis.body);
      assert.equal(noRedis.json().code, 'store_unavailable');
      assert.equal(noRedis.headers['retry-after'], '1');
      assert.equal(await health(), 503);
      await redisRelay.restore();
      let back = 0;
      for (let i = 0; i < 50 && back !== 200; i++, await sleep(100)) back = (await search()).statusCode;
      assert.equal(back, 200, 'served again once Redis is back');

      await pgRelay.cut();
      const noDatabase = await search();
      assert.equal(noDatabase.statusCode, 503, noDatabase.body);
      assert.equal(noDatabase.json().code, 'store_unavailable');
      assert.equal(await health(), 503);
      await pgRelay.restore();
      assert.equal((await search()).statusCode, 200, 'served again once the database is back');
      // Two searches served, two charged; the ones refused while a store was away were not.
      assert.equal(await env.services.ledger.balance(org.id), 10 * KEYED_REQUEST_COST - 3 * KEYED_REQUEST_COST);
      assert.equal(await health(), 200);
    } finally {
      await env.close();
      await pgRelay.cut();
      await redisRelay.cut();
      await pg.drop();
    }
  });
});

describe('a request whose commit meets an outage', skipUnless(postgresUrl, 'TEST_POSTGRES_URL'), () => {
  test('is not charged, and its reserved credit comes back once the database is back', async () => {
    const pg = await freshPostgres();
    const pgRelay = await relay(new URL(postgresUrl!));
    let asked!: () => void;
    const originAsked = new Promise<void>((resolve) => (asked = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const origin = await startOrigin({
      '/robots.txt': html('', 404),
      '/slow': (_q, r) => {
        asked();
        void answered.then(() => html('<article><p>Otters hold hands while they sleep, so as not to drift apart.</p></article>')(_q, r));
      },
    });
    const env = await createTestEnv({ databaseUrl: pg.databaseUrl(pgRelay.port), allowPrivateNetwork: true }, new TestClock(), {
      // Not stale for ten minutes: the credit comes back as a commit of unknown outcome's (PgLedger settleUnknown).
      staleReservations: { afterMs: 600_000, everyMs: 50 },
    });
    try {
      const { org, key } = await createFundedKey(env.services, 10 * KEYED_REQUEST_COST, 1000);
      const reply = env.app.inject({ url: `/v1/fetch?url=${encodeURIComponent(`${origin.url}/slow`)}&live=true`, headers: { 'x-api-key': key } });
      await originAsked;
      assert.equal(await env.services.ledger.balance(org.id), 9 * KEYED_REQUEST_COST, 'reserved while the page is fetched');
      // The database goes away while the page is on its way: the commit cannot be made.
      await pgRelay.cut();
      answer();
      const res = await reply;
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.json().code, 'store_unavailable');
      await pgRelay.restore();
      await until('the reserved credit given back', async () => (await env.services.ledger.balance(org.id)) === 10 * KEYED_REQUEST_COST);
      // The commit never reached the database: the reservation is released, and nothing was charged or refunded.
      assert.deepEqual(await reservationStates(pg, org.id), ['released']);
      assert.deepEqual((await pg.pool.query('SELECT kind FROM ledger_entries WHERE org_id = $1', [org.id])).rows.map((r) => r.kind), ['credit']);
    } finally {
      await env.close();
      await origin.close();
      await pgRelay.cut();
      await pg.drop();
    }
  });

  test('a reservation its process left pending (it ended before settling) is given back by the sweep once stale', async () => {
    const pg = await freshPostgres();
    const env = await createTestEnv({ databaseUrl: pg.databaseUrl() }, new TestClock(), { staleReservations: { afterMs: 300, everyMs: 50 } });
    try {
      const { org } = await createFundedKey(env.services, 10 * KEYED_REQUEST_COST, 1000);
      // As a process that died between reserve and settle leaves it: pending, in the shared database.
      const held = await env.services.ledger.reserve(org.id, KEYED_REQUEST_COST, 'req_gone');
      assert.ok(held.ok);
      assert.equal(await env.services.ledger.balance(org.id), 9 * KEYED_REQUEST_COST);
      await sleep(100);
      assert.equal(await env.services.ledger.balance(org.id), 9 * KEYED_REQUEST_COST, 'not yet stale');
      await until('the sweep gave it back', async () => (await env.services.ledger.balance(org.id)) === 10 * KEYED_REQUEST_COST);
      assert.deepEqual(await reservationStates(pg, org.id), ['released']);
    } finally {
      await env.close();
      await pg.drop();
    }
  });
});

/**
 * A keyed search whose commit PostgreSQL applies while its answer is lost (the relay drops the
 * replies, then is cut): the request answers 503 store_unavailable, and the organization is charged
 * in the database. Answers the organization and its key.
 */
async function searchWhoseCommitIsLost(env: TestEnv, pg: FreshPostgres, pgRelay: Relay): Promise<{ orgId: string; key: string }> {
  const { org, key } = await createFundedKey(env.services, 10 * KEYED_REQUEST_COST, 1000);
  const committing = pgRelay.dropRepliesAfter("-amount, 'charge'");
  const reply = env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query: 'apples' } });
  await committing;
  await until('the charge applied', async () => {
    const { rows } = await pg.pool.query("SELECT count(*)::int AS n FROM ledger_entries WHERE org_id = $1 AND kind = 'charge'", [org.id]);
    return rows[0].n === 1;
  });
  await pgRelay.cut();
  const res = await reply;
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.json().code, 'store_unavailable');
  assert.equal((await pg.pool.query('SELECT balance FROM orgs WHERE id = $1', [org.id])).rows[0].balance, 9 * KEYED_REQUEST_COST, 'charged as the connection went');
  return { orgId: org.id, key };
}

/** A schema of its own, reached through a relay the test cuts and restores; both go after `body`. */
async function withRelayedPostgres(body: (pg: FreshPostgres, pgRelay: Relay) => Promise<void>): Promise<void> {
  const pg = await freshPostgres();
  const pgRelay = await relay(new URL(postgresUrl!));
  try {
    await body(pg, pgRelay);
  } finally {
    await pgRelay.cut();
    await pg.drop();
  }
}

/** The states of an organization's credit reservations, read in the database itself. */
async function reservationStates(pg: FreshPostgres, orgId: string): Promise<string[]> {
  return (await pg.pool.query<{ state: string }>('SELECT state FROM reservations WHERE org_id = $1', [orgId])).rows.map((r) => r.state);
}

describe('a commit the database applies as its connection is lost', skipUnless(postgresUrl, 'TEST_POSTGRES_URL'), () => {
  test('answers 503 and is refunded once the database is back: the request that failed is not charged', () =>
    withRelayedPostgres(async (pg, pgRelay) => {
      // The sweep runs often, but only reservations of unknown outcome are settled by it here (none is stale).
      const env = await createTestEnv({ databaseUrl: pg.databaseUrl(pgRelay.port) }, new TestClock(), {
        staleReservations: { afterMs: 600_000, everyMs: 50 },
      });
      try {
        // The commit statement reaches PostgreSQL, which applies it; its answer never comes back.
        const { orgId, key } = await searchWhoseCommitIsLost(env, pg, pgRelay);
        await pgRelay.restore();
        await until('the charge given back', async () => (await env.services.ledger.balance(orgId)) === 10 * KEYED_REQUEST_COST);
        assert.deepEqual(await reservationStates(pg, orgId), ['refunded']);
        const { rows: entries } = await pg.pool.query('SELECT kind, amount FROM ledger_entries WHERE org_id = $1 ORDER BY id', [orgId]);
        assert.deepEqual(entries.map((e) => `${e.kind} ${e.amount}`), [`credit ${10 * KEYED_REQUEST_COST}`, `charge ${-KEYED_REQUEST_COST}`, `refund ${KEYED_REQUEST_COST}`]);
        // Settled once: later sweeps change nothing, and the key is served and charged as before.
        await sleep(200);
        assert.equal(await env.services.ledger.balance(orgId), 10 * KEYED_REQUEST_COST);
        const next = await env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query: 'apples' } });
        assert.equal(next.statusCode, 200, next.body);
        assert.equal(await env.services.ledger.balance(orgId), 9 * KEYED_REQUEST_COST);
      } finally {
        await env.close();
      }
    }));
});

describe('a process stopping after a commit met an outage', skipUnless(postgresUrl, 'TEST_POSTGRES_URL'), () => {
  test('settles it as it stops, before its next sweep would have', () =>
    withRelayedPostgres(async (pg, pgRelay) => {
      // No sweep comes in the test's time: only the last one, as the process stops.
      const env = await createTestEnv({ databaseUrl: pg.databaseUrl(pgRelay.port) }, new TestClock(), {
        staleReservations: { afterMs: 600_000, everyMs: 600_000 },
      });
      let closed = false;
      try {
        const { orgId } = await searchWhoseCommitIsLost(env, pg, pgRelay);
        await pgRelay.restore();
        await env.close();
        closed = true;
        assert.deepEqual(await reservationStates(pg, orgId), ['refunded']);
        assert.equal((await pg.pool.query('SELECT balance FROM orgs WHERE id = $1', [orgId])).rows[0].balance, 10 * KEYED_REQUEST_COST);
      } finally {
        if (!closed) await env.close();
      }
    }));
});

describe('a process that ends before it can settle a commit that met an outage', skipUnless(postgresUrl, 'TEST_POSTGRES_URL'), () => {
  test("leaves it in the machine's file, and the next process there settles it as it starts", () =>
    withRelayedPostgres(async (pg, pgRelay) => {
      const dataDir = tempDir();
      // No sweep comes in the test's time, and the last one, as the process ends, meets the outage.
      const sweeps = { staleReservations: { afterMs: 600_000, everyMs: 600_000 } };
      const first = await createTestEnv({ databaseUrl: pg.databaseUrl(pgRelay.port), dataDir: dataDir.path }, new TestClock(), sweeps);
      let firstClosed = false;
      let next: TestEnv | undefined;
      try {
        const { orgId } = await searchWhoseCommitIsLost(first, pg, pgRelay);
        await first.close();
        firstClosed = true;
        const file = openDatabase({ path: join(dataDir.path, 'websearch.db') });
        try {
          assert.equal(file.prepare('SELECT count(*) AS n FROM unsettled_reservations').pluck().get(), 1, 'kept in the file');
        } finally {
          file.close();
        }
        next = await createTestEnv({ databaseUrl: pg.databaseUrl(), dataDir: dataDir.path }, new TestClock(), sweeps);
        assert.deepEqual(await reservationStates(pg, orgId), ['refunded']);
        assert.equal(await next.services.ledger.balance(orgId), 10 * KEYED_REQUEST_COST);
        assert.equal(next.services.ledger.unsettled?.(), 0);
      } finally {
        if (!firstClosed) await first.close();
        await next?.close();
        dataDir.remove();
      }
    }));
});

describe('a live fetch while PostgreSQL is away', skipUnless(configured, 'TEST_POSTGRES_URL and TEST_REDIS_URL'), () => {
  test('answers the page all the same; the version it could not store is logged, and stored by the next fetch', async () => {
    const pg = await freshPostgres();
    const pgRelay = await relay(new URL(postgresUrl!));
    const origin = await startOrigin({
      '/robots.txt': html('', 404),
      '/otters': html('<article><p>Otters hold hands while they sleep, so as not to drift apart.</p></article>'),
    });
    const log: { msg: string; url?: string }[] = [];
    const env = await createTestEnv(
      { databaseUrl: pg.databaseUrl(pgRelay.port), redisUrl: redisUrl!, allowPrivateNetwork: true },
      new TestClock(),
      { redisKeyPrefix: `test:${randomBytes(6).toString('hex')}:` },
      { logStream: { write: (line) => log.push(JSON.parse(line) as { msg: string; url?: string }) } },
    );
    const url = `${origin.url}/otters`;
    const fetchLive = () => env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(url)}&live=true`, headers: { 'x-service-title': 'app' } });
    try {
      await pgRelay.cut();
      const res = await fetchLive();
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.json().content, /Otters hold hands/);
      assert.equal(await env.services.pages.latest(url), undefined, 'not stored');
      assert.ok(log.some((l) => l.msg === 'live page not stored' && l.url === url));
      await pgRelay.restore();
      assert.equal((await fetchLive()).statusCode, 200);
      assert.match((await env.services.pages.latest(url))!.content, /Otters hold hands/);
    } finally {
      await env.close();
      await origin.close();
      await pgRelay.cut();
      await pg.drop();
    }
  });
});

describe('an unreachable PostgreSQL or Redis', () => {
  test('stops the start with the reason, never the password', async () => {
    const dir = tempDir();
    try {
      for (const env of [
        { DATABASE_URL: 'postgres://user:hunter2@127.0.0.1:1/db' },
        { REDIS_URL: 'redis://:hunter2@127.0.0.1:1' },
      ]) {
        const settings = loadSettings({ env: { WEBSEARCH_DATA_DIR: dir.path, ...env } });
        await assert.rejects(createServices(settings), (e: Error) => {
          assert.ok(e instanceof StoreUnreachable, String(e));
          assert.match(e.message, /cannot use (PostgreSQL|Redis) at .*127\.0\.0\.1:1.*ECONNREFUSED/);
          assert.doesNotMatch(e.message, /hunter2/);
          return true;
        });
      }
    } finally {
      dir.remove();
    }
  });
});
