import assert from 'node:assert/strict';
import { picker, rng } from '../../bench/scifact.js';
import { describe, test } from 'node:test';
import { EngineIndexStore } from '../../src/adapters/engine/engine-index-store.js';
import { MemoryLimiterStore } from '../../src/adapters/memory/limiter-store.js';
import { SqliteAccountStore, SqliteStorefrontAccountStore } from '../../src/adapters/sqlite/accounts.js';
import { DUE_SQL, SqliteCrawlFrontier } from '../../src/adapters/sqlite/crawl-frontier.js';
import { type Db, openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteIndexStore } from '../../src/adapters/sqlite/index-store.js';
import { SqliteLimiterStore } from '../../src/adapters/sqlite/limiter-store.js';
import { SqliteLedger } from '../../src/adapters/sqlite/ledger.js';
import { contentHash, SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { fillDerivedInBackground } from '../../src/adapters/sqlite/derived-fill.js';
import { SqliteNonceStore, SqlitePaymentLog } from '../../src/adapters/sqlite/payments.js';
import { SqliteUsageOutbox } from '../../src/adapters/sqlite/usage-outbox.js';
import { SqliteUsageStore } from '../../src/adapters/sqlite/usage-store.js';
import { buildPassages, PASSAGES_FORMAT } from '../../src/core/passages.js';
import { parseWebql } from '../../src/core/webql.js';
import { idOf, page, tempDir } from '../helpers.js';
import { accountingContract, nonceContract } from './accounting.contract.js';
import { ledgerContract } from './ledger.contract.js';
import { limiterContract } from './limiter.contract.js';
import { pageIndexContract } from './page-index.contract.js';

/** What each migration from 20 on added (columns and their indexes), undone: how a database of an older release is made. */
const UNDONE: Record<number, string[]> = {
  26: ['DROP TABLE removed'],
  25: [],
  24: ['DROP INDEX versions_untyped'],
  23: ['DROP INDEX pages_url_type', 'ALTER TABLE pages DROP COLUMN url_type'],
  22: ['DROP INDEX versions_media_type', 'ALTER TABLE versions DROP COLUMN media_type'],
  21: ['DROP INDEX versions_near_missing', 'ALTER TABLE versions DROP COLUMN near_fingerprint'],
  20: ['DROP INDEX versions_description', 'ALTER TABLE versions DROP COLUMN description_key', 'ALTER TABLE versions DROP COLUMN description_shared'],
};
const LATEST_UNDONE = Math.max(...Object.keys(UNDONE).map(Number));

/**
 * A database as it was before migration `version`: what it and every later one added gone
 * (26: the pages the operator removed; 25 added nothing, it rewrote URLs; 24: the index of the versions of no media type; 23: the pages' URL types; 22: the versions'
 * media types; 21: the near-duplicate fingerprints; 20: the description keys and marks).
 */
function withoutMigrationsFrom(db: Db, version: number): void {
  for (let v = LATEST_UNDONE; v >= version; v--) for (const sql of UNDONE[v]!) db.exec(sql);
}

/** The database at `path` opened again as an older release left it: `db`'s schema version set to `version`, the migrations after it run on opening. */
function reopenAt(db: Db, path: string, version: number): Db {
  db.pragma(`user_version = ${version}`);
  db.close();
  return openDatabase({ path });
}

function sqlite() {
  const dir = tempDir();
  const db = openDatabase({ path: `${dir.path}/test.db` });
  return {
    db,
    async close() {
      db.close();
      dir.remove();
    },
  };
}

pageIndexContract('sqlite FTS5 (reference)', async () => {
  const s = sqlite();
  return { pages: new SqlitePageStore(s.db), index: new SqliteIndexStore(s.db), close: s.close };
});

pageIndexContract('engine over sqlite', async () => {
  const s = sqlite();
  return { pages: new SqlitePageStore(s.db), index: await new EngineIndexStore(s.db).open(), close: s.close };
});

for (const [reservations, seen] of [
  ['database', 'by every process'],
  ['memory', 'by their own process'],
] as const) {
  ledgerContract(`sqlite, reservations in ${reservations}`, seen, async () => {
    const s = sqlite();
    const others: Db[] = [];
    return {
      ledger: new SqliteLedger(s.db, { reservations }),
      accounts: new SqliteAccountStore(s.db),
      another() {
        const db = openDatabase({ path: s.db.name });
        others.push(db);
        return new SqliteLedger(db, { reservations });
      },
      async close() {
        for (const db of others) db.close();
        await s.close();
      },
    };
  });
}

accountingContract('sqlite', async () => {
  const s = sqlite();
  return {
    accounts: new SqliteAccountStore(s.db),
    storefrontAccounts: new SqliteStorefrontAccountStore(s.db),
    usage: new SqliteUsageStore(s.db),
    outbox: new SqliteUsageOutbox(s.db),
    payments: new SqlitePaymentLog(s.db),
    close: s.close,
  };
});

nonceContract('sqlite', async () => {
  const s = sqlite();
  return { nonces: new SqliteNonceStore(s.db), close: s.close };
});

limiterContract('memory', async () => new MemoryLimiterStore());

limiterContract('sqlite (shared by workers)', async () => {
  const s = sqlite();
  const store = new SqliteLimiterStore(s.db);
  return Object.assign(store, { close: s.close });
});

describe('SqlitePageStore.fillDerived', () => {
  /** Page `n`'s markdown, long enough for a passage index. */
  const longPage = (n: number) => Array.from({ length: 150 }, (_, i) => `Line ${i} of page ${n} says something.`).join('\n');
  /** `use` on a new database and its page store, holding pages 1, 2 and 3 (their version ids given), removed after. */
  const withLongPages = async (use: (db: Db, pages: SqlitePageStore, ids: number[]) => Promise<void>) => {
    const s = sqlite();
    try {
      const pages = new SqlitePageStore(s.db);
      const stored = await pages.putVersions([1, 2, 3].map((n) => page(`https://example.com/${n}`, { content: longPage(n) })));
      await use(s.db, pages, stored.map((o) => idOf(o)));
    } finally {
      await s.close();
    }
  };
  /** As an older release left a database: those versions without an index or a fingerprint, and no record of a fill. */
  const asOlderRelease = (db: Db) => db.exec('UPDATE versions SET passages = NULL, near_fingerprint = NULL; UPDATE passages_filled SET format = 0');

  test('builds the passage indexes a version lacks or has in an older format, without the engine re-indexing it', () =>
    withLongPages(async (db, pages, [a, b, c]) => {
      await pages.putVersion(page('https://example.com/short', { content: 'Short page.' }));
      const older = Buffer.from(buildPassages(longPage(2))!);
      older.writeUInt32LE(PASSAGES_FORMAT + 1, 0);
      db.prepare('UPDATE versions SET passages = NULL WHERE id = ?').run(a);
      db.prepare('UPDATE versions SET passages = ? WHERE id = ?').run(older, b);
      const logged = () => (db.prepare('SELECT count(*) AS n FROM index_log').get() as { n: number }).n;
      const before = logged();
      assert.deepEqual(await pages.fillDerived(), { fingerprints: 0, passages: 2 });
      assert.equal(logged(), before, 'filling in passages is no change for the engine');
      const got = await pages.getVersions([a!, b!, c!]);
      got.forEach((v, k) => assert.deepEqual(new Uint8Array(v.passages!), buildPassages(longPage(k + 1))));
      assert.deepEqual(await pages.fillDerived(), { fingerprints: 0, passages: 0 });
    }));

  test('makes the fingerprints versions stored before lack, each as a version stored now has it, and only theirs', () =>
    withLongPages(async (db, pages, [a, b, c]) => {
      const [short] = await pages.putVersions([page('https://example.com/short', { content: 'Short page.' })]);
      const ids = [a!, b!, c!, idOf(short!)];
      const stored = (await pages.getVersions(ids)).map((v) => v.near);
      assert.equal(stored.filter((n) => n !== undefined).length, 3, 'the three long pages have one, the short page none');
      db.prepare('UPDATE versions SET near_fingerprint = NULL WHERE id IN (?, ?)').run(a, idOf(short!));
      assert.equal(await pages.derivedFilled(), false);
      assert.equal((await pages.getVersions([a!]))[0]!.near, undefined, 'a version without one is compared with none');
      assert.deepEqual(await pages.fillDerived(), { fingerprints: 2, passages: 0 });
      assert.deepEqual((await pages.getVersions(ids)).map((v) => v.near), stored);
      assert.equal(await pages.derivedFilled(), true);
    }));

  test('records when every version has its index and fingerprint: a new database has; an older release\'s has not until a fill goes through them all', async () => {
    const s = sqlite();
    try {
      assert.equal(await new SqlitePageStore(s.db).derivedFilled(), true, 'a new database');
    } finally {
      await s.close();
    }
    await withLongPages(async (db, pages) => {
      assert.equal(await pages.derivedFilled(), true, 'versions stored by this release have their indexes');
      asOlderRelease(db);
      assert.equal(await pages.derivedFilled(), false);
      // Stopped before it has gone through them all: not recorded.
      assert.deepEqual(await pages.fillDerived(AbortSignal.abort()), { fingerprints: 0, passages: 0 });
      assert.equal(await pages.derivedFilled(), false);
      assert.deepEqual(await pages.fillDerived(), { fingerprints: 3, passages: 3 });
      assert.equal(await pages.derivedFilled(), true);
    });
  });

  test('in the background: a worker thread fills them over its own connection, logging what it built', () =>
    withLongPages(async (db, pages, ids) => {
      asOlderRelease(db);
      const logged: [string, string, Record<string, unknown> | undefined][] = [];
      const fill = fillDerivedInBackground(db.name, (level, msg, fields) => logged.push([level, msg, fields]));
      await fill.ended;
      assert.equal(await pages.derivedFilled(), true);
      const got = await pages.getVersions(ids);
      got.forEach((v, k) => assert.deepEqual(new Uint8Array(v.passages!), buildPassages(longPage(k + 1))));
      assert.deepEqual(
        logged.map(([level, msg, fields]) => [level, msg, fields?.passages, fields?.fingerprints]),
        [
          [
            'info',
            'filling in passage indexes and near-duplicate fingerprints in the background (versions stored by an older release; their snippets read the page until then)',
            undefined,
            undefined,
          ],
          ['info', 'passage indexes and fingerprints filled', 3, 3],
        ],
      );
      await fill.stop(); // after it has ended: nothing to stop
    }));
});

describe("migration 25 (URLs' escapes in their normal form, no session ids)", () => {
  test('a page stored under another spelling (escapes, a session id) takes the normal one, unless a page has it; queued URLs and validators too; the index finds it as before', async () => {
    const dir = tempDir();
    try {
      const path = `${dir.path}/old.db`;
      let db = openDatabase({ path });
      // As an older release stored them: the escapes as the links wrote them.
      const spelt = ['https://a.test/%7euser/report.%70df', 'https://a.test/caf%c3%a9', 'https://a.test/caf%C3%A9', 'https://a.test/plain', 'https://a.test/shop;jsessionid=AB12', 'https://a.test/forum?t=5&PHPSESSID=9f'];
      const words = ['tilde', 'lower', 'upper', 'plain', 'servlet', 'php'];
      await new SqlitePageStore(db).putVersions(spelt.map((url, k) => page(url, { content: `walrus ${words[k]}` })));
      const queue = db.prepare("INSERT INTO crawl_frontier (crawl_id, url, host, depth, state, next_at) VALUES (?, ?, 'a.test', 1, 'queued', 0)");
      for (const [crawl, url] of [['c1', 'https://a.test/%7eA'], ['c1', 'https://a.test/~A'], ['c1', 'https://a.test/%7eB'], ['c2', 'https://a.test/%7eA']]) queue.run(crawl, url);
      db.prepare("INSERT INTO fetch_validators (url, etag, fetched_at) VALUES ('https://a.test/%7euser/', 'x', 0)").run();
      withoutMigrationsFrom(db, 26);
      db = reopenAt(db, path, 24);
      try {
        assert.deepEqual(db.prepare('SELECT url, url_type FROM pages ORDER BY id').all(), [
          { url: 'https://a.test/~user/report.pdf', url_type: 'pdf' },
          // Both spellings were stored: the normal one's page is that page; the other stays apart.
          { url: 'https://a.test/caf%c3%a9', url_type: null },
          { url: 'https://a.test/caf%C3%A9', url_type: null },
          { url: 'https://a.test/plain', url_type: null },
          { url: 'https://a.test/shop', url_type: null },
          { url: 'https://a.test/forum?t=5', url_type: null },
        ]);
        assert.deepEqual(db.prepare('SELECT crawl_id, url FROM crawl_frontier ORDER BY crawl_id, url').raw().all(), [
          ['c1', 'https://a.test/~A'],
          ['c1', 'https://a.test/~B'],
          ['c2', 'https://a.test/~A'],
        ]);
        assert.deepEqual(db.prepare('SELECT url, etag FROM fetch_validators').raw().all(), [['https://a.test/~user/', 'x']]);
        const pages = new SqlitePageStore(db);
        assert.equal((await pages.latest('https://a.test/~user/report.pdf'))?.content, 'walrus tilde');
        assert.equal(await pages.latest('https://a.test/%7euser/report.%70df'), undefined);
        const engine = await new EngineIndexStore(db).open();
        try {
          const [hit] = await engine.search({ terms: [], webql: parseWebql('walrus tilde filetype:pdf'), limit: 10 });
          assert.equal((await pages.getVersions([hit!.versionId]))[0]!.url, 'https://a.test/~user/report.pdf');
          assert.equal((await engine.search({ terms: ['walrus'], limit: 10 })).length, 6);
        } finally {
          await engine.close();
        }
      } finally {
        db.close();
      }
    } finally {
      dir.remove();
    }
  });
});

describe('migration 10 (the FTS5 index goes)', () => {
  test('drops the FTS5 table and its triggers from a database that has them, keeping every page and taking new ones', async () => {
    const dir = tempDir();
    try {
      const path = `${dir.path}/old.db`;
      // A database as it was at schema version 9: the FTS5 table and its triggers, kept on every write.
      let db = openDatabase({ path });
      new SqliteIndexStore(db);
      const [old] = await new SqlitePageStore(db).putVersions([page('https://example.com/old', { content: 'zebra crossing' })]);
      db.exec('DROP INDEX versions_lang'); // migration 11's
      db.exec('DROP TABLE index_log_floor'); // migration 12's
      db.exec('DROP TABLE passages_filled'); // migration 13's
      db.exec('DROP INDEX crawl_frontier_pick'); // migration 14's
      db.exec('DROP TABLE page_log_applied'); // migration 15's
      db.exec('DROP INDEX usage_at'); // migration 16's
      db.exec('DROP TABLE page_log_reader'); // migration 17's
      db.exec('DROP TABLE unsettled_reservations'); // migration 18's
      db.exec('DROP TABLE captures'); // migration 19's
      db.exec('ALTER TABLE versions DROP COLUMN first_searchable');
      withoutMigrationsFrom(db, 20);
      db = reopenAt(db, path, 9);
      try {
        assert.ok((db.pragma('user_version', { simple: true }) as number) >= 10);
        assert.deepEqual(db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'versions_fts%'").all(), []);
        assert.ok(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'versions_lang'").get(), 'migration 11 ran after it');
        const pages = new SqlitePageStore(db);
        assert.equal(await pages.derivedFilled(), false, "migration 13: an older release's versions are to be filled in");
        await pages.putVersion(page('https://example.com/new', { content: 'zebra herd' }));
        const engine = await new EngineIndexStore(db).open();
        const hits = await engine.search({ terms: ['zebra'], limit: 10 });
        assert.equal(hits.length, 2);
        assert.ok(hits.some((h) => h.versionId === idOf(old!)));
      } finally {
        db.close();
      }
    } finally {
      dir.remove();
    }
  });
});

describe('a page\'s timeline is its captures\'', () => {
  test('made-up captures stored in any order, some again, end as the same timeline: each run of one content from its first capture', async () => {
    const dir = tempDir();
    try {
      const random = rng(9);
      const pick = picker(random);
      const T0 = Date.parse('2026-01-01T00:00:00Z');
      const urls = ['https://a.test/1', 'https://a.test/2', 'https://b.test/1'];
      for (let round = 0; round < 40; round++) {
        // Few instants and contents: runs of one content, captures at one instant, contents coming back.
        const captures = Array.from({ length: 2 + Math.floor(random() * 12) }, () =>
          page(pick(urls), { content: pick(['kiwi', 'mango', 'papaya']), acquiredAt: T0 + Math.floor(random() * 6) * 1000, searchable: random() < 0.8 }),
        );
        const timelines: string[] = [];
        for (let order = 0; order < 3; order++) {
          const db = openDatabase({ path: `${dir.path}/r${round}-${order}.db` });
          const pages = new SqlitePageStore(db);
          const shuffled = [...captures, ...captures.filter(() => random() < 0.2)].sort(() => random() - 0.5);
          for (const v of shuffled) await pages.putVersion(v);
          const lines: string[] = [];
          for (const url of urls) {
            // The timeline expected: the captures by time (then content hash), a run of one content a version.
            const mine = captures.filter((c) => c.url === url).map((c) => ({ ...c, hash: contentHash(c) }));
            mine.sort((a, b) => a.acquiredAt - b.acquiredAt || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
            const runs: { content: string; acquiredAt: number; searchable: boolean }[] = [];
            mine.forEach((c, i) => {
              if (i === 0 || c.hash !== mine[i - 1]!.hash) runs.push({ content: c.content, acquiredAt: c.acquiredAt, searchable: false });
              if (c.searchable) runs.at(-1)!.searchable = true;
            });
            const history = await pages.history(url);
            assert.deepEqual(history.map((v) => [v.content, v.acquiredAt, v.searchable]), runs.map((r) => [r.content, r.acquiredAt, r.searchable]), `${url}, order ${order}`);
            const supersededAt = db.prepare<[number], number | null>('SELECT superseded_at FROM versions WHERE id = ?').pluck();
            assert.deepEqual(history.map((v) => supersededAt.get(v.id)), runs.map((r, i) => runs[i + 1]?.acquiredAt ?? null), `${url}, order ${order}`);
            assert.equal((await pages.latest(url))?.id, history.at(-1)?.id);
            lines.push(JSON.stringify(history.map((v) => [v.content, v.acquiredAt, v.searchable])));
          }
          timelines.push(lines.join('\n'));
          db.close();
        }
        assert.equal(timelines[1], timelines[0], `round ${round}`);
        assert.equal(timelines[2], timelines[0], `round ${round}`);
      }
    } finally {
      dir.remove();
    }
  });
});

describe('migration 19 (timelines are their captures\')', () => {
  test('a page\'s versions at one instant follow one another by content hash, each until the next; other pages are left alone', async () => {
    const dir = tempDir();
    try {
      const path = `${dir.path}/old.db`;
      const [t1, t2] = [Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-02-01T00:00:00Z')];
      let db = openDatabase({ path });
      let pages = new SqlitePageStore(db);
      await pages.putVersions([
        page('https://a.test/p', { content: 'guava a', acquiredAt: t1 }),
        page('https://a.test/p', { content: 'guava b', acquiredAt: t2 }),
        page('https://a.test/p', { content: 'guava c', acquiredAt: t1 }),
        page('https://a.test/q', { content: 'guava q', acquiredAt: t1 }),
        page('https://a.test/q', { content: 'guava r', acquiredAt: t2 }),
      ]);
      // What an earlier release stored for a capture of `b` at t1: `b` moved back there, its versions
      // at t1 in the order of their ids, each but the last superseded at t1.
      db.prepare("UPDATE versions SET acquired_at = ?, superseded_at = NULL WHERE content = 'guava b'").run(t1);
      db.prepare("UPDATE versions SET superseded_at = ? WHERE content IN ('guava a', 'guava c')").run(t1);
      db.exec('DROP TABLE captures');
      db.exec('ALTER TABLE versions DROP COLUMN first_searchable');
      withoutMigrationsFrom(db, 20);
      db = reopenAt(db, path, 18);
      pages = new SqlitePageStore(db);
      try {
        const history = await pages.history('https://a.test/p');
        assert.deepEqual(history.map((v) => v.contentHash), history.map((v) => v.contentHash).sort());
        const supersededAt = db.prepare<[number], number | null>('SELECT superseded_at FROM versions WHERE id = ?').pluck();
        assert.deepEqual(history.map((v) => supersededAt.get(v.id)), [t1, t1, null]);
        const other = await pages.history('https://a.test/q');
        assert.deepEqual(other.map((v) => [v.content, supersededAt.get(v.id)]), [['guava q', t2], ['guava r', null]]);
        // The latest (fetch) is what search finds.
        const engine = await new EngineIndexStore(db).open();
        const hits = await engine.search({ terms: ['guava'], limit: 10 });
        assert.deepEqual(hits.map((h) => h.versionId).sort(), [history.at(-1)!.id, other.at(-1)!.id].sort());
        assert.equal((await pages.latest('https://a.test/p'))!.id, history.at(-1)!.id);
        await engine.close();
      } finally {
        db.close();
      }
    } finally {
      dir.remove();
    }
  });
});

describe("migration 20 (descriptions keyed with their host's)", () => {
  test("an older release's versions have no media type until their page is read again with the same content; filetype: reads their URL meanwhile, whose type migration 23 keeps; -filetype:html finds them on migration 24's index", async () => {
    const dir = tempDir();
    try {
      const path = `${dir.path}/old.db`;
      let db = openDatabase({ path });
      const at = Date.parse('2026-01-01T00:00:00Z');
      await new SqlitePageStore(db).putVersions([
        page('https://a.test/pdf/1', { content: 'okapi paper', acquiredAt: at }),
        page('https://a.test/2.pdf', { content: 'okapi file', acquiredAt: at }),
        page('https://a.test/3', { content: 'okapi page', acquiredAt: at }),
      ]);
      withoutMigrationsFrom(db, 22);
      db = reopenAt(db, path, 21);
      try {
        const pages = new SqlitePageStore(db);
        assert.equal(db.prepare('SELECT count(*) FROM versions WHERE media_type IS NULL').pluck().get(), 3);
        const engine = await new EngineIndexStore(db).open();
        const found = async (query: string) => {
          const hits = await engine.search({ terms: [], webql: parseWebql(query), limit: 10 });
          return (await pages.getVersions(hits.map((h) => h.versionId))).map((v) => v.url).sort();
        };
        const pdfs = () => found('okapi filetype:pdf');
        assert.deepEqual(await pdfs(), ['https://a.test/2.pdf']);
        // No web page's type known (the index of migration 24): all three, none by its URL a web page.
        assert.deepEqual(await found('okapi -filetype:html'), ['https://a.test/2.pdf', 'https://a.test/3', 'https://a.test/pdf/1']);
        await pages.putVersion(page('https://a.test/3', { content: 'okapi page', acquiredAt: at + 1000, mediaType: 'text/html' }));
        assert.deepEqual(await found('okapi -filetype:html'), ['https://a.test/2.pdf', 'https://a.test/pdf/1']);
        // A version stored since is looked up anew: the versions kept to are not those of before.
        await pages.putVersion(page('https://a.test/4', { content: 'okapi notes', acquiredAt: at + 1000, mediaType: 'text/plain' }));
        assert.deepEqual(await found('okapi -filetype:html'), ['https://a.test/2.pdf', 'https://a.test/4', 'https://a.test/pdf/1']);
        // Read again, unchanged, as served: the version takes the type; a second read's other type does not replace it.
        const again = await pages.putVersion(page('https://a.test/pdf/1', { content: 'okapi paper', acquiredAt: at + 1000, mediaType: 'application/pdf' }));
        assert.equal(again.status, 'unchanged');
        assert.equal(again.version.mediaType, 'application/pdf');
        await pages.putVersion(page('https://a.test/pdf/1', { content: 'okapi paper', acquiredAt: at + 2000, mediaType: 'text/plain' }));
        assert.equal((await pages.latest('https://a.test/pdf/1'))!.mediaType, 'application/pdf');
        assert.deepEqual(await pdfs(), ['https://a.test/2.pdf', 'https://a.test/pdf/1']);
        await engine.close();
      } finally {
        db.close();
      }
    } finally {
      dir.remove();
    }
  });

  test("an older release's versions are keyed: a site's one description for its pages is found as shared", async () => {
    const dir = tempDir();
    try {
      const path = `${dir.path}/old.db`;
      let db = openDatabase({ path });
      const stored = await new SqlitePageStore(db).putVersions([
        page('https://a.test/1', { content: 'one', description: 'The site of a.' }),
        page('https://a.test/2', { content: 'two', description: 'The site of a.' }),
        page('https://b.test/1', { content: 'three', description: 'The site of a.' }),
        page('https://b.test/2', { content: 'four', description: 'Its own.' }),
      ]);
      withoutMigrationsFrom(db, 20);
      db = reopenAt(db, path, 19);
      try {
        const got = await new SqlitePageStore(db).getVersions(stored.map((o) => idOf(o)));
        assert.deepEqual(got.map((v) => v.sharedDescription ?? false), [true, true, false, false]);
      } finally {
        db.close();
      }
    } finally {
      dir.remove();
    }
  });
});

describe('description marks', () => {
  test('made-up pages stored in any order end with the marks migration 20 gives them, and with the rule read straight off the rows', async () => {
    const dir = tempDir();
    try {
      const path = `${dir.path}/marks.db`;
      let db = openDatabase({ path });
      const pages = new SqlitePageStore(db);
      const random = rng(20);
      const pick = picker(random);
      // Few hosts, descriptions and contents, so that hosts share descriptions and pages are copies.
      const made = Array.from({ length: 400 }, () => {
        const host = pick(['a.test', 'b.test', 'www.a.test', 'c.test']);
        const description = random() < 0.15 ? undefined : pick(['One for all.', 'Its own.', 'Another.', 'News.', 'Kept.']);
        return page(`https://${host}/${Math.floor(random() * 40)}`, {
          title: pick(['T', 'U']),
          content: pick(['A.', 'B.', 'C.', 'D.', 'E.', 'F.']),
          ...(description && { description }),
          acquiredAt: Date.parse('2026-01-01T00:00:00Z') + Math.floor(random() * 50) * 60_000,
        });
      });
      for (let i = 0; i < made.length; i += 37) await pages.putVersions(made.slice(i, i + 37));
      type Row = { id: number; page_id: number; host: string; description: string | null; content_hash: string; description_shared: number };
      const rows = () =>
        db.prepare<[], Row>('SELECT v.id, v.page_id, p.host, v.description, v.content_hash, v.description_shared FROM versions v JOIN pages p ON p.id = v.page_id ORDER BY v.id').all();
      const stored = rows();
      const rule = stored.map((v) =>
        v.description !== null && stored.some((o) => o.host === v.host && o.description === v.description && o.page_id !== v.page_id && o.content_hash !== v.content_hash) ? 1 : 0,
      );
      assert.deepEqual(stored.map((v) => v.description_shared), rule);
      assert.ok(rule.filter((x) => x === 1).length > 50 && rule.filter((x) => x === 0).length > 50, 'both marks among the rows');
      withoutMigrationsFrom(db, 20);
      db = reopenAt(db, path, 19);
      assert.deepEqual(rows().map((v) => v.description_shared), rule);
      db.close();
    } finally {
      dir.remove();
    }
  });
});

describe('sqlite crawl frontier', () => {
  test('due pages: shallowest first, then the longest due; not before next_at; read in index order, not sorted', async () => {
    const { db, close } = sqlite();
    try {
      const frontier = new SqliteCrawlFrontier(db);
      const item = (n: number, depth: number) => ({ url: `https://h${n % 3}.test/p/${n}`, host: `h${n % 3}.test`, depth });
      await frontier.enqueue('c', [item(1, 2), item(2, 1)], 100);
      await frontier.enqueue('c', [item(3, 1), item(4, 0)], 50);
      await frontier.enqueue('c', [item(5, 0)], 300);
      await frontier.enqueue('other', [item(6, 0)], 10);
      assert.deepEqual((await frontier.due('c', 200, 10)).map((d) => d.url.split('/').pop()), ['4', '3', '2', '1']);
      assert.deepEqual((await frontier.due('c', 300, 2)).map((d) => d.url.split('/').pop()), ['4', '5']);
      await frontier.retryLater('c', item(4, 0).url, 1000, 'throttled');
      assert.deepEqual((await frontier.due('c', 300, 10)).map((d) => d.url.split('/').pop()), ['5', '3', '2', '1']);
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${DUE_SQL}`).all('c', 300, 10) as { detail: string }[];
      const details = plan.map((p) => p.detail).join(' | ');
      assert.match(details, /crawl_frontier_pick/);
      assert.doesNotMatch(details, /TEMP B-TREE/, 'a pick does not sort the due rows');
    } finally {
      await close();
    }
  });

  test('a URL found closer takes the lower depth; one done at the maximum depth is queued again afresh; failed and skipped ones stay', async () => {
    const { db, close } = sqlite();
    try {
      const frontier = new SqliteCrawlFrontier(db);
      const item = (n: number, depth: number) => ({ url: `https://h.test/p/${n}`, host: 'h.test', depth });
      assert.equal(await frontier.enqueue('c', [item(1, 3), item(2, 3), item(3, 2), item(4, 3), item(5, 3)], 100, 3), 5);
      await frontier.markDone('c', item(2, 3).url, 150); // done at the maximum: its links were not followed
      await frontier.markDone('c', item(3, 2).url, 150); // done below it: they were
      await frontier.markFailed('c', item(4, 3).url, 'gone');
      await frontier.markSkipped('c', item(5, 3).url, 'robots');
      assert.equal(await frontier.enqueue('c', [item(1, 1), item(2, 1), item(3, 1), item(4, 1), item(5, 1), item(1, 2), item(6, 1)], 200, 3), 1);
      assert.deepEqual(await Promise.all([1, 2, 3, 4, 5, 6].map((n) => frontier.depth('c', item(n, 0).url))), [1, 1, 1, 1, 1, 1]);
      // 1 stays due since 100; 2 is due again from 200, with no validators of the first visit asked for.
      const due = await frontier.due('c', 1000, 10);
      assert.deepEqual(due.map((d) => [d.url.split('/').pop(), d.depth, d.doneAt]), [['1', 1, undefined], ['2', 1, undefined], ['6', 1, undefined]]);
      assert.deepEqual(await frontier.counts('c'), { queued: 3, done: 1, failed: 1, skipped: 1 });
      assert.equal(await frontier.depth('c', 'https://h.test/unknown'), undefined);
    } finally {
      await close();
    }
  });
});
