/**
 * The peak resident memory of this process while something runs, split as /proc/self/status splits
 * it: anonymous memory (heaps, arrays) and mapped files (the database's pages read through SQLite's
 * memory map: the file's own, shared with the page cache and given back under pressure). VmHWM has
 * only their sum, and a sampler on the main thread would miss a synchronous build, so a worker
 * thread reads the figures every 20 ms.
 */
import { Worker } from 'node:worker_threads';

const SAMPLER = `
const { workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const peaks = new Float64Array(workerData);
const kib = (status, key) => Number(new RegExp(key + ':\\\\s*(\\\\d+)').exec(status)?.[1] ?? 0);
const sample = () => {
  const s = readFileSync('/proc/self/status', 'utf8');
  peaks[0] = Math.max(peaks[0], kib(s, 'RssAnon'));
  peaks[1] = Math.max(peaks[1], kib(s, 'RssFile') + kib(s, 'RssShmem'));
  peaks[2] = Math.max(peaks[2], kib(s, 'VmRSS'));
};
sample();
setInterval(sample, 20);
`;

export interface MemoryPeaks {
  /** MiB. */
  anon: number;
  file: number;
  total: number;
}

/** Starts sampling; the returned function stops and gives the peaks seen since. */
export async function samplePeaks(): Promise<() => Promise<MemoryPeaks>> {
  const peaks = new Float64Array(new SharedArrayBuffer(3 * 8));
  const worker = new Worker(SAMPLER, { eval: true, workerData: peaks.buffer });
  await new Promise((resolve) => worker.once('online', resolve));
  return async () => {
    await new Promise((resolve) => setTimeout(resolve, 40));
    await worker.terminate();
    return { anon: peaks[0]! / 1024, file: peaks[1]! / 1024, total: peaks[2]! / 1024 };
  };
}
