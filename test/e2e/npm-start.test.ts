/**
 * `npm start` as a supervisor runs it (a container's `npm start`, a service manager): SIGTERM sent
 * to npm's process reaches the server, which finishes and exits, instead of leaving it running
 * orphaned (npm's script shell does not pass signals on: the script `exec`s node).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { tempDir } from '../helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = tempDir();
let serverPid: number | undefined;
after(() => {
  // A failed run must not leave the server behind.
  if (serverPid !== undefined && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
  dir.remove();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('SIGTERM to npm start stops the server it started', async () => {
  const env = { ...process.env, WEBSEARCH_DATA_DIR: dir.path, WEBSEARCH_LOG_LEVEL: 'info' };
  const npm = spawn('npm', ['start', '--', '--port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  npm.stderr!.on('data', (d) => (logs += d));
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  serverPid = await new Promise<number>((resolve, reject) => {
    npm.stdout!.on('data', (d: Buffer) => {
      logs += d;
      const m = /"pid":(\d+)[^\n]*listening at http:\/\/127\.0\.0\.1:\d+/.exec(logs);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`npm start exited ${code}: ${logs}`)));
  });
  assert.notEqual(serverPid, npm.pid, 'the server is npm\'s child process');

  npm.kill('SIGTERM');
  await exited;
  const deadline = Date.now() + 10_000;
  while (alive(serverPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(serverPid), false, `the server (pid ${serverPid}) is still running after npm was sent SIGTERM`);
  // Its last lines may still be in the pipe after it exits; the pipe closes once they are read.
  if (!npm.stdout!.closed) await new Promise((r) => npm.stdout!.once('close', r));
  assert.match(logs, /"msg":"shutting down: finishing in-flight requests"/);
  assert.match(logs, /"msg":"stopped"/);
});
