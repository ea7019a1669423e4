/**
 * A worker thread that builds the segment of one version-id range, or of the ids given in it
 * (engine-index-store.ts). With a gate (`buildInTurns`), it says when it has gathered its versions
 * and finishes once the gate's word is set.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../sqlite/database.js';
import { type EngineWeights, finished, rangeBuilder } from './engine-index-store.js';
import { transferables } from './segment.js';

const { path, lo, hi, weights, ids, gate } = workerData as { path: string; lo: number; hi: number; weights: EngineWeights; ids?: Float64Array; gate?: Int32Array };
const db = openDatabase({ path, readonly: true, mapped: false });
let builder: ReturnType<typeof rangeBuilder>;
try {
  builder = rangeBuilder(db, lo, hi, weights, ids);
} finally {
  db.close();
}
if (gate) {
  parentPort!.postMessage('gathered');
  // In slices, so that a terminate() is seen between them.
  while (Atomics.load(gate, 0) === 0) Atomics.wait(gate, 0, 0, 1000);
}
const seg = finished(builder);
parentPort!.postMessage(seg ?? null, seg ? transferables(seg) : []);
