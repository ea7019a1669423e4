/**
 * A second thread for one search (engine-index-store.ts): the helper thread (search-worker.ts)
 * searches the upper part of each segment's documents while the calling thread searches the lower
 * part, both pruning with a shared floor (engine.ts `SharedFloor`), and `mergeHits` joins the two
 * top ks into exactly the whole's (test/engine/rank-safety.test.ts).
 *
 * The helper shares the segments instead of copying them: their arrays, the columns later writes
 * change, the `gone` bits and the dense lists' bitsets (engine.ts `Members`) are in
 * SharedArrayBuffers (segment.ts `shareSegment`), term dictionaries included. Each segment is
 * posted once; each publish posts the parts in use; each search, what the helper has no copy of
 * (its terms' document frequencies over all segments). Messages arrive in order, so a search runs
 * over the parts published before it was asked.
 */
import type { Worker } from 'node:worker_threads';
import type { DocRange, EngineFilter, EngineHit, SearchableSegment, SharedFloor, Statistics } from './engine.js';
import type { FromHelper, HelperData, ToHelper } from './search-worker.js';
import type { SegmentData } from './segment.js';
import type { CheckJob } from './webql-search.js';
import { startWorker } from '../worker.js';

export class SearchHelper {
  private readonly worker: Worker;
  private readonly ids = new WeakMap<SegmentData, number>();
  private nextId = 1;
  private nextAsk = 1;
  private readonly pending = new Map<number, { resolve: (answer: FromHelper) => void; reject: (e: Error) => void }>();
  /** Set once the thread failed or exited: the caller searches alone from then on. */
  broken = false;
  private closing = false;

  /**
   * `onFailure` hears once why the thread is gone (it is not restarted). `path`: the store's SQLite
   * file, which the thread opens read-only at its first check (none: it is asked none).
   */
  constructor(onFailure: (e: Error) => void = () => {}, path?: string) {
    this.worker = startWorker(import.meta.url, 'search-worker', { path } satisfies HelperData);
    this.worker.unref(); // kept alive only while a search waits on it
    this.worker.on('message', (m: FromHelper) => {
      const p = this.pending.get(m.ask);
      if (!p) return;
      this.settled(m.ask);
      if ('error' in m) p.reject(new Error(`search helper: ${m.error}`));
      else p.resolve(m);
    });
    const fail = (e: Error) => {
      if (!this.broken && !this.closing) onFailure(e);
      this.broken = true;
      for (const [ask, p] of this.pending) {
        this.settled(ask);
        p.reject(e);
      }
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`search helper exited with ${code}`)));
  }

  private post(m: ToHelper): void {
    this.worker.postMessage(m);
  }

  private settled(ask: number): void {
    this.pending.delete(ask);
    if (this.pending.size === 0 && !this.closing) this.worker.unref();
  }

  /** The parts now in use (their arrays shared: `shareSegment`), under the collection's average length. */
  publish(segments: readonly SearchableSegment[], avgLength: number): void {
    if (this.broken) return;
    for (const { data, members, times } of segments) {
      if (this.ids.has(data)) continue;
      const id = this.nextId++;
      this.ids.set(data, id);
      this.post({ type: 'segment', id, data, members, times });
    }
    this.post({ type: 'publish', parts: segments.map((s) => ({ id: this.ids.get(s.data)!, gone: s.gone })), avgLength });
  }

  /** `searchTopK` of the published parts over `range` (`required` as there), on the helper thread. */
  search(
    segments: readonly SearchableSegment[],
    stats: Statistics,
    terms: readonly string[],
    filter: EngineFilter,
    k: number,
    range: DocRange,
    floor: SharedFloor,
    required = 0,
  ): Promise<EngineHit[]> {
    const distinct = [...new Set(terms)];
    const ask = this.nextAsk++;
    const answer = this.answer(ask);
    this.post({
      type: 'search',
      ask,
      terms: distinct,
      df: distinct.map(stats.df),
      docCount: stats.docCount,
      avgLength: stats.avgLength,
      filter,
      k,
      range,
      floor: floor.bits.buffer as SharedArrayBuffer,
      required,
    });
    return answer.then((m) => {
      if (!('hits' in m)) throw new Error('search helper: no hits');
      return m.hits;
    });
  }

  /**
   * webql-search.ts `checkClaimed` of `job` on the helper thread, with the caller, over its own
   * read-only connection to the store's file: how many candidates it checked, once it is done.
   */
  check(job: CheckJob): Promise<number> {
    const ask = this.nextAsk++;
    const answer = this.answer(ask);
    this.post({ type: 'check', ask, job });
    return answer.then((m) => {
      if (!('checked' in m)) throw new Error('search helper: no count of checks');
      return m.checked;
    });
  }

  /** The helper's answer to `ask`, kept alive meanwhile. */
  private answer(ask: number): Promise<FromHelper> {
    return new Promise<FromHelper>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(ask, { resolve, reject });
    });
  }

  async close(): Promise<void> {
    this.closing = true; // not a failure: the exit that follows is not reported (searches waiting are refused)
    // Kept alive until it has stopped: else, with nothing else to do, the process would end
    // before the rest of a shutdown (a check's answer, which no one awaits, arriving meanwhile
    // had let it go).
    this.worker.ref();
    await this.worker.terminate();
  }
}
