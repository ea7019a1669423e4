/**
 * The search and fetch commands' one-line failures when the server is not there to answer
 * (`atServer`): here the server that takes the connection and never answers, against a client
 * with a short timeout (the commands' own is 60 s; the refused connection is tested end to end in
 * test/e2e/cli-server.test.ts).
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { ApiError, createClient } from '../../src/client/client.js';
import { CommandFailed } from '../../src/cli/args.js';
import { atServer } from '../../src/cli/client-commands.js';

const sockets = new Set<Socket>();
const silent = createServer((s) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
let url = '';
before(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
});
after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

test('a server that never answers: the command fails in one line, after the timeout', async () => {
  const client = createClient({ baseUrl: url, appTitle: 't', timeoutMs: 200 });
  await assert.rejects(
    atServer(url, () => client.search({ query: 'q' })),
    (e) => e instanceof CommandFailed && e.message === `the server at ${url} did not answer in time`,
  );
});

test("the server's own errors and anything else pass through unchanged", async () => {
  const refused = new ApiError(402, { error: 'no credit', code: 'insufficient_credits' }, 'HTTP 402');
  await assert.rejects(atServer(url, () => Promise.reject(refused)), (e) => e === refused);
  const other = new RangeError('something else');
  await assert.rejects(atServer(url, () => Promise.reject(other)), (e) => e === other);
  assert.equal(await atServer(url, () => Promise.resolve(7)), 7);
});
