import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseKeyExchangeBody } from '../../src/access/storefront/legacy-keys.js';
import { legacySignature } from '../../src/access/storefront/signature.js';
import { createTestEnv, page, type TestEnv } from '../helpers.js';

const SECRET = 'legacy-exchange-secret-0123456789';

describe('older storefront contract: /zeroclick/api-key', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ storefrontLegacySecret: SECRET });
    await env.services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
  });
  after(() => env.close());

  const exchange = (method: 'POST' | 'DELETE', body: object | string, opts: { secret?: string; t?: number } = {}) => {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const t = String(opts.t ?? Math.floor(env.clock.now() / 1000));
    return env.app.inject({
      method,
      url: '/zeroclick/api-key',
      headers: {
        'content-type': 'application/json',
        'x-zeroclick-timestamp': t,
        'x-zeroclick-signature': legacySignature(opts.secret ?? SECRET, t, raw),
      },
      payload: raw,
    });
  };
  const search = (key: string) =>
    env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query: 'apples' } });

  test('POST provisions a key, idempotently; it works without credits and reports usage by header', async () => {
    const first = await exchange('POST', { userId: 'user_1', plan: 'pro' });
    assert.equal(first.statusCode, 200);
    const { apiKey } = first.json();
    assert.match(apiKey, /^wsk_[0-9A-Za-z]{44}$/);
    const again = await exchange('POST', { userId: 'user_1', plan: 'pro' });
    assert.equal(again.json().apiKey, apiKey, 'the same key on a repeated call');
    const res = await search(apiKey);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-zeroclick-usage'], 'api-requests=1');
    const failed = await env.app.inject({ url: '/v1/fetch?url=https://example.com/none', headers: { 'x-api-key': apiKey } });
    assert.equal(failed.statusCode, 404);
    assert.equal(failed.headers['x-zeroclick-usage'], undefined, 'a failure reports no usage');
    const other = await exchange('POST', { userId: 'user_2' });
    assert.notEqual(other.json().apiKey, apiKey);
  });

  test('DELETE revokes, idempotently; a later purchase gets a new key', async () => {
    const { apiKey } = (await exchange('POST', { userId: 'user_3' })).json();
    assert.equal((await search(apiKey)).statusCode, 200);
    const del = await exchange('DELETE', { userId: 'user_3' });
    assert.deepEqual(del.json(), { revoked: true });
    assert.deepEqual((await exchange('DELETE', { userId: 'user_3' })).json(), { revoked: false });
    assert.equal((await search(apiKey)).statusCode, 401);
    const renewed = (await exchange('POST', { userId: 'user_3' })).json().apiKey;
    assert.notEqual(renewed, apiKey);
    assert.equal((await search(renewed)).statusCode, 200);
    assert.equal((await search(apiKey)).statusCode, 401);
  });

  test('bad signatures, stale timestamps and bad bodies are refused and change nothing', async () => {
    const wrong = await exchange('POST', { userId: 'user_9' }, { secret: 'another-secret-0123456789abc' });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error, 'invalid_zeroclick_signature');
    const stale = await exchange('POST', { userId: 'user_9' }, { t: Math.floor(env.clock.now() / 1000) - 301 });
    assert.equal(stale.statusCode, 401);
    const unsigned = await env.app.inject({ method: 'POST', url: '/zeroclick/api-key', payload: { userId: 'user_9' } });
    assert.equal(unsigned.statusCode, 401);
    assert.equal((await exchange('POST', '{"userId": 5}')).statusCode, 400);
    assert.equal((await exchange('POST', 'not json')).statusCode, 400);
    assert.deepEqual((await exchange('DELETE', { userId: 'user_9' })).json(), { revoked: false }, 'user_9 was never provisioned');
  });

  test('without STOREFRONT_LEGACY_SECRET the route does not exist', async () => {
    const plain = await createTestEnv();
    try {
      const res = await plain.app.inject({ method: 'POST', url: '/zeroclick/api-key', payload: { userId: 'x' } });
      assert.equal(res.statusCode, 404);
    } finally {
      await plain.close();
    }
  });
});

test("a key exchange's plan is kept without control characters (PostgreSQL's text cannot hold a NUL)", () => {
  const parsed = parseKeyExchangeBody(JSON.stringify({ userId: 'user_9', plan: 'pro\u0000\u001b[31m' }));
  assert.deepEqual(parsed, { ok: true, value: { userId: 'user_9', plan: 'pro[31m' } });
});
