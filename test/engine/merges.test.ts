/**
 * Segments merge in tiers and in the background: small segments are joined at once, larger
 * merges are rebuilt in a worker thread while searches go on over the parts, and whatever the
 * writes did meanwhile (versions hidden, superseded, shown again) holds once the merged segment
 * takes their place.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { EngineIndexStore, type EngineOptions, mergeTiers } from '../../src/adapters/engine/engine-index-store.js';
import type { SegmentData } from '../../src/adapters/engine/segment.js';
import { openDatabase, type Db } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import type { IndexQuery } from '../../src/ports/index-store.js';
import { page, tempDir } from '../helpers.js';

const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omicron sigma tau upsilon'.split(' ');
const T0 = Date.parse('2026-01-01T00:00:00Z');

/** Page n: three of the words (so every query matches many), on one of 40 hosts, 7 versions per URL over time. */
function pageN(n: number) {
  return page(`https://h${n % 40}.merge.test/p${n % 700}`, {
    title: `${WORDS[n % 15]} ${WORDS[(n * 7) % 15]}`,
    content: `${WORDS[(n * 3) % 15]} ${WORDS[(n * 11) % 13]} number ${n} of the merge test`,
    acquiredAt: T0 + n * 60_000,
  });
}

const QUERIES: IndexQuery[] = [
  ...WORDS.map((w) => ({ terms: [w], limit: 10 })),
  { terms: ['alpha', 'beta'], limit: 20 },
  { terms: ['gamma', 'number'], limit: 10, site: 'h3.merge.test' },
  { terms: ['delta'], limit: 10, queryTime: T0 + 2_000 * 60_000 },
  { terms: ['epsilon', 'zeta'], limit: 10, acquiredAfter: T0 + 1_000 * 60_000, acquiredBefore: T0 + 3_000 * 60_000 },
  // Page 1999 alone, alive at that time (superseded later).
  { terms: ['1999'], limit: 10, queryTime: T0 + 2_000 * 60_000 },
];

/**
 * What each query matches (every version, as sorted ids), after checking that its top k is the
 * exhaustive one under the index's own statistics. (Scores are compared with an index built afresh
 * only where nothing was hidden: hidden versions count in the statistics until a merge drops them,
 * as deleted documents do in Lucene.)
 */
async function answers(index: EngineIndexStore, withScores = false): Promise<string> {
  const out = [];
  for (const q of QUERIES) {
    const top = await index.search(q);
    assert.deepEqual(top, index.exhaustiveSearch(q));
    const all = await index.search({ ...q, limit: 100_000 });
    out.push(withScores ? top.map((h) => `${h.versionId}:${h.score.toFixed(9)}`) : all.map((h) => h.versionId).sort((a, b) => a - b));
  }
  return JSON.stringify(out);
}

/** The same database's answers from an index built afresh (no saved segments, no merges). */
async function fresh(db: Db, withScores = false): Promise<string> {
  const index = await new EngineIndexStore(db).open();
  try {
    return await answers(index, withScores);
  } finally {
    await index.close();
  }
}

function seg(docCount: number): SegmentData {
  return { docCount } as SegmentData;
}

interface Store {
  db: Db;
  pages: SqlitePageStore;
  index: EngineIndexStore;
  /** Where the engine saves, when `saved`. */
  engineDir: string;
}

/**
 * A database file `name` in `dir` with its page store and an engine over it (saving beside it when
 * `saved`), after `first` wrote what should be there when the engine opens; closed after `body`.
 */
async function withStore(dir: string, name: string, options: EngineOptions & { saved?: boolean }, body: (s: Store) => Promise<void>, first?: (pages: SqlitePageStore) => Promise<unknown>): Promise<void> {
  const db = openDatabase({ path: join(dir, `${name}.db`) });
  const pages = new SqlitePageStore(db);
  const engineDir = join(dir, `${name}.engine`);
  await first?.(pages);
  const index = await new EngineIndexStore(db, { ...options, ...(options.saved && { dir: engineDir }) }).open();
  try {
    await body({ db, pages, index, engineDir });
  } finally {
    await index.close();
    db.close();
  }
}

