import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServices } from '../../src/config/services.js';
import { loadSettings, type RawSettings } from '../../src/config/settings.js';
import { buildApp } from '../../src/http/app.js';
import { picker, rng } from '../../bench/scifact.js';
import { StorefrontSimulator } from '../fixtures/storefront-simulator.js';
import { page, TestClock, tempDir } from '../helpers.js';

const SECRET1 = 'first-signing-secret-0123456789';
const SECRET2 = 'second-signing-secret-987654321';

async function startEnv(sim: StorefrontSimulator, clock: TestClock, extra: RawSettings = {}, dataDir?: string) {
  const dir = dataDir ? { path: dataDir, remove() {} } : tempDir();
  const settings = loadSettings({
    env: {},
    flags: {
      dataDir: dir.path,
      storefrontSigningSecrets: `k1:${SECRET1},k2:${SECRET2}`,
      storefrontAllowanceUrl: sim.allowanceUrl,
      storefrontUsageUrl: sim.usageUrl,
      storefrontApiKey: 'sf-api-key',
      storefrontServiceSlug: 'websearch-test',
      storefrontAllowanceTimeoutMs: 500,
      ...extra,
    },
  });
  const services = await createServices(settings, { clock, usageReportIntervalMs: 50 });
  const app = await buildApp(services, { logger: false });
  sim.target = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    services,
    dir,
    async close() {
      await app.close();
      await services.close();
    },
  };
}

const searchBody = JSON.stringify({ query: 'storefront apples' });

