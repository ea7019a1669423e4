/**
 * The build of a whole store on two threads: each part in a worker thread, their finishes taking
 * turns in the parts' order (a worker that has gathered its versions waits until it is told where to
 * write its postings and filters of pairs, once the part before has exited), their postings side by
 * side in one shared buffer and their filters in another.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { ENGINE_WEIGHTS, EngineIndexStore, type Gathered, Turns } from '../../src/adapters/engine/engine-index-store.js';
import type { SegmentData } from '../../src/adapters/engine/segment.js';
import { startWorker } from '../../src/adapters/worker.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { page, tempDir } from '../helpers.js';

/** The words of every block of a segment, each counted from its header: all of its postings when they hold nothing else. */
function blockWordsOf(seg: SegmentData): number {
  let words = 0;
  for (let b = 0; b < seg.blockOffset.length; b++) {
    const head = seg.postings[seg.blockOffset[b]!]!;
    const n = head & 0xff;
    words += 1 + Math.ceil((n * ((head >>> 8) & 0xff)) / 32) + Math.ceil((n * ((head >>> 16) & 0xff)) / 32);
  }
  return words;
}

describe('the build on two threads', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('turns: one worker finishes at a time, in the workers\' order; one failing before its turn gives none up', () => {
    const turns = new Turns();
    // Worker 1 is ready first, but 0's turn comes first.
    assert.equal(turns.ready(1), undefined);
    assert.equal(turns.ready(0), 0);
    assert.equal(turns.ready(2), undefined);
    // Worker 2 fails while waiting: still worker 0's turn, and 2's never comes.
    assert.equal(turns.exited(2), undefined);
    assert.equal(turns.exited(0), 1);
    assert.equal(turns.ready(3), undefined);
    assert.equal(turns.exited(1), undefined);
    assert.equal(turns.exited(3), undefined);
    // In order, and nobody holding a turn: the next is had at once when ready.
    const ordered = new Turns();
    assert.equal(ordered.ready(0), 0);
    assert.equal(ordered.exited(0), undefined);
    assert.equal(ordered.ready(1), 1);
  });

  test('a build worker taking turns says what its postings need, and finishes only when told where to write them', async () => {
    const path = join(dir.path, 'turn.db');
    const db = openDatabase({ path });
    await new SqlitePageStore(db).putVersions(Array.from({ length: 300 }, (_, n) => page(`https://turn.test/p${n}`, { content: `page ${n} waiting for its turn` })));
    db.close();
    const engineModule = new URL('../../src/adapters/engine/engine-index-store.ts', import.meta.url).href;
    const worker: Worker = startWorker(engineModule, 'build-worker', { path, lo: 1, hi: 300, weights: ENGINE_WEIGHTS, turns: true });
    const events: unknown[] = [];
    const segment = new Promise<SegmentData>((resolve, reject) => {
      worker.on('message', (m: SegmentData | Gathered) => {
        events.push('postingsWords' in m ? m : 'segment');
        if (!('postingsWords' in m)) resolve(m);
      });
      worker.once('error', reject);
    });
    try {
      while (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const { postingsWords: words, pairWords } = events[0] as Gathered;
      assert.ok(words > 300, `${words} words`);
      // Pairs in every page's title and content: at least a 32-bit word of filter each.
      assert.ok(pairWords >= 300, `${pairWords} filter words`);
      // Finishing 300 documents takes milliseconds: nothing comes before its turn.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(events.length, 1);
      // Its places: after 5 words of another's, in a buffer with 7 words to spare; its filters
      // after 3 words, with 2 to spare.
      const postings = new Int32Array(new SharedArrayBuffer((5 + words + 7) * 4)).fill(-7);
      const pairs = new Int32Array(new SharedArrayBuffer((3 + pairWords + 2) * 4)).fill(-7);
      worker.postMessage({ postings: { words: postings, at: 5 }, pairs: { words: pairs, at: 3 } });
      const seg = await segment;
      assert.equal(seg.docCount, 300);
      assert.equal(events.length, 2);
      // Its postings and filters are those words of those buffers (the same memory), written there, and nothing around them.
      assert.equal(seg.postings.length, words);
      assert.deepEqual([...seg.postings], [...postings.subarray(5, 5 + words)]);
      assert.deepEqual([...postings.subarray(0, 5), ...postings.subarray(5 + words)], Array(12).fill(-7));
      const first = seg.postings[0]!;
      seg.postings[0] = ~first;
      assert.equal(postings[5], ~first);
      seg.postings[0] = first;
      assert.equal(blockWordsOf(seg), words);
      assert.equal(seg.pairBits.length, pairWords);
      assert.equal(seg.pairStart[300], pairWords);
      assert.deepEqual([...pairs.subarray(0, 3), ...pairs.subarray(3 + pairWords)], Array(5).fill(-7));
      assert.ok(pairs.subarray(3, 3 + pairWords).every((w) => w !== -7 && w !== 0), 'every filter written in place');
      seg.pairBits[0] = ~seg.pairBits[0]!;
      assert.equal(pairs[3], seg.pairBits[0]);
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
      // The halves' postings were written side by side into one buffer, which the join uses in
      // place (a copy would be an array of its own, not shared on one search thread), from its
      // start; the rest of the buffer is the reserve, never written.
      const [seg] = index.segmentData;
      assert.ok(seg!.postings.buffer instanceof SharedArrayBuffer);
      assert.equal(seg!.postings.byteOffset, 0);
      assert.ok(seg!.postings.buffer.byteLength > seg!.postings.byteLength);
      assert.ok(new Int32Array(seg!.postings.buffer, seg!.postings.byteLength).every((w) => w === 0));
      assert.equal(blockWordsOf(seg!), seg!.postings.length);
    } finally {
      await index.close();
      db.close();
    }
  });

  test('a build in parts, two at a time: one segment, each version once and in order, answering as one built by one thread', async () => {
    const path = join(dir.path, 'parts.db');
    const db = openDatabase({ path });
    await new SqlitePageStore(db).putVersions(
      Array.from({ length: 2_300 }, (_, n) => page(`https://h${n % 5}.parts.test/p${n}`, { content: `part ${n % 3} page ${n} word${n % 97} word${n % 13}` })),
    );
    db.prepare('UPDATE versions SET searchable = 0 WHERE id % 10 = 7').run();
    // 2,070 searchable versions in parts of at most 400: six parts, started two at a time.
    const index = await new EngineIndexStore(db, { parallelFrom: 1_000, buildPart: 400 }).open();
    const single = await new EngineIndexStore(db, { parallelFrom: Number.POSITIVE_INFINITY }).open();
    try {
      assert.equal(index.segmentCount, 1);
      const ids = db.prepare<[], { id: number }>('SELECT id FROM versions WHERE searchable = 1 ORDER BY id').all().map((r) => r.id);
      assert.equal(ids.length, 2_070);
      const all = await index.search({ terms: ['page'], limit: 10_000 });
      assert.deepEqual(all.map((h) => h.versionId).sort((a, b) => a - b), ids);
      const [seg] = index.segmentData;
      assert.deepEqual(Array.from(seg!.versionIds), ids, 'the documents in version order, each once');
      // Every part's postings went into the one shared buffer, used in place from its start.
      assert.ok(seg!.postings.buffer instanceof SharedArrayBuffer);
      assert.equal(seg!.postings.byteOffset, 0);
      assert.equal(blockWordsOf(seg!), seg!.postings.length);
      // So did their filters of pairs, in the parts' order, and they are the one-thread build's.
      assert.ok(seg!.pairBits.buffer instanceof SharedArrayBuffer);
      assert.equal(seg!.pairBits.byteOffset, 0);
      assert.ok(seg!.pairBits.buffer.byteLength > seg!.pairBits.byteLength);
      const [whole] = single.segmentData;
      assert.deepEqual(seg!.pairStart, whole!.pairStart);
      assert.deepEqual(seg!.pairBits, whole!.pairBits);
      for (const terms of [['page'], ['part', 'word5'], ['word12', 'word96', 'part'], ['h3']]) {
        const query = { terms, limit: 30 };
        assert.deepEqual(await index.search(query), await single.search(query), terms.join(' '));
        assert.deepEqual(await index.search(query), index.exhaustiveSearch(query), terms.join(' '));
      }
    } finally {
      await index.close();
      await single.close();
      db.close();
    }
  });

  test('a part that cannot be built fails the build, whichever part it is, and nothing waits for its turn', { timeout: 120_000 }, async () => {
    const path = join(dir.path, 'failing.db');
    const db = openDatabase({ path });
    await new SqlitePageStore(db).putVersions(Array.from({ length: 2_000 }, (_, n) => page(`https://f.failing.test/p${n}`, { content: `failing page ${n}` })));
    // In parts of at most 400 (five): a version whose content is bytes, not text, which the
    // analysis cannot read, in the first part, in a middle one (its turn comes after others
    // wait for it) and in the last.
    try {
      for (const bad of [1, 1_000, 2_000]) {
        db.prepare('UPDATE versions SET content = CAST(content AS BLOB) WHERE id = ?').run(bad);
        // (The analysis's own error, from the part's worker thread.)
        await assert.rejects(new EngineIndexStore(db, { parallelFrom: 1_000, buildPart: 400 }).open(), { name: 'TypeError' }, `version ${bad}`);
        db.prepare('UPDATE versions SET content = CAST(content AS TEXT) WHERE id = ?').run(bad);
      }
      // Mended, the same store builds.
      const index = await new EngineIndexStore(db, { parallelFrom: 1_000, buildPart: 400 }).open();
      assert.equal((await index.search({ terms: ['failing'], limit: 10_000 })).length, 2_000);
      await index.close();
    } finally {
      db.close();
    }
  });

  test('halves of very different sizes: the larger may not fit the reserve, and the build is the same either way', async () => {
    const path = join(dir.path, 'uneven.db');
    const db = openDatabase({ path });
    // The upper half's pages are a hundred times as long: its postings and filters do not fit the
    // reserve left after the lower half's (placed first, as finishes go in the parts' order), so they
    // get buffers of their own, and the join copies.
    const long = (n: number) => Array.from({ length: 400 }, (_, k) => `word${(n * 31 + k) % 997}`).join(' ');
    await new SqlitePageStore(db).putVersions(
      Array.from({ length: 2_000 }, (_, n) => page(`https://u.uneven.test/p${n}`, { content: n < 1_000 ? `short page ${n}` : `long page ${n} ${long(n)}` })),
    );
    const index = await new EngineIndexStore(db, { parallelFrom: 1_000 }).open();
    try {
      assert.equal(index.segmentCount, 1);
      for (const terms of [['page'], ['short'], ['long', 'word5'], ['word17', 'word901', 'page']]) {
        const query = { terms, limit: 50 };
        assert.deepEqual(await index.search(query), index.exhaustiveSearch(query), terms.join(' '));
      }
      assert.equal((await index.search({ terms: ['page'], limit: 10_000 })).length, 2_000);
      const [seg] = index.segmentData;
      assert.equal(blockWordsOf(seg!), seg!.postings.length);
      // Copies, each in a buffer of its own; the filters are still the one-thread build's.
      assert.equal(seg!.postings.buffer.byteLength, seg!.postings.byteLength);
      assert.equal(seg!.pairBits.buffer.byteLength, seg!.pairBits.byteLength);
      const single = await new EngineIndexStore(db, { parallelFrom: Number.POSITIVE_INFINITY }).open();
      const [whole] = single.segmentData;
      await single.close();
      assert.deepEqual(seg!.pairStart, whole!.pairStart);
      assert.deepEqual(seg!.pairBits, whole!.pairBits);
    } finally {
      await index.close();
      db.close();
    }
  });
});
