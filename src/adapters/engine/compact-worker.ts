/**
 * A worker thread that makes one segment of the documents of segments that are not deleted
 * (segment.ts `compacted`), off the serving thread: engine-index-store.ts merges segments here, and
 * purges one that held a removed page. With `shared`, the segment is made in shared memory, as a
 * store with a helper thread keeps its segments, so that the serving thread need not copy it there.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compacted, type SegmentData, transferables } from './segment.js';

const { parts, shared } = workerData as { parts: SegmentData[]; shared: boolean };
const out = compacted(parts, shared);
parentPort!.postMessage(out ?? null, out ? transferables(out) : []);
