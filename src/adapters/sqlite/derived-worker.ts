/**
 * A worker thread that fills in passage indexes and fingerprints (SqlitePageStore.fillDerived) over its own
 * connection, until it has gone through every version or is told to stop (any message): then a
 * message with how many it built and whether it went through them all.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './database.js';
import { SqlitePageStore } from './page-store.js';

const { path } = workerData as { path: string };
const stop = new AbortController();
const onMessage = () => stop.abort();
parentPort!.on('message', onMessage);
// Read, not mapped: the versions read once would count in the process's resident memory.
const db = openDatabase({ path, mapped: false });
try {
  const built = await new SqlitePageStore(db).fillDerived(stop.signal);
  parentPort!.postMessage({ built, done: !stop.signal.aborted });
} finally {
  db.close();
  parentPort!.off('message', onMessage); // lets the thread end
}
