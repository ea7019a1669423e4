/**
 * A worker thread that builds the segment of one version-id range, or of the ids given in it
 * (engine-index-store.ts). Taking turns (`buildInTurns`), it says how many words its segment's
 * postings and filters of pairs will take once it has gathered its versions (`Gathered`), and
 * finishes when its turn comes: a message with their places in the buffers the parts share.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../sqlite/database.js';
import { type EngineWeights, finished, type Gathered, rangeBuilder } from './engine-index-store.js';
import { type Place, transferables } from './segment.js';

const { path, lo, hi, weights, ids, turns } = workerData as { path: string; lo: number; hi: number; weights: EngineWeights; ids?: Float64Array; turns?: boolean };
const db = openDatabase({ path, readonly: true, mapped: false });
let builder: ReturnType<typeof rangeBuilder>;
try {
  builder = rangeBuilder(db, lo, hi, weights, ids);
} finally {
  db.close();
}
let into: { postings: Place; pairs: Place } | undefined;
if (turns) {
  parentPort!.postMessage({ postingsWords: builder.postingsWords(), pairWords: builder.pairWords() } satisfies Gathered);
  into = await new Promise((resolve) => parentPort!.once('message', resolve));
}
const seg = finished(builder, into);
parentPort!.postMessage(seg ?? null, seg ? transferables(seg) : []);
