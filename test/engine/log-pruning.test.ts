import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { EngineIndexStore, type EngineOptions } from '../../src/adapters/engine/engine-index-store.js';
import { loadIndex, saveIndex } from '../../src/adapters/engine/segment-files.js';
import { openDatabase, type Db } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { page, tempDir } from '../helpers.js';

/**
 * index_log is pruned after a save (up to the saved sequence, keeping the last `keepLog` rows);
 * a process whose rows were pruned takes the saved index again, or builds again, and always
 * answers as the page store says.
 */
describe('index_log pruning', () => {
  const dir = tempDir();
  const engineDir = join(dir.path, 'engine');
  const small: EngineOptions = { keepLog: 5, pruneStep: 5 };
  let db: Db;
  let pages: SqlitePageStore;
  let written = 0;
  const probe = ['alpha', 'beta', 'gamma', 'delta', 'fresh'];

  /** `n` more versions (new pages, and new versions of earlier pages superseding theirs), holding `word` when given. */
  const write = async (n: number, word = '') => {
    for (let k = 0; k < n; k++, written++) {
      const i = written;
      await pages.putVersion(
        page(`https://p${i % 5}.log.test/${i % 60}`, {
          content: `${probe[i % 4]} ${i >= 100 ? 'fresh' : ''} item${i} ${word}`,
          acquiredAt: Date.parse('2026-01-01T00:00:00Z') + i * 1000,
        }),
      );
    }
  };
  const results = async (index: EngineIndexStore) => {
    const out = [];
    for (const t of probe) out.push(await index.search({ terms: [t], limit: 100 }));
    out.push(await index.search({ terms: ['alpha'], limit: 100, queryTime: Date.parse('2026-01-01T00:00:30Z') }));
    return out;
  };
  /** What the page store says now: an engine built from it. */
  const reference = async () => results(await new EngineIndexStore(db).open());
  const logRows = () => db.prepare<[], number>('SELECT count(*) FROM index_log').pluck().get()!;
  const floor = () => db.prepare<[], number>('SELECT seq FROM index_log_floor').pluck().get()!;
  const head = () => db.prepare<[], number>('SELECT max(seq) FROM index_log').pluck().get()!;
  const savedApplied = (folder = engineDir) => (JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as { applied: number }).applied;

  before(async () => {
    db = openDatabase({ path: join(dir.path, 'pages.db') });
    pages = new SqlitePageStore(db);
    await write(80);
  });
  after(() => {
    db.close();
    dir.remove();
  });

  test('a save prunes the log up to its sequence, keeping the last rows; a process behind the floor takes the saved index and answers as the page store says', async () => {
    const said: string[] = [];
    const saver = await new EngineIndexStore(db, { ...small, dir: engineDir }).open();
    // Built and saved at the head: everything but the last five rows is pruned.
    assert.equal(floor(), head() - 5);
    assert.equal(logRows(), 5);
    // A worker of the server: loads the folder, never saves, and searches now and then.
    const worker = await new EngineIndexStore(db, { dir: engineDir, readOnly: true, log: (_l, msg) => said.push(msg) }).open();
    assert.deepEqual(await results(worker), await reference());

    // Writes the worker does not see (it gets no search meanwhile); the saver follows them and saves (`index rebuild` saves as a merge does).
    await write(40);
    await saver.rebuild();
    assert.equal(savedApplied(), head());
    assert.equal(floor(), head() - 5);
    assert.equal(logRows(), 5);
    assert.deepEqual(await results(worker), await reference());
    assert.deepEqual(said, ['search index taken again from its folder: the log since this process last caught up was pruned']);
    // Later writes come through the log as before.
    await write(3);
    assert.deepEqual(await results(worker), await reference());
    // So does a start: the saved index, then the rows since.
    const restarted = await new EngineIndexStore(db, { ...small, dir: engineDir }).open();
    assert.equal(restarted.loadedFromDisk, true);
    assert.deepEqual(await results(restarted), await reference());
    await Promise.all([saver.close(), worker.close(), restarted.close()]);
  });

  test('a prune waits until at least pruneStep rows can go', async () => {
    const saver = await new EngineIndexStore(db, { dir: engineDir, keepLog: 5, pruneStep: 30 }).open();
    const before = floor();
    let saves = 0;
    for (; floor() === before; saves++) {
      assert.ok(head() - 5 - before < 30, `${head() - 5 - before} rows could go, and none went`);
      await write(4);
      await saver.rebuild();
    }
    assert.ok(saves > 1, 'the first saves pruned nothing');
    assert.ok(head() - 5 - before >= 30);
    assert.equal(floor(), head() - 5);
    await saver.close();
  });

  test('a process behind the floor with no saved index past it builds again from the page store; searches meanwhile answer from what it held', async () => {
    const said: string[] = [];
    // An engine without a folder (as a process with no saved index to take), which builds in worker
    // threads (a small store is built at once, within the search that finds the floor).
    const held = await new EngineIndexStore(db, { parallelFrom: 10, log: (_l, msg) => said.push(msg) }).open();
    const saver = await new EngineIndexStore(db, { ...small, dir: engineDir }).open();
    await write(20, 'unseen');
    await saver.rebuild();
    assert.ok(floor() > 0);
    assert.deepEqual(await held.search({ terms: ['unseen'], limit: 100 }), []);
    await held.settled();
    assert.deepEqual(said, ['search index behind the pruned log, and no saved index past it: building it again from the page store']);
    assert.equal((await held.search({ terms: ['unseen'], limit: 100 })).length, 20, 'the rebuild brought in the versions written since');
    assert.deepEqual(await results(held), await reference());
    await Promise.all([held.close(), saver.close()]);
  });

  test('a start from a saved index older than the floor (a folder restored from a copy) builds again instead of missing the pruned rows', async () => {
    const saver = await new EngineIndexStore(db, { ...small, dir: engineDir }).open();
    const copy = join(dir.path, 'engine-copy');
    cpSync(engineDir, copy, { recursive: true });
    const old = savedApplied();
    await write(20);
    await saver.rebuild();
    await saver.close();
    assert.ok(floor() > old);
    rmSync(engineDir, { recursive: true });
    cpSync(copy, engineDir, { recursive: true });
    const said: string[] = [];
    const started = await new EngineIndexStore(db, { ...small, dir: engineDir, log: (_l, msg) => said.push(msg) }).open();
    assert.ok(said.includes('search index behind the pruned log, and no saved index past it: building it again from the page store'), said.join('; '));
    assert.deepEqual(await results(started), await reference());
    // Its save replaced the old copy.
    assert.ok(savedApplied() >= floor());
    await started.close();
  });

  test('a batch built in a thread saves once the log has grown by saveEvery rows since the last save, without a merge', async () => {
    const saver = await new EngineIndexStore(db, { dir: engineDir, freshSync: 10, saveEvery: 100 }).open();
    const start = savedApplied();
    assert.equal(start, head());
    // A batch in a thread, fewer rows than saveEvery since the save: not saved (a merge would save).
    await write(30, 'batched');
    assert.ok(head() - start < 100);
    await saver.search({ terms: ['batched'], limit: 100 });
    await saver.settled();
    assert.equal((await saver.search({ terms: ['batched'], limit: 100 })).length, 30, 'built in its thread and published');
    assert.equal(savedApplied(), start);
    // Another: now past saveEvery, and saved with the rest.
    await write(80, 'batched');
    assert.ok(head() - start >= 100);
    await saver.search({ terms: ['batched'], limit: 200 });
    await saver.settled();
    assert.equal(saver.merges, 0, 'no merge saved it');
    assert.equal(savedApplied(), head());
    // A start loads it and has nothing to catch up on.
    const restarted = await new EngineIndexStore(db, { dir: engineDir }).open();
    assert.equal(restarted.loadedFromDisk, true);
    assert.equal((await restarted.search({ terms: ['batched'], limit: 200 })).length, 60, 'every page of the 60 URLs, at its newest version');
    assert.deepEqual(await results(restarted), await reference());
    await Promise.all([saver.close(), restarted.close()]);
  });

  test('changes applied on the serving thread alone save once the log has grown by saveEvery rows since the last save', async () => {
    // A folder of its own, built now as one segment; every batch after it small enough to build at
    // once and every merge joined at once (the segments' ids in order): no thread ever saves.
    const folder = join(dir.path, 'engine-trickle');
    const saver = await new EngineIndexStore(db, { dir: folder, saveEvery: 100, joinMerge: 1_000_000 }).open();
    const start = savedApplied(folder);
    assert.equal(start, head());
    await write(30, 'trickle');
    assert.equal((await saver.search({ terms: ['trickle'], limit: 100 })).length, 30);
    assert.equal(savedApplied(folder), start, 'fewer rows than saveEvery: not saved');
    for (let k = 0; k < 8; k++) {
      await write(10, 'trickle');
      await saver.search({ terms: ['trickle'], limit: 100 });
    }
    assert.ok(head() - start >= 100);
    assert.ok(savedApplied(folder) > start, 'saved once past saveEvery');
    assert.ok(head() - savedApplied(folder) < 100);
    const restarted = await new EngineIndexStore(db, { dir: folder }).open();
    assert.deepEqual(await results(restarted), await reference());
    assert.equal((await restarted.search({ terms: ['trickle'], limit: 200 })).length, 60, 'every page of the 60 URLs, at its newest version');
    await Promise.all([saver.close(), restarted.close()]);
  });

  test('a save of the serving thread refused (another process holds the folder) is tried again only after saveEvery more rows', async () => {
    const said: string[] = [];
    const folder = join(dir.path, 'engine-held'); // as above: no thread ever saves
    const saver = await new EngineIndexStore(db, { dir: folder, saveEvery: 100, joinMerge: 1_000_000, log: (_l, msg) => said.push(msg) }).open();
    const refused = () => said.filter((m) => m === 'search index not saved: another process held its folder').length;
    const start = savedApplied(folder);
    // Another process reading the saved index holds the folder's lock, shared: no save is had meanwhile.
    const other = new Database(join(folder, 'lock.db'));
    try {
      other.exec('BEGIN');
      other.prepare('SELECT count(*) FROM sqlite_master').get();
      await write(110, 'held');
      await saver.search({ terms: ['held'], limit: 100 });
      assert.equal(refused(), 1);
      // Changes at every search, fewer than saveEvery since the refusal: not tried again.
      for (let k = 0; k < 5; k++) {
        await write(5, 'held');
        await saver.search({ terms: ['held'], limit: 100 });
      }
      assert.equal(refused(), 1);
      assert.equal(savedApplied(folder), start);
    } finally {
      other.close(); // (its transaction ends with it)
    }
    // Released, and saveEvery rows later: saved.
    await write(100, 'held');
    await saver.search({ terms: ['held'], limit: 100 });
    assert.equal(refused(), 1);
    assert.equal(savedApplied(folder), head());
    await saver.close();
  });

  test('a save of an index older than the floor is refused and leaves the saved one', async () => {
    const saver = await new EngineIndexStore(db, { ...small, dir: engineDir }).open();
    const signature = (JSON.parse(readFileSync(join(engineDir, 'manifest.json'), 'utf8')) as { signature: string }).signature;
    const old = loadIndex(engineDir, signature, false, false)!;
    await write(20);
    await saver.rebuild();
    const manifest = readFileSync(join(engineDir, 'manifest.json'), 'utf8');
    let pruned = 0;
    const log = { floor, saved: () => pruned++ };
    assert.equal(saveIndex(engineDir, old.segments, old.names, old.applied, signature, 0, log), 'behind');
    assert.equal(readFileSync(join(engineDir, 'manifest.json'), 'utf8'), manifest);
    assert.equal(pruned, 0);
    // At the floor itself, a save is had (and the log told).
    assert.equal(saveIndex(engineDir, old.segments, old.names, floor(), signature, 0, log), 'saved');
    assert.equal(pruned, 1);
    await saver.close();
  });
});
