/**
 * `websearch backup` while the server runs and charges requests: the copy is one consistent
 * instant (SQLite's integrity check, a balance that is a whole number of charges), a second server
 * started on it loads its search index rather than building one and answers as the first does, and
 * a folder that is not new or empty is refused.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { CLI, cliJson, runCli, startCliServer } from '../fixtures/cli.js';
import { tempDir } from '../helpers.js';


describe('websearch backup', () => {
  const dir = tempDir();
  const original = join(dir.path, 'data');
  const copy = join(dir.path, 'copy');
  const servers: ChildProcess[] = [];
  after(async () => {
    for (const s of servers) {
      if (s.exitCode !== null) continue;
      const exited = once(s, 'exit');
      s.kill('SIGKILL');
      await exited;
    }
    dir.remove();
  });

  const env = (dataDir: string) => ({ ...process.env, WEBSEARCH_DATA_DIR: dataDir, WEBSEARCH_LOG_LEVEL: 'info', WEBSEARCH_WARM_UP_MS: '0' });
  const cli = (dataDir: string, ...args: string[]) => runCli(env(dataDir), ...args);
  const json = (dataDir: string, ...args: string[]) => cliJson(env(dataDir), ...args);
  const serve = async (dataDir: string) => {
    const { child, port, logs } = await startCliServer(env(dataDir));
    servers.push(child);
    const search = (headers: Record<string, string>, path = '/v1/search') =>
      fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: 'lighthouse lens' }) });
    return { search, logs };
  };

  test('a copy taken under load is consistent, and a server on it answers as the first', async () => {
    const pages = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify({ url: `https://lights.test/${i}`, title: `Lighthouse ${i}`, markdown: `The lighthouse number ${i} turns its ${i % 3 ? 'lamp' : 'Fresnel lens'} at night.` }),
    );
    writeFileSync(join(dir.path, 'pages.jsonl'), `${pages.join('\n')}\n`);
    assert.equal(cli(original, 'import', join(dir.path, 'pages.jsonl')).code, 0);
    const org = json(original, 'org', 'create', 'Backed up');
    const key = json(original, 'key', 'create', '--org', org.id);
    json(original, 'credits', 'add', '--org', org.id, '--usd', '10');
    const first = await serve(original);

    // Keyed requests, each a charge, go on all through the backup.
    let running = true;
    let answered = 0;
    const load = (async () => {
      while (running) if ((await first.search({ 'x-api-key': key.key })).status === 200) answered++;
    })();
    const backup = spawn(process.execPath, [...CLI, 'backup', copy], { env: env(original), stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    backup.stderr!.on('data', (d) => (said += d));
    const [code] = (await once(backup, 'exit')) as [number];
    running = false;
    await load;
    assert.equal(code, 0, said);
    assert.match(said, /^backup: the database \([\d.]+ MiB\) copied into .* in [\d.]+ s, with the search index \(\d+ files, [\d.]+ MiB\); use it with --data-dir /);
    assert.ok(answered > 0);

    const db = new Database(join(copy, 'websearch.db'), { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const { pages: stored } = db.prepare('SELECT count(*) AS pages FROM pages').get() as { pages: number };
      assert.equal(stored, 60);
    } finally {
      db.close();
    }
    const balance = Math.round(Number(json(copy, 'credits', 'show', '--org', org.id).balance_usd) * 1e6);
    assert.equal((10_000_000 - balance) % 4_000, 0, 'a whole number of charges: no charge in part');
    assert.ok(balance >= Math.round(Number(json(original, 'credits', 'show', '--org', org.id).balance_usd) * 1e6), 'the copy is of an instant before now');

    const second = await serve(copy);
    assert.doesNotMatch(second.logs(), /building the search index/, 'the copied index is loaded, not built again');
    const titles = async (s: typeof first) => ((await (await s.search({ 'x-service-title': 'backup test' }, '/v1/search/public')).json()) as { results: { url: string }[] }).results.map((r) => r.url);
    assert.deepEqual(await titles(second), await titles(first));
    assert.ok((await titles(second)).length > 0);

    const again = cli(original, 'backup', copy);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /is not a new or empty folder: a backup never writes over another/);
    assert.ok(existsSync(join(copy, 'websearch.db.engine', 'manifest.json')));
  });
});
