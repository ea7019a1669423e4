/**
 * A server that closes (a stop, or a worker's restart) with kept-alive connections open: those idle
 * are left open for `closeDrainMs` (http/app.ts `drainOnClose`), so that a request a client sends on
 * one just then is answered, with `Connection: close`, rather than cut. Over raw sockets, to see
 * each connection and each byte the server sends.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { createFundedKey, createTestEnv, page, type TestEnv, until } from '../helpers.js';

/** A kept-alive connection that sends one request at a time and reads its whole answer. */
class Connection {
  readonly socket: Socket;
  private received = '';
  closed = false;
  readonly ended: Promise<void>;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      this.received += d;
    });
    socket.on('error', () => {});
    this.ended = new Promise((resolve) =>
      socket.once('close', () => {
        this.closed = true;
        resolve();
      }),
    );
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends a search and answers the response's head and body, once its body has come whole (or the connection ended). */
  async search(key: string): Promise<string> {
    const body = JSON.stringify({ query: 'herons' });
    const from = this.received.length;
    this.socket.write(`POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nx-api-key: ${key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await until('an answer', () => {
      const got = this.received.slice(from);
      const head = got.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(got)?.[1];
      return this.closed || (head >= 0 && length !== undefined && got.length >= head + 4 + Number(length));
    });
    return this.received.slice(from);
  }
}

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
    return { env, org, key, port: (env.app.server.address() as { port: number }).port };
  }

  test('a request sent on an idle connection while the server closes is answered with Connection: close, and charged once', async () => {
    const { env, org, key, port } = await serving(3_000);
    const busy = await Connection.open(port);
    const idle = await Connection.open(port);
    for (const c of [busy, idle]) assert.match(await c.search(key), /^HTTP\/1\.1 200 [^]*connection: keep-alive/i);

    const closed = env.app.close();
    await until('the server stops listening', () => !env.app.server.listening);
    const answer = await busy.search(key);
    assert.match(answer, /^HTTP\/1\.1 200 /, answer);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.match(answer, /"url":"https:\/\/birds\.example\.org\/herons"/);
    await busy.ended;
    assert.equal(idle.closed, false, 'the idle connection is left open for the drain');
    await assert.rejects(Connection.open(port), { code: 'ECONNREFUSED' }, 'no new connection is taken');

    // The connection that brought no request is closed at the drain's end, and the close ends then.
    await closed;
    await until('the idle connection closed by the server', () => idle.closed);
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - 3 * KEYED_REQUEST_COST, 'the two first requests and the one answered while closing');
  });

  test("without a drain (Node's own close) the idle connection is closed at once: such a request was cut", async () => {
    const { env, org, key, port } = await serving(0);
    const c = await Connection.open(port);
    assert.match(await c.search(key), /^HTTP\/1\.1 200 /);
    await env.app.close();
    await until('the idle connection closed by the server', () => c.closed);
    assert.equal(await c.search(key), '', 'no answer');
    assert.equal(await env.services.ledger.balance(org.id), 100_000 - KEYED_REQUEST_COST, 'nor a charge');
  });
});
