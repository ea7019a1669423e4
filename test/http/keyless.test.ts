import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { createTestEnv, page, type TestEnv } from '../helpers.js';

describe('keyless tier', () => {
  let env: TestEnv;
  beforeEach(async () => {
    env = await createTestEnv();
    await env.services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
  });
  afterEach(() => env.close());

  const search = (headers: Record<string, string> = { 'x-service-title': 'my-app' }, url = '/v1/search/public', body: object = { query: 'apples' }) =>
    env.app.inject({ method: 'POST', url, headers, payload: body });

  test('without an application title: 400 with the text "Missing app identifier"', async () => {
    const res = await search({});
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { error: 'Missing app identifier', code: 'missing_app_identifier' });
    const blank = await search({ 'x-service-title': '   ' });
    assert.equal(blank.statusCode, 400);
    const fetchRes = await env.app.inject({ url: '/v1/fetch/public?url=https://example.com/a' });
    assert.equal(fetchRes.json().error, 'Missing app identifier');
  });

  test('the header or the service_title query parameter names the app; long values are truncated to 256', async () => {
    assert.equal((await search()).statusCode, 200);
    const viaQuery = await search({}, '/v1/search/public?service_title=from-query');
    assert.equal(viaQuery.statusCode, 200);
    const fetched = await env.app.inject({ url: '/v1/fetch/public?url=https%3A%2F%2Fexample.com%2Fa&service_title=q' });
    assert.equal(fetched.statusCode, 200);
    assert.equal(fetched.json().content, 'Apples and pears.');
    await search({ 'x-service-title': 'é'.repeat(300) });
    const rows = await env.services.usage.list({ limit: 10 });
    assert.deepEqual(
      rows.map((r) => r.appTitle),
      ['é'.repeat(256), 'q', 'from-query', 'my-app'],
    );
    assert.ok(rows.every((r) => r.tier === 'keyless' && r.costMicroUsd === 0));
  });

  test('a title is recorded without control characters; one of control characters alone is no title', async () => {
    const res = await search({}, '/v1/search/public?service_title=%00my%1B%5B31m-app%7F');
    assert.equal(res.statusCode, 200);
    assert.equal((await search({}, '/v1/search/public?service_title=%00%01%1B')).statusCode, 400);
    assert.deepEqual((await env.services.usage.list({ limit: 10 })).map((r) => r.appTitle), [undefined, 'my[31m-app']);
  });

  test('rate-limit headers on every response; the 11th request in a second is 429 with Retry-After', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await search();
      codes.push(res.statusCode);
      assert.equal(res.headers['x-ratelimit-limit'], '10');
      assert.equal(res.headers['x-ratelimit-remaining'], String(Math.max(0, 9 - i)));
      assert.equal(res.headers['x-ratelimit-reset'], '1');
      if (i === 10) {
        assert.equal(res.json().code, 'rate_limited');
        assert.equal(res.headers['retry-after'], '1');
      }
    }
    assert.deepEqual(codes, [...Array(10).fill(200), 429]);
    env.clock.advance(1000);
    assert.equal((await search()).statusCode, 200);
  });

  test('errors carry the headers too (a bad parameter, a missing app id)', async () => {
    const bad = await search(undefined, undefined, { query: 'x', max_results: 0 });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().param, 'max_results');
    assert.ok(bad.headers['x-ratelimit-remaining']);
    const missing = await search({});
    assert.ok(missing.headers['x-ratelimit-limit']);
  });

  test('1,000 requests an hour per IP; headers then describe the hourly window', async () => {
    const start = env.clock.now();
    for (let i = 0; i < 1000; i++) {
      if (i % 10 === 0) env.clock.advance(1000);
      const res = await search();
      assert.equal(res.statusCode, 200, `request ${i}`);
    }
    env.clock.advance(1000);
    const res = await search();
    assert.equal(res.statusCode, 429);
    assert.equal(res.headers['x-ratelimit-limit'], '1000');
    assert.equal(res.headers['x-ratelimit-remaining'], '0');
    const hourEnd = Math.floor(start / 3_600_000) * 3_600_000 + 3_600_000;
    const expected = String(Math.ceil((hourEnd - env.clock.now()) / 1000));
    assert.equal(res.headers['retry-after'], expected);
    assert.equal(res.headers['x-ratelimit-reset'], expected);
  });

  test('limits are per client IP', async () => {
    for (let i = 0; i < 10; i++) await search();
    assert.equal((await search()).statusCode, 429);
    const other = await env.app.inject({
      method: 'POST',
      url: '/v1/search/public',
      remoteAddress: '10.9.8.7',
      headers: { 'x-service-title': 'my-app' },
      payload: { query: 'apples' },
    });
    assert.equal(other.statusCode, 200);
  });

  test('an IPv6 client is limited by its /64 (one subscriber\'s), an IPv4-mapped address as its IPv4 one', async () => {
    const from = (remoteAddress: string) =>
      env.app.inject({ method: 'POST', url: '/v1/search/public', remoteAddress, headers: { 'x-service-title': 'my-app' }, payload: { query: 'apples' } });
    // Ten addresses of one /64, a new one for each request: the 11th is refused all the same.
    for (let i = 1; i <= 10; i++) assert.equal((await from(`2001:db8:1:2::${i.toString(16)}`)).statusCode, 200);
    assert.equal((await from('2001:db8:1:2:ffff:ffff:ffff:ffff')).statusCode, 429);
    assert.equal((await from('2001:db8:1:3::1')).statusCode, 200, 'another /64 has its own limit');
    for (let i = 0; i < 10; i++) await from('192.0.2.7');
    assert.equal((await from('::ffff:192.0.2.7')).statusCode, 429);
  });

  test('webql and realtime_content are keyed-only: 403 mode_not_allowed', async () => {
    for (const mode of ['webql', 'realtime_content']) {
      const res = await search(undefined, undefined, { query: 'apples', mode });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'mode_not_allowed');
    }
  });
});

describe('client IP behind a proxy', () => {
  test('X-Forwarded-For counts only when trustProxy is configured', async () => {
    for (const [trustProxy, expectSplit] of [
      [false, false],
      [true, true],
    ] as const) {
      const env = await createTestEnv({ trustProxy });
      try {
        const codes: number[] = [];
        for (let i = 0; i < 11; i++) {
          const res = await env.app.inject({
            method: 'POST',
            url: '/v1/search/public',
            headers: { 'x-service-title': 'a', 'x-forwarded-for': `203.0.113.${i}` },
            payload: { query: 'x' },
          });
          codes.push(res.statusCode);
        }
        assert.equal(codes.includes(429), !expectSplit, `trustProxy=${trustProxy}`);
        const ips = new Set((await env.services.usage.list({ limit: 20 })).map((r) => r.clientIp));
        assert.equal(ips.size, expectSplit ? 11 : 1);
      } finally {
        await env.close();
      }
    }
  });
});
