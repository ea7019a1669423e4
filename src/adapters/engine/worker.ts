/** Worker threads of the engine, started from its compiled JavaScript or, in tests and benchmarks, from TypeScript. */
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the engine's module `name` (beside this one: build-worker,
 * search-worker), compiled or TypeScript as this module is. From TypeScript sources (tests,
 * benchmarks) the worker first registers the same loader (tsx), which a plain `new Worker(file)`
 * would not have.
 */
export function startWorker(name: string, workerData: unknown): Worker {
  const self = import.meta.url;
  const file = new URL(`./${name}${self.endsWith('.ts') ? '.ts' : '.js'}`, self);
  if (!file.pathname.endsWith('.ts')) return new Worker(file, { workerData });
  return new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(file.href)}); });`, {
    eval: true,
    workerData,
  });
}
