/**
 * Several workers: `websearch serve --workers 2` forks two processes on one port. They load the
 * saved engine, follow writes made by other processes, and count rate limits together.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import cluster from 'node:cluster';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { SqliteUsageStore } from '../../src/adapters/sqlite/usage-store.js';
import type { UsageEntry } from '../../src/ports/usage-store.js';
import { CLI, startCliServer } from '../fixtures/cli.js';
import { tempDir, until as untilTrue } from '../helpers.js';

const DAY_MS = 86_400_000;

/** Runs the CLI to its end, or kills it after `limitMs` (code null then). */
function run(args: string[], env: NodeJS.ProcessEnv, limitMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => {
      stdout += d;
    });
    p.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => p.kill('SIGKILL'), limitMs);
    p.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('serve --workers 2', () => {
  const dir = tempDir();
  const env = {
    ...process.env,
    WEBSEARCH_DATA_DIR: dir.path,
    WEBSEARCH_LOG_LEVEL: 'info',
    WEBSEARCH_KEYLESS_RATE_PER_SECOND: '1000',
    WEBSEARCH_KEYLESS_RATE_PER_HOUR: '12',
  };
  let server: ChildProcess;
  let port = 0;
  let logs = '';

  const importPage = async (name: string, url: string, markdown: string) => {
    const file = join(dir.path, name);
    writeFileSync(file, `${JSON.stringify({ url, markdown, title: name })}\n`);
    const r = await run(['import', file], env);
    assert.equal(r.code, 0, r.stderr);
  };
  /** Asks `done` every `pauseMs` until it says yes; fails with `why()` after `limitMs`. */
  const until = async (done: () => boolean | Promise<boolean>, limitMs: number, why: () => string, pauseMs = 100) => {
    const deadline = Date.now() + limitMs;
    while (!(await done())) {
      assert.ok(Date.now() < deadline, why());
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  /** A CLI command's --json output. */
  const cli = async (...args: string[]) => {
    const r = await run([...args, '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, string>;
  };
  const search = (query: string) =>
    fetch(`http://127.0.0.1:${port}/v1/search/public`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-title': 'workers-test', connection: 'close' },
      body: JSON.stringify({ query }),
    });

  before(async () => {
    await importPage('first.jsonl', 'https://one.example.org/a', 'Pelicans dive for fish.');
    // A page long enough for a passage index, as an older release stored it: none, no fingerprints, and none filled in.
    await importPage('long.jsonl', 'https://one.example.org/long', Array.from({ length: 150 }, (_, i) => `Line ${i}: herons wade in the shallow water of the bay.`).join('\n\n'));
    const db = openDatabase({ path: join(dir.path, 'websearch.db') });
    db.exec('UPDATE versions SET passages = NULL, near_fingerprint = NULL; UPDATE passages_filled SET format = 0');
    db.close();
    server = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--workers', '2'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const onData = (d: Buffer) => {
      logs += d;
    };
    server.stderr!.on('data', onData);
    server.stdout!.on('data', onData);
    port = await new Promise<number>((resolve, reject) => {
      const timer = setInterval(() => {
        const all = [...logs.matchAll(/listening at http:\/\/127\.0\.0\.1:(\d+)/g)];
        if (all.length >= 2) {
          clearInterval(timer);
          resolve(Number(all[0]![1]));
        }
      }, 50);
      server.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`server exited ${code}: ${logs}`));
      });
    });
  });
  after(async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
    dir.remove();
  });

  test('both workers listen on one port and answer from the saved engine', async () => {
    const listening = [...logs.matchAll(/listening at http:\/\/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
    assert.equal(listening.length, 2);
    assert.equal(new Set(listening).size, 1);
    const r = await search('pelicans');
    assert.equal(r.status, 200);
    assert.equal((await r.json()).results[0].url, 'https://one.example.org/a');
  });

  test('the primary fills in the passage indexes and fingerprints an older release left out, once for both workers', async () => {
    await until(() => /passage indexes and fingerprints filled \{"fingerprints":2,"passages":1,/.test(logs), 20_000, () => `no fill logged: ${logs}`);
    assert.equal(logs.split('filling in passage indexes').length, 2, logs);
    const db = openDatabase({ path: join(dir.path, 'websearch.db'), readonly: true });
    try {
      assert.equal(await new SqlitePageStore(db).derivedFilled(), true);
      assert.equal(db.prepare('SELECT count(*) FROM versions WHERE passages IS NULL AND length(content) >= 4000').pluck().get(), 0);
      assert.equal(db.prepare('SELECT count(*) FROM versions WHERE near_fingerprint IS NULL').pluck().get(), 0);
    } finally {
      db.close();
    }
  });

  test('a page imported by another process is found by every worker', async () => {
    await importPage('second.jsonl', 'https://two.example.org/b', 'Cormorants also dive for fish.');
    for (let i = 0; i < 4; i++) {
      const r = await search('cormorants');
      assert.equal(r.status, 200);
      assert.deepEqual((await r.json()).results.map((x: { url: string }) => x.url), ['https://two.example.org/b']);
    }
  });

  test('rate limits are counted once across workers', async () => {
    // 12 per hour for this IP, 5 used by the tests above: 7 more succeed, whichever worker answers.
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await search('fish')).status);
    assert.deepEqual(statuses.filter((s) => s === 200).length, 7, statuses.join(','));
    assert.deepEqual(statuses.slice(7), [429, 429, 429]);
  });

  test('keyed requests draw on one balance across workers: each success charged once, the rest 402, never below zero', async () => {
    const org = (await cli('org', 'create', 'workers')).id!;
    const { key } = await cli('key', 'create', '--org', org);
    await cli('credits', 'add', '--org', org, '--usd', '0.02'); // five requests
    const responses = await Promise.all(
      Array.from({ length: 12 }, () =>
        fetch(`http://127.0.0.1:${port}/v1/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key!, connection: 'close' },
          body: JSON.stringify({ query: 'fish' }),
        }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    assert.deepEqual(statuses, [...Array(5).fill(200), ...Array(7).fill(402)]);
    assert.equal((await cli('credits', 'show', '--org', org)).balance_usd, '0.000000');
  });

  test('one worker saves the segments after its merges, so the saved index keeps up with writes', async () => {
    const applied = () => (JSON.parse(readFileSync(join(dir.path, 'websearch.db.engine', 'manifest.json'), 'utf8')) as { applied: number }).applied;
    const start = applied();
    const org = (await cli('org', 'create', 'saver')).id!;
    const { key } = await cli('key', 'create', '--org', org);
    await cli('credits', 'add', '--org', org, '--usd', '5');
    const found = async (query: string) => {
      const r = await fetch(`http://127.0.0.1:${port}/v1/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key!, connection: 'close' },
        body: JSON.stringify({ query }),
      });
      assert.equal(r.status, 200);
      return ((await r.json()) as { results: unknown[] }).results.length > 0;
    };
    // Four imports of 600 pages: each a segment of its own, built in a thread (over 512 at once), in
    // every worker; the fourth makes a tier of four, which merge (2,401 pages) in a thread and are saved.
    for (let b = 0; b < 4; b++) {
      const file = join(dir.path, `batch${b}.jsonl`);
      const lines = Array.from({ length: 600 }, (_, i) => JSON.stringify({ url: `https://batch${b}.example.org/${i}`, markdown: `Page ${i} of batch${b}.`, title: `batch${b} ${i}` }));
      writeFileSync(file, `${lines.join('\n')}\n`);
      const r = await run(['import', file], env);
      assert.equal(r.code, 0, r.stderr);
      // Until four searches in a row (both workers, taking turns) find the batch.
      let inARow = 0;
      await until(async () => (inARow = (await found(`batch${b}`)) ? inARow + 1 : 0) >= 4, 60_000, () => `batch${b} not found by both workers in 60 s`);
    }
    await until(() => applied() > start, 60_000, () => `the saved index stayed at ${start}: ${logs}`, 200);
    // The manifest is written before the worker's log line has come through its pipe to the primary and on to here.
    await until(() => /search segments merged/.test(logs), 10_000, () => `no merge logged: ${logs}`, 100);
  });

  test('the worker that saves, killed, is replaced by one that saves', async () => {
    const savers = () => [...logs.matchAll(/worker (\d+) saves the search index after its merges/g)].map((m) => Number(m[1]));
    assert.equal(savers().length, 1, logs);
    process.kill(savers()[0]!, 'SIGKILL');
    await until(() => savers().length >= 2 && [...logs.matchAll(/listening at/g)].length >= 3, 30_000, () => `no new saver listening in 30 s: ${logs}`);
    assert.match(logs, new RegExp(`worker ${savers()[0]} exited \\(SIGKILL\\); starting another`));
    assert.notEqual(savers()[1], savers()[0]);
    assert.equal((await search('x')).status, 429, 'served (the keyless hour used up above)');
  });

  test('SIGHUP restarts the workers one at a time, the saver last, and the service answers throughout', async () => {
    const listening = () => [...logs.matchAll(/listening at/g)].length;
    const savers = () => [...logs.matchAll(/worker (\d+) saves the search index after its merges/g)].map((m) => Number(m[1]));
    const [listenedBefore, saversBefore] = [listening(), savers().length];
    // Requests all along, each answered by a worker that is up: on new connections, and on kept-alive
    // ones (fetch's own pool, which leaves a connection after a response that says Connection:
    // close): a closing worker answers what those bring rather than close them under a request.
    let restarted = false;
    const statuses = new Map<string, number>();
    const asker = (headers: Record<string, string>) => async () => {
      while (!restarted) {
        const status = await fetch(`http://127.0.0.1:${port}/healthz`, { headers }).then(
          async (r) => `${String(r.status)}${headers.connection ? '' : ' kept alive'}${(await r.text()).length > 0 ? '' : ' (empty)'}`,
          (e: unknown) => String((e as { cause?: { code?: string } }).cause?.code ?? e),
        );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    const asking = Promise.all([asker({ connection: 'close' })(), asker({})(), asker({})()]);
    process.kill(server.pid!, 'SIGHUP');
    try {
      // (The primary's line may come before the last worker's own: each writes to stderr itself.)
      await until(() => /SIGHUP: every worker restarted/.test(logs) && listening() >= listenedBefore + 2, 60_000, () => `not restarted in 60 s: ${logs}`);
    } finally {
      restarted = true;
      await asking;
    }
    assert.match(logs, /SIGHUP: restarting 2 workers one at a time/);
    const stopped = [...logs.matchAll(/worker (\d+) stopped for the restart; starting another/g)].map((m) => Number(m[1]));
    assert.equal(stopped.length, 2, logs);
    assert.equal(stopped[1], savers()[saversBefore - 1], 'the saver goes last');
    assert.equal(listening(), listenedBefore + 2);
    assert.equal(savers().length, saversBefore + 1, 'its replacement saves');
    assert.ok(!stopped.includes(savers().at(-1)!));
    // Each worker stopped by itself, not by the grace period's forced exit.
    assert.doesNotMatch(logs, /grace period over/);
    assert.deepEqual([...statuses.keys()].sort(), ['200', '200 kept alive'], `every request answered: ${JSON.stringify([...statuses])}`);
    assert.ok(statuses.get('200')! >= 20, `requests went on during the restart: ${statuses.get('200')}`);
    assert.ok(statuses.get('200 kept alive')! >= 20, `requests went on during the restart: ${statuses.get('200 kept alive')}`);
    assert.equal((await search('x')).status, 429, 'served (the keyless hour used up above)');
  });

  test('SIGTERM stops the workers and the primary', async () => {
    server.kill('SIGTERM');
    const code = await new Promise((r) => server.once('close', (c) => r(c)));
    assert.equal(code, 0);
    // Each worker stopped by itself, not by the grace period's forced exit (and the two the restart replaced before).
    assert.equal([...logs.matchAll(/"msg":"stopped"/g)].length, 4, logs);
    assert.doesNotMatch(logs, /grace period over/);
  });
});

describe('serve on a port already taken', () => {
  const dir = tempDir();
  const env = { ...process.env, WEBSEARCH_DATA_DIR: dir.path };
  const taken = createServer();
  let port = 0;
  before(async () => {
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  after(() => {
    taken.close();
    dir.remove();
  });

  test('one process: the reason in one line, exit code 1', async () => {
    const r = await run(['serve', '--port', String(port), '--log-level', 'warn'], env, 30_000);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, `websearch: cannot listen on 127.0.0.1:${port}: another process is listening there (--port, PORT) (EADDRINUSE)\n`);
  });

  test('a host that does not resolve: the reason in one line, exit code 1', async () => {
    const r = await run(['serve', '--host', '0.0.0.0.0', '--port', '0', '--log-level', 'warn'], env, 30_000);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^websearch: cannot listen on 0\.0\.0\.0\.0:0: the host name does not resolve \(--host, HOST\) \((ENOTFOUND|EAI_AGAIN)\)\n$/);
  });

  test('--workers 2: the service stops with the error instead of running without listening', async () => {
    // Before, each worker said EADDRINUSE and stayed, not listening, until a signal: killed here after 30 s.
    const r = await run(['serve', '--port', String(port), '--workers', '2'], env, 30_000);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /EADDRINUSE/);
    assert.match(r.stderr, /before it listened; stopping/);
    assert.doesNotMatch(r.stderr, /starting another/);
  });
});

