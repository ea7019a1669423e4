/**
 * A search on two threads (searchThreads 2): the helper thread searches the upper part of every
 * segment over the same shared memory (half, or more while another search is split), and the
 * merged answer is exactly the exhaustive top k, also after writes change columns in place, after
 * new segments arrive, and after the helper is gone.
 */
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, describe, test } from 'node:test';
import { EngineIndexStore, readingOrder } from '../../src/adapters/engine/engine-index-store.js';
import { type DocRange, NO_MORE, type SearchableSegment, SharedFloor, searchTopK, type Statistics } from '../../src/adapters/engine/engine.js';
import { isShared, type SegmentData } from '../../src/adapters/engine/segment.js';
import { openDatabase, type Db } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { cachedStem, queryReadings, queryTerms } from '../../src/core/text.js';
import { parseWebql } from '../../src/core/webql.js';
import type { IndexHit, IndexQuery } from '../../src/ports/index-store.js';
import { loadCorpus, loadQueries } from '../../bench/scifact.js';
import { scifactVersion } from '../fixtures/scifact-pages.js';
import { tempDir } from '../helpers.js';

describe('a search split between two threads', () => {
  const dir = tempDir();
  let db: Db;
  let pages: SqlitePageStore;
  let index: EngineIndexStore;
  const logged: Record<string, unknown>[] = [];
  const queries = [...loadQueries().values()];
  const corpus = loadCorpus();
  const version = scifactVersion;
  const year = { publishedAfter: Date.parse('2020-01-01T00:00:00Z'), publishedBefore: Date.parse('2020-12-31T23:59:59Z') };
  const days = { publishedAfter: Date.parse('2020-06-01T00:00:00Z'), publishedBefore: Date.parse('2020-06-10T23:59:59Z') };
  const short = (q: string) => queryTerms(q).slice(0, 3);
  // Point in time: the versions alive then, by the columns (deleted, superseded) rather than the `gone` bits.
  const then = { queryTime: Date.parse('2026-03-01T00:00:00Z') };

  before(async () => {
    db = openDatabase({ path: `${dir.path}/split.db` });
    pages = new SqlitePageStore(db);
    const third = Math.floor(corpus.length / 3);
    await pages.putVersions(corpus.slice(0, 2 * third).map(version));
    index = await new EngineIndexStore(db, { searchThreads: 2, splitFrom: 1, splitWork: 0, log: (level, msg, fields) => logged.push({ level, msg, ...fields }) }).open();
    // The last third arrives after the engine opened: a second segment, built in a worker thread and shared then.
    await pages.putVersions(corpus.slice(2 * third).map((d, i) => version(d, i + 2 * third)));
    index.refresh();
    await index.settled();
  });
  after(async () => {
    await index.close();
    db.close();
    dir.remove();
  });

  /** Every query under each filter, split, against the exhaustive top 10 on this thread; returns how many were split. */
  const compareAll = async (some = queries) => {
    const before = index.splitSearches;
    let nonEmpty = 0;
    let asked = 0;
    for (const [extra, termsOf] of [[{}, queryTerms], [{}, short], [year, short], [days, queryTerms], [{ site: 'h3.scifact.test' }, queryTerms], [then, queryTerms]] as const) {
      for (const q of some) {
        const query: IndexQuery = { terms: termsOf(q), limit: 10, ...extra };
        const hits = await index.search(query);
        assert.deepEqual(hits, index.exhaustiveSearch(query), q);
        asked++;
        if (hits.length > 0) nonEmpty++;
      }
    }
    assert.ok(nonEmpty > some.length * 2, `queries with hits: ${nonEmpty}`);
    return { split: index.splitSearches - before, asked };
  };

  test('every search is split, and each equals the exhaustive top 10', async () => {
    const { split, asked } = await compareAll();
    assert.equal(index.segmentCount, 2);
    assert.equal(split, asked);
  });

  test('a query with a compound, read both ways: each reading split, the joined one from the first\'s k-th score, equals both scored in full', async () => {
    const compounds = queries.filter((q) => queryReadings(q).alternative !== undefined);
    assert.ok(compounds.length > 100);
    const before = index.splitSearches;
    for (const extra of [{}, year]) {
      for (const q of compounds) {
        const query: IndexQuery = { ...queryReadings(q), limit: 10, ...extra };
        assert.deepEqual(await index.search(query), index.exhaustiveSearch(query), q);
      }
    }
    assert.equal(index.splitSearches - before, 4 * compounds.length, 'both readings of every query were split');
  });

  test('searches asked together: those begun while another is split leave this thread the smaller part, and each equals the exhaustive top 10', async () => {
    // Asked at once, as a loaded server's callers ask: the first is split in halves, the others
    // while it is under way, this thread taking BUSY_SPLIT_SHARE; with no filter, in a year's
    // window and at a point in time.
    for (const extra of [{}, year, then]) {
      const asked = queries.slice(0, 60).map((q): IndexQuery => ({ terms: queryTerms(q), limit: 10, ...extra }));
      const before = { split: index.splitSearches, busy: index.busySplits };
      const found = await Promise.all(asked.map((q) => index.search(q)));
      for (const [i, q] of asked.entries()) assert.deepEqual(found[i], index.exhaustiveSearch(q), JSON.stringify(q));
      assert.equal(index.splitSearches - before.split, asked.length);
      assert.ok(index.busySplits - before.busy >= asked.length / 2, `split while another was: ${index.busySplits - before.busy} of ${asked.length}`);
      // One at a time, none is.
      const alone = index.busySplits;
      for (const q of asked.slice(0, 10)) await index.search(q);
      assert.equal(index.busySplits, alone);
    }
  });

  test('the helper ranks only the documents holding a required term, as this thread does', async () => {
    const helper = Reflect.get(index, 'helper') as { search: (...a: unknown[]) => Promise<unknown> };
    const segments = Reflect.get(index, 'segments') as SearchableSegment[];
    const stats = (Reflect.get(index, 'statistics') as () => Statistics).call(index);
    let differs = 0;
    for (const q of queries.filter((x) => queryReadings(x).alternative !== undefined)) {
      const { terms, alternative } = queryReadings(q);
      const { terms: other, own } = readingOrder(terms.map(cachedStem), alternative!.map(cachedStem));
      for (const range of [[0, 1300], [1300, NO_MORE]] as DocRange[]) {
        const mine = searchTopK(segments, stats, other, {}, 10, range, new SharedFloor(), own);
        assert.deepEqual(await helper.search(segments, stats, other, {}, 10, range, new SharedFloor(), own), mine, q);
        if (JSON.stringify(mine) !== JSON.stringify(searchTopK(segments, stats, other, {}, 10, range))) differs++;
      }
    }
    assert.ok(differs > 50, `lists that required changed: ${differs}`);
  });

  test('searches asked at once each get their own answer', async () => {
    const some = queries.slice(0, 200);
    const before = index.splitSearches;
    const all = await Promise.all(some.map((q, i) => index.search({ terms: (i % 2 ? short : queryTerms)(q), limit: 10 })));
    some.forEach((q, i) => assert.deepEqual(all[i], index.exhaustiveSearch({ terms: (i % 2 ? short : queryTerms)(q), limit: 10 }), q));
    assert.equal(index.splitSearches - before, some.length);
  });

  test('the helper sees versions made unsearchable in place, and segments published later', async () => {
    // The best hit of a hundred queries, made unsearchable by another writer: the engine patches the
    // shared columns in place (no new segment), and neither thread may return them.
    const gone = new Set<number>();
    for (const q of queries.slice(0, 100)) {
      const [top] = await index.search({ terms: queryTerms(q), limit: 10 });
      if (top) gone.add(top.versionId);
    }
    const hide = db.prepare('UPDATE versions SET searchable = 0 WHERE id = ?');
    for (const id of gone) hide.run(id);
    for (const q of queries.slice(0, 100)) {
      for (const extra of [{}, then]) {
        const query: IndexQuery = { terms: queryTerms(q), limit: 10, ...extra };
        const hits = await index.search(query);
        assert.ok(hits.every((h) => !gone.has(h.versionId)), q);
        assert.deepEqual(hits, index.exhaustiveSearch(query), q);
      }
    }
    assert.equal(index.segmentCount, 2);
    // New versions of a thousand pages: a third segment, and the pages' old versions superseded.
    await pages.putVersions(corpus.slice(0, 1000).map((d, i) => ({ ...version(d, i), content: `${d.text} Revised.`, acquiredAt: Date.parse('2026-02-01T00:00:00Z') })));
    index.refresh();
    await index.settled();
    const { split, asked } = await compareAll(queries.slice(0, 400));
    assert.equal(index.segmentCount, 3);
    assert.equal(split, asked);
  });

  test('a store built on two threads, and one that loads it from disk, hold their segments in shared memory without a copy', async () => {
    const engineDir = `${dir.path}/split.db.engine`;
    const check = async (store: EngineIndexStore) => {
      const segments = Reflect.get(store, 'segments') as SearchableSegment[];
      assert.ok(segments.length > 0 && segments.every((s) => isShared(s.data)));
      const before = store.splitSearches;
      for (const q of queries.slice(0, 200)) {
        const query: IndexQuery = { terms: queryTerms(q), limit: 10 };
        assert.deepEqual(await store.search(query), store.exhaustiveSearch(query), q);
      }
      assert.equal(store.splitSearches - before, 200);
      return segments;
    };
    // Built on two threads (the halves joined straight into shared memory), and saved.
    const built = await new EngineIndexStore(db, { dir: engineDir, searchThreads: 2, splitFrom: 1, splitWork: 0, parallelFrom: 1000 }).open();
    try {
      assert.equal(built.loadedFromDisk, false);
      await check(built);
    } finally {
      await built.close();
    }
    // Loaded: the segments read from disk are the ones published (each still named by its file, so
    // a later save does not write it again).
    const loaded = await new EngineIndexStore(db, { dir: engineDir, searchThreads: 2, splitFrom: 1, splitWork: 0 }).open();
    try {
      assert.ok(loaded.loadedFromDisk);
      const names = Reflect.get(loaded, 'names') as Map<SegmentData, string>;
      assert.ok((await check(loaded)).every((s) => names.has(s.data)));
    } finally {
      // A search asked as the store closes still gets the exact answer, on one thread, and starts no new helper.
      const query: IndexQuery = { terms: queryTerms(queries[0]!), limit: 10 };
      const asked = loaded.search(query);
      await loaded.close();
      assert.deepEqual(await asked, loaded.exhaustiveSearch(query));
      const split = loaded.splitSearches;
      assert.deepEqual(await loaded.search(query), loaded.exhaustiveSearch(query));
      assert.equal(loaded.splitSearches, split);
      assert.equal(Reflect.get(loaded, 'helper'), undefined);
    }
  });

  test('the segments a rebuild replaces are freed, though the helper thread held them too', async () => {
    // Their shared arrays are freed once no thread's objects hold them; the helper's heap, which
    // hardly grows, went unswept, and each rebuild held the whole index once more.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const held = () => {
      gc();
      return process.memoryUsage().arrayBuffers;
    };
    const store = await new EngineIndexStore(db, { searchThreads: 2, splitFrom: 1, splitWork: 0 }).open();
    try {
      const query: IndexQuery = { terms: queryTerms(queries[0]!), limit: 10 };
      const search = async () => {
        const before = store.splitSearches;
        assert.deepEqual(await store.search(query), store.exhaustiveSearch(query));
        assert.equal(store.splitSearches, before + 1);
      };
      await search();
      const base = held();
      const index = store.memoryBytes();
      for (let i = 0; i < 4; i++) {
        await store.rebuild();
        await search(); // the helper has the new segment and has let the old one go
      }
      let now = held();
      for (let waited = 0; now > base + index && waited < 3000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        now = held();
      }
      assert.ok(now <= base + index, `${now - base} bytes more held after four rebuilds of an index of ${index}`);
    } finally {
      await store.close();
    }
  });

  test('only a search with enough work is split: its terms\' postings and a tenth of the largest segment', async () => {
    const store = await new EngineIndexStore(db, { searchThreads: 2, splitFrom: 1, splitWork: 3000 }).open();
    try {
      const split = async (terms: string[]) => {
        const before = store.splitSearches;
        const query: IndexQuery = { terms, limit: 10 };
        assert.deepEqual(await store.search(query), store.exhaustiveSearch(query));
        return store.splitSearches - before;
      };
      // A rare word: a few postings and 5,183 / 10 (one segment) are far under 3,000.
      assert.equal(await split(['thalidomide']), 0);
      // Common words: thousands of postings.
      assert.equal(await split(queryTerms('cells protein expression patients increased')), 1);
    } finally {
      await store.close();
    }
  });

  test('when the helper thread is gone, searches go on exact on one thread', async () => {
    const helper = Reflect.get(index, 'helper') as object;
    await (Reflect.get(helper, 'worker') as { terminate(): Promise<number> }).terminate();
    const { split, asked } = await compareAll(queries.slice(0, 400));
    assert.ok(asked > 0);
    assert.equal(split, 0);
    // Said once, as an error.
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.level, 'error');
    assert.match(String(logged[0]!.msg), /search helper thread failed/);
  });
});

