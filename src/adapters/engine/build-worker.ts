/** A worker thread that builds the segment of one version-id range, or of the ids given in it (engine-index-store.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../sqlite/database.js';
import { buildRange, type EngineWeights } from './engine-index-store.js';
import { transferables } from './segment.js';

const { path, lo, hi, weights, ids } = workerData as { path: string; lo: number; hi: number; weights: EngineWeights; ids?: Float64Array };
const db = openDatabase({ path, readonly: true });
try {
  const seg = buildRange(db, lo, hi, weights, ids);
  parentPort!.postMessage(seg ?? null, seg ? transferables(seg) : []);
} finally {
  db.close();
}
