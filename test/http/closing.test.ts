/**
 * A server that closes (a stop, or a worker's restart) with kept-alive connections open: those idle
 * are left open for `closeDrainMs` (http/app.ts `drainOnClose`), so that a request a client sends on
 * one just then is answered, with `Connection: close`, rather than cut. Over raw sockets, to see
 * each connection and what the server says of it (bench/wire-client.ts).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { WireClient } from '../../bench/wire-client.js';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { createFundedKey, createTestEnv, page, type TestEnv, until } from '../helpers.js';

/** A keyed search on `client`'s kept-alive connection. */
const search = (client: WireClient, key: string) => client.post('/v1/search', JSON.stringify({ query: 'herons' }), { 'x-api-key': key });

describe('a closing server and its kept-alive connections', () => {
  const envs: TestEnv[] = [];
  after(async () => {
    for (const env of envs) await env.close();
  });

  async function serving(closeDrainMs: number) {
    const env = await createTestEnv({}, undefined, {}, { logger: false, closeDrainMs });
    envs.push(env);
    await env.services.pages.putVersion(page('https://birds.example.org/herons', { title: 'Herons', content: 'Herons wade in shallow water.' }));
    const { org, key } = await createFundedKey(env.services, 100_000);
    await env.app.listen({ host: '127.0.0.1', port: 0 });
    return { env, org, key, origin: new URL(`http://127.0.0.1:${(env.app.server.address() as { port: number }).port}`) };
  }

  test('a request sent on an idle connection while the server closes is answered with Connection: close, and charged once', async () => {
    const { env, org, key, origin } = await serving(3_000);
    const busy = new WireClient(origin);
    const idle = new WireClient(origin);
    for (const c of [busy, idle]) {
      const first = await search(c, key);
      assert.equal(first.status, 200);
      assert.equal(c.closing, false, 'kept alive');
    }

    const closed = env.app.close();
    await until('the server stops listening', () => !env.app.server.listening);
    const answer = await search(busy, key);
    assert.equal(answer.status, 200, answer.body);
    assert.equal(busy.closing, true, 'Connection: close');
    assert.match(answer.body, /"url":"https:\/\/birds\.example\.org\/herons"/);
    await until('the answered connection closed by the server', () => busy.closed);
    assert.equal(idle.closed, false, 'the idle connection is left open for the drain');
    await assert.rejects(search(new WireClient(origin), key), { code: 'ECONNREFUSED' }, 'no new connection is taken');

    // The connection that brought no request is closed at the drain's end, and the close ends then.
    await closed;
    await until('the idle connection closed by the server', () => idle.closed);
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - 3 * KEYED_REQUEST_COST, 'the two first requests and the one answered while closing');
  });

  test("without a drain (Node's own close) the idle connection is closed at once: such a request was cut", async () => {
    const { env, org, key, origin } = await serving(0);
    const c = new WireClient(origin);
    assert.equal((await search(c, key)).status, 200);
    await env.app.close();
    await until('the idle connection closed by the server', () => c.closed);
    await assert.rejects(search(c, key), /connection closed/, 'no answer');
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - KEYED_REQUEST_COST, 'nor a charge');
  });
});