describe('a webql query\'s candidates checked on the helper thread', () => {
  test('read over its own connection, the same answers; when it cannot open the file, the serving thread checks them, said once as an error', async () => {
    const dir = tempDir();
    const path = `${dir.path}/aside.db`;
    const db = openDatabase({ path });
    const logged: Record<string, unknown>[] = [];
    const stores: EngineIndexStore[] = [];
    const opened = async (store: EngineIndexStore) => {
      stores.push(store);
      return store.open();
    };
    try {
      await new SqlitePageStore(db).putVersions(loadCorpus().slice(0, 600).map(scifactVersion));
      const one = await opened(new EngineIndexStore(db));
      const checking = await opened(new EngineIndexStore(db, { searchThreads: 2, asideMin: 1, asideOnly: true }));
      const failing = await opened(new EngineIndexStore(db, { searchThreads: 2, asideMin: 1, log: (level, msg, fields) => logged.push({ level, msg, ...fields }) }));
      const queries = ['"gene expression"', 'title:cell', '"t cells" OR "cell death"', 'protein -"gene expression"'].map(parseWebql);
      const answers = async (store: EngineIndexStore) => {
        const out: IndexHit[][] = [];
        for (const webql of queries) out.push(await store.search({ terms: [], webql, limit: 20 }));
        return out;
      };
      const expected = await answers(one);
      assert.ok(expected.every((hits) => hits.length > 0));
      assert.deepEqual(await answers(checking), expected);
      await checking.checksSettled();
      assert.ok(checking.asideChecks > 100, `${checking.asideChecks} checked on the helper`);
      // Closed while the helper's answer to the last check is still to come (no one awaits it):
      // the close ends, and the process goes on to what follows it.
      const closing = await opened(new EngineIndexStore(db, { searchThreads: 2, asideMin: 1, asideOnly: true }));
      await closing.search({ terms: [], webql: queries[0]!, limit: 20 });
      const helper = Reflect.get(closing, 'helper') as object;
      assert.ok((Reflect.get(helper, 'pending') as Map<number, unknown>).size > 0, 'an answer to come');
      await closing.close();
      // The helper opens its connection at its first check: by then the file is no longer under
      // its name (the serving thread's connection holds it open).
      renameSync(path, `${path}.moved`);
      assert.deepEqual(await answers(failing), expected);
      await failing.checksSettled();
      assert.equal(failing.asideChecks, 0);
      assert.equal(logged.length, 1);
      assert.equal(logged[0]!.level, 'error');
      assert.match(String(logged[0]!.msg), /search helper failed a check of webql candidates/);
      assert.match(String(logged[0]!.err), /unable to open/i);
      // Not asked again.
      assert.deepEqual(await answers(failing), expected);
      await failing.checksSettled();
      assert.equal(logged.length, 1);
    } finally {
      for (const store of stores) await store.close();
      db.close();
      dir.remove();
    }
  });
});
