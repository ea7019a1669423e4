/**
 * `websearch mcp` as an agent's host runs it: a child process on stdio, driven by the official MCP
 * client (@modelcontextprotocol/sdk), its tools calling a real server on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { picker, rng } from '../../bench/scifact.js';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { createClient } from '../../src/client/client.js';
import { createMcpHandler } from '../../src/mcp/server.js';
import { heldRoute, html, type Origin, startOrigin } from '../fixtures/origin.js';
import { createFundedKey, createTestEnv, page, type TestEnv, until } from '../helpers.js';

const MCP = ['--import', 'tsx', 'src/cli/main.ts', 'mcp'];

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };

describe('websearch mcp', () => {
  let env: TestEnv;
  let url: string;
  const clients: Client[] = [];

  const connect = async (extra: Record<string, string> = {}) => {
    const client = new Client({ name: 'websearch-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: MCP, env: { ...process.env, WEBSEARCH_URL: url, ...extra } as Record<string, string> }));
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;

  before(async () => {
    env = await createTestEnv();
    await env.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
    await env.services.pages.putVersion(
      page('https://docs.example.org/ownership', {
        title: 'Ownership in Rust',
        content: 'Rust ownership rules keep memory safe without a garbage collector.',
        publishedAt: Date.parse('2025-02-03T00:00:00Z'),
      }),
    );
    await env.services.pages.putVersion(page('https://other.example.com/gc', { title: 'Garbage collectors', content: 'A garbage collector frees memory that is no longer used.' }));
  });
  after(async () => {
    for (const c of clients) await c.close();
    await env.close();
  });

  test('lists two tools with their input schemas; search and fetch answer from the index (keyless)', async () => {
    const client = await connect();
    assert.equal(client.getServerVersion()?.name, 'websearch');
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['search', 'fetch'],
    );
    assert.deepEqual(tools[0]!.inputSchema.required, ['query']);
    assert.deepEqual(tools[1]!.inputSchema.required, ['url']);
    // The SDK checks every structured answer below against these.
    assert.deepEqual(tools[0]!.outputSchema?.required, ['query', 'results']);
    assert.deepEqual(tools[1]!.outputSchema?.required, ['url', 'content']);

    const found = await call(client, 'search', { query: 'rust ownership memory', site: 'docs.example.org' });
    assert.equal(found.isError, undefined, found.content[0]!.text);
    const text = found.content[0]!.text;
    assert.match(text, /^1\. Ownership in Rust\nhttps:\/\/docs\.example\.org\/ownership\n\(published 2025-02-03T00:00:00\.000Z, acquired /);
    assert.match(text, /Rust ownership rules keep memory safe/);
    assert.doesNotMatch(text, /other\.example\.com/, 'the site filter is passed on');
    // The same answer as data: the service's own response.
    const data = found.structuredContent as { query: string; results: { url: string; published_at?: string }[] };
    assert.equal(data.query, 'rust ownership memory');
    assert.deepEqual(
      data.results.map((r) => [r.url, r.published_at]),
      [['https://docs.example.org/ownership', '2025-02-03T00:00:00.000Z']],
    );

    const none = await call(client, 'search', { query: 'lighthouse' });
    assert.equal(none.content[0]!.text, 'No results for "lighthouse".');

    const fetched = await call(client, 'fetch', { url: 'https://docs.example.org/ownership', max_chars: 20 });
    assert.equal(fetched.isError, undefined, fetched.content[0]!.text);
    assert.equal(fetched.content[0]!.text, '# Ownership in Rust\nURL: https://docs.example.org/ownership\nPublished: 2025-02-03T00:00:00.000Z\n\nRust ownership rules');
    assert.deepEqual(fetched.structuredContent, {
      url: 'https://docs.example.org/ownership',
      title: 'Ownership in Rust',
      content: 'Rust ownership rules',
      published_at: Date.parse('2025-02-03T00:00:00Z') / 1000,
    });
  });

  test('a client of an older protocol version (2025-03-26) gets neither output schemas nor structured content', async () => {
    const child = spawn(process.execPath, MCP, { env: { ...process.env, WEBSEARCH_URL: url }, stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      const answers = async (n: number) => {
        await until(`${n} answers`, () => out.split('\n').filter(Boolean).length >= n, 20_000);
        return out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; result: Record<string, unknown> });
      };
      const send = (m: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
      send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      send({ id: 2, method: 'tools/list' });
      send({ id: 3, method: 'tools/call', params: { name: 'search', arguments: { query: 'rust ownership' } } });
      const got = new Map((await answers(3)).map((a) => [a.id, a.result]));
      assert.equal(got.get(1)!.protocolVersion, '2025-03-26');
      assert.ok((got.get(2)!.tools as Record<string, unknown>[]).every((t) => t.outputSchema === undefined));
      assert.equal(got.get(3)!.structuredContent, undefined);
      assert.match((got.get(3)!.content as { text: string }[])[0]!.text, /^1\. Ownership in Rust/);
    } finally {
      child.kill();
    }
  });

  test("failures are tool errors a model can read: the service's code, a wrong argument; an unknown tool is a protocol error", async () => {
    const client = await connect();
    const missing = await call(client, 'fetch', { url: 'https://docs.example.org/nowhere' });
    assert.equal(missing.isError, true);
    assert.match(missing.content[0]!.text, /^not_indexed \(HTTP 404\): /);
    const bad = await call(client, 'search', { query: 'rust', max_results: 500 });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0]!.text, /^invalid_parameter \(HTTP 400\): .*max_results/);
    const keyedOnly = await call(client, 'search', { query: 'rust', mode: 'webql' });
    assert.match(keyedOnly.content[0]!.text, /^mode_not_allowed \(HTTP 403\)/);
    assert.deepEqual(await call(client, 'search', { query: 7 }), { content: [{ type: 'text', text: 'query must be a string' }], isError: true });
    // A whole number or a boolean written as a string is taken for what it says; other strings are not.
    const asStrings = await call(client, 'search', { query: 'rust ownership memory', max_results: '1', snippet_max_length: ' 200 ' });
    assert.equal(asStrings.isError, undefined, asStrings.content[0]!.text);
    assert.equal((asStrings.structuredContent as { results: unknown[] }).results.length, 1);
    assert.equal((await call(client, 'fetch', { url: 'https://docs.example.org/nowhere', live: 'false' })).content[0]!.text.startsWith('not_indexed'), true);
    for (const [args, text] of [
      [{ query: 'rust', max_results: '1.5' }, 'max_results must be an integer'],
      [{ query: 'rust', max_results: 'five' }, 'max_results must be an integer'],
    ] as const) {
      assert.deepEqual(await call(client, 'search', args), { content: [{ type: 'text', text }], isError: true });
    }
    assert.deepEqual(await call(client, 'fetch', { url: 'https://a.test/', live: 'yes' }), { content: [{ type: 'text', text: 'live must be true or false' }], isError: true });
    assert.deepEqual(await call(client, 'fetch', { url: 'https://a.test/', colour: 'red' }), { content: [{ type: 'text', text: 'Unknown argument: colour' }], isError: true });
    await assert.rejects(client.callTool({ name: 'crawl', arguments: {} }), /Unknown tool: crawl/);
  });

  test('with an API key the tools are keyed: a search is charged, a failed fetch is not', async () => {
    const { key, org } = await createFundedKey(env.services, 1_000_000);
    const client = await connect({ WEBSEARCH_API_KEY: key });
    const found = await call(client, 'search', { query: 'garbage collector' });
    assert.match(found.content[0]!.text, /Garbage collectors/);
    assert.equal(await env.services.ledger.balance(org.id), 1_000_000 - KEYED_REQUEST_COST);
    assert.equal((await call(client, 'fetch', { url: 'https://docs.example.org/nowhere' })).isError, true);
    assert.equal(await env.services.ledger.balance(org.id), 1_000_000 - KEYED_REQUEST_COST);
    const webql = await call(client, 'search', { query: 'title:garbage', mode: 'webql' });
    assert.match(webql.content[0]!.text, /^1\. Garbage collectors/);
  });

  test('a service that cannot be reached is said as such', async () => {
    const client = await connect({ WEBSEARCH_URL: 'http://127.0.0.1:9' });
    const r = await call(client, 'search', { query: 'rust' });
    assert.deepEqual(r, { content: [{ type: 'text', text: 'The search service at http://127.0.0.1:9 cannot be reached' }], isError: true });
  });

  test('the wire: a line that is not JSON, an unknown method, a notification, an id of another type, a message split mid-character, a line over 1 MiB', async (t) => {
    const child = spawn(process.execPath, MCP, { env: { ...process.env, WEBSEARCH_URL: url }, stdio: ['pipe', 'pipe', 'inherit'] });
    t.after(() => {
      if (child.exitCode === null) child.kill(); // a failed assertion leaves it running
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const lines = async (n: number) => {
      for (const end = Date.now() + 20_000; out.split('\n').filter(Boolean).length < n; await new Promise((r) => setTimeout(r, 20))) {
        if (Date.now() > end) assert.fail(`${n} answers expected, got: ${out}`);
      }
      return out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    };
    // Once the server answers, it reads what comes as it comes: the split below arrives in two reads.
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' })}\n`);
    await lines(1);
    child.stdin.write('{not json\n');
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' })}\n`);
    const split = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 'é', method: 'ping' })}\n`);
    const at = split.indexOf(0xc3) + 1; // between the two bytes of é
    child.stdin.write(split.subarray(0, at));
    await new Promise((r) => setTimeout(r, 50));
    child.stdin.write(split.subarray(at));
    child.stdin.write(`${'x'.repeat(2 ** 20 + 10)}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    const got = await lines(8);
    assert.deepEqual(got, [
      { jsonrpc: '2.0', id: 0, result: {} },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Not JSON' } },
      { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: resources/list' } },
      // MCP's ids are strings or numbers, never null.
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'A request id must be a string or a number' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'A request id must be a string or a number' } },
      { jsonrpc: '2.0', id: 'é', result: {} },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'A message over 1048576 bytes' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    child.stdin.end();
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, 'the server ends with its input');
  });
});

describe('websearch mcp: a tool call the host cancels', () => {
  let env: TestEnv;
  let origin: Origin;
  const held = heldRoute();

  before(async () => {
    origin = await startOrigin({
      '/robots.txt': html('', 404),
      '/held': held.route,
    });
    env = await createTestEnv({ allowPrivateNetwork: true, fetchTimeoutMs: 30_000 });
    await env.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await env.close();
    await origin.close();
  });

  test('stops the service\'s work (its live fetch is closed), is not charged, and gets no answer; the session goes on', async () => {
    const { key, org } = await createFundedKey(env.services, 10 * KEYED_REQUEST_COST, 1000);
    const client = new Client({ name: 'websearch-test', version: '1.0.0' });
    const url = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
    await client.connect(new StdioClientTransport({ command: process.execPath, args: MCP, env: { ...process.env, WEBSEARCH_URL: url, WEBSEARCH_API_KEY: key } as Record<string, string> }));
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    try {
      const cancel = new AbortController();
      const call = client.callTool({ name: 'fetch', arguments: { url: `${origin.url}/held`, live: true } }, undefined, { signal: cancel.signal });
      const outcome = call.then(
        () => 'answered',
        () => 'cancelled',
      );
      await until('the live fetch reached the origin', () => held.arrived === 1, 10_000);
      cancel.abort('the user pressed stop');
      assert.equal(await outcome, 'cancelled');
      await until('the service closed its request to the origin', () => held.hungUp === 1, 10_000);
      await until('the request recorded', async () => {
        await env.services.usage.flush();
        return (await env.services.usage.list({ orgId: org.id, limit: 10 })).length > 0;
      }, 10_000);
      const rows = await env.services.usage.list({ orgId: org.id, limit: 10 });
      assert.deepEqual(
        rows.map((r) => [r.operation, r.status, r.costMicroUsd]),
        [['fetch', 499, 0]],
      );
      assert.equal(await env.services.ledger.balance(org.id), 10 * KEYED_REQUEST_COST);
      // The session goes on, and no answer came for the cancelled call (the SDK reports one to onerror).
      await client.ping();
      const missing = (await client.callTool({ name: 'fetch', arguments: { url: 'https://docs.example.org/nowhere' } })) as ToolResult;
      assert.match(missing.content[0]!.text, /^not_indexed/);
      assert.deepEqual(errors, []);
    } finally {
      await client.close();
    }
  });
});

describe('websearch mcp: a server that answers made-up things', () => {
  // What the host's model reads of a server (or whatever answers at its address) that misbehaves.
  test('every tool call gets a tool result: the answer when it is one, else an error naming the status', async () => {
    const random = rng(53);
    const pick = picker(random);
    let answer = { status: 200, body: '' };
    const server = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const handle = createMcpHandler(createClient({ baseUrl: base, appTitle: 't' }), { server: base, version: '0' });
    const VALUES: unknown[] = [null, 0, -1, 1e300, 1.5, '', 'x', true, [], {}, [null], ['x'], { a: 1 }];
    const RESULT = { title: 'Otters', url: 'https://a.test/', description: 'd', snippet: 's', published_at: '2025-01-02T00:00:00.000Z', acquired_at: '2025-01-02T00:00:00.000Z' };
    const FETCHED = { url: 'https://a.test/', content: 'Otters hold hands.', title: 'Otters', description: 'd', author: 'a', published_at: 1_735_776_000 };
    const mangle = (o: Record<string, unknown>): Record<string, unknown> => {
      const m: Record<string, unknown> = { ...o };
      const k = pick(Object.keys(m));
      if (random() < 0.3) delete m[k];
      else m[k] = pick(VALUES);
      return m;
    };
    try {
      let good = 0;
      for (let n = 0; n < 300; n++) {
        const tool = pick(['search', 'fetch'] as const);
        const right = tool === 'search' ? { query: 'otters', results: [RESULT, RESULT] } : FETCHED;
        const made = pick([
          () => ({ status: 200, body: JSON.stringify(right), well: true }),
          () => ({ status: 200, body: JSON.stringify(tool === 'search' ? { query: 'otters', results: [] } : { url: 'https://a.test/', content: '' }), well: true }),
          () => ({ status: 200, body: JSON.stringify(tool === 'search' ? { query: 'otters', results: [mangle(RESULT)] } : mangle(FETCHED)) }),
          () => ({ status: 200, body: JSON.stringify(tool === 'search' ? mangle(right as Record<string, unknown>) : pick(VALUES)) }),
          () => ({ status: 200, body: JSON.stringify(pick(VALUES)) }),
          () => ({ status: pick([200, 400, 404, 500, 502]), body: pick(['', '{', '<html>Bad gateway</html>', JSON.stringify(right).slice(0, 20)]) }),
          () => ({ status: pick([400, 402, 429, 500]), body: JSON.stringify(pick([{ error: 'x', code: 'invalid_parameter' }, { error: 5 }, { code: [] }, null, 'x', []])) }),
        ])();
        answer = made;
        const args = tool === 'search' ? { query: 'otters' } : { url: 'https://a.test/' };
        const what = `${tool}: ${made.status} ${made.body.slice(0, 300)}`;
        let r;
        try {
          r = await handle({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: tool, arguments: args } });
        } catch (e) {
          assert.fail(`${what}: the call threw ${String(e)}`);
        }
        const result = (r as { result?: ToolResult }).result;
        assert.ok(result, `${what}: ${JSON.stringify(r)}`);
        assert.equal(result.content.length, 1, what);
        assert.equal(result.content[0]!.type, 'text', what);
        assert.ok(result.content[0]!.text.length > 0, what);
        if ('well' in made) {
          good++;
          assert.equal(result.isError, undefined, `${what}: ${result.content[0]!.text}`);
          assert.deepEqual(result.structuredContent, JSON.parse(made.body), what);
        } else if (result.isError) {
          assert.equal(result.structuredContent, undefined, what);
          assert.match(result.content[0]!.text, /HTTP \d{3}/, what);
        } else {
          // A mangled answer may still be one (an optional field left out): the structured answer is it.
          assert.deepEqual(result.structuredContent, JSON.parse(made.body), what);
        }
      }
      assert.ok(good > 50, `${good} well-formed answers`);
    } finally {
      server.close();
    }
  });
});