/** `count` rounds of `size` new pages from page `from` on, each followed by a search; returns the next page's number. `between` runs before each round's search. */
async function rounds(s: Store, count: number, size: number, from = 0, between?: (round: number) => void): Promise<number> {
  let n = from;
  for (let round = 0; round < count; round++) {
    await s.pages.putVersions(Array.from({ length: size }, () => pageN(n++)));
    between?.(round);
    await s.index.search(QUERIES[0]!);
  }
  return n;
}

describe('segment merges', () => {
  const dir = tempDir();
  after(() => dir.remove());

  test('tiers: a tier with four segments is merged with every smaller one', () => {
    // Tier 0 is under 16 documents, tier 1 16-63, tier 2 64-255, ..., tier 4 1,024-4,095, tier 5 4,096-16,383.
    const base = seg(100_000);
    const tiny = [seg(5), seg(5), seg(5)];
    assert.equal(mergeTiers([base, ...tiny]), undefined);
    const four = [...tiny, seg(15)];
    assert.deepEqual(mergeTiers([base, ...four]), four);
    // Four of tier 4, and the tier-1 one below, but not the tier-5 one above.
    const fours = [seg(1_200), seg(4_095), seg(1_024), seg(2_500)];
    const small = seg(50);
    assert.deepEqual(mergeTiers([seg(5_000), ...fours, small]), [...fours, small]);
    assert.equal(mergeTiers([seg(5_000), ...fours.slice(1), small]), undefined);
    // The lowest full tier is the one merged.
    const twos = [seg(64), seg(100), seg(255), seg(70)];
    assert.deepEqual(mergeTiers([...fours, ...twos, small]), [...twos, small]);
  });

  test('a merge in a worker thread: searches go on meanwhile, and what writes did meanwhile holds after it', async () => {
    // Each round's 1,200 new versions built at once by the search after them (one segment per round).
    await withStore(dir.path, 'worker', { saved: true, freshSync: 10_000 }, async (s) => {
      const { db, index } = s;
      // Four segments of 1,200 documents (tier 1): more than a join takes, so a worker rebuilds them.
      // Page 1999's version is hidden before the merge begins, so the worker leaves it out.
      const setSearchable = db.prepare<[number, number]>('UPDATE versions SET searchable = ? WHERE id = ?');
      let hidden = 0;
      let n = await rounds(s, 4, 1_200, 0, (round) => {
        if (round !== 3) return;
        hidden = db.prepare<[], { id: number }>("SELECT id FROM versions WHERE content LIKE '% number 1999 of %'").get()!.id;
        setSearchable.run(0, hidden);
      });
      assert.equal(index.mergesUnderway, 1);
      assert.equal(index.segmentCount, 4);
      // The worker's answer arrives only when the event loop turns; these searches do not wait for it.
      assert.equal(await answers(index), await fresh(db));
      assert.equal(index.mergesUnderway, 1);

      // Time for the worker to read the rows and build (this thread blocked, so its answer waits).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2_500);
      // Then writes: versions hidden (the worker read them searchable), page 1999's shown again,
      // new versions that supersede old ones.
      for (let id = 6; id < 4_800; id += 97) setSearchable.run(0, id);
      setSearchable.run(1, hidden);
      await s.pages.putVersions(Array.from({ length: 30 }, () => pageN(n++)));
      assert.equal(await answers(index), await fresh(db));
      assert.equal((await index.search(QUERIES.at(-1)!))[0]?.versionId, hidden);
      assert.equal(index.mergesUnderway, 1);

      await index.settled();
      assert.equal(index.mergesUnderway, 0);
      assert.ok(index.merges >= 1);
      assert.ok(index.segmentCount <= 3, `${index.segmentCount} segments`);
      assert.equal(await answers(index), await fresh(db));
      assert.equal((await index.search(QUERIES.at(-1)!))[0]?.versionId, hidden);

      // The merge was saved: a new open loads it and answers alike.
      const again = await new EngineIndexStore(db, { dir: s.engineDir }).open();
      assert.equal(again.loadedFromDisk, true);
      assert.equal(await answers(again), await fresh(db));
      await again.close();
    });
  });

  test('many new versions at once are built in a worker: the search does not wait for them, and what writes did meanwhile holds', async () => {
    const first = (pages: SqlitePageStore) => pages.putVersions(Array.from({ length: 500 }, (_, n) => pageN(n)));
    await withStore(dir.path, 'fresh', { saved: true }, async ({ db, pages, index, engineDir }) => {
      const number = (n: number) => ({ terms: [String(n)], limit: 10 });
      const idOf = (n: number) => db.prepare<[string], { id: number }>('SELECT id FROM versions WHERE content LIKE ?').get(`% number ${n} of %`)!.id;
      const segments = index.segmentCount;
      await pages.putVersions(Array.from({ length: 2_000 }, (_, k) => pageN(500 + k)));
      assert.deepEqual(await index.search(number(1_234)), []);
      assert.equal(index.freshUnderway, 1);
      assert.equal(index.segmentCount, segments);
      // Hidden before the worker reads it (this thread has not let it start), shown again after.
      const setSearchable = db.prepare<[number, number]>('UPDATE versions SET searchable = ? WHERE id = ?');
      setSearchable.run(0, idOf(1_500));
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2_500);
      // After it has read them: one hidden, one shown again, a hundred superseded by new versions.
      setSearchable.run(0, idOf(1_234));
      setSearchable.run(1, idOf(1_500));
      await pages.putVersions(Array.from({ length: 100 }, (_, k) => ({ ...pageN(2_400 + k), acquiredAt: T0 + 10_000 * 60_000 + k })));
      assert.deepEqual(await index.search(number(1_500)), []);
      assert.equal(index.freshUnderway, 1);

      await index.settled();
      assert.equal(index.freshUnderway, 0);
      assert.deepEqual(await index.search(number(1_234)), []);
      assert.equal((await index.search(number(1_500)))[0]?.versionId, idOf(1_500));
      assert.equal((await index.search(number(2_000)))[0]?.versionId, idOf(2_000));
      assert.equal(await answers(index), await fresh(db));
      // A new open catches up on everything before it returns.
      const again = await new EngineIndexStore(db, { dir: engineDir }).open();
      assert.equal(await answers(again), await fresh(db));
      await again.close();
    }, first);
  });

  test('a worker that cannot build the new versions: they are built on the serving thread, and the failure logged', async () => {
    const logged: { level: string; msg: string }[] = [];
    await withStore(dir.path, 'failing', { log: (level, msg) => logged.push({ level, msg }) }, async ({ db, pages, index }) => {
      await pages.putVersions(Array.from({ length: 600 }, (_, n) => pageN(n)));
      // The worker opens the database by its path: moved away, it cannot (this connection still can).
      const path = join(dir.path, 'failing.db');
      renameSync(path, `${path}.away`);
      try {
        assert.deepEqual(await index.search({ terms: ['123'], limit: 10 }), []);
        assert.equal(index.freshUnderway, 1);
        await index.settled();
      } finally {
        renameSync(`${path}.away`, path);
      }
      assert.deepEqual(logged.map((l) => [l.level, l.msg]), [['error', 'engine build of new versions failed in its thread; built on the serving thread']]);
      assert.equal(await answers(index), await fresh(db));
    });
  });

  test('versions hidden a search apart while a batch is built, then shown again: their segment is in id order, so later changes find them', async () => {
    const first = (pages: SqlitePageStore) => pages.putVersions(Array.from({ length: 100 }, (_, n) => pageN(n)));
    await withStore(dir.path, 'order', {}, async ({ db, pages, index }) => {
      const number = (n: number) => ({ terms: [String(n)], limit: 10 });
      const idOf = (n: number) => db.prepare<[string], { id: number }>('SELECT id FROM versions WHERE content LIKE ?').get(`% number ${n} of %`)!.id;
      const setSearchable = db.prepare<[number, number]>('UPDATE versions SET searchable = ? WHERE id = ?');
      await pages.putVersions(Array.from({ length: 1_000 }, (_, k) => pageN(1_000 + k)));
      await index.search(number(0));
      assert.equal(index.freshUnderway, 1);
      // Hidden before the worker reads them, the higher id first and a search apart (so noted in that
      // order), then shown again.
      setSearchable.run(0, idOf(1_500));
      await index.search(number(0));
      setSearchable.run(0, idOf(1_400));
      await index.search(number(0));
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2_500);
      setSearchable.run(1, idOf(1_500));
      setSearchable.run(1, idOf(1_400));
      await index.search(number(0));
      await index.settled();
      assert.equal((await index.search(number(1_400)))[0]?.versionId, idOf(1_400));
      assert.equal((await index.search(number(1_500)))[0]?.versionId, idOf(1_500));
      // Hidden once more: found in their segment, and gone.
      setSearchable.run(0, idOf(1_400));
      setSearchable.run(0, idOf(1_500));
      assert.deepEqual(await index.search(number(1_400)), []);
      assert.deepEqual(await index.search(number(1_500)), []);
    }, first);
  });

  test('a save while new versions are still being built records the log only up to them: a restart builds them again', async () => {
    // Tiers from one document and no joins: four segments of ten make a worker merge, then a save.
    await withStore(dir.path, 'floor', { saved: true, mergeBase: 1, joinMerge: 0 }, async (s) => {
      const { db, index } = s;
      const n = await rounds(s, 4, 10);
      assert.equal(index.mergesUnderway, 1);
      await rounds(s, 1, 5_000, n);
      assert.equal(index.freshUnderway, 1);
      while (index.mergesUnderway > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(index.freshUnderway, 1, 'the merge (and its save) came first');
      // As after a crash now: the saved index, opened again, still gets the 5,000.
      const again = await new EngineIndexStore(db, { dir: s.engineDir }).open();
      assert.equal(await answers(again), await fresh(db));
      await again.close();
    });
  });

  /** Small rounds of new pages, each followed by a search (letting the event loop turn or not); returns the most segments seen. */
  const smallRounds = async ({ pages, index }: Store, pagesInAll: number, size: number, turn: boolean) => {
    let most = 0;
    for (let n = 0; n < pagesInAll; n += size) {
      await pages.putVersions(Array.from({ length: size }, (_, k) => pageN(n + k)));
      await index.search(QUERIES[n % QUERIES.length]!);
      most = Math.max(most, index.segmentCount);
      // The event loop turns between rounds, as between a server's requests.
      if (turn) await new Promise((resolve) => setImmediate(resolve));
    }
    return most;
  };

  test('many small writes, each followed by a search: segments stay few and answers exact', async () => {
    await withStore(dir.path, 'small', { saved: true }, async (s) => {
      const most = await smallRounds(s, 6_000, 15, true);
      await s.index.settled();
      assert.ok(s.index.merges >= 100, `${s.index.merges} merges`);
      assert.ok(most <= 16, `${most} segments at most`);
      assert.ok(s.index.segmentCount <= 6, `${s.index.segmentCount} segments at the end`);
      assert.equal(await answers(s.index), await fresh(s.db));
    });
  });

  test('a caller that never lets the event loop turn: worker merges wait, the rest merge at once past 32 segments', async () => {
    // Joins only up to 64 documents, so most merges want a worker.
    await withStore(dir.path, 'busy', { joinMerge: 64 }, async (s) => {
      const most = await smallRounds(s, 8_000, 30, false);
      assert.equal(s.index.mergesUnderway, 2);
      assert.ok(most <= 40, `${most} segments at most`);
      assert.equal(await answers(s.index), await fresh(s.db));
      await s.index.settled();
      assert.equal(await answers(s.index), await fresh(s.db));
    });
  });

  test('a rebuild during a merge: the merge, of segments no longer in use, is dropped', async () => {
    await withStore(dir.path, 'rebuild', { freshSync: 10_000 }, async (s) => {
      await rounds(s, 4, 1_100);
      assert.equal(s.index.mergesUnderway, 1);
      await s.index.rebuild();
      assert.equal(s.index.segmentCount, 1);
      await s.index.settled();
      assert.equal(s.index.merges, 0);
      assert.equal(s.index.segmentCount, 1);
      assert.equal(await answers(s.index, true), await fresh(s.db, true));
    });
  });

  for (const [name, options, how] of [
    ['purge-worker', {}, 'in a worker thread'],
    ['purge-at-once', { joinMerge: 10_000 }, 'small enough to be made at once'],
    ['purge-shared', { searchThreads: 2 }, 'its arrays shared with a helper thread'],
  ] as const) {
    test(`a removed page's words and URL leave the saved files: the segment that held it is made again without it, from its own postings, and saved (${how})`, async () => {
      const secret = 'https://secret.merge.test/reset?token=zqxjkvtoken';
      const first = (pages: SqlitePageStore) =>
        pages.putVersions([...Array.from({ length: 2_000 }, (_, n) => pageN(n)), page(secret, { title: 'Password reset', content: 'Your code is wvbqzcode.' })]);
      await withStore(dir.path, name, { saved: true, ...options }, async ({ db, pages, index, engineDir }) => {
        await index.settled();
        const onDisk = () => Buffer.concat(readdirSync(engineDir).map((f) => readFileSync(join(engineDir, f))));
        for (const word of ['zqxjkvtoken', 'wvbqzcode']) assert.ok(onDisk().includes(word), `${word} is in the saved index before`);
        assert.equal((await index.search({ terms: ['wvbqzcode'], limit: 10 })).length, 1);
        const segments = index.segmentCount;

        await pages.removePages({ urls: [secret] }, Date.now());
        assert.deepEqual(await index.search({ terms: ['wvbqzcode'], limit: 10 }), [], 'gone from searches at once');
        assert.equal(index.mergesUnderway, name === 'purge-at-once' ? 0 : 1, 'a large segment is rewritten in a worker thread');
        await index.settled();
        for (const word of ['zqxjkvtoken', 'wvbqzcode']) assert.ok(!onDisk().includes(word), `${word} is in none of the saved files after`);
        assert.equal(index.segmentCount, segments);
        assert.equal(await answers(index, true), await fresh(db, true), 'the rebuilt segment answers as an index built afresh');
        // The saved index loads and answers alike.
        const again = await new EngineIndexStore(db, { dir: engineDir }).open();
        assert.equal(again.loadedFromDisk, true);
        assert.equal(await answers(again), await fresh(db));
        await again.close();
      }, first);
    });
  }

  test('a page merely hidden is not purged: its segment stays as it is until a merge', async () => {
    await withStore(dir.path, 'hidden', { saved: true }, async ({ db, index }) => {
      await index.settled();
      const merges = index.merges;
      db.prepare('UPDATE versions SET searchable = 0 WHERE id = 7').run();
      assert.equal(await answers(index), await fresh(db));
      await index.settled();
      assert.equal(index.merges, merges);
    }, (pages) => pages.putVersions(Array.from({ length: 2_000 }, (_, n) => pageN(n))));
  });

  test('closing during a merge stops its worker', async () => {
    await withStore(dir.path, 'close', { freshSync: 10_000 }, async (s) => {
      await rounds(s, 4, 1_100);
      assert.equal(s.index.mergesUnderway, 1);
      await s.index.close();
      await s.index.settled();
      assert.equal(s.index.mergesUnderway, 0);
      assert.equal(s.index.merges, 0);
    });
  });
});
