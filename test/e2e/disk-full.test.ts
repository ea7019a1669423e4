/**
 * A data folder on a disk that fills up, for real: a 32 MiB tmpfs mounted for the test (root, as
 * `.ci/run` is; where mounting is not allowed the suite says so and is skipped). First with room
 * kept for requests (WEBSEARCH_MIN_FREE_DISK_MB 12): an import stops at it in one line, and keyed
 * requests are all served and charged. Then with none kept: a second import fills the disk and
 * stops in one line; `serve` starts all the same (its search index built in memory, not saved:
 * this crashed it before) and answers searches, a keyed request charged exactly when answered.
 * Last, the disk remounted read-only: a command says so in one line, and `serve` answers what needs
 * no write and refuses the rest with 503 storage_unavailable.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { rng } from '../../bench/scifact.js';
import { cliJson, runCli, startCliServer } from '../fixtures/cli.js';
import { tempDir } from '../helpers.js';

const root = tempDir('websearch-disk-');
const mountPoint = join(root.path, 'disk');
mkdirSync(mountPoint);
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', mountPoint], { encoding: 'utf8' });
const cannotMount = mounted.status === 0 ? undefined : `a tmpfs cannot be mounted here (${(mounted.stderr || String(mounted.error)).trim()})`;
if (cannotMount) root.remove();

describe('a data folder whose disk fills up', { skip: cannotMount }, () => {
  const dataDir = join(mountPoint, 'data');
  /** The room kept for requests, in MiB (WEBSEARCH_MIN_FREE_DISK_MB). */
  let kept = 12;
  const env = () => ({ ...process.env, WEBSEARCH_DATA_DIR: dataDir, WEBSEARCH_LOG_LEVEL: 'info', WEBSEARCH_WARM_UP_MS: '0', WEBSEARCH_MIN_FREE_DISK_MB: String(kept) });
  let server: ChildProcess | undefined;
  let logs = () => '';
  /** The key the second test made, for the third. */
  let fullerKey = '';
  const free = () => {
    const { bavail, bsize } = statfsSync(mountPoint);
    return bavail * bsize;
  };

  const cli = (...args: string[]) => runCli(env(), ...args);
  const json = (...args: string[]) => cliJson(env(), ...args);
  const serve = async () => {
    const started = await startCliServer(env());
    server = started.child;
    logs = started.logs;
    const { port } = started;
    return (path: string, headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: 'page w12' }) });
  };
  const stop = async (signal: NodeJS.Signals) => {
    if (!server || server.exitCode !== null) return;
    const exited = once(server, 'exit');
    server.kill(signal);
    await exited; // a file it holds open keeps the disk busy
  };

  before(() => {
    // Pages of 300 made-up words each: 16,000 of them are more than the disk holds.
    const next = rng(7);
    const lines: string[] = [];
    for (let i = 0; i < 16_000; i++) {
      const words = Array.from({ length: 300 }, () => `w${Math.floor(next() * 20000)}`);
      lines.push(JSON.stringify({ url: `https://site.test/p${i}`, markdown: `# Page ${i}\n\n${words.join(' ')}.` }));
    }
    writeFileSync(join(root.path, 'pages.jsonl'), `${lines.join('\n')}\n`);
  });
  after(async () => {
    await stop('SIGKILL');
    const unmounted = spawnSync('umount', [mountPoint], { encoding: 'utf8' });
    assert.equal(unmounted.status, 0, unmounted.stderr);
    root.remove();
  });

  test('with room kept for requests: the import stops at it in one line; keyed requests are all served and charged', async () => {
    const imported = cli('import', join(root.path, 'pages.jsonl'));
    assert.equal(imported.code, 1);
    assert.match(
      imported.stderr,
      /websearch: the disk of the data folder has [\d.]+ MiB free, less than the 12\.0 MiB kept for charges and usage \(WEBSEARCH_MIN_FREE_DISK_MB\): pages are not stored; what was written before is kept: make room and run the command again\n$/,
    );
    assert.ok(free() > 4 * 2 ** 20, `room is left (${free()} bytes)`);

    const org = json('org', 'create', 'Full disk');
    const key = json('key', 'create', '--org', org.id);
    json('credits', 'add', '--org', org.id, '--usd', '1');
    const search = await serve();
    for (let i = 0; i < 20; i++) assert.equal((await search('/v1/search', { 'x-api-key': key.key })).status, 200);
    await stop('SIGTERM');
    assert.equal(json('credits', 'show', '--org', org.id).balance_usd, '0.920000');
  });

  test('with none kept: the import fills the disk and stops in one line; serve starts on it and charges only what it answers', async () => {
    kept = 0;
    // The search index saved by the first server goes, so that this one builds it anew and must save it.
    rmSync(join(dataDir, 'websearch.db.engine'), { recursive: true });
    const imported = cli('import', join(root.path, 'pages.jsonl'));
    assert.equal(imported.code, 1);
    assert.match(imported.stderr, /websearch: the disk of the data folder is full \(.*\); what was written before is kept: make room and run the command again\n$/);
    assert.doesNotMatch(imported.stderr, /\n\s+at /, 'no stack trace');
    assert.ok(free() < 2 ** 20, `the disk is full (${free()} bytes free)`);

    const org = json('org', 'create', 'Fuller disk');
    const key = json('key', 'create', '--org', org.id);
    fullerKey = key.key;
    json('credits', 'add', '--org', org.id, '--usd', '1');
    const search = await serve();
    assert.match(logs(), /search index not saved: the disk is full; searches go on from memory/);
    assert.deepEqual(
      readdirSync(join(dataDir, 'websearch.db.engine')).filter((f) => f.endsWith('.tmp')),
      [],
      'no file written in part is left taking room',
    );
    const keyless = await search('/v1/search/public', { 'x-service-title': 'disk test' });
    assert.equal(keyless.status, 200);
    assert.ok(((await keyless.json()) as { results: unknown[] }).results.length > 0);

    // Whether a charge finds room depends on what SQLite's write-ahead log holds already; either way
    // the request is charged exactly when it is answered.
    let answered = 0;
    for (let i = 0; i < 20; i++) {
      const res = await search('/v1/search', { 'x-api-key': key.key });
      if (res.status === 200) answered++;
      else {
        assert.equal(res.status, 503);
        assert.equal(res.headers.get('retry-after'), '60');
        assert.equal(((await res.json()) as { code: string }).code, 'storage_full');
      }
    }
    await stop('SIGTERM');
    const { balance_usd } = json('credits', 'show', '--org', org.id);
    assert.equal(Math.round(Number(balance_usd) * 1e6), 1_000_000 - 4_000 * answered);
  });

  test('a disk remounted read-only (as Linux does after I/O errors): commands say so in one line; serve answers what needs no write, and refuses the rest', async () => {
    const remount = (mode: string) => spawnSync('mount', ['-o', `remount,${mode}`, mountPoint], { encoding: 'utf8' });
    assert.equal(remount('ro').status, 0);
    try {
      const r = cli('org', 'create', 'Read-only');
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^websearch: the data folder cannot be written \(.*\): is its file system read-only, or failing\?\n$/);
      // The database opens for reading (its write-ahead log's index is there): searches are answered.
      const search = await serve();
      assert.equal((await search('/v1/search/public', { 'x-service-title': 'disk test' })).status, 200);
      const keyed = await search('/v1/search', { 'x-api-key': fullerKey });
      assert.equal(keyed.status, 503);
      assert.equal(keyed.headers.get('retry-after'), '60');
      assert.equal(((await keyed.json()) as { code: string }).code, 'storage_unavailable');
      await stop('SIGTERM');
    } finally {
      await stop('SIGKILL');
      assert.equal(remount('rw').status, 0);
    }
  });
});