describe('a worker that cannot start', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('ends with the error instead of staying alive, unlistening, on its channel to the primary', async () => {
    // The primary of `serve --workers N` checks the settings and opens the database before it forks,
    // so a worker failing to start is rare (the data folder changed meanwhile, say); this test
    // process is the primary here, and forks `serve` as a worker whose data folder cannot be made.
    const notAFolder = join(dir.path, 'file');
    writeFileSync(notAFolder, 'x');
    cluster.setupPrimary({ exec: 'src/cli/main.ts', execArgv: ['--import', 'tsx'], args: ['serve', '--port', '0'], silent: true });
    const worker = cluster.fork({ WEBSEARCH_DATA_DIR: join(notAFolder, 'data') });
    let stderr = '';
    worker.process.stderr!.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => worker.process.kill('SIGKILL'), 30_000);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => worker.once('exit', (c, s) => resolve([c, s])));
    clearTimeout(timer);
    // Its last output may still be in the pipe at 'exit'.
    if (!worker.process.stderr!.closed) await new Promise((r) => worker.process.stderr!.once('close', r));
    assert.equal(signal, null, `still running after 30 s: ${stderr}`);
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^websearch: Error: ENOTDIR/);
  });
});

/**
 * `websearch serve --workers 2` on `port` (0: any): its log as it comes (stdout and stderr, each
 * chunk also to `onLog`), `waitFor` a condition on it (failing if the service ends first), and
 * `stop`, which ends the service if it runs.
 */
