/** Worker threads of the adapters, started from their compiled JavaScript or, in tests and benchmarks, from TypeScript. */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside the module `from` (its `import.meta.url`: the
 * engine's build-worker and search-worker, the page store's derived-worker, the reader pool's
 * reader-worker), compiled or TypeScript as that module is. From TypeScript sources (tests, benchmarks) the worker first
 * registers the same loader (tsx), which a plain `new Worker(file)` would not have. `options` can set
 * the thread's resource limits (the reader pool's heap).
 */
export function startWorker(from: string, name: string, workerData: unknown, options: Pick<WorkerOptions, 'resourceLimits'> = {}): Worker {
  const file = new URL(`./${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from);
  if (!file.pathname.endsWith('.ts')) return new Worker(file, { workerData, ...options });
  return new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(file.href)}); });`, {
    eval: true,
    workerData,
    ...options,
  });
}
