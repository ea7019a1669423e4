/** `websearch serve` as a child process for the benchmarks that measure it over its socket. */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createServices, type Services } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';

const ROOT = join(import.meta.dirname, '..');
export const CLI = join(ROOT, 'src', 'cli', 'main.ts');

export interface ServeProcess {
  base: URL;
  pid: number;
  stop(): Promise<void>;
  /** Sends SIGHUP (a restart of the workers of `--workers N`) and waits for the primary to say it restarted them all; throws if it says the restart stopped. */
  reload(): Promise<void>;
}

/** Builds dist/ when it is older than src/ (`npm start`'s prestart), for `startServe`'s `compiled`. */
export function buildDist(): void {
  if (spawnSync(process.execPath, [join(ROOT, 'scripts', 'fresh-build.mjs')], { stdio: 'inherit' }).status !== 0) throw new Error('dist/ could not be built');
}

/**
 * Starts the server on a free port and waits until it answers /healthz: from TypeScript, through
 * tsx, or with `compiled` as `npm start` runs it, from dist/ (`buildDist` first).
 */
export async function startServe(args: string[], env: NodeJS.ProcessEnv, compiled = false): Promise<ServeProcess> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const cli = compiled ? [join(ROOT, 'dist', 'cli', 'main.js')] : ['--import', 'tsx', CLI];
  const child = spawn(process.execPath, [...cli, 'serve', '--port', String(port), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  // Its log passed on as it comes, each line also to whoever waits for one.
  const lineWaiters = new Set<(line: string) => void>();
  let partial = '';
  child.stderr!.on('data', (d: Buffer) => {
    process.stderr.write(d);
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) for (const w of lineWaiters) w(line);
  });
  const base = new URL(`http://127.0.0.1:${port}`);
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (await fetch(new URL('/healthz', base)).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error('the server did not start within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
    reload: () =>
      new Promise<void>((resolve, reject) => {
        const waiter = (line: string) => {
          const failed = /the restart stops there/.test(line);
          if (!failed && !/SIGHUP: every worker restarted/.test(line)) return;
          lineWaiters.delete(waiter);
          if (failed) reject(new Error(`the restart failed: ${line}`));
          else resolve();
        };
        lineWaiters.add(waiter);
        child.kill('SIGHUP');
      }),
  };
}

/** `f` on the services of the SQLite database at `path` (default settings), closed after: what a benchmark writes or reads beside the server. */
export async function withServices<T>(path: string, f: (services: Services) => Promise<T>): Promise<T> {
  const services = await createServices(loadSettings({ env: {}, flags: { databaseUrl: `sqlite:${path}` } }));
  try {
    return await f(services);
  } finally {
    await services.close();
  }
}
