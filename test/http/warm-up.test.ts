/**
 * The searches `serve` makes of its own index before it takes requests (ops/warm-up.ts): of the
 * index's common words, as many as asked within the time given, some of them in each filter that
 * makes something on its first use, and nothing stored, charged or recorded by them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadCorpus } from '../../bench/scifact.js';
import type { EngineIndexStore } from '../../src/adapters/engine/engine-index-store.js';
import type { Db } from '../../src/adapters/sqlite/database.js';
import { STOP_WORDS } from '../../src/core/text.js';
import { WARM_UP_SEARCHES, warmUp } from '../../src/ops/warm-up.js';
import type { IndexQuery, IndexStore } from '../../src/ports/index-store.js';
import { scifactVersion } from '../fixtures/scifact-pages.js';
import { createTestEnv, type TestEnv } from '../helpers.js';

describe('the warm-up searches', () => {
  let env: TestEnv;
  let engine: EngineIndexStore;
  const corpus = loadCorpus();
  before(async () => {
    env = await createTestEnv();
    await env.services.pages.putVersions(corpus.map(scifactVersion));
    engine = env.services.index as EngineIndexStore;
    await engine.open();
  });
  after(() => env.close());

  test("the engine's common terms: words of three letters or more, held by at least two pages and at most a third, in a fixed order", () => {
    const terms = engine.commonTerms(400);
    assert.equal(terms.length, 400);
    const { stats } = engine.inUse();
    for (const t of terms) {
      assert.match(t, /^[a-z]{3,}$/);
      assert.ok(!STOP_WORDS.has(t), t);
      const df = stats.df(t);
      assert.ok(df >= 2 && df <= corpus.length / 3, `${t}: ${df}`);
    }
    assert.deepEqual(engine.commonTerms(50), terms.slice(0, 50));
  });

  test("searches in an acquired window, at a query_time and under a site too, which make the engine's acquired order before a caller's search does", async () => {
    const ordered = engine.inUse().segments.filter((s) => s.times.keys.length > 0);
    assert.ok(ordered.length > 0, 'a segment large enough for an acquired order');
    for (const s of ordered) assert.equal(Atomics.load(s.times.state, 0), 0, 'not made before the warm-up');
    const asked: IndexQuery[] = [];
    const index = new Proxy(engine, {
      get: (target, name) => {
        if (name === 'search') return async (q: IndexQuery) => (asked.push(q), target.search(q));
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const warmed = await warmUp({ ...env.services, index }, 60_000);
    assert.equal(warmed.searches, WARM_UP_SEARCHES);
    for (const s of ordered) assert.equal(Atomics.load(s.times.state, 0), 2, 'made by the warm-up');
    const count = (has: (q: IndexQuery) => boolean) => asked.filter(has).length;
    const plain = count((q) => q.site === undefined && q.acquiredAfter === undefined && q.publishedAfter === undefined && q.queryTime === undefined);
    // Of each seven: three plain, one of each filter (the site and the query_time once a search has found a page).
    assert.ok(plain >= (3 * WARM_UP_SEARCHES) / 7 - 3, `plain: ${plain}`);
    for (const [name, has] of [
      ['acquired', (q: IndexQuery) => q.acquiredAfter !== undefined],
      ['published', (q: IndexQuery) => q.publishedAfter !== undefined],
      ['site', (q: IndexQuery) => q.site !== undefined],
      ['query_time', (q: IndexQuery) => q.queryTime !== undefined],
    ] as const) {
      assert.ok(count(has) >= WARM_UP_SEARCHES / 7 - 2, `${name}: ${count(has)}`);
    }
    // The site and the time are a found page's: the searches under them find pages.
    const site = asked.find((q) => q.site !== undefined)!.site!;
    assert.ok((await engine.search({ terms: ['cells'], site, limit: 10 })).length > 0, site);
    const queryTime = asked.find((q) => q.queryTime !== undefined)!.queryTime!;
    assert.ok((await engine.search({ terms: ['cells'], queryTime, limit: 10 })).length > 0);
  });

  test('makes its searches and changes nothing: no version, no index change, no usage row', async () => {
    const db = Reflect.get(engine, 'db') as Db;
    const state = () => JSON.stringify([db.prepare('SELECT count(*) AS n, max(id) AS id FROM versions').get(), db.prepare('SELECT max(seq) AS seq FROM index_log').get()]);
    const before = state();
    const query = { terms: ['cells', 'protein'], limit: 10 };
    const hits = await engine.search(query);
    const warmed = await warmUp(env.services, 60_000);
    assert.equal(warmed.searches, WARM_UP_SEARCHES);
    await env.services.usage.flush();
    assert.deepEqual(await env.services.usage.list({ limit: 10 }), []);
    assert.equal(state(), before);
    assert.deepEqual(await engine.search(query), hits);
  });

  test('none with no time given, or on an index that offers no words', async () => {
    assert.equal((await warmUp(env.services, 0)).searches, 0);
    let asked = 0;
    const index: IndexStore = { search: async () => (asked++, []), rebuild: async () => {} };
    assert.equal((await warmUp({ ...env.services, index }, 60_000)).searches, 0);
    assert.equal(asked, 0);
  });
});
