/** A worker thread that builds the segment of one version-id range (engine-index-store.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../sqlite/database.js';
import { buildRange, type EngineWeights } from './engine-index-store.js';
import { transferables } from './segment.js';

const { path, lo, hi, weights } = workerData as { path: string; lo: number; hi: number; weights: EngineWeights };
const db = openDatabase({ path, readonly: true });
try {
  const seg = buildRange(db, lo, hi, weights);
  parentPort!.postMessage(seg ?? null, seg ? transferables(seg) : []);
} finally {
  db.close();
}