function serveWorkers(env: NodeJS.ProcessEnv, port = 0, onLog?: (logs: string) => void) {
  const server = spawn(process.execPath, [...CLI, 'serve', '--port', String(port), '--workers', '2'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  const onData = (d: Buffer) => {
    logs += d;
    onLog?.(logs);
  };
  server.stdout.on('data', onData);
  server.stderr.on('data', onData);
  return {
    server,
    logs: () => logs,
    /** The ports its workers said they listen at, in order. */
    listening: () => [...logs.matchAll(/listening at http:\/\/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1])),
    waitFor: (what: () => boolean, why: string, limitMs = 60_000) =>
      untilTrue(
        why,
        () => {
          assert.equal(server.exitCode, null, 'the service ended');
          return what();
        },
        limitMs,
      ).catch((e: unknown) => {
        throw new Error(`${(e as Error).message}: ${logs}`);
      }),
    stop: async () => {
      if (server.exitCode !== null || server.signalCode !== null) return;
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    },
  };
}

describe('serve --workers 2: a restart whose replacement cannot start', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('stops there, the other worker serving on; the next SIGHUP starts the missing worker first, then replaces the other', async () => {
    const env = { ...process.env, WEBSEARCH_DATA_DIR: dir.path, WEBSEARCH_LOG_LEVEL: 'info' };
    writeFileSync(join(dir.path, 'p.jsonl'), `${JSON.stringify({ url: 'https://a.example.org/p', markdown: 'Pelicans dive for fish.', title: 'p' })}\n`);
    assert.equal((await run(['import', join(dir.path, 'p.jsonl')], env)).code, 0);
    const { server, logs, listening, waitFor, stop } = serveWorkers(env);
    const db = openDatabase({ path: join(dir.path, 'websearch.db') });
    try {
      await waitFor(() => listening().length >= 2, 'not listening');
      const health = () =>
        fetch(`http://127.0.0.1:${listening()[0]}/healthz`, { headers: { connection: 'close' } }).then(
          (r) => r.status,
          (e: unknown) => `${String(e)} ${String((e as { cause?: unknown }).cause)} ${logs()}`,
        );
      // A replacement that cannot start: the database held by another process longer than a
      // worker waits for it at its start (5 s), as an upgrade that fails would fail.
      db.exec('BEGIN EXCLUSIVE');
      server.kill('SIGHUP');
      await waitFor(() => /the restart stops there, the other workers serve on/.test(logs()), 'the restart did not stop');
      db.exec('COMMIT');
      assert.doesNotMatch(logs(), /every worker restarted/);
      assert.match(logs(), /worker \d+ stopped for the restart; starting another/);
      for (let i = 0; i < 4; i++) assert.equal(await health(), 200, 'the saver serves on');
      assert.equal(listening().length, 2);

      server.kill('SIGHUP');
      // (The primary's line may come before the last worker's own: each writes to stderr itself.)
      await waitFor(() => /SIGHUP: every worker restarted/.test(logs()) && listening().length >= 4, 'not restarted');
      assert.match(logs(), /SIGHUP: restarting 1 workers one at a time, after starting the 1 missing/);
      assert.equal(listening().length, 4, "the missing one, then the saver's replacement");
      assert.equal([...logs().matchAll(/saves the search index after its merges/g)].length, 2);
      for (let i = 0; i < 4; i++) assert.equal(await health(), 200);
    } finally {
      db.close();
      await stop();
    }
  });
});

