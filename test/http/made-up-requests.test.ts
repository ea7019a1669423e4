/**
 * Made-up requests to the keyed search and fetch endpoints: bodies and query strings of every
 * field in every type, webql expressions of the language's own characters in any order, and
 * headers the API reads. Each is answered with a documented status: 200, or an error body
 * (`error`, `code`) with its status, never a 500; and a request that fails is never charged.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { picker, rng } from '../../bench/scifact.js';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { createFundedKey, createTestEnv, page, type TestEnv } from '../helpers.js';

describe('made-up requests', () => {
  let env: TestEnv;
  let key: string;
  let orgId: string;
  const random = rng(23);
  const pick = picker(random);
  before(async () => {
    env = await createTestEnv();
    ({ key, org: { id: orgId } } = await createFundedKey(env.services, 100_000_000, 1_000_000));
    await env.services.pages.putVersions([
      page('https://rust.test/book/ownership', { title: 'Ownership', content: 'The garbage collector is absent: ownership frees memory.', lang: 'en' }),
      page('https://go.test/gc', { title: 'Go GC', content: 'The Go garbage collector is concurrent.', publishedAt: Date.parse('2024-03-01T00:00:00Z') }),
    ]);
  });
  after(() => env.close());

  const VALUES: unknown[] = [
    '', ' ', 'garbage', 'garbage collector', 'x'.repeat(2001), 0, 1, -1, 10, 50, 51, 180, 10_000, 1.5, 1e300, -0, '12', '1e3', ' 7 ', true, false, null, [], ['a'],
    {}, { a: 1 }, '2026-01-01', '2026-01-01T00:00:00Z', '2026-13-45', '2h', '-2h', '3d', '1y', 'now', '\u0000', '\ud800', 'rust.test', 'RUST.test.', 'http://x', 'a..b',
    'webql', 'standard', 'WEBQL', 'https://rust.test/book/ownership', 'https://[::1]/', 'file:///etc/passwd', 'javascript:x',
  ];
  const SEARCH_FIELDS = ['query', 'max_results', 'snippet_max_length', 'site', 'mode', 'published_after', 'published_before', 'acquired_after', 'acquired_before', 'query_time', 'unknown_field'];
  const WEBQL = ['garbage', 'collector', '"', '(', ')', ' OR ', ' AND ', '-', 'site:', 'url:', 'inurl:', 'title:', 'intitle:', 'lang:', 'en', 'rust.test', ' ', '""', '*', 'é', '\\', ':', 'OR', '-(', '"garbage collector"', 'e-mail', 'C++', '3.12'];

  const charged = async () => (await env.services.ledger.balance(orgId))!;
  const check = async (what: string, res: { statusCode: number; body: string }, before: number) => {
    assert.ok(res.statusCode < 500, `${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (res.statusCode !== 200) {
      const body = JSON.parse(res.body) as { error?: unknown; code?: unknown };
      assert.ok(typeof body.error === 'string' && typeof body.code === 'string', `${what}: ${res.body.slice(0, 300)}`);
      assert.equal(await charged(), before, `${what}: a failed request charged`);
    } else {
      assert.equal(await charged(), before - KEYED_REQUEST_COST, `${what}: a request answered was not charged once`);
    }
  };

  test('search bodies: each field of any type, and webql expressions of its own characters', async () => {
    let answered = 0;
    for (let n = 0; n < 600; n++) {
      const body: Record<string, unknown> = {};
      if (random() < 0.9) body.query = random() < 0.3 ? Array.from({ length: 1 + Math.floor(random() * 8) }, () => pick(WEBQL)).join('') : pick(VALUES);
      for (let k = Math.floor(random() * 4); k > 0; k--) body[pick(SEARCH_FIELDS)] = pick(VALUES);
      if (random() < 0.3) body.mode = 'webql';
      const raw = random() < 0.05 ? pick(['', '{', '[]', 'null', '"x"', '{"query": "a", "query": 1}']) : JSON.stringify(body);
      const before = await charged();
      const res = await env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: raw });
      await check(raw.slice(0, 300), res, before);
      if (res.statusCode === 200) answered++;
    }
    assert.ok(answered > 60, `${answered} answered`);
  });

  test('fetch query strings: each parameter of any spelling', async () => {
    let answered = 0;
    for (let n = 0; n < 300; n++) {
      const params = new URLSearchParams();
      if (random() < 0.9) params.append('url', random() < 0.5 ? 'https://rust.test/book/ownership' : String(pick(VALUES)));
      for (let k = Math.floor(random() * 3); k > 0; k--) params.append(pick(['max_chars', 'live', 'prompt', 'url', 'other']), String(pick(VALUES)));
      const before = await charged();
      // Live fetches stay off: no test reaches the internet (the index answers, or a 404).
      params.set('live', random() < 0.5 ? 'false' : String(pick(VALUES)));
      if (params.get('live') === 'true') params.set('live', 'false');
      params.delete('prompt');
      const res = await env.app.inject({ method: 'GET', url: `/v1/fetch?${params}`, headers: { 'x-api-key': key } });
      await check(params.toString().slice(0, 300), res, before);
      if (res.statusCode === 200) answered++;
    }
    assert.ok(answered > 30, `${answered} answered`);
  });

  test('a body that is not a JSON object, or not sent as JSON, is a 400 that names what to send', async () => {
    const before = await charged();
    for (const [type, payload, text] of [
      ['text/plain', '{"query":"garbage"}', /must be a JSON object, sent with Content-Type: application\/json/],
      ['application/json', '"garbage"', /must be a JSON object, sent with Content-Type: application\/json/],
      ['application/json', '[1]', /must be a JSON object/],
      ['application/x-www-form-urlencoded', 'query=garbage', /must be JSON with Content-Type: application\/json/],
      ['application/json', '{"query":"garbage"} and more', /not valid JSON/],
    ] as const) {
      const res = await env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key, 'content-type': type }, payload });
      assert.equal(res.statusCode, 400, `${type} ${payload}`);
      assert.match((JSON.parse(res.body) as { error: string }).error, text, `${type} ${payload}`);
    }
    assert.equal(await charged(), before);
  });

  test('HEAD is no route: a HEAD fetch used to run the fetch and be charged, its caller getting no content', async () => {
    const before = await charged();
    for (const url of ['/v1/fetch?url=https%3A%2F%2Fgo.test%2Fgc', '/v1/fetch/public?url=https%3A%2F%2Fgo.test%2Fgc&service_title=t', '/v1/search']) {
      const res = await env.app.inject({ method: 'HEAD', url, headers: { 'x-api-key': key } });
      assert.equal(res.statusCode, 404, url);
    }
    assert.equal(await charged(), before);
    assert.equal((await env.app.inject({ method: 'HEAD', url: '/healthz' })).statusCode, 200, "a load balancer's check may be a HEAD");
  });

  test("requests Node's parser cannot read get our error body on the socket, and charge nothing", async () => {
    await env.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = env.app.server.address() as { port: number };
    const raw = (bytes: Buffer) =>
      new Promise<string>((resolve, reject) => {
        let got = '';
        const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
        socket.setEncoding('latin1').on('data', (d: string) => (got += d));
        socket.on('close', () => resolve(got)).on('error', reject);
      });
    const before = await charged();
    for (const [what, bytes, status, code] of [
      ['a URL not percent-encoded', Buffer.from(`GET /v1/fetch?url=https://bücher.de/ HTTP/1.1\r\nHost: a\r\nX-API-Key: ${key}\r\n\r\n`), 400, 'malformed_request'],
      ['a request line that is not HTTP', Buffer.from('HELLO\r\n\r\n'), 400, 'malformed_request'],
      ['headers over 16 KiB', Buffer.from(`GET /v1/fetch?url=https%3A%2F%2Fgo.test%2Fgc HTTP/1.1\r\nHost: a\r\nX-API-Key: ${key}\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`), 431, 'headers_too_large'],
    ] as const) {
      const answer = await raw(bytes);
      const [head, body] = answer.split('\r\n\r\n');
      assert.match(head!, new RegExp(`^HTTP/1.1 ${status} `), `${what}: ${answer.slice(0, 200)}`);
      assert.equal((JSON.parse(body!) as { code: string }).code, code, what);
    }
    assert.equal(await charged(), before);
  });
});
