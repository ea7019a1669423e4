/**
 * The engine's pruned top-k equals exhaustive BM25 on SciFact: all queries of both splits, top 10
 * and top 100, with no filter, a published window and a site filter; several segments, since new
 * versions arrive as new segments.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EngineIndexStore } from '../../src/adapters/engine/engine-index-store.js';
import { mergeHits, SharedFloor } from '../../src/adapters/engine/engine.js';
import { openDatabase, type Db } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { queryReadings, queryTerms } from '../../src/core/text.js';
import type { IndexQuery } from '../../src/ports/index-store.js';
import { loadCorpus, loadQueries } from '../../bench/scifact.js';
import { scifactVersion } from '../fixtures/scifact-pages.js';
import { tempDir } from '../helpers.js';

describe('engine rank safety on SciFact', () => {
  const dir = tempDir();
  let db: Db;
  let index: EngineIndexStore;
  const queries = [...loadQueries().values()];

  before(async () => {
    db = openDatabase({ path: `${dir.path}/scifact.db` });
    const pages = new SqlitePageStore(db);
    const corpus = loadCorpus();
    const half = Math.floor(corpus.length / 2);
    await pages.putVersions(corpus.slice(0, half).map(scifactVersion));
    index = await new EngineIndexStore(db).open();
    // The second half arrives after the engine opened: a second segment (built in a worker thread, as many new versions are).
    await pages.putVersions(corpus.slice(half).map((d, i) => scifactVersion(d, i + half)));
    index.refresh();
    await index.settled();
  });
  after(() => {
    db.close();
    dir.remove();
  });

  const compare = async (extra: Partial<IndexQuery>, limit: number, termsOf = queryTerms) => {
    let nonEmpty = 0;
    for (const q of queries) {
      const query: IndexQuery = { terms: termsOf(q), limit, ...extra };
      const pruned = await index.search(query);
      const reference = index.exhaustiveSearch(query);
      assert.deepEqual(pruned, reference, q);
      if (pruned.length > 0) nonEmpty++;
    }
    return nonEmpty;
  };

  test(`top 10, no filter (${queries.length} queries)`, async () => {
    assert.ok((await compare({}, 10)) > queries.length * 0.9);
    assert.equal(index.segmentCount, 2);
  });

  test('an index built on two threads (from the database file) answers exactly as one built on one', async () => {
    const parallel = await new EngineIndexStore(db, { parallelFrom: 1000 }).open();
    const single = await new EngineIndexStore(db, { parallelFrom: Number.POSITIVE_INFINITY }).open();
    assert.equal(parallel.segmentCount, 1);
    for (const q of queries.slice(0, 300)) {
      const query: IndexQuery = { terms: queryTerms(q), limit: 10 };
      assert.deepEqual(await parallel.search(query), await single.search(query), q);
    }
  });

  test('top 10, short queries (the first three terms of each claim: windows with one essential list)', async () => {
    const short = (q: string) => queryTerms(q).slice(0, 3);
    assert.ok((await compare({}, 10, short)) > queries.length * 0.9);
    const year = { publishedAfter: Date.parse('2020-01-01T00:00:00Z'), publishedBefore: Date.parse('2020-12-31T23:59:59Z') };
    assert.ok((await compare(year, 10, short)) > queries.length * 0.5);
  });

  test('top 100, no filter', async () => {
    await compare({}, 100);
  });

  test('a query with a hyphenated compound, a page scoring its better reading: exactly the top k of both readings scored in full', async () => {
    const compounds = queries.filter((q) => queryReadings(q).alternative !== undefined);
    assert.ok(compounds.length > 100, `${compounds.length} queries hold a compound`);
    const year = { publishedAfter: Date.parse('2020-01-01T00:00:00Z'), publishedBefore: Date.parse('2020-12-31T23:59:59Z') };
    // Ten days: few documents in the window, which then lead the traversal.
    const days = { publishedAfter: Date.parse('2020-06-01T00:00:00Z'), publishedBefore: Date.parse('2020-06-10T23:59:59Z') };
    let fromJoined = 0;
    for (const [extra, limit] of [[{}, 10], [{}, 100], [year, 10], [days, 10], [{ site: 'h3.scifact.test' }, 10]] as const) {
      for (const q of compounds) {
        const query: IndexQuery = { ...queryReadings(q), limit, ...extra };
        const pruned = await index.search(query);
        assert.deepEqual(pruned, index.exhaustiveSearch(query), q);
        const words = index.exhaustiveSearch({ terms: query.terms, limit, ...extra });
        if (pruned.some((h, i) => h.versionId !== words[i]?.versionId)) fromJoined++;
      }
    }
    assert.ok(fromJoined > 20, `the joined reading changed ${fromJoined} lists`);
  });

  test('top 10 leaving out the pages of a term: a rare one, a common one, and with a published window', async () => {
    assert.ok((await compare({ excludeTerms: ['cell'] }, 10)) > queries.length * 0.5);
    assert.ok((await compare({ excludeTerms: ['mice', 'patient'] }, 10)) > queries.length * 0.5);
    const year = { publishedAfter: Date.parse('2020-01-01T00:00:00Z'), publishedBefore: Date.parse('2020-12-31T23:59:59Z') };
    assert.ok((await compare({ ...year, excludeTerms: ['protein'] }, 10)) > queries.length * 0.3);
    // It leaves pages out: the top 10 without `cell` differs from the top 10 for most claims.
    let changed = 0;
    for (const q of queries) {
      const all = await index.search({ terms: queryTerms(q), limit: 10 });
      const without = await index.search({ terms: queryTerms(q), limit: 10, excludeTerms: ['cell'] });
      if (all.some((h, i) => h.versionId !== without[i]?.versionId)) changed++;
    }
    assert.ok(changed > queries.length * 0.3, `${changed} lists changed`);
  });

  test('top 10 with a one-year published window and with a site filter', async () => {
    const year = { publishedAfter: Date.parse('2020-01-01T00:00:00Z'), publishedBefore: Date.parse('2020-12-31T23:59:59Z') };
    assert.ok((await compare(year, 10)) > queries.length * 0.5);
    assert.ok((await compare({ site: 'h3.scifact.test' }, 10)) > queries.length * 0.5);
  });

  test('a search split into parts by document number, each part searched alone or all sharing a floor, merges to exactly the whole top k', () => {
    // Document numbers count from 0 in each segment (two here, of about 2,600 documents each):
    // cuts inside both, at a window's edge (4,096) and past every document.
    const splits = [[0, 1000, 2000, 0x7fffffff], [0, 1, 0x7fffffff], [0, 1301, 4096, 0x7fffffff], [0, 9000, 0x7fffffff]];
    const month = { publishedAfter: Date.parse('2020-06-01T00:00:00Z'), publishedBefore: Date.parse('2020-06-30T23:59:59Z') };
    const year = { publishedAfter: Date.parse('2020-01-01T00:00:00Z'), publishedBefore: Date.parse('2020-12-31T23:59:59Z') };
    // Ten days: a few documents in the window, which then lead the traversal.
    const days = { publishedAfter: Date.parse('2020-06-01T00:00:00Z'), publishedBefore: Date.parse('2020-06-10T23:59:59Z') };
    const short = (q: string) => queryTerms(q).slice(0, 3);
    let nonEmpty = 0;
    for (const [extra, termsOf] of [[{}, queryTerms], [{}, short], [year, short], [month, queryTerms], [days, queryTerms], [days, short], [{ site: 'h3.scifact.test' }, queryTerms]] as const) {
      for (const [i, q] of queries.entries()) {
        const query: IndexQuery = { terms: termsOf(q), limit: 10, ...extra };
        const reference = index.exhaustiveSearch(query);
        const cuts = splits[i % splits.length]!;
        const parts = cuts.slice(1).map((hi, p) => index.searchPart(query, [cuts[p]!, hi]));
        assert.deepEqual(mergeHits(parts, 10), reference, q);
        // Parts sharing a floor, the later ones pruning with the earlier ones' thresholds.
        const floor = new SharedFloor();
        const pruned = cuts.slice(1).map((hi, p) => index.searchPart(query, [cuts[p]!, hi], floor));
        assert.deepEqual(mergeHits(pruned, 10), reference, q);
        if (reference.length > 0 && parts.filter((part) => part.length > 0).length > 1) nonEmpty++;
      }
    }
    assert.ok(nonEmpty > queries.length, `queries whose hits came from more than one part: ${nonEmpty}`);
  });

  /**
   * For 300 claims, the top 10 with `filter` (whole, and split into two parts) is exhaustive scoring's
   * with no filter, kept to the versions `keep` holds for: the filter's own bitset is not what decides.
   */
  async function keptTo(filter: Pick<IndexQuery, 'fileType' | 'notFileType' | 'inUrl'>, keep: (versionId: number) => boolean): Promise<void> {
    for (const [i, q] of queries.slice(0, 300).entries()) {
      const all = index.exhaustiveSearch({ terms: queryTerms(q), limit: 100_000 });
      const expected = all.filter((h) => keep(h.versionId)).slice(0, 10);
      assert.deepEqual(await index.search({ terms: queryTerms(q), limit: 10, ...filter }), expected, q);
      const cuts = [0, 700 + i, 0x7fffffff];
      const parts = cuts.slice(1).map((hi, p) => index.searchPart({ terms: queryTerms(q), limit: 10, ...filter }, [cuts[p]!, hi]));
      assert.deepEqual(mergeHits(parts, 10), expected, q);
    }
  }

  test('top 10 kept to the versions of a file type: a common one, a rare one (whose documents lead), with a published window, split into parts', async () => {
    db.exec("UPDATE versions SET media_type = CASE WHEN id % 97 = 0 THEN 'text/plain' WHEN id % 7 = 0 THEN 'application/pdf' ELSE 'text/html' END");
    try {
      const year = { publishedAfter: Date.parse('2020-01-01T00:00:00Z'), publishedBefore: Date.parse('2020-12-31T23:59:59Z') };
      assert.ok((await compare({ fileType: 'pdf' }, 10)) > queries.length * 0.5);
      assert.ok((await compare({ fileType: 'txt' }, 10)) > queries.length * 0.3);
      assert.ok((await compare({ ...year, fileType: 'pdf' }, 10)) > queries.length * 0.2);
      await keptTo({ fileType: 'txt' }, (id) => id % 97 === 0);
      // A type that pages served as HTML answer to is left to the caller: the search is not narrowed;
      // so is one of more versions than the store keeps a search to.
      const q = queryTerms(queries[0]!);
      assert.deepEqual(await index.search({ terms: q, limit: 10, fileType: 'html' }), await index.search({ terms: q, limit: 10 }));
      const bounded = await new EngineIndexStore(db, { fileTypeMax: 100 }).open();
      const narrowed = await bounded.search({ terms: q, limit: 10, fileType: 'txt' });
      assert.ok(narrowed.length > 0 && narrowed.every((h) => h.versionId % 97 === 0), 'the rare type, under the bound, is kept to');
      assert.deepEqual(await bounded.search({ terms: q, limit: 10, fileType: 'pdf' }), await bounded.search({ terms: q, limit: 10 }));
    } finally {
      db.exec('UPDATE versions SET media_type = NULL');
    }
  });

  test('top 10 kept to the versions not of a type that web pages answer to (-filetype:html): those of other types and of none', async () => {
    db.exec("UPDATE versions SET media_type = CASE WHEN id % 97 = 0 THEN 'text/plain' WHEN id % 7 = 0 THEN 'application/pdf' WHEN id % 11 = 0 THEN NULL WHEN id % 13 = 0 THEN 'application/xhtml+xml' ELSE 'text/html' END");
    try {
      const media = (id: number) => (id % 97 === 0 ? 'text/plain' : id % 7 === 0 ? 'application/pdf' : id % 11 === 0 ? undefined : id % 13 === 0 ? 'application/xhtml+xml' : 'text/html');
      // Of no web page's type (text/html and xhtml both answer to html): of another, or of none.
      const notWeb = (id: number) => media(id) !== 'text/html' && media(id) !== 'application/xhtml+xml';
      const month = { publishedAfter: Date.parse('2020-06-01T00:00:00Z'), publishedBefore: Date.parse('2020-06-30T23:59:59Z') };
      assert.ok((await compare({ notFileType: 'html' }, 10)) > queries.length * 0.5);
      assert.ok((await compare({ ...month, notFileType: 'htm' }, 10)) > queries.length * 0.05);
      await keptTo({ notFileType: 'html' }, notWeb);
      // A type most pages are not of is left to the caller (its others are most pages), and so are
      // others more than the store keeps a search to.
      const q = queryTerms(queries[0]!);
      assert.deepEqual(await index.search({ terms: q, limit: 10, notFileType: 'pdf' }), await index.search({ terms: q, limit: 10 }));
      assert.deepEqual(await index.search({ terms: q, limit: 10, notFileType: 'xhtml' }), await index.search({ terms: q, limit: 10 }));
      const bounded = await new EngineIndexStore(db, { fileTypeMax: 100 }).open();
      assert.deepEqual(await bounded.search({ terms: q, limit: 10, notFileType: 'html' }), await bounded.search({ terms: q, limit: 10 }));
    } finally {
      db.exec('UPDATE versions SET media_type = NULL');
    }
  });

  test('top 10 kept to the pages whose URL holds a text (inurl:): a host, a rare text, in another case, with a window, split into parts', async () => {
    const urls = new Map(db.prepare<[], [number, string]>('SELECT v.id, p.url FROM versions v JOIN pages p ON p.id = v.page_id').raw(true).all());
    const holding = (text: string) => (id: number) => urls.get(id)!.toLowerCase().includes(text.toLowerCase());
    const rare = '/DOC/99';
    const few = [...urls.keys()].filter(holding(rare)).length;
    assert.ok(few > 10 && few < 100, `${few} pages' URLs hold ${rare}`);
    const month = { publishedAfter: Date.parse('2020-06-01T00:00:00Z'), publishedBefore: Date.parse('2020-06-30T23:59:59Z') };
    assert.ok((await compare({ inUrl: 'h3.SCIFACT' }, 10)) > queries.length * 0.5);
    assert.ok((await compare({ ...month, inUrl: 'h3.scifact' }, 10)) > queries.length * 0.02);
    await keptTo({ inUrl: 'h3.SCIFACT' }, holding('h3.scifact'));
    await keptTo({ inUrl: rare }, holding(rare));
    const q = queryTerms(queries[0]!);
    assert.deepEqual(await index.search({ terms: q, limit: 10, inUrl: '/nowhere/' }), [], 'a text no URL holds');
    // More than the store keeps a search to is left to the caller.
    const bounded = await new EngineIndexStore(db, { fileTypeMax: 100 }).open();
    assert.deepEqual(await bounded.search({ terms: ['cell'], limit: 10, inUrl: 'h3.scifact' }), await bounded.search({ terms: ['cell'], limit: 10 }));
    const narrowed = await bounded.search({ terms: ['cell'], limit: 10, inUrl: rare });
    assert.ok(narrowed.length > 0 && narrowed.every((h) => holding(rare)(h.versionId)), 'the rare text, under the bound, is kept to');
    // With a file type's versions too: those of both.
    db.exec("UPDATE versions SET media_type = CASE WHEN id % 3 = 0 THEN 'application/pdf' ELSE 'text/html' END");
    try {
      await keptTo({ fileType: 'pdf', inUrl: 'H3.scifact' }, (id) => id % 3 === 0 && holding('h3.scifact')(id));
    } finally {
      db.exec('UPDATE versions SET media_type = NULL');
    }
  });

  test('top 10 with a one-month published window (the window leads the traversal)', async () => {
    const month = { publishedAfter: Date.parse('2020-06-01T00:00:00Z'), publishedBefore: Date.parse('2020-06-30T23:59:59Z') };
    assert.ok((await compare(month, 10)) > queries.length * 0.2);
    assert.ok((await compare({ ...month, site: 'h2.scifact.test' }, 10)) > 10);
  });
});
