/**
 * The benchmarks' lean HTTP client (bench/wire-client.ts) against a real node:http server: what it
 * sends for a POST and a GET, and that a request on a connection the server has closed fails at
 * once (bench:soak's restarts count on it) instead of waiting forever.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { text } from 'node:stream/consumers';
import { WireClient } from '../../bench/wire-client.js';

test('wire client: POST and GET on one kept-alive connection, then a closed connection fails at once', async () => {
  const seen: { method?: string; url?: string; length?: string; body: string }[] = [];
  let closeNext = false;
  const server = createServer((req: IncomingMessage, res) => {
    void text(req).then((body) => {
      seen.push({ method: req.method, url: req.url, length: req.headers['content-length'], body });
      const out = JSON.stringify({ n: seen.length });
      res.writeHead(seen.length === 2 ? 404 : 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out), ...(closeNext && { connection: 'close' }) });
      res.end(out);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const client = new WireClient(origin);
  try {
    assert.deepEqual(await client.post('/v1/search', '{"query":"é"}', { 'x-api-key': 'k' }), { status: 200, body: '{"n":1}' });
    assert.deepEqual(await client.get('/v1/fetch?url=https%3A%2F%2Fa.example%2F', { 'x-api-key': 'k' }), { status: 404, body: '{"n":2}' });
    closeNext = true;
    assert.deepEqual(await client.get('/third'), { status: 200, body: '{"n":3}' });
    assert.deepEqual(seen, [
      { method: 'POST', url: '/v1/search', length: String(Buffer.byteLength('{"query":"é"}')), body: '{"query":"é"}' },
      { method: 'GET', url: '/v1/fetch?url=https%3A%2F%2Fa.example%2F', length: '0', body: '' },
      { method: 'GET', url: '/third', length: '0', body: '' },
    ]);
    // The server closed the connection after its answer: the next request is refused, not left waiting.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await assert.rejects(client.get('/fourth'), /connection closed/);
    assert.equal(seen.length, 3);
  } finally {
    client.close();
    server.close();
  }
});
