import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteLedger } from '../../src/adapters/sqlite/ledger.js';
import { createFundedKey, createTestEnv, page, type TestEnv } from '../helpers.js';

describe('keyed tier', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv();
    await env.services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
  });
  after(() => env.close());

  const searchWith = (headers: Record<string, string>, body: unknown = { query: 'apples' }) =>
    env.app.inject({ method: 'POST', url: '/v1/search', headers, payload: body as object });

  test('no key: 401 missing_api_key', async () => {
    const res = await searchWith({});
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'missing_api_key');
  });

  test('unknown, malformed and forged keys: 401 invalid_api_key', async () => {
    const { key } = await createFundedKey(env.services, 100_000);
    const forged = `${key.slice(0, -4)}AAAA` === key ? `${key.slice(0, -4)}BBBB` : `${key.slice(0, -4)}AAAA`;
    for (const bad of ['nope', 'wsk_tooShort', forged]) {
      const res = await searchWith({ 'x-api-key': bad });
      assert.equal(res.statusCode, 401, bad);
      assert.equal(res.json().code, 'invalid_api_key');
    }
  });

  test('a key works in X-API-Key or Authorization: Bearer; X-API-Key wins when both are sent', async () => {
    const { key, org } = await createFundedKey(env.services, 100_000);
    assert.equal((await searchWith({ 'x-api-key': key })).statusCode, 200);
    assert.equal((await searchWith({ authorization: `Bearer ${key}` })).statusCode, 200);
    assert.equal((await searchWith({ 'x-api-key': key, authorization: 'Bearer wsk_wrong' })).statusCode, 200);
    const wrongFirst = await searchWith({ 'x-api-key': 'wsk_wrong', authorization: `Bearer ${key}` });
    assert.equal(wrongFirst.statusCode, 401);
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - 3 * KEYED_REQUEST_COST);
  });

  test('a revoked key stops working', async () => {
    const { key, keyId } = await createFundedKey(env.services, 100_000);
    assert.equal((await searchWith({ 'x-api-key': key })).statusCode, 200);
    assert.equal(await env.services.accounts.revokeKey(keyId, Date.now()), true);
    const res = await searchWith({ 'x-api-key': key });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'invalid_api_key');
  });

  test('success costs 4,000 micro-USD; failures (400, 404) cost nothing', async () => {
    const { key, org } = await createFundedKey(env.services, 100_000);
    const h = { 'x-api-key': key };
    assert.equal((await searchWith(h)).statusCode, 200);
    assert.equal(await env.services.ledger.balance(org.id), 96_000);
    assert.equal((await searchWith(h, { query: 'apples', max_results: 51 })).statusCode, 400);
    // A webql syntax error is found after the credit is reserved; the reservation is released.
    assert.equal((await searchWith(h, { query: '(apples', mode: 'webql' })).statusCode, 400);
    const missing = await env.app.inject({ url: '/v1/fetch?url=https://nowhere.test/', headers: h });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'not_indexed');
    const fetched = await env.app.inject({ url: '/v1/fetch?url=https://example.com/a', headers: h });
    assert.equal(fetched.statusCode, 200);
    assert.equal(await env.services.ledger.balance(org.id), 92_000);
  });

  test('an empty balance answers 402 insufficient_credits and runs nothing', async () => {
    const { key, org } = await createFundedKey(env.services, 3_999);
    const res = await searchWith({ 'x-api-key': key });
    assert.equal(res.statusCode, 402);
    assert.equal(res.json().code, 'insufficient_credits');
    assert.equal(await env.services.ledger.balance(org.id), 3_999);
  });

  test('concurrent requests against a small balance: it ends at exactly zero, none served unpaid', async () => {
    const { key, org } = await createFundedKey(env.services, 7 * KEYED_REQUEST_COST);
    const responses = await Promise.all(Array.from({ length: 20 }, () => searchWith({ 'x-api-key': key })));
    const codes = responses.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 7);
    assert.equal(codes.filter((c) => c === 402).length, 13);
    assert.equal(await env.services.ledger.balance(org.id), 0);
    const usage = await env.services.usage.list({ orgId: org.id, limit: 100 });
    assert.equal(usage.filter((u) => u.costMicroUsd > 0).length, 7);
    assert.equal(
      usage.reduce((sum, u) => sum + u.costMicroUsd, 0),
      7 * KEYED_REQUEST_COST,
    );
  });

  test('the balance spent by another process during the request: 402 insufficient_credits, the result withheld, nothing charged', async () => {
    // One server process holds its reservations in memory; another process on the same database
    // (here a second connection) spends the balance while the search runs.
    const { key, org } = await createFundedKey(env.services, KEYED_REQUEST_COST);
    const db = openDatabase({ path: env.services.settings.sqlitePath });
    const other = new SqliteLedger(db, { reservations: 'memory' });
    const search = env.services.index.search;
    env.services.index.search = async (query) => {
      const spent = await other.reserve(org.id, KEYED_REQUEST_COST, 'elsewhere');
      assert.ok(spent.ok);
      assert.equal(await other.commit(spent.id), true);
      return search.call(env.services.index, query);
    };
    try {
      const res = await searchWith({ 'x-api-key': key });
      assert.equal(res.statusCode, 402);
      assert.equal(res.json().code, 'insufficient_credits');
      assert.equal(res.json().results, undefined);
    } finally {
      env.services.index.search = search;
      db.close();
    }
    assert.equal(await env.services.ledger.balance(org.id), 0);
    const usage = await env.services.usage.list({ orgId: org.id, limit: 10 });
    assert.deepEqual(
      usage.map((u) => [u.status, u.costMicroUsd]),
      [[402, 0]],
    );
    // Nothing is left held: new credit serves a request.
    await env.services.ledger.credit(org.id, KEYED_REQUEST_COST, 'test');
    assert.equal((await searchWith({ 'x-api-key': key })).statusCode, 200);
    assert.equal(await env.services.ledger.balance(org.id), 0);
  });

  test('per-organization rate limit: 429 with Retry-After, not charged; default 50/s', async () => {
    const limited = await createFundedKey(env.services, 1_000_000, 3);
    env.clock.advance(10_000);
    const codes: number[] = [];
    let last: Awaited<ReturnType<typeof searchWith>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await searchWith({ 'x-api-key': limited.key });
      codes.push(last.statusCode);
    }
    assert.deepEqual(codes, [200, 200, 200, 429, 429]);
    assert.equal(last!.json().code, 'rate_limited');
    assert.equal(last!.headers['retry-after'], '1');
    assert.equal(await env.services.ledger.balance(limited.org.id), 1_000_000 - 3 * KEYED_REQUEST_COST);
    env.clock.advance(1000);
    assert.equal((await searchWith({ 'x-api-key': limited.key })).statusCode, 200);

    const normal = await createFundedKey(env.services, 1_000_000);
    const many = [];
    for (let i = 0; i < 51; i++) many.push((await searchWith({ 'x-api-key': normal.key })).statusCode);
    assert.equal(many.filter((c) => c === 200).length, 50);
    assert.equal(many[50], 429);
  });

  test('usage is recorded per request with tier, org, operation, status, cost and latency', async () => {
    const { key, org, keyId } = await createFundedKey(env.services, 100_000);
    env.clock.advance(10_000);
    await searchWith({ 'x-api-key': key });
    await env.app.inject({ url: '/v1/fetch?url=https://example.com/missing', headers: { 'x-api-key': key } });
    const rows = await env.services.usage.list({ orgId: org.id, limit: 10 });
    assert.equal(rows.length, 2);
    const [fetchRow, searchRow] = rows;
    assert.equal(searchRow!.tier, 'keyed');
    assert.equal(searchRow!.operation, 'search');
    assert.equal(searchRow!.status, 200);
    assert.equal(searchRow!.costMicroUsd, KEYED_REQUEST_COST);
    assert.equal(searchRow!.keyId, keyId);
    assert.ok(searchRow!.latencyMs >= 0);
    assert.equal(fetchRow!.operation, 'fetch');
    assert.equal(fetchRow!.status, 404);
    assert.equal(fetchRow!.costMicroUsd, 0);
  });
});
