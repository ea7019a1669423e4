/** Worker threads of the engine, started from its compiled JavaScript or, in tests and benchmarks, from TypeScript. */
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `file`. From TypeScript sources (tests, benchmarks) the worker first
 * registers the same loader (tsx), which a plain `new Worker(file)` would not have.
 */
export function startWorker(file: URL, workerData: unknown): Worker {
  if (!file.pathname.endsWith('.ts')) return new Worker(file, { workerData });
  return new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(file.href)}); });`, {
    eval: true,
    workerData,
  });
}
