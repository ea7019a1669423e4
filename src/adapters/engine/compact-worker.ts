/**
 * A worker thread that makes a segment without its deleted documents (segment.ts `compacted`):
 * engine-index-store.ts purges a large segment that held a removed page here, off the serving
 * thread. With `shared`, the segment is made in shared memory, as a store with a helper thread
 * keeps its segments, so that the serving thread need not copy it there.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compacted, type SegmentData, transferables } from './segment.js';

const { seg, shared } = workerData as { seg: SegmentData; shared: boolean };
const out = compacted(seg, shared);
parentPort!.postMessage(out ?? null, out ? transferables(out) : []);