describe('storefront tier (header usage channel)', () => {
  const clock = new TestClock();
  const sim = new StorefrontSimulator('k1', SECRET1, () => Math.floor(clock.now() / 1000));
  let env: Awaited<ReturnType<typeof startEnv>>;
  let agentSeq = 0;
  const agent = () => `agt_${++agentSeq}`;

  before(async () => {
    await sim.start();
    env = await startEnv(sim, clock);
    await env.services.pages.putVersion(page('https://shop.test/apples', { content: 'storefront apples are red' }));
  });
  after(async () => {
    await env.close();
    env.dir.remove();
    await sim.close();
  });

  test('valid forwards on all three paths run, are checked with the allowance API, and carry zc-usage', async () => {
    const before = sim.allowanceCalls.length;
    const a = agent();
    const post = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: a });
    assert.equal(post.status, 200, JSON.stringify(post.body));
    assert.equal(post.body.results[0].url, 'https://shop.test/apples');
    assert.equal(post.headers.get('zc-usage'), 'requests=1');
    const get = await sim.forward({ method: 'GET', path: '/v1/zeroclick/search?query=apples&max_results=3', agentId: a });
    assert.equal(get.status, 200);
    assert.equal(get.body.results.length, 1);
    const fetched = await sim.forward({ method: 'GET', path: `/v1/zeroclick/fetch?url=${encodeURIComponent('https://shop.test/apples')}`, agentId: a });
    assert.equal(fetched.status, 200);
    assert.equal(fetched.body.content, 'storefront apples are red');
    assert.equal(fetched.headers.get('zc-usage'), 'requests=1');
    const calls = sim.allowanceCalls.slice(before);
    assert.equal(calls.length, 3);
    assert.deepEqual(calls[0], {
      auth: 'Bearer sf-api-key',
      body: { requestId: post.requestId, agentId: a, usage: [{ meterSlug: 'requests', quantity: 1 }] },
    });
  });

  test('the proxy path: an agent token at the storefront reaches the service signed', async () => {
    sim.tokens.set('tok_abc', 'agt_proxy');
    const res = await fetch(`${sim.proxyUrl}/v1/zeroclick/search`, {
      method: 'POST',
      headers: { authorization: 'Bearer tok_abc', 'content-type': 'application/json' },
      body: searchBody,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('zc-usage'), 'requests=1');
    assert.equal(sim.allowanceCalls.at(-1)!.body.agentId, 'agt_proxy');
  });

  test('tampered body, path, query, method, request id, agent id or kid: 401 before any other work', async () => {
    const before = sim.allowanceCalls.length;
    const tampers: [string, Parameters<typeof sim.forward>[0]['tamper']][] = [
      ['body', (r) => (r.body = r.body.replace('apples', 'pears'))],
      ['path', (r) => (r.path = '/v1/zeroclick/search?x=1')],
      ['method', (r) => (r.method = 'GET')],
      ['request id', (r) => (r.headers['zc-request-id'] = 'zcreq_other')],
      ['agent id', (r) => (r.headers['zc-agent-id'] = 'agt_someone_else')],
      ['kid', (r) => (r.headers['zc-signature'] = r.headers['zc-signature']!.replace('kid=k1', 'kid=k2'))],
      ['timestamp', (r) => (r.headers['zc-signature'] = r.headers['zc-signature']!.replace(/t=(\d+)/, (_m, t) => `t=${Number(t) + 1}`))],
      ['signature hex', (r) => (r.headers['zc-signature'] = r.headers['zc-signature']!.replace(/v1=(.)/, (_m, c) => `v1=${c === 'a' ? 'b' : 'a'}`))],
      ['no signature', (r) => delete r.headers['zc-signature']],
    ];
    for (const [name, tamper] of tampers) {
      const res = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: agent(), tamper });
      assert.equal(res.status, 401, name);
      assert.equal(res.body.error, 'invalid_zeroclick_signature', name);
      assert.equal(res.headers.get('zc-usage'), null);
    }
    assert.equal(sim.allowanceCalls.length, before, 'no allowance call for a bad signature');
  });

  test('a body that is not UTF-8 is verified as the bytes it came in (before, as text, a correct signature was 401)', async () => {
    const bytes = Buffer.from('{"query":"storefront apples caf\u00e9"}', 'latin1'); // é as the one byte 0xE9
    const res = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', bodyBytes: bytes, agentId: agent() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.results[0].url, 'https://shop.test/apples');
    const changed = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', bodyBytes: bytes, agentId: agent(), tamper: () => bytes.writeUInt8(0xe8, bytes.length - 3) });
    assert.equal(changed.status, 401, 'another byte in its place is another body');
  });

  test('a direct call without a signature is 401 even with a bad body or an API key', async () => {
    const inits: RequestInit[] = [
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' },
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' },
      { method: 'GET', headers: { 'x-api-key': 'wsk_whatever' } },
    ];
    for (const init of inits) {
      const res = await fetch(`${sim.target}/v1/zeroclick/search`, init);
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { error: string }).error, 'invalid_zeroclick_signature');
    }
    assert.equal((await fetch(`${sim.target}/v1/zeroclick/fetch?url=https://shop.test/apples`)).status, 401);
  });

  test('timestamps: 300 s either way is accepted, 301 s is stale', async () => {
    const now = Math.floor(clock.now() / 1000);
    for (const [offset, status] of [
      [-300, 200],
      [300, 200],
      [-301, 401],
      [301, 401],
    ] as const) {
      const res = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: agent(), t: now + offset });
      assert.equal(res.status, status, `offset ${offset}`);
    }
  });

  test('secret rotation: both kids are valid; a secret under the wrong kid or an unknown kid is not', async () => {
    const k2 = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: agent(), kid: 'k2', secret: SECRET2 });
    assert.equal(k2.status, 200);
    const crossed = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: agent(), kid: 'k2', secret: SECRET1 });
    assert.equal(crossed.status, 401);
    const unknown = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: agent(), kid: 'k3', secret: SECRET1 });
    assert.equal(unknown.status, 401);
  });

  test('an anonymous probe gets the identity challenge: 402 with an empty usage list', async () => {
    const before = sim.allowanceCalls.length;
    const res = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: null });
    assert.equal(res.status, 402);
    assert.equal(res.body.error, 'payment_required');
    assert.equal(res.body.serviceSlug, 'websearch-test');
    assert.deepEqual(res.body.usage, []);
    assert.equal(sim.allowanceCalls.length, before);
  });

  test('denied credit: 402 payment_required with the usage it needs; nothing runs', async () => {
    sim.allowanceMode = 'deny';
    try {
      const res = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: agent() });
      assert.equal(res.status, 402);
      assert.deepEqual(res.body, {
        error: 'payment_required',
        code: 'payment_required',
        serviceSlug: 'websearch-test',
        usage: [{ meterSlug: 'requests', quantity: 1 }],
      });
      assert.equal(res.headers.get('zc-usage'), null);
    } finally {
      sim.allowanceMode = 'allow';
    }
  });

  test('credit that cannot be confirmed (slow, 500, malformed, hang-up): 503 with Retry-After, nothing charged', async () => {
    for (const mode of ['slow', 'down', 'malformed', 'hangup'] as const) {
      sim.allowanceMode = mode;
      const res = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: agent() });
      assert.equal(res.status, 503, mode);
      assert.equal(res.body.code, 'allowance_unavailable');
      assert.equal(res.headers.get('retry-after'), '5');
      assert.equal(res.headers.get('zc-usage'), null);
    }
    sim.allowanceMode = 'allow';
  });

  test('validation and modes come before the allowance check: 400 and 403, no allowance call, no usage', async () => {
    const before = sim.allowanceCalls.length;
    const bad = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: '{"query": ""}', agentId: agent() });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.param, 'query');
    const notJson = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: '{nope', agentId: agent() });
    assert.equal(notJson.status, 400);
    for (const mode of ['webql', 'realtime_content']) {
      const res = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: JSON.stringify({ query: 'x', mode }), agentId: agent() });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'mode_not_allowed');
    }
    assert.equal(sim.allowanceCalls.length, before);
    const missing = await sim.forward({ method: 'GET', path: '/v1/zeroclick/fetch?url=https%3A%2F%2Fshop.test%2Fnone', agentId: agent() });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('zc-usage'), null, 'an error reports no usage');
  });

  test('made-up signed forwards: any body, query, content type, agent and request id; a documented answer, usage only with a 200', async () => {
    const random = rng(67);
    const pick = picker(random);
    const VALUES: unknown[] = ['', ' ', 'apples', 'storefront apples', 'x'.repeat(2001), 0, -1, 10, 51, 1e300, '12', true, null, [], ['a'], {}, '2026-01-01', '2h', '\u0000', 'shop.test', 'webql', 'realtime_content', 'https://shop.test/apples', 'file:///etc/passwd'];
    const FIELDS = ['query', 'max_results', 'snippet_max_length', 'site', 'mode', 'published_after', 'acquired_before', 'query_time', 'url', 'max_chars', 'live', 'prompt', 'unknown'];
    const query = () => {
      const q = new URLSearchParams();
      for (let k = Math.floor(random() * 4); k > 0; k--) q.append(pick(FIELDS), String(pick(VALUES)));
      if (random() < 0.7) q.set(pick(['query', 'url']), pick(['apples', 'https://shop.test/apples', 'https://shop.test/none', '']));
      return q.toString() ? `?${q}` : '';
    };
    const statuses = new Map<number, number>();
    for (let n = 0; n < 300; n++) {
      const body: Record<string, unknown> = {};
      if (random() < 0.8) body.query = random() < 0.5 ? 'apples' : pick(VALUES);
      if (random() < 0.5) for (let k = Math.floor(random() * 3); k > 0; k--) body[pick(FIELDS)] = pick(VALUES);
      if (random() < 0.1) body.mode = pick(['webql', 'realtime_content']);
      const shape = pick([
        () => ({ method: 'POST' as const, path: '/v1/zeroclick/search', body: random() < 0.1 ? pick(['{', '[]', 'null', 'x']) : JSON.stringify(body), contentType: pick(['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded']) }),
        () => ({ method: 'GET' as const, path: `/v1/zeroclick/search${query()}` }),
        () => ({ method: 'GET' as const, path: `/v1/zeroclick/fetch${query()}` }),
      ])();
      const requestId = random() < 0.9 ? `zcreq_${n}` : pick(['', 'a b', 'x'.repeat(201), 'zc:req.1-2']);
      // No spaces around an agent id: HTTP drops them, so the storefront cannot sign them.
      const agentId = pick(['agt_a', 'agt_b', 'agt_é', 'agt:1', 'a'.repeat(300), `agt_${n}`, null]);
      const calls = sim.allowanceCalls.length;
      const res = await sim.forward({ ...shape, requestId, agentId });
      clock.advance(100); // 10 a second at most: the per-agent limit is not what is tested here
      const what = `${shape.method} ${shape.path} ${'body' in shape ? shape.body.slice(0, 200) : ''} (request ${requestId.slice(0, 20)}, agent ${String(agentId).slice(0, 20)}) -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      assert.ok([200, 400, 401, 402, 403, 404, 501].includes(res.status), what);
      assert.equal(typeof res.body, 'object', what);
      if (res.status === 200) {
        assert.equal(res.headers.get('zc-usage'), 'requests=1', what);
        assert.equal(sim.allowanceCalls.length, calls + 1, `${what}: its allowance was asked once`);
        assert.equal(sim.allowanceCalls.at(-1)!.body.requestId, requestId, what);
      } else {
        assert.equal(res.headers.get('zc-usage'), null, what);
        assert.equal(typeof res.body.error, 'string', what);
        // Only an operation that fails after admission (a page not indexed) has asked for its allowance.
        if (res.status !== 404) assert.equal(sim.allowanceCalls.length, calls, `${what}: no allowance asked`);
      }
    }
    for (const s of [200, 400, 401, 402, 403, 404]) assert.ok((statuses.get(s) ?? 0) > 0, `some ${s}: ${JSON.stringify([...statuses])}`);
  });

  test('50 requests per second per agent; the 51st is 429 with Retry-After; other agents are unaffected', async () => {
    const a = agent();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 51; i++) {
      last = await sim.forward({ method: 'GET', path: '/v1/zeroclick/search?query=apples', agentId: a });
      statuses.push(last.status);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 50);
    assert.equal(statuses[50], 429);
    assert.equal(last!.headers.get('retry-after'), '1');
    assert.equal(last!.headers.get('zc-usage'), null);
    assert.equal((await sim.forward({ method: 'GET', path: '/v1/zeroclick/search?query=apples', agentId: agent() })).status, 200);
    clock.advance(1000);
    assert.equal((await sim.forward({ method: 'GET', path: '/v1/zeroclick/search?query=apples', agentId: a })).status, 200);
  });
});

describe('storefront tier (usage API channel with an outbox)', () => {
  const clock = new TestClock();
  const sim = new StorefrontSimulator('k1', SECRET1, () => Math.floor(clock.now() / 1000));
  const dir = tempDir();
  before(() => sim.start());
  after(async () => {
    await sim.close();
    dir.remove();
  });

  const waitFor = async (cond: () => boolean | Promise<boolean>, ms = 5000) => {
    const end = Date.now() + ms;
    while (!(await cond())) {
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  test('usage is reported exactly once per success, never for errors, and survives a restart', async () => {
    let env = await startEnv(sim, clock, { storefrontUsage: 'api' }, dir.path);
    await env.services.pages.putVersion(page('https://shop.test/apples', { content: 'storefront apples are red' }));

    const ok1 = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: 'agt_u1' });
    assert.equal(ok1.status, 200);
    assert.equal(ok1.headers.get('zc-usage'), null, 'one channel only: no header in api mode');
    await sim.forward({ method: 'GET', path: '/v1/zeroclick/fetch?url=https%3A%2F%2Fshop.test%2Fmissing', agentId: 'agt_u1' });
    await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: '{"query":""}', agentId: 'agt_u1' });
    sim.allowanceMode = 'deny';
    await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: 'agt_u1' });
    sim.allowanceMode = 'allow';
    await waitFor(() => sim.usageReports.length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(
      sim.usageReports.map((r) => r.body),
      [{ idempotencyKey: ok1.requestId, agentId: 'agt_u1', usage: [{ meterSlug: 'requests', quantity: 1 }] }],
    );
    assert.equal(sim.usageReports[0]!.auth, 'Bearer sf-api-key');

    // The usage API goes down; a success is recorded in the outbox; the service restarts.
    sim.usageMode = 'down';
    const ok2 = await sim.forward({ method: 'POST', path: '/v1/zeroclick/search', body: searchBody, agentId: 'agt_u2' });
    assert.equal(ok2.status, 200);
    await waitFor(() => sim.usageReports.length >= 2);
    assert.equal(await env.services.outbox.pending(), 1);
    await env.close();

    sim.usageMode = 'ok';
    const failedAttempts = sim.usageReports.length;
    env = await startEnv(sim, clock, { storefrontUsage: 'api' }, dir.path);
    // The failed attempt backs off 1 s; then the restarted service sends it.
    await waitFor(() => sim.usageReports.length > failedAttempts, 5000);
    // The simulator counts a report as it arrives; the outbox row goes once its answer is back.
    await waitFor(async () => (await env.services.outbox.pending()) === 0);
    await new Promise((r) => setTimeout(r, 300));
    const delivered = sim.usageReports.slice(failedAttempts);
    assert.equal(delivered.length, 1, 'sent once after the restart');
    assert.equal(delivered[0]!.body.idempotencyKey, ok2.requestId);
    assert.equal(await env.services.usageReporter!.drain(), 0, 'nothing left to send twice');
    await env.close();
  });
});
