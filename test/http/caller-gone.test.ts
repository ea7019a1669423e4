/**
 * A caller that closes its connection before the answer: the request's outbound work (a live fetch,
 * realtime_content's fetches, the model call of a prompt) stops at once, nothing is charged, and the
 * request is recorded as 499 client_closed_request. Over real sockets: inject cannot hang up.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import type { EngineIndexStore } from '../../src/adapters/engine/engine-index-store.js';
import type { WebqlDeps } from '../../src/adapters/engine/webql-search.js';
import type { WebqlNode } from '../../src/core/webql.js';
import type { IndexQuery } from '../../src/ports/index-store.js';
import { LlmServer } from '../fixtures/llm-server.js';
import { heldRoute, html, type Origin, startOrigin } from '../fixtures/origin.js';
import { createFundedKey, createTestEnv, page, type TestEnv, until } from '../helpers.js';

describe('a caller that hangs up', () => {
  const llm = new LlmServer();
  let origin: Origin;
  let env: TestEnv;
  let base: string;
  /** Requests to /held the origin got, and how many the service then closed before an answer. */
  const held = heldRoute();
  const log: { msg: string; reqId?: string; res?: { statusCode: number } }[] = [];

  before(async () => {
    await llm.start();
    origin = await startOrigin({
      '/robots.txt': html('', 404),
      '/held': held.route,
    });
    env = await createTestEnv(
      {
        allowPrivateNetwork: true,
        fetchTimeoutMs: 30_000,
        realtimeDeadlineMs: 30_000,
        llmBaseUrl: llm.baseUrl,
        llmModel: 'test-model',
        llmTimeoutMs: 30_000,
      },
      undefined,
      {},
      { logStream: { write: (line) => log.push(JSON.parse(line) as (typeof log)[number]) } },
    );
    await env.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
    await env.services.pages.putVersion(page(`${origin.url}/held`, { title: 'Held page', content: 'Herons wait motionless in shallow water.' }));
    // Over the default budget (8,000 tokens, 32,000 characters) four times and more: read in four parts at once.
    const sections = Array.from({ length: 200 }, (_, i) => `## Heron ${i}\n\n${'Herons wait motionless in shallow water. '.repeat(20).trim()}`).join('\n\n');
    await env.services.pages.putVersion(page(`${origin.url}/long`, { title: 'Long page', content: sections }));
  });
  after(async () => {
    await env.close();
    await origin.close();
    await llm.close();
  });

  /** Sends a keyed request, hangs up once `started` holds, and returns what the service recorded. */
  async function hangUp(path: string, init: RequestInit, started: () => boolean) {
    const { org, key } = await createFundedKey(env.services, 10 * KEYED_REQUEST_COST, 1000);
    const caller = new AbortController();
    const answer = fetch(`${base}${path}`, { ...init, headers: { ...(init.headers as object), 'x-api-key': key }, signal: caller.signal });
    const settled = answer.then(
      () => 'answered',
      (e: Error) => e.name,
    );
    await until('the work started', started);
    caller.abort();
    assert.equal(await settled, 'AbortError');
    let rows: Awaited<ReturnType<typeof env.services.usage.list>> = [];
    await until('the request recorded', async () => {
      await env.services.usage.flush();
      rows = await env.services.usage.list({ orgId: org.id, limit: 10 });
      return rows.length > 0;
    });
    return { rows, balance: await env.services.ledger.balance(org.id) };
  }

  test('a live fetch: the origin request is closed, nothing is charged, the row says 499', async () => {
    const before = { arrived: held.arrived, hungUp: held.hungUp };
    const { rows, balance } = await hangUp(`/v1/fetch?url=${encodeURIComponent(`${origin.url}/held`)}&live=true`, {}, () => held.arrived > before.arrived);
    await until('the service closed its request to the origin', () => held.hungUp > before.hungUp);
    assert.deepEqual(
      rows.map((r) => [r.operation, r.status, r.costMicroUsd]),
      [['fetch', 499, 0]],
    );
    assert.equal(balance, 10 * KEYED_REQUEST_COST);
    // The access log has the request too, though its response never went.
    const line = log.find((l) => l.reqId === rows[0]!.requestId);
    assert.deepEqual([line?.msg, line?.res?.statusCode], ['request closed by the caller', 499]);
  });

  test('realtime_content: its live fetches are closed, nothing is charged', async () => {
    const before = { arrived: held.arrived, hungUp: held.hungUp };
    const body = JSON.stringify({ query: 'herons shallow water', mode: 'realtime_content' });
    const { rows, balance } = await hangUp('/v1/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body }, () => held.arrived > before.arrived);
    await until('the service closed its request to the origin', () => held.hungUp > before.hungUp);
    assert.deepEqual(
      rows.map((r) => [r.operation, r.status, r.costMicroUsd]),
      [['search', 499, 0]],
    );
    assert.equal(balance, 10 * KEYED_REQUEST_COST);
  });

  /** Asks for a prompt on `page` and hangs up once `calls` requests reached the model: each is closed, the request is 499 and not charged. */
  async function promptHungUp(page: string, calls: number): Promise<void> {
    llm.mode = 'hang';
    const asked = llm.requests.length;
    const closed = llm.hungUp;
    const { rows, balance } = await hangUp(
      `/v1/fetch?url=${encodeURIComponent(`${origin.url}/${page}`)}&prompt=${encodeURIComponent('Where do herons wait?')}`,
      {},
      () => llm.requests.length >= asked + calls,
    );
    await until(`the service closed its ${calls} request(s) to the model`, () => llm.hungUp >= closed + calls);
    assert.deepEqual(
      rows.map((r) => [r.operation, r.status, r.costMicroUsd]),
      [['fetch', 499, 0]],
    );
    assert.equal(balance, 10 * KEYED_REQUEST_COST);
  }

  test("a prompt: the model's request is closed, nothing is charged", async () => {
    await promptHungUp('held', 1);
  });

  test("a prompt on a page read in parts: every part's request to the model is closed, no other is made, nothing is charged", async () => {
    const asked = llm.requests.length;
    await promptHungUp('long', 4);
    assert.equal(llm.requests.length, asked + 4);
  });

  test('a webql query that reads on: it stops at its next turn, nothing is charged', async () => {
    // 3,000 pages holding each pair of the phrase's words side by side (so their filters of pairs
    // let them through) but never the phrase: each is read, in batches of 32 doubling to 256, with
    // a turn of the event loop between two (here 20 ms longer, so the caller can hang up in the
    // middle), and none is found.
    await env.services.pages.putVersions(
      Array.from({ length: 3000 }, (_, i) => page(`https://avocet.test/${i}`, { title: `Shore ${i}`, content: `Avocets stilts feed, while stilts wade, at shore ${i}.` })),
    );
    const engine = env.services.index as EngineIndexStore;
    engine.refresh();
    await engine.settled();
    const webqlDeps = Reflect.get(engine, 'webqlDeps') as (q: IndexQuery, node: WebqlNode) => WebqlDeps;
    let reads = 0;
    Reflect.set(engine, 'webqlDeps', function (this: EngineIndexStore, q: IndexQuery, node: WebqlNode): WebqlDeps {
      const deps = webqlDeps.call(this, q, node);
      return {
        ...deps,
        read: (...a) => (reads++, deps.read(...a)),
        turn: async () => {
          await new Promise((r) => setTimeout(r, 20));
          await deps.turn();
        },
      };
    });
    try {
      const body = JSON.stringify({ query: '"avocets stilts wade"', mode: 'webql' });
      const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
      // Staying to the end: every batch read.
      const { key } = await createFundedKey(env.services, 10 * KEYED_REQUEST_COST, 1000);
      const whole = await fetch(`${base}/v1/search`, { ...post, headers: { ...post.headers, 'x-api-key': key } });
      assert.deepEqual([whole.status, ((await whole.json()) as { results: unknown[] }).results], [200, []]);
      const all = reads;
      assert.ok(all >= 12, `${all} batches read`);
      reads = 0;
      const { rows, balance } = await hangUp('/v1/search', post, () => reads >= 1);
      assert.deepEqual(
        rows.map((r) => [r.operation, r.status, r.costMicroUsd]),
        [['search', 499, 0]],
      );
      assert.equal(balance, 10 * KEYED_REQUEST_COST);
      const stopped = reads;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(reads, stopped, 'nothing read after the request ended');
      assert.ok(stopped <= 4, `${stopped} of ${all} batches read`);
    } finally {
      Reflect.deleteProperty(engine, 'webqlDeps');
    }
  });

  test('a caller that stays gets its answer, charged as usual', async () => {
    llm.mode = 'answer';
    llm.reply = 'In shallow water.';
    const { org, key } = await createFundedKey(env.services, 10 * KEYED_REQUEST_COST, 1000);
    const res = await fetch(`${base}/v1/fetch?url=${encodeURIComponent(`${origin.url}/held`)}&prompt=${encodeURIComponent('Where do herons wait?')}`, {
      headers: { 'x-api-key': key },
    });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { content: string }).content, 'In shallow water.');
    assert.equal(await env.services.ledger.balance(org.id), 9 * KEYED_REQUEST_COST);
  });
});
