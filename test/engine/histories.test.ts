/**
 * The engine against the FTS5 reference (adapters/sqlite/index-store.ts, whose filters are plain
 * SQL over the versions' columns) under made-up write histories: captures out of order and at the
 * same instant, the same content captured again (nothing stored, or a version moved earlier), versions
 * stored unsearchable and made searchable later, batches built in worker threads, merges, saves,
 * a restart from the saved segments, a rebuild, and a search split over two threads. After each
 * step, random queries under random combinations of every filter (site, sites, both windows, point in
 * time) find exactly the versions the reference finds, and the first k are the exhaustive top k
 * (or, for webql, the start of the whole list).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { picker, rng } from '../../bench/scifact.js';
import { EngineIndexStore, type EngineOptions } from '../../src/adapters/engine/engine-index-store.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteIndexStore } from '../../src/adapters/sqlite/index-store.js';
import { contentHash, SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { parseWebql } from '../../src/core/webql.js';
import type { NewVersion } from '../../src/ports/page-store.js';
import type { IndexQuery } from '../../src/ports/index-store.js';
import { tempDir } from '../helpers.js';

// Words both stemmers leave whole and no URL holds; `quince` is on no page.
const WORDS = ['kiwi', 'mango', 'papaya', 'guava', 'lime', 'plum', 'fig', 'pear'];
const HOSTS = ['a.test', 'sub.a.test', 'deep.sub.a.test', 'xa.test', 'b.test'];
const SITES = [...HOSTS, 'test', 'c.test', 'a.test.b'];
const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
/** Capture instants: few, so that URLs are captured at the same instant and out of order. */
const INSTANTS = Array.from({ length: 12 }, (_, k) => T0 + k * HOUR);
/** Publication times: few, so that the same content is captured again (the hash holds them). */
const PUBLISHED = [T0 - 48 * HOUR, T0 - 24 * HOUR, T0 + 5 * HOUR];

/** webql's best or newest candidates read first in tiers of 2 and 5 (engine-index-store.ts `webqlBestFirst`), so that a history's few pages are more than a tier. */
const FEW_FIRST = { tiers: [{ from: 0, k: 2 }, { from: 0, k: 5 }], words: 4, few: 1 };

/**
 * Engines the histories run on: one that saves, builds in threads and merges often, one split over
 * two threads; and both again with an acquired order for every segment (engine.ts `AcquiredOrder`:
 * otherwise only segments of 4,096 documents or more have one), so that time bounds are read from
 * it, and captures moving a version's start back after it was made are looked at as moved (and
 * webql's candidates read first in small tiers, `FEW_FIRST`).
 */
const ENGINES: Record<string, EngineOptions> = {
  'saved, threads and merges': { mergeBase: 2, joinMerge: 6, freshSync: 3, saveEvery: 10 },
  'split over two threads': { searchThreads: 2, splitFrom: 1, splitWork: 0, freshSync: 3, mergeBase: 2, joinMerge: 6 },
  'saved, threads and merges, acquired orders': { mergeBase: 2, joinMerge: 6, freshSync: 3, saveEvery: 10, orderFrom: 1, webqlBestFirst: FEW_FIRST },
  'split over two threads, acquired orders': { searchThreads: 2, splitFrom: 1, splitWork: 0, freshSync: 3, mergeBase: 2, joinMerge: 6, orderFrom: 1, webqlBestFirst: FEW_FIRST },
};

