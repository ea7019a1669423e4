/**
 * End to end as a user would: the real CLI (admin commands, import, serve) and a real server on
 * a free port, called over HTTP with our client and with raw sockets.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { createClient } from '../../src/client/client.js';
import { buildPassages } from '../../src/core/passages.js';
import { CLI, cliJson, runCli, startCliServer } from '../fixtures/cli.js';
import { tempDir } from '../helpers.js';
/** A page long enough for a passage index. */
const LIGHTHOUSES = Array.from({ length: 150 }, (_, i) =>
  i === 120 ? 'Line 120: the Fresnel lens of the lighthouse turns at night.' : `Line ${i}: a tower of stone by the sea.`,
).join('\n\n');

describe('CLI and server end to end', () => {
  const dir = tempDir();
  const env = { ...process.env, WEBSEARCH_DATA_DIR: dir.path, WEBSEARCH_LOG_LEVEL: 'info' };
  let server: ChildProcess;
  let port = 0;
  let logs = () => '';

  const cli = (...args: string[]) => runCli(env, ...args);
  const json = (...args: string[]) => cliJson(env, ...args);

  before(async () => {
    const file = join(dir.path, 'pages.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ url: 'https://docs.example.org/ownership', markdown: '# Ownership\n\nRust ownership rules keep memory safe.', title: 'Ownership' }),
        JSON.stringify({ url: 'https://example.org/gc', html: '<title>GC</title><p>A garbage collector frees memory.</p>' }),
        JSON.stringify({ url: 'https://example.org/lights', markdown: LIGHTHOUSES, title: 'Lighthouses' }),
        'this is not json',
      ].join('\n'),
    );
    const imported = cli('import', file);
    assert.equal(imported.code, 1, 'a failed line makes the exit code 1');
    assert.match(imported.stderr, /pages\.jsonl:4: skipped: not valid JSON/);
    assert.match(imported.stderr, /imported 3, skipped 0 unchanged, failed 1/);
    // The pages as an older release stored them: no passage index for the long one, no fingerprints, and none filled in.
    const db = openDatabase({ path: join(dir.path, 'websearch.db') });
    db.exec('UPDATE versions SET passages = NULL, near_fingerprint = NULL; UPDATE passages_filled SET format = 0');
    db.close();

    ({ child: server, port, logs } = await startCliServer(env));
  });
  after(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
    dir.remove();
  });

  test('org, key and credits commands; keyed search and fetch draw on the balance', async () => {
    const org = json('org', 'create', 'Acme Research');
    assert.match(org.id, /^org_/);
    assert.equal(org.name, 'Acme Research');
    const key = json('key', 'create', '--org', org.id);
    assert.match(key.key, /^wsk_[0-9A-Za-z]{44}$/);
    assert.equal(key.org, org.id);
    assert.deepEqual(json('credits', 'add', '--org', org.id, '--usd', '0.01'), { org: org.id, balance_usd: '0.010000' });

    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: key.key });
    const found = await client.search({ query: 'memory ownership' });
    assert.equal(found.results[0]?.url, 'https://docs.example.org/ownership');
    const page = await client.fetch({ url: 'https://example.org/gc' });
    assert.equal(page.title, 'GC');
    assert.equal(page.content, 'A garbage collector frees memory.');
    assert.deepEqual(json('credits', 'show', '--org', org.id), { org: org.id, balance_usd: '0.002000' });
    await assert.rejects(client.search({ query: 'memory' }), /402 insufficient_credits/);
    // The organization just made is the newest: first in the list.
    const [newest] = json('org', 'list');
    assert.match(newest.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(newest, {
      id: org.id,
      name: 'Acme Research',
      billing: 'credits',
      rate_limit: null,
      created_at: newest.created_at,
      balance_usd: '0.002000',
      active_keys: 1,
    });
    const listedOrgs = cli('org', 'list', '--limit', '1');
    assert.equal(listedOrgs.code, 0, listedOrgs.stderr);
    assert.match(listedOrgs.stdout, new RegExp(`^${org.id}  \\S+  credits    0\\.002000 USD  1 key  default req/s  Acme Research\\n$`));

    const listed = json('key', 'list', '--org', org.id);
    assert.equal(listed.keys.length, 1);
    assert.equal(listed.keys[0].revoked_at, null);
    assert.equal(json('key', 'revoke', key.id).revoked, true);
    await assert.rejects(client.search({ query: 'memory' }), /401 invalid_api_key/);
    assert.notEqual(cli('key', 'revoke', key.id).code, 0, 'revoking twice is an error');
    assert.ok(!logs().includes(key.key), 'the key never appears in the logs');
  });

  test('the search command is a client of the running server', () => {
    const r = cli('search', 'garbage collector', '--server', `http://127.0.0.1:${port}`);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1\. GC\n {3}https:\/\/example\.org\/gc/);
  });

  test('a search whose reader stops reading ends quietly, as `websearch search x | true` does', async () => {
    // The reader's end of the pipe closed before a byte is written: the command's write fails with EPIPE.
    const child = spawn(process.execPath, [...CLI, 'search', 'garbage collector', '--server', `http://127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.deepEqual({ code, stderr }, { code: 0, stderr: '' });
  });

  test('the search and fetch commands say in one line when no server answers', async () => {
    // A port nothing listens on: taken, then given back.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closed = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const nowhere = `http://127.0.0.1:${closed}`;
    for (const args of [['search', 'garbage collector'], ['fetch', 'https://example.org/gc']]) {
      const r = cli(...args, '--server', nowhere);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr, `websearch: cannot reach the server at ${nowhere} (ECONNREFUSED); --server or WEBSEARCH_URL\n`);
      assert.equal(r.stdout, '');
    }
  });

  test('a data folder that cannot be made fails the command instead of hanging it', () => {
    // procfs answers ENOENT for a folder it cannot hold, on which Node's recursive mkdir spun forever;
    // a file where a folder should be gives ENOTDIR.
    const file = join(dir.path, 'a-file');
    writeFileSync(file, '');
    for (const [where, code] of [
      ['/proc/websearch-no-such-folder/data', 'ENOENT'],
      [join(file, 'data'), 'ENOTDIR'],
    ]) {
      const r = spawnSync(process.execPath, [...CLI, 'org', 'create', 'x', '--data-dir', where!], { env, encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.signal, null, `${where}: still running after 30 s`);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`websearch: Error: ${code}`));
    }
  });

  test('admin commands refuse bad input with a message and exit code 2', () => {
    assert.equal(cli('credits', 'add', '--org', 'org_missing', '--usd', '5').code, 2);
    const bad = cli('credits', 'add', '--org', 'x', '--usd', '1.0000001');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--usd/);
    assert.equal(cli('frobnicate').code, 2);
    for (const name of ['a\x1b[31mred', 'tab\tbed', 'x'.repeat(201)]) {
      const r = cli('org', 'create', name);
      assert.deepEqual([r.code, r.stdout], [2, ''], JSON.stringify(name));
      assert.match(r.stderr, /at most 200 characters, none of them control characters/);
    }
    assert.equal(cli('org', 'create', 'é'.repeat(200)).code, 0, 'two hundred characters of any script');
    const two = cli('fetch', 'https://example.org/gc', 'https://example.org/other');
    assert.deepEqual([two.code, two.stdout], [2, '']);
    assert.match(two.stderr, /usage: websearch fetch <url> .*\(one URL\)/);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const v of ['version', '--version']) assert.deepEqual(cli(v), { code: 0, stdout: `websearch ${version}\n`, stderr: '' });
    for (const [list, limit] of [['usage', 'abc'], ['usage', '0'], ['usage', '1.5'], ['payments', '100001']] as const) {
      const r = cli(list, 'list', '--limit', limit);
      assert.equal(r.code, 2, `${list} list --limit ${limit}`);
      assert.match(r.stderr, /--limit must be a whole number from 1 to 100000/);
    }
    assert.equal(cli('usage', 'list', '--limit', '3').code, 0);
    const lookahead = cli('crawl', 'https://example.org/', '--include', '/docs/(?=v2)');
    assert.deepEqual([lookahead.code, lookahead.stdout], [2, '']);
    assert.match(lookahead.stderr, /--include: error parsing regexp: invalid or unsupported Perl syntax: `\(\?=`/);
    // A file import cannot read is found before any is imported.
    const missing = cli('import', '/nonexistent/pages.jsonl');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /\/nonexistent\/pages\.jsonl: cannot be read \(no such file\)/);
    assert.match(cli('import', '/nonexistent/pages.txt').stderr, /import reads \.jsonl, \.jsonl\.gz, \.warc and \.warc\.gz files/);
    const unknownVar = spawnSync(process.execPath, [...CLI, 'credits', 'show', '--org', 'x'], {
      env: { ...env, WEBSEARCH_DATADIR: '/tmp' },
      encoding: 'utf8',
    });
    assert.equal(unknownVar.status, 2);
    assert.match(unknownVar.stderr, /Unknown configuration variable\(s\): WEBSEARCH_DATADIR/);
    // A settings flag before the command is the command's.
    const other = join(dir.path, 'other');
    const leading = cli('--data-dir', other, 'org', 'create', 'Elsewhere', '--json');
    assert.equal(leading.code, 0, leading.stderr);
    assert.ok(existsSync(join(other, 'websearch.db')), 'the organization is made in the folder named before the command');
  });

  test('the server fills in the passage indexes and fingerprints an older release left out, in the background', async () => {
    const deadline = Date.now() + 20_000;
    while (!/"msg":"passage indexes and fingerprints filled"/.test(logs())) {
      assert.ok(Date.now() < deadline, `no fill logged: ${logs()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(logs(), /"fingerprints":3,"passages":1,"ms":\d+,"msg":"passage indexes and fingerprints filled"/);
    const db = openDatabase({ path: join(dir.path, 'websearch.db'), readonly: true });
    try {
      const row = db.prepare("SELECT v.passages FROM versions v JOIN pages p ON p.id = v.page_id WHERE p.url = 'https://example.org/lights'").get() as {
        passages: Buffer;
      };
      assert.deepEqual(new Uint8Array(row.passages), buildPassages(LIGHTHOUSES));
      assert.equal(db.prepare('SELECT count(*) FROM versions WHERE near_fingerprint IS NULL').pluck().get(), 0);
      assert.equal(await new SqlitePageStore(db).derivedFilled(), true);
    } finally {
      db.close();
    }
    // The tests before blocked this process for a minute or more (spawnSync), while the connections
    // of the first test's client stayed in fetch's pool. The server closes a connection idle for 72 s
    // (fastify's keepAliveTimeout); unread, its close left the connection looking alive, and a request
    // sent on it at once failed with 'other side closed' (about one run in ten under load: idle over 72 s).
    // One turn of the event loop reads the close first, and the request takes a new connection.
    await new Promise((r) => setImmediate(r));
    const found = await createClient({ baseUrl: `http://127.0.0.1:${port}` }).search({ query: 'fresnel lens' });
    assert.ok(found.results[0]?.snippet?.includes('Line 120: the Fresnel lens of the lighthouse turns at night.'), JSON.stringify(found.results));
  });

  test("pages remove takes a page out of the running server's answers; bad input is exit 2", async () => {
    for (const args of [['pages', 'remove'], ['pages', 'remove', 'not a url'], ['pages', 'remove', '--site', 'http://example.org/'], ['pages', 'drop', 'https://example.org/']]) {
      const r = cli(...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /^websearch: /);
    }
    // As in the test before: the commands blocked this process, and a pooled connection the server
    // closed meanwhile is read as closed only after a turn of the event loop (it failed one CI run).
    await new Promise((r) => setImmediate(r));
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}` });
    assert.equal((await client.search({ query: 'fresnel lens' })).results[0]?.url, 'https://example.org/lights');
    assert.deepEqual(json('pages', 'remove', 'https://example.org/lights', '--reason', 'asked by the keeper'), { pages: 1, versions: 1 });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual((await client.search({ query: 'fresnel lens' })).results, []);
    await assert.rejects(client.fetch({ url: 'https://example.org/lights' }), /404 not_indexed/);
    // The URL with its other spellings, one page to a reader.
    const removed = json('pages', 'removed') as { kind: string; value: string; reason: string }[];
    assert.deepEqual(
      removed.map((r) => r.value).sort(),
      ['http', 'https'].flatMap((scheme) => ['', 'www.'].flatMap((www) => ['', '/'].map((slash) => `${scheme}://${www}example.org/lights${slash}`))).sort(),
    );
    assert.ok(removed.every((r) => r.kind === 'url' && r.reason === 'asked by the keeper'));
  });

  test('healthz, request ids', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'x-request-id': 'trace-123' } });
    assert.deepEqual(await res.json(), { status: 'ok' });
    assert.equal(res.headers.get('x-request-id'), 'trace-123');
    const other = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(other.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/);
  });

  test('graceful shutdown: a request in flight finishes, then the database closes cleanly', async () => {
    const body = JSON.stringify({ query: 'memory' });
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let answer = '';
    socket.on('data', (d) => {
      answer += d;
    });
    // Headers and half the body now; SIGTERM; then the rest of the body.
    socket.write(
      `POST /v1/search/public HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Service-Title: e2e\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<number | null>((r) => server.once('close', (code) => r(code)));
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    socket.write(body.slice(5));
    await new Promise((r) => socket.once('close', r));
    assert.match(answer, /^HTTP\/1\.1 200 OK/);
    assert.match(answer, /"url":"https:\/\/example\.org\/gc"/);
    assert.equal(await exited, 0);
    assert.match(logs(), /shutting down/);
    assert.equal(existsSync(join(dir.path, 'websearch.db-wal')), false, 'WAL checkpointed and removed on close');
  });
});
