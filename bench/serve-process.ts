/** `websearch serve` as a child process for the benchmarks that measure it over its socket. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createServices, type Services } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';

export const CLI = join(import.meta.dirname, '..', 'src', 'cli', 'main.ts');

export interface ServeProcess {
  base: URL;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the server (from TypeScript, through tsx) on a free port and waits until it answers /healthz. */
export async function startServe(args: string[], env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', String(port), ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] });
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
