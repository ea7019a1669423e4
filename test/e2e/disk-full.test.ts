/**
 * A data folder on a disk that fills up, for real: a 16 MiB tmpfs mounted for the test (root, as
 * `.ci/run` is; where mounting is not allowed the suite says so and is skipped). An import fills it
 * and stops with one line; `serve` then starts all the same (its search index built in memory, not
 * saved: this crashed it before) and answers searches; a keyed request is charged exactly when it
 * is answered 200.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { rng } from '../../bench/scifact.js';
import { tempDir } from '../helpers.js';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const root = tempDir('websearch-disk-');
const mountPoint = join(root.path, 'disk');
mkdirSync(mountPoint);
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint], { encoding: 'utf8' });
const cannotMount = mounted.status === 0 ? undefined : `a tmpfs cannot be mounted here (${(mounted.stderr || String(mounted.error)).trim()})`;
if (cannotMount) root.remove();

describe('a data folder whose disk fills up', { skip: cannotMount }, () => {
  const dataDir = join(mountPoint, 'data');
  const env = { ...process.env, WEBSEARCH_DATA_DIR: dataDir, WEBSEARCH_LOG_LEVEL: 'info', WEBSEARCH_WARM_UP_MS: '0' };
  let server: ChildProcess | undefined;
  let logs = '';

  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, [...CLI, ...args], { env, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const json = (...args: string[]) => {
    const r = cli(...args, '--json');
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  before(() => {
    // Pages of 600 made-up words each: 5,000 of them are three times what the disk holds.
    const next = rng(7);
    const lines: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const words = Array.from({ length: 600 }, () => `w${Math.floor(next() * 20000)}`);
      lines.push(JSON.stringify({ url: `https://site.test/p${i}`, markdown: `# Page ${i}\n\n${words.join(' ')}.` }));
    }
    writeFileSync(join(root.path, 'pages.jsonl'), `${lines.join('\n')}\n`);
  });
  after(async () => {
    if (server && server.exitCode === null) {
      const exited = once(server, 'exit');
      server.kill('SIGKILL');
      await exited; // a file it holds open keeps the disk busy
    }
    const unmounted = spawnSync('umount', [mountPoint], { encoding: 'utf8' });
    assert.equal(unmounted.status, 0, unmounted.stderr);
    root.remove();
  });

  test('the import stops in one line when the disk is full, and keeps what it imported', () => {
    const imported = cli('import', join(root.path, 'pages.jsonl'));
    assert.equal(imported.code, 1);
    assert.match(imported.stderr, /websearch: the disk of the data folder is full \(.*\); what was written before is kept: make room and run the command again\n$/);
    assert.doesNotMatch(imported.stderr, /\n\s+at /, 'no stack trace');
    const { bavail, bsize } = statfsSync(mountPoint);
    assert.ok(bavail * bsize < 1 << 20, `the disk is full (${bavail * bsize} bytes free)`);
  });

  test('serve starts on the full disk, its index in memory; searches are answered, and charged only when answered', async () => {
    const org = json('org', 'create', 'Full disk');
    const key = json('key', 'create', '--org', org.id);
    json('credits', 'add', '--org', org.id, '--usd', '1');

    server = spawn(process.execPath, [...CLI, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stderr!.on('data', (d) => (logs += d));
    const port = await new Promise<number>((resolve, reject) => {
      server!.stdout!.on('data', (d: Buffer) => {
        logs += d;
        const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(logs);
        if (m) resolve(Number(m[1]));
      });
      server!.once('exit', (code) => reject(new Error(`server exited ${code}: ${logs}`)));
    });
    assert.match(logs, /search index not saved: the disk is full; searches go on from memory/);
    assert.deepEqual(
      readdirSync(join(dataDir, 'websearch.db.engine')).filter((f) => f.endsWith('.tmp')),
      [],
      'no file written in part is left taking room',
    );

    const base = `http://127.0.0.1:${port}`;
    const search = (path: string, headers: Record<string, string>) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: 'page w12' }) });
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
    const { balance_usd } = json('credits', 'show', '--org', org.id);
    assert.equal(Math.round(balance_usd * 1e6), 1_000_000 - 4_000 * answered);
  });
});