function history(seed: number, name: string, options: EngineOptions): void {
  test(`${name}, history ${seed}`, async () => {
    const dir = tempDir();
    const db = openDatabase({ path: `${dir.path}/pages.db` });
    const pages = new SqlitePageStore(db);
    const reference = new SqliteIndexStore(db);
    const engineOptions = { ...options, dir: `${dir.path}/engine` };
    let index = await new EngineIndexStore(db, engineOptions).open();
    const random = rng(seed);
    const pick = picker(random);
    const some = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
    const urls = Array.from({ length: 14 }, (_, k) => `https://${HOSTS[k % HOSTS.length]}/p${k}`);
    /** An instant of the grid, a millisecond off now and then (the bounds are inclusive). */
    const instant = () => pick(INSTANTS) + (random() < 0.2 ? pick([-1, 1]) : 0);

    const text = () => ({
      title: random() < 0.5 ? some(1) : 'untitled',
      ...(random() < 0.3 && { description: some(2) }),
      content: `${some(1 + Math.floor(random() * 3))}.`,
      ...(random() < 0.6 && { publishedAt: pick(PUBLISHED) }),
    });
    // Each URL's texts mostly come back (the same content captured again: stored once, or moved earlier).
    const texts = new Map(urls.map((url) => [url, [text(), text(), text()]]));
    const version = (): NewVersion => {
      const url = pick(urls);
      return { url, ...(random() < 0.8 ? pick(texts.get(url)!) : text()), acquiredAt: pick(INSTANTS), searchable: random() < 0.85 };
    };
    /** A query with random filters, and its webql expression's text if it has one. */
    const query = (): { q: IndexQuery; expression?: string } => {
      const q: IndexQuery = { terms: [], limit: 100_000 };
      let expression: string | undefined;
      const r = random();
      if (r < 0.2) {
        const [a, b, c] = [pick(WORDS), pick(WORDS), pick(WORDS)];
        // (The last three rank by no word: every page is a candidate, or every page holding a, and
        // the newest are read first.)
        expression = pick([`${a} -${b}`, `${a} ${b}`, `(${a} OR quince) site:${pick(SITES)}`, `"${a} ${b}"`, `"${a} ${b}" -${c}`, `title:${a} ${b}`, `(${a} OR site:${pick(SITES)})`, `inurl:p1 -${a}`, `title:${a}`]);
        q.webql = parseWebql(expression);
      } else {
        q.terms = some(1 + Math.floor(random() * 2)).split(' ');
        if (r > 0.9) q.terms.push('quince');
        if (random() < 0.1) q.alternative = [pick(WORDS)];
      }
      if (random() < 0.3) q.site = pick(SITES);
      // (Sites a page must be under one of: a standard query's `site:a OR site:b`; none matches nothing.)
      if (random() < 0.15) q.anySites = Array.from({ length: Math.floor(random() * 3) }, () => pick(SITES));
      // (Sites left out: a standard query's `-site:`s.)
      if (random() < 0.2) q.excludeSites = Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(SITES));
      if (random() < 0.3) q.acquiredAfter = instant();
      if (random() < 0.3) q.acquiredBefore = instant();
      if (random() < 0.25) q.publishedAfter = pick(PUBLISHED) + pick([-1, 0, 1]);
      if (random() < 0.25) q.publishedBefore = pick(PUBLISHED) + pick([-1, 0, 1]);
      if (random() < 0.4) q.queryTime = instant();
      return { q, expression };
    };
    const ids = (hits: { versionId: number }[]) => hits.map((h) => h.versionId).sort((a, b) => a - b);
    const steps: string[] = [];
    /** Merges of the engines closed by restarts (each counts its own). */
    let merged = 0;
    /** The version a capture of a URL at an instant, of a content, falls in: the last one at or before it. */
    const holding = db.prepare<[string, number, number, string], { content_hash: string; searchable: number }>(
      `SELECT v.content_hash, v.searchable FROM versions v JOIN pages p ON p.id = v.page_id
       WHERE p.url = ? AND (v.acquired_at < ? OR (v.acquired_at = ? AND v.content_hash <= ?)) ORDER BY v.acquired_at DESC, v.content_hash DESC LIMIT 1`,
    );
    const timeline = db.prepare<[], { page_id: number; acquired_at: number; superseded_at: number | null }>(
      'SELECT page_id, acquired_at, superseded_at FROM versions ORDER BY page_id, acquired_at, content_hash',
    );
    /** Queries after the index caught up with the writes; merges in worker threads may still be under way. */
    const check = async () => {
      // What the reference reads is right: each version of a URL lives until the next (by time, then content hash).
      const rows = timeline.all();
      rows.forEach((v, i) => {
        const next = rows[i + 1]?.page_id === v.page_id ? rows[i + 1]!.acquired_at : null;
        assert.equal(v.superseded_at, next, `after ${steps.join(', ')}: page ${v.page_id}`);
      });
      index.refresh();
      if (index.freshUnderway > 0 || random() < 0.3) await index.settled();
      for (let n = 0; n < 15; n++) {
        const { q, expression } = query();
        const where = `after ${steps.join(', ')}: ${JSON.stringify({ ...q, webql: expression })}`;
        const all = await index.search(q);
        assert.deepEqual(ids(all), ids(await reference.search(q)), where);
        const k = 1 + Math.floor(random() * 4);
        const top = await index.search({ ...q, limit: k });
        if (q.webql) assert.deepEqual(top, all.slice(0, k), where);
        else assert.deepEqual(top, index.exhaustiveSearch({ ...q, limit: k }), where);
      }
    };

    try {
      for (let step = 0; step < 40; step++) {
        const r = random();
        if (r < 0.06) {
          steps.push('restart');
          await index.settled();
          merged += index.merges;
          await index.close();
          index = await new EngineIndexStore(db, engineOptions).open();
        } else if (r < 0.1) {
          steps.push('rebuild');
          await index.rebuild();
        } else {
          const batch = Array.from({ length: 1 + Math.floor(random() * 8) }, version);
          steps.push(`${batch.length} writes`);
          if (batch.length === 1) await pages.putVersion(batch[0]!);
          else await pages.putVersions(batch);
          // Each capture is in a version of its content, searchable when the capture was.
          batch.forEach((v, k) => {
            const holder = holding.get(v.url, v.acquiredAt, v.acquiredAt, contentHash(v))!;
            assert.equal(holder.content_hash, contentHash(v), `after ${steps.join(', ')}: write ${k}`);
            if (v.searchable) assert.equal(holder.searchable, 1, `after ${steps.join(', ')}: write ${k}`);
          });
        }
        await check();
      }
      const versions = db
        .prepare<[], { n: number; latest: number; searchable: number }>('SELECT count(*) AS n, sum(superseded_at IS NULL) AS latest, sum(searchable) AS searchable FROM versions')
        .get()!;
      // The history made what it is for: versions replaced, unsearchable ones, merges.
      assert.ok(versions.n > versions.latest && versions.searchable < versions.n, JSON.stringify(versions));
      assert.ok(merged + index.merges > 0, 'no merge');
    } finally {
      await index.close();
      db.close();
      dir.remove();
    }
  });
}

describe('the engine against the FTS5 reference under made-up write histories', () => {
  for (const [name, options] of Object.entries(ENGINES)) for (const seed of [1, 2, 3]) history(seed, name, options);
});
