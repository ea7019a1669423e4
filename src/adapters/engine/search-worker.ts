/**
 * The search helper thread (search-helper.ts starts it): it searches the upper part of each
 * segment's documents while the main thread searches the lower part. It holds no copy of the
 * index: the segments' arrays (their term dictionaries included) are in shared memory, and each
 * search brings the query terms' document frequencies over all segments. It also reads and checks
 * a large batch of a webql query's candidates with the main thread, each claiming groups of them in
 * turn (webql-search.ts `checkClaimed`), over a read-only connection of its own to the page store's file.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../sqlite/database.js';
import { type AcquiredOrder, type DocRange, type EngineFilter, type EngineHit, type Members, type SearchableSegment, SharedFloor, searchable, searchTopK } from './engine.js';
import type { SegmentData } from './segment.js';
import { webqlReader } from './webql-rows.js';
import { type CheckJob, checkClaimed, type WebqlDeps } from './webql-search.js';

export type ToHelper =
  | { type: 'segment'; id: number; data: SegmentData; members: Members; times: AcquiredOrder }
  | { type: 'publish'; parts: { id: number; gone: Int32Array }[]; avgLength: number }
  | {
      type: 'search';
      ask: number;
      terms: string[];
      /** Each term's document frequency over all segments. */
      df: number[];
      docCount: number;
      avgLength: number;
      filter: EngineFilter;
      k: number;
      range: DocRange;
      floor: SharedArrayBuffer;
      /** searchTopK's `required`. */
      required: number;
    }
  /** `checkClaimed` of `job` over the store's file, with the thread that asks. */
  | { type: 'check'; ask: number; job: CheckJob };

/** `checked`: how many of a job's candidates this thread checked. */
export type FromHelper = { ask: number; hits: EngineHit[] } | { ask: number; checked: number } | { ask: number; error: string };

/** What the thread is started with: the store's SQLite file, when it has one. */
export interface HelperData {
  path: string | undefined;
}

/** The read of the store's file, over a connection opened at the first check. */
let read: WebqlDeps['read'] | undefined;
function reader(): WebqlDeps['read'] {
  const { path } = workerData as HelperData;
  if (path === undefined) throw new Error('no file to read');
  return (read ??= webqlReader(openDatabase({ path, readonly: true })));
}

/**
 * A full collection of this thread's heap, soon after a publish lets segments go, at most once a
 * second. A segment's shared arrays are freed only once every thread's objects over them are
 * collected, and this thread allocates so little that its heap could go unswept for long: after
 * each rebuild the whole index was held once more (test/engine/split-search.test.ts). `gc` is
 * had as Jest's leak detector has it without a flag at start: the flag set now, for new contexts.
 */
let collectAt = 0;
let scheduled = false;
let gc: (() => void) | undefined;
function collectSoon(): void {
  if (scheduled) return;
  scheduled = true;
  setTimeout(
    () => {
      scheduled = false;
      collectAt = Date.now();
      if (!gc) {
        setFlagsFromString('--expose-gc');
        gc = runInNewContext('gc') as () => void;
      }
      gc();
    },
    Math.max(0, collectAt + 1000 - Date.now()),
  );
}

if (parentPort) {
  const port = parentPort;
  const held = new Map<number, { data: SegmentData; members: Members; times: AcquiredOrder }>();
  let parts: SearchableSegment[] = [];
  port.on('message', (m: ToHelper) => {
    if (m.type === 'segment') {
      held.set(m.id, { data: m.data, members: m.members, times: m.times });
    } else if (m.type === 'publish') {
      // As the main thread's publish: each part ready under the new average length; segments no part uses are let go.
      const ids = new Set(m.parts.map((p) => p.id));
      let dropped = false;
      for (const id of held.keys()) {
        if (ids.has(id)) continue;
        held.delete(id);
        dropped = true;
      }
      parts = m.parts.map(({ id, gone }) => {
        const { data, members, times } = held.get(id)!;
        return searchable(data, m.avgLength, gone, members, times);
      });
      if (dropped) collectSoon();
    } else if (m.type === 'check') {
      try {
        const { checked } = checkClaimed(reader(), m.job, undefined, true);
        port.postMessage({ ask: m.ask, checked } satisfies FromHelper);
      } catch (e) {
        port.postMessage({ ask: m.ask, error: String(e) } satisfies FromHelper);
      }
    } else {
      try {
        const df = new Map(m.terms.map((t, j) => [t, m.df[j]!]));
        const stats = { docCount: m.docCount, avgLength: m.avgLength, df: (t: string) => df.get(t) ?? 0 };
        const hits = searchTopK(parts, stats, m.terms, m.filter, m.k, m.range, new SharedFloor(m.floor), m.required);
        port.postMessage({ ask: m.ask, hits } satisfies FromHelper);
      } catch (e) {
        port.postMessage({ ask: m.ask, error: String(e) } satisfies FromHelper);
      }
    }
  });
}