describe('serve --workers 2: SIGHUP just after the start', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('workers not yet listening are replaced as the others would be', async () => {
    const env = { ...process.env, WEBSEARCH_DATA_DIR: dir.path, WEBSEARCH_LOG_LEVEL: 'info' };
    // A port of its own rather than 0: workers that all stop, as these may before they listen, leave
    // port 0's choice to the next ones.
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as { port: number }).port;
    await new Promise((resolve) => free.close(resolve));
    let hup = false;
    const { server, logs, waitFor, stop } = serveWorkers(env, port, (said) => {
      // As soon as the primary has forked them, before they have loaded the index and listened.
      if (!hup && /saves the search index after its merges/.test(said)) {
        hup = true;
        server.kill('SIGHUP');
      }
    });
    try {
      await waitFor(() => /SIGHUP: every worker restarted/.test(logs()), 'not restarted');
      assert.doesNotMatch(logs(), /before it listened/);
      assert.equal([...logs().matchAll(/stopped for the restart; starting another/g)].length, 2, logs());
      assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { connection: 'close' } })).status, 200);
    } finally {
      await stop();
    }
  });
});

describe('serve --workers 2: usage retention', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('a minute after the start, one worker deletes the usage rows older than WEBSEARCH_USAGE_RETENTION_DAYS, and only those', async () => {
    const db = openDatabase({ path: join(dir.path, 'websearch.db') });
    const usage = new SqliteUsageStore(db);
    const now = Date.now();
    const row = (i: number, daysAgo: number): UsageEntry => ({ at: now - daysAgo * DAY_MS, requestId: `r-${i}`, tier: 'keyless', operation: 'search', status: 200, costMicroUsd: 0, latencyMs: 1, clientIp: '192.0.2.1' });
    for (let i = 0; i < 30; i++) await usage.record(row(i, 31 + i));
    for (let i = 30; i < 35; i++) await usage.record(row(i, 29));
    await usage.flush();
    db.close();
    const env = { ...process.env, WEBSEARCH_DATA_DIR: dir.path, WEBSEARCH_LOG_LEVEL: 'info', WEBSEARCH_USAGE_RETENTION_DAYS: '30' };
    const { logs, waitFor, stop } = serveWorkers(env);
    try {
      const pruned = () => [...logs().matchAll(/"rows":(\d+),"olderThanDays":30,"msg":"usage pruned"/g)].map((m) => Number(m[1]));
      // The first prune comes a minute after the start (ops/usage-retention.ts), in the worker that saves.
      await waitFor(() => pruned().length > 0, 'no prune logged', 90_000);
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(pruned(), [30], `one prune, of the 30 older rows: ${logs()}`);
    } finally {
      await stop();
    }
    const reopened = openDatabase({ path: join(dir.path, 'websearch.db') });
    try {
      const left = await new SqliteUsageStore(reopened).list({ limit: 100 });
      assert.deepEqual(left.map((r) => r.requestId).sort(), ['r-30', 'r-31', 'r-32', 'r-33', 'r-34']);
    } finally {
      reopened.close();
    }
  });
});

describe('one process (no --workers)', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('SIGHUP stops it as SIGTERM does, its requests finished, rather than killing it', async () => {
    const { child, logs } = await startCliServer({ ...process.env, WEBSEARCH_DATA_DIR: dir.path, WEBSEARCH_LOG_LEVEL: 'info' });
    const exited = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
    child.kill('SIGHUP');
    assert.deepEqual(await exited, [0, null]);
    assert.match(logs(), /"signal":"SIGHUP","msg":"shutting down: finishing in-flight requests"/);
    assert.match(logs(), /"msg":"stopped"/);
  });
});
