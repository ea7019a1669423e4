/**
 * The build of a whole store on two threads: each half in a worker thread, their finishes taking
 * turns (a worker that has gathered its versions waits at a gate until the one before has exited).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { ENGINE_WEIGHTS, EngineIndexStore, Turns } from '../../src/adapters/engine/engine-index-store.js';
import type { SegmentData } from '../../src/adapters/engine/segment.js';
import { startWorker } from '../../src/adapters/engine/worker.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { page, tempDir } from '../helpers.js';

describe('the build on two threads', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('turns: one worker finishes at a time, in the order they became ready; one failing before its turn gives none up', () => {
    const turns = new Turns();
    assert.equal(turns.ready(1), 1);
    assert.equal(turns.ready(0), undefined);
    assert.equal(turns.ready(2), undefined);
    // Worker 2 fails while waiting: still worker 1's turn, and 2's never comes.
    assert.equal(turns.exited(2), undefined);
    assert.equal(turns.exited(1), 0);
    assert.equal(turns.exited(0), undefined);
    // Nobody holding a turn: the next ready one has it at once.
    assert.equal(turns.ready(3), 3);
  });

  test('a build worker with a gate sends its segment only once the gate is open', async () => {
    const path = join(dir.path, 'gate.db');
    const db = openDatabase({ path });
    await new SqlitePageStore(db).putVersions(Array.from({ length: 300 }, (_, n) => page(`https://gate.test/p${n}`, { content: `page ${n} behind the gate` })));
    db.close();
    const gate = new Int32Array(new SharedArrayBuffer(4));
    const worker: Worker = startWorker('build-worker', { path, lo: 1, hi: 300, weights: ENGINE_WEIGHTS, gate });
    const events: string[] = [];
    const segment = new Promise<SegmentData>((resolve, reject) => {
      worker.on('message', (m: SegmentData | 'gathered') => {
        events.push(m === 'gathered' ? m : 'segment');
        if (m !== 'gathered') resolve(m);
      });
      worker.once('error', reject);
    });
    try {
      while (!events.includes('gathered')) await new Promise((resolve) => setTimeout(resolve, 10));
      // Finishing 300 documents takes milliseconds: nothing comes while the gate is shut.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(events, ['gathered']);
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
      assert.equal((await segment).docCount, 300);
      assert.deepEqual(events, ['gathered', 'segment']);
    } finally {
      await worker.terminate();
    }
  });

  test('a build of two halves in workers: one segment, each version in it once, in order', async () => {
    const path = join(dir.path, 'halves.db');
    const db = openDatabase({ path });
    await new SqlitePageStore(db).putVersions(Array.from({ length: 2_000 }, (_, n) => page(`https://h${n % 7}.halves.test/p${n}`, { content: `half ${n % 2} page ${n}` })));
    db.prepare('UPDATE versions SET searchable = 0 WHERE id % 10 = 3').run();
    const index = await new EngineIndexStore(db, { parallelFrom: 1_000 }).open();
    try {
      assert.equal(index.segmentCount, 1);
      const ids = db.prepare<[], { id: number }>('SELECT id FROM versions WHERE searchable = 1 ORDER BY id').all().map((r) => r.id);
      const hits = await index.search({ terms: ['page'], limit: 10_000 });
      assert.deepEqual(
        hits.map((h) => h.versionId).sort((a, b) => a - b),
        ids,
      );
      assert.equal(ids.length, 1_800);
    } finally {
      await index.close();
      db.close();
    }
  });
});
