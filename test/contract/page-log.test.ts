/**
 * Pages shared through PostgreSQL's page log (adapters/postgres/page-log.ts): each "machine" is a
 * SQLite file of its own with a ReplicatedPageStore over one schema.
 */
import assert from 'node:assert/strict';
import { picker, rng } from '../../bench/scifact.js';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { connectPostgres, type PgPool } from '../../src/adapters/postgres/database.js';
import { PgPageLog, ReplicatedPageStore } from '../../src/adapters/postgres/page-log.js';
import { type Db, openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { DiskLowError } from '../../src/core/errors.js';
import type { NewVersion, StoredVersion } from '../../src/ports/page-store.js';
import { type FreshPostgres, freshPostgres, postgresUrl, skipUnless } from '../fixtures/backends.js';
import { relay } from '../fixtures/relay.js';
import { page, tempDir, until } from '../helpers.js';

const at = (day: number) => Date.parse('2026-01-01T00:00:00Z') + day * 86_400_000;
const timeline = (vs: StoredVersion[]) => vs.map((v) => `${new Date(v.acquiredAt).toISOString().slice(0, 10)} ${v.content}`);

describe('pages shared through the PostgreSQL page log', skipUnless(postgresUrl, 'TEST_POSTGRES_URL'), () => {
  let pg: FreshPostgres;
  const dbs: Db[] = [];
  const pools: PgPool[] = [];
  before(async () => {
    pg = await freshPostgres();
  });
  after(async () => {
    for (const db of dbs) db.close();
    for (const p of pools) await p.end();
    await pg?.drop();
  });

  /** A machine: its own SQLite file (in memory) and its own pool on the shared schema; `heldWaitMs` as ReplicatedPageStore's. */
  function machine(db?: Db, heldWaitMs?: number) {
    if (!db) {
      db = openDatabase({ path: ':memory:' });
      dbs.push(db);
    }
    const pool = connectPostgres({ url: postgresUrl!, schema: pg.schema, maxConnections: 3 });
    pools.push(pool);
    const local = new SqlitePageStore(db);
    const errors: string[] = [];
    return { db, local, pool, errors, pages: new ReplicatedPageStore(local, new PgPageLog(pool), (_level, msg, fields) => errors.push(`${msg}: ${JSON.stringify(fields)}`), undefined, heldWaitMs) };
  }

  test("a version stored on one machine is on the others once they sync, and a sync skips the machine's own", async () => {
    const a = machine();
    const b = machine();
    const stored = await a.pages.putVersion(page('https://a.test/otters', { content: 'Otters hold hands.', acquiredAt: at(1), lang: 'en', mediaType: 'text/plain' }));
    assert.equal(stored.status, 'added');
    assert.equal((await a.pages.latest('https://a.test/otters'))!.content, 'Otters hold hands.', 'stored at once where written');
    assert.equal(await b.pages.latest('https://a.test/otters'), undefined, 'not yet synced');
    assert.equal(await b.pages.sync(), 1);
    const synced = (await b.pages.latest('https://a.test/otters'))!;
    assert.deepEqual([synced.content, synced.lang, synced.mediaType], ['Otters hold hands.', 'en', 'text/plain']);
    await b.pages.putVersion(page('https://a.test/otters', { content: 'Otters eat crabs.', acquiredAt: at(2) }));
    assert.equal(await a.pages.sync(), 1, "b's version only: a's own is skipped");
    assert.equal(await b.pages.sync(), 0, "b's own");
    for (const m of [a, b]) assert.deepEqual(timeline(await m.pages.history('https://a.test/otters')), ['2026-01-02 Otters hold hands.', '2026-01-03 Otters eat crabs.']);
    assert.equal(await a.pages.sync(), 0, 'nothing new');
  });

  test('versions written in different orders on different machines end the same everywhere', async () => {
    const a = machine();
    const b = machine();
    const c = machine();
    // The same URL's captures, each machine writing some, out of time order, with a repeat.
    await Promise.all([
      a.pages.putVersions([page('https://b.test/p', { content: 'three', acquiredAt: at(3) }), page('https://b.test/p', { content: 'one', acquiredAt: at(1) })]),
      b.pages.putVersions([page('https://b.test/p', { content: 'two', acquiredAt: at(2) }), page('https://b.test/p', { content: 'three', acquiredAt: at(4) })]),
      c.pages.putVersion(page('https://b.test/p', { content: 'one', acquiredAt: at(0) })),
    ]);
    for (const m of [a, b, c]) await m.pages.sync();
    const expected = ['2026-01-01 one', '2026-01-03 two', '2026-01-04 three'];
    for (const m of [a, b, c]) assert.deepEqual(timeline(await m.pages.history('https://b.test/p')), expected);
  });

  test('made-up captures written on three machines at once, in any order, with syncs between: every file ends with the timelines of one file storing them in time order', async () => {
    const random = rng(13);
    const pick = picker(random);
    const machines = [machine(), machine(), machine()];
    const urls = ['https://m.test/1', 'https://m.test/2', 'https://n.test/1'];
    const written: NewVersion[] = [];
    for (let round = 0; round < 12; round++) {
      await Promise.all(
        machines.map(async (m) => {
          const batch = Array.from({ length: Math.floor(random() * 5) }, () =>
            page(pick(urls), { title: 'T', content: pick(['kiwi', 'mango', 'papaya']), acquiredAt: at(Math.floor(random() * 8)) + pick([0, 0, 500]), searchable: random() < 0.8 }),
          );
          written.push(...batch);
          if (batch.length > 0) await m.pages.putVersions(batch);
          if (random() < 0.5) await m.pages.sync();
        }),
      );
    }
    for (const m of machines) await m.pages.sync();
    const db = openDatabase({ path: ':memory:' });
    dbs.push(db);
    const alone = new SqlitePageStore(db);
    for (const v of [...written].sort((a, b) => a.acquiredAt - b.acquiredAt)) await alone.putVersion(v);
    const lines = async (store: { history(url: string): Promise<StoredVersion[]> }) =>
      Promise.all(urls.map(async (url) => (await store.history(url)).map((v) => `${v.acquiredAt} ${v.content} ${v.searchable}`)));
    const expected = await lines(alone);
    assert.ok(expected.flat().length >= 6, JSON.stringify(expected));
    for (const [k, m] of machines.entries()) assert.deepEqual(await lines(m.pages), expected, `machine ${k}`);
  });

  test('machines appending at once leave no gap; a new machine catches up in pulls of at most 200 rows', async () => {
    const writers = [machine(), machine(), machine()];
    const probe = machine();
    const before = await probe.pages.sync();
    const versionsBefore = (await probe.pages.stats()).versions;
    await Promise.all(
      writers.map((w, k) =>
        Promise.all(Array.from({ length: 10 }, (_, j) => w.pages.putVersions(Array.from({ length: 25 }, (_, i) => page(`https://c.test/${k}/${j}/${i}`))))),
      ),
    );
    const { rows } = await pg.pool.query<{ n: number; lo: number; hi: number }>('SELECT count(*)::int AS n, min(seq) AS lo, max(seq) AS hi FROM page_log');
    assert.equal(rows[0]!.hi - rows[0]!.lo + 1, rows[0]!.n, 'seqs without a gap');
    assert.equal((await new PgPageLog(pools.at(-1)!).after(0, 'another origin')).length, 200, 'one pull');
    // A machine that stops while catching up ends between transactions, not at the end of the log.
    const stopped = machine();
    const catching = stopped.pages.sync();
    await stopped.pages.stop();
    assert.ok((await catching) < before + 750, 'stopped part-way');
    assert.ok(stopped.local.logApplied() < rows[0]!.hi);
    const late = machine();
    assert.equal(await late.pages.sync(), before + 750);
    assert.equal((await late.pages.stats()).versions, versionsBefore + 750);
    assert.equal(late.local.logApplied(), rows[0]!.hi);
  });

  test('a row its own process appended but had not stored (a crash in between) is not skipped: the next process applies it', async () => {
    const db = openDatabase({ path: ':memory:' });
    dbs.push(db);
    const first = machine(db);
    await first.pages.sync();
    const log = new PgPageLog(pools.at(-1)!);
    // Appended under first's origin, never stored in its file: as if it died when the append answered.
    await log.append([page('https://d.test/lost', { content: 'Appended, then the process died.' })], first.pages.origin);
    const position = first.local.logApplied();
    assert.equal(await first.pages.sync(), 0);
    assert.equal(first.local.logApplied(), position, 'the sync stopped before it');
    const next = machine(db);
    assert.equal(await next.pages.sync(), 1);
    assert.equal((await next.pages.latest('https://d.test/lost'))!.content, 'Appended, then the process died.');
  });

  test("a row an older release appended, its URL's escapes written otherwise, is stored under the normal form, as that release's file now keeps the page", async () => {
    const b = machine();
    await b.pages.sync();
    await new PgPageLog(b.pool).append([page('https://d.test/%7eolder/caf%c3%a9', { content: 'Appended by an older release.' })], 'older-release');
    assert.equal(await b.pages.sync(), 1);
    assert.equal((await b.pages.latest('https://d.test/~older/caf%C3%A9'))!.content, 'Appended by an older release.');
    assert.equal(await b.pages.latest('https://d.test/%7eolder/caf%c3%a9'), undefined);
  });

  test('a pull carries at most 16 MiB of content, but always one row', async () => {
    const a = machine();
    const b = machine();
    await b.pages.sync();
    const big = 'x'.repeat(7 * 2 ** 20);
    await a.pages.putVersions([0, 1, 2].map((i) => page(`https://e.test/${i}`, { content: `${i}${big}` })));
    const log = new PgPageLog(pools.at(-1)!);
    const pulled = await log.after(b.local.logApplied(), b.pages.origin);
    assert.equal(pulled.length, 3, 'the third row starts under the limit (14 MiB before it)');
    const huge = 'y'.repeat(20 * 2 ** 20);
    await a.pages.putVersion(page('https://e.test/huge', { content: huge }));
    await a.pages.putVersion(page('https://e.test/after', { content: 'small' }));
    const last = pulled.at(-1)!.seq;
    assert.deepEqual((await log.after(last, b.pages.origin)).map((r) => r.url), ['https://e.test/huge']);
    assert.equal(await b.pages.sync(), 5);
    assert.equal((await b.pages.latest('https://e.test/huge'))!.content.length, huge.length);
  });

  test('what no file could store never reaches the log; a row in it that cannot be stored is left out, not a stop for good', async () => {
    const a = machine();
    const b = machine();
    await b.pages.sync();
    const count = async () => (await pg.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM page_log')).rows[0]!.n;
    const before = await count();
    await assert.rejects(a.pages.putVersions([page('https://f.test/ok'), { ...page('https://f.test/x'), url: 'not a url' }]), TypeError);
    assert.equal(await count(), before, 'nothing appended');
    // Such a row all the same (written by another program): the sync reports it and goes on.
    await new PgPageLog(a.pool).append([{ ...page('https://f.test/x'), url: 'not a url' }, page('https://f.test/after')], 'another program');
    assert.equal(await b.pages.sync(), 2);
    assert.equal((await b.pages.latest('https://f.test/after'))?.url, 'https://f.test/after');
    assert.equal(b.errors.length, 1);
    assert.match(b.errors[0]!, /could not be stored.*Invalid URL/);
    assert.equal(await b.pages.sync(), 0);
  });

  test('a version in the log that its own file could not store (busy) is applied by the next sync', async () => {
    const dir = tempDir();
    try {
      const path = join(dir.path, 'a.db');
      const db = openDatabase({ path });
      dbs.push(db);
      db.pragma('busy_timeout = 50');
      const a = machine(db);
      await a.pages.sync();
      const locker = openDatabase({ path });
      locker.exec('BEGIN EXCLUSIVE');
      try {
        await assert.rejects(a.pages.putVersion(page('https://g.test/busy', { content: 'Stored once the file was free.' })), /locked|busy/);
      } finally {
        locker.exec('ROLLBACK');
        locker.close();
      }
      assert.equal(await a.pages.latest('https://g.test/busy'), undefined);
      assert.equal(await a.pages.sync(), 1);
      assert.equal((await a.pages.latest('https://g.test/busy'))?.content, 'Stored once the file was free.');
    } finally {
      dir.remove();
    }
  });

  test('a machine with less room than is kept (WEBSEARCH_MIN_FREE_DISK_MB) refuses versions before the log, as one machine alone does', async () => {
    const dir = tempDir();
    try {
      const db = openDatabase({ path: join(dir.path, 'low.db') });
      dbs.push(db);
      const pool = connectPostgres({ url: postgresUrl!, schema: pg.schema, maxConnections: 2 });
      pools.push(pool);
      const low = new ReplicatedPageStore(new SqlitePageStore(db, { minFreeBytes: Number.MAX_SAFE_INTEGER }), new PgPageLog(pool));
      const rows = async () => (await pg.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM page_log WHERE url = 'https://u.test/p'")).rows[0]!.n;
      await assert.rejects(low.putVersion(page('https://u.test/p')), DiskLowError);
      assert.equal(await rows(), 0, 'not appended');
    } finally {
      dir.remove();
    }
  });

  test('a removal made on one machine holds on every machine: versions before it in the log go, those after it are refused, until an allow', async () => {
    const [a, b, c] = [machine(), machine(), machine()];
    const url = 'https://r.test/taken-down';
    await a.pages.putVersions([page(url, { content: 'Published by mistake.', acquiredAt: at(1) }), page(url, { content: 'Still up.', acquiredAt: at(2) })]);
    await a.pages.putVersion(page('https://r.test/kept', { content: 'Not removed.' }));
    for (const m of [b, c]) await m.pages.sync();
    assert.equal((await c.pages.history(url)).length, 2);

    const rowsOf = async (u: string) => (await pg.pool.query<{ op: string; content: string }>('SELECT op, content FROM page_log WHERE url = $1 ORDER BY seq', [u])).rows;
    assert.deepEqual(await b.pages.removePages({ urls: [url] }, at(3), 'takedown 7'), { pages: 1, versions: 2, erased: 2 });
    assert.deepEqual((await rowsOf(url)).map((r) => `${r.op} ${r.content}`), ['erased ', 'erased ', `remove ${JSON.stringify({ urls: [url] })}`], "the versions' text erased from the log");
    assert.deepEqual(await b.pages.history(url), [], 'gone at once where the command ran');
    // c captures the page before its sync has reached the removal: after the removal in the log,
    // so every machine refuses it, c too: it stores it only after applying the removal, and says so.
    assert.equal((await c.pages.putVersion(page(url, { content: 'Crawled again.', acquiredAt: at(4) }))).status, 'removed');
    assert.deepEqual(await c.pages.history(url), []);
    for (const m of [a, b, c]) await m.pages.sync();
    for (const m of [a, b, c]) {
      assert.deepEqual(await m.pages.history(url), []);
      assert.equal((await m.pages.latest('https://r.test/kept'))?.content, 'Not removed.');
      assert.deepEqual(await m.pages.removals(), [{ kind: 'url', value: url, removedAt: at(3), reason: 'takedown 7' }]);
      assert.equal((await m.local.putVersion(page(url, { content: 'Refused.' }))).status, 'removed', 'kept out');
    }
    // c's capture, after the removal in the log, was refused by the machines that applied it: its text is erased too.
    assert.deepEqual((await rowsOf(url)).map((r) => r.op), ['erased', 'erased', 'remove', 'erased']);
    // A machine that has applied the removal does not append the page's text to the log at all.
    const outcomes = await a.pages.putVersions([page(url, { content: 'Fetched live.' }), page('https://r.test/new', { content: 'Stored.' })]);
    assert.deepEqual(outcomes.map((o) => o.status), ['removed', 'added']);
    assert.deepEqual((await rowsOf(url)).map((r) => r.op), ['erased', 'erased', 'remove', 'erased']);
    await b.pages.sync();
    assert.equal((await b.pages.latest('https://r.test/new'))?.content, 'Stored.', 'the rest of the batch reaches the others');
    // Each machine's sync says what the removal took from its file.
    const removedLines = (m: { errors: string[] }) => m.errors.filter((e) => e.startsWith('pages removed by the page log')).map((e) => JSON.parse(e.slice(e.indexOf('{'))) as unknown);
    const seq = (removedLines(b)[0] as { seq: number }).seq;
    assert.deepEqual([a, b, c].map(removedLines), [[{ seq, pages: 1, versions: 2 }], [{ seq, pages: 1, versions: 2 }], [{ seq, pages: 1, versions: 2 }]]);

    assert.equal(await a.pages.allowPages({ urls: [url] }), 1);
    assert.equal((await a.pages.putVersion(page(url, { content: 'Allowed again.', acquiredAt: at(5) }))).status, 'added');
    for (const m of [a, b, c]) await m.pages.sync();
    for (const m of [a, b, c]) {
      assert.deepEqual(timeline(await m.pages.history(url)), ['2026-01-06 Allowed again.']);
      assert.deepEqual(await m.pages.removals(), []);
    }
  });

  test("a machine's own capture after a removal and its lifting that its file has not applied yet is stored after them, as everywhere: kept on every machine", async () => {
    const [a, b, c] = [machine(), machine(), machine()];
    const url = 'https://late.test/page';
    await a.pages.putVersion(page(url, { content: 'First.', acquiredAt: at(1) }));
    for (const m of [b, c]) await m.pages.sync();
    await b.pages.removePages({ urls: [url] }, at(2));
    await b.pages.allowPages({ urls: [url] });
    // c has applied neither when it captures the page again (and another page of the same batch).
    const outcomes = await c.pages.putVersions([page(url, { content: 'Captured after the allow.', acquiredAt: at(3) }), page('https://late.test/other', { content: 'Untouched.' })]);
    assert.deepEqual(outcomes.map((o) => o.status), ['added', 'added']);
    assert.equal(outcomes[0]!.status === 'added' && outcomes[0]!.version.content, 'Captured after the allow.');
    for (const m of [a, b, c]) await m.pages.sync();
    for (const m of [a, b, c]) {
      assert.deepEqual(timeline(await m.pages.history(url)), ['2026-01-04 Captured after the allow.'], 'the removal took the first, the capture after the allow stays');
      assert.equal((await m.pages.latest('https://late.test/other'))?.content, 'Untouched.');
    }
    // The same capture when the log has only the removal: refused by c, as by the others, and its text erased.
    await b.pages.removePages({ urls: [url] }, at(4));
    assert.equal((await c.pages.putVersion(page(url, { content: 'Captured after the removal.', acquiredAt: at(5) }))).status, 'removed');
    for (const m of [a, b, c]) await m.pages.sync();
    for (const m of [a, b, c]) assert.deepEqual(await m.pages.history(url), []);
    const last = await pg.pool.query<{ op: string }>('SELECT op FROM page_log WHERE url = $1 ORDER BY seq DESC LIMIT 1', [url]);
    assert.deepEqual(last.rows, [{ op: 'erased' }]);
  });

  test('a capture held for a sync that is catching up on a long log fails after a while rather than wait for it; the sync stores it in its place', async () => {
    const [a, b] = [machine(), machine()];
    const c = machine(undefined, 50).pages;
    await c.sync(); // c is at the log's end, then falls behind by 3,000 rows
    for (let k = 0; k < 6; k++) await a.pages.putVersions(Array.from({ length: 500 }, (_, i) => page(`https://long.test/${k}/${i}`)));
    const url = 'https://long.test/taken-down';
    await b.pages.removePages({ urls: [url] }, at(1));
    await b.pages.allowPages({ urls: [url] });
    await assert.rejects(c.putVersion(page(url, { content: 'Captured while catching up.', acquiredAt: at(2) })), /has not applied the page log up to its row \d+ within 50 ms \(it is catching up\)/);
    while ((await c.sync()) > 0);
    for (const m of [a.pages, b.pages, c]) {
      await m.sync();
      assert.deepEqual(timeline(await m.history(url)), ['2026-01-03 Captured while catching up.']);
    }
    await c.stop();
  });

  test("a site's removal on every machine, its subdomains with it; a file that has applied the log past the removal (another process of the machine did) does not apply it again", async () => {
    const [a, b] = [machine(), machine()];
    await a.pages.putVersions([
      page('https://s.test/one'),
      page('https://docs.s.test/two'),
      page('https://s.test/three', { acquiredAt: at(1) }),
      page('https://s.test/three', { content: 'later', acquiredAt: at(2) }),
      page('https://mys.test/other'),
    ]);
    await b.pages.sync();
    // One URL of the site named too: counted once, with the site.
    assert.deepEqual(await a.pages.removePages({ urls: ['https://s.test/one'], site: 's.test' }, at(3)), { pages: 3, versions: 4, erased: 4 });
    const other = await pg.pool.query<{ op: string }>("SELECT op FROM page_log WHERE url = 'https://mys.test/other'");
    assert.deepEqual(other.rows, [{ op: 'put' }], 'another site whose name ends alike keeps its text');
    await b.pages.sync();
    for (const m of [a, b]) {
      assert.equal(await m.pages.latest('https://docs.s.test/two'), undefined);
      assert.equal(await m.pages.latest('https://s.test/three'), undefined);
      assert.notEqual(await m.pages.latest('https://mys.test/other'), undefined, 'another site whose name ends alike');
      const ofThisTest = (await m.pages.removals()).filter((r) => r.value.includes('s.test'));
      assert.deepEqual(
        ofThisTest.map((r) => `${r.kind} ${r.value}`),
        ['site s.test', 'url https://s.test/one'],
      );
    }
    const seq = Number(/"seq":(\d+),"pages":3/.exec(a.errors.join('\n'))![1]);
    assert.equal(await a.pages.allowPages({ urls: [], site: 's.test' }), 1, 'the site; the URL stays removed');
    await b.pages.sync();
    assert.deepEqual((await b.pages.removals()).map((r) => r.value).filter((v) => v.includes('s.test')), ['https://s.test/one']);
    assert.equal((await b.pages.putVersion(page('https://docs.s.test/two'))).status, 'added');
    // A second process of b's machine (a command beside its server) that read the removal's row
    // before b's sync applied it, and the allow after it, applies it late: nothing changes.
    assert.equal(await b.local.applyRemoval({ op: 'remove', removal: { urls: ['https://s.test/one'], site: 's.test' }, at: at(3) }, seq), undefined);
    assert.notEqual(await b.pages.latest('https://docs.s.test/two'), undefined);
    assert.deepEqual((await b.pages.removals()).map((r) => r.value).filter((v) => v.includes('s.test')), ['https://s.test/one']);
  });

  test('a database away: one line when the syncs start failing, one when they resume, and the pages come', async () => {
    const cut = await relay(new URL(postgresUrl!));
    const db = openDatabase({ path: ':memory:' });
    dbs.push(db);
    const url = new URL(postgresUrl!);
    url.port = String(cut.port);
    const pool = connectPostgres({ url: url.toString(), schema: pg.schema, maxConnections: 2 });
    pools.push(pool);
    const lines: string[] = [];
    // The sync's own state only (an earlier test's bad row is reported too, once).
    const pages = new ReplicatedPageStore(new SqlitePageStore(db), new PgPageLog(pool), (level, msg) => {
      if (/pages (not )?synced/.test(msg)) lines.push(`${level} ${msg}`);
    });
    try {
      await pages.sync();
      pages.start(20);
      await cut.cut();
      await sleep(400);
      assert.deepEqual(lines, ['error pages not synced from the shared page log'], 'one line for some twenty failed syncs');
      await machine().pages.putVersion(page('https://h.test/back', { content: 'Written while the other machine could not reach the database.' }));
      await cut.restore();
      await until('the syncs resume', () => lines.length === 2);
      assert.equal(lines[1], 'info pages synced from the shared page log again');
      await until('the page arrives', async () => (await pages.latest('https://h.test/back')) !== undefined);
    } finally {
      await pages.stop();
      await cut.cut();
    }
  });
});

describe('pruning the page log', skipUnless(postgresUrl, 'TEST_POSTGRES_URL'), () => {
  /** Machines over a schema of their own (a prune concerns every reader of the log), closed after `body`. */
  async function withLog(body: (l: { machine: (reportEveryMs?: number) => Machine; seqs: () => Promise<number[]>; log: PgPageLog; pool: PgPool }) => Promise<void>) {
    const pg = await freshPostgres();
    const dbs: Db[] = [];
    const pools: PgPool[] = [];
    const stores: ReplicatedPageStore[] = [];
    const machine = (reportEveryMs = 0): Machine => {
      const db = openDatabase({ path: ':memory:' });
      dbs.push(db);
      const pool = connectPostgres({ url: postgresUrl!, schema: pg.schema, maxConnections: 3 });
      pools.push(pool);
      const local = new SqlitePageStore(db);
      const said: string[] = [];
      // Reporting at every sync unless told (a serving machine reports every 30 s).
      const pages = new ReplicatedPageStore(local, new PgPageLog(pool), (level, msg, details) => said.push(level === 'warn' ? `${level} ${msg} ${JSON.stringify(details)}` : `${level} ${msg}`), reportEveryMs);
      stores.push(pages);
      return { db, local, pages, said };
    };
    const seqs = async () => (await pg.pool.query<{ seq: number }>('SELECT seq FROM page_log ORDER BY seq')).rows.map((r) => r.seq);
    try {
      await body({ machine, seqs, log: new PgPageLog(pg.pool), pool: pg.pool });
    } finally {
      // A test that failed before stopping its machines: their timers stop before the pools end.
      for (const pages of stores) await pages.stop();
      for (const db of dbs) db.close();
      for (const p of pools) await p.end();
      await pg.drop();
    }
  }
  interface Machine {
    db: Db;
    local: SqlitePageStore;
    pages: ReplicatedPageStore;
    said: string[];
  }
  const lately = () => Date.now() - 86_400_000;

  test('deletes what every machine seen lately has applied, and no more; seqs go on after the pruned rows', () =>
    withLog(async ({ machine, seqs, log }) => {
      const a = machine();
      const b = machine();
      await a.pages.putVersions([1, 2, 3].map((d) => page('https://p.test/a', { content: `v${d}`, acquiredAt: at(d) })));
      // Each sync says where its file stood as it began: twice, and both have said they applied all three.
      for (const m of [a, b, a, b]) await m.pages.sync();
      const c = machine();
      await c.pages.sync(); // c said 0, then applied the three
      assert.deepEqual(await log.prune(lately()), { floor: 0, deleted: 0, readers: 3, forgotten: 0 }, 'c had not said it applied them');
      await c.pages.sync();
      assert.deepEqual(await log.prune(lately()), { floor: 3, deleted: 3, readers: 3, forgotten: 0 });
      assert.deepEqual(await seqs(), []);
      // The log is empty, but a seq is never given twice: the next row comes after the pruned ones.
      await a.pages.putVersion(page('https://p.test/a', { content: 'v4', acquiredAt: at(4) }));
      assert.deepEqual(await seqs(), [4]);
      assert.equal(await b.pages.sync(), 1);
      assert.deepEqual(timeline(await b.pages.history('https://p.test/a')), ['2026-01-02 v1', '2026-01-03 v2', '2026-01-04 v3', '2026-01-05 v4']);
      for (const m of [a, b, c]) assert.deepEqual(m.said, [], m.said.join('; '));
    }));

  test("startPruning: serve's daily prune (WEBSEARCH_SHARE_PRUNE_DAYS) prunes as share prune does, soon after it starts and at every interval, and says so", () =>
    withLog(async ({ machine, seqs }) => {
      const a = machine();
      const b = machine();
      await a.pages.putVersions([1, 2, 3].map((d) => page('https://s.test/a', { content: `v${d}`, acquiredAt: at(d) })));
      for (const m of [a, b, a, b]) await m.pages.sync();
      a.pages.startPruning(40, 86_400_000);
      // The rows are gone once the prune commits; it says so once its answer is back, a moment later
      // (under load, after a look at the log had found them gone: the flake of b3659cd).
      await until('the rows both machines applied are pruned, and the prune has said so', async () => (await seqs()).length === 0 && a.said.length > 0);
      assert.deepEqual(a.said, ['info page log pruned']);
      // Rows that b has not applied stay, however many prunes pass.
      await a.pages.putVersion(page('https://s.test/a', { content: 'v4', acquiredAt: at(4) }));
      for (let i = 0; i < 2; i++) await a.pages.sync();
      await sleep(200);
      assert.deepEqual(await seqs(), [4]);
      // Once b has said it applied them, the next prune takes them.
      for (let i = 0; i < 2; i++) await b.pages.sync();
      await until('the row is pruned, and the prune has said so', async () => (await seqs()).length === 0 && a.said.length > 1);
      assert.deepEqual(a.said, ['info page log pruned', 'info page log pruned']);
      await a.pages.stop();
      assert.deepEqual(b.said, []);
    }));

  test('a new machine, or one away longer than the prune allowed for, is told once that it is behind and applies nothing', () =>
    withLog(async ({ machine, seqs, log, pool }) => {
      const a = machine();
      const away = machine();
      // One that reported at its first sync and not since (its next report is an hour off).
      const quiet = machine(3_600_000);
      await a.pages.putVersion(page('https://q.test/a', { content: 'one', acquiredAt: at(1) }));
      for (const m of [a, away, quiet, a, away]) await m.pages.sync();
      await a.pages.putVersion(page('https://q.test/a', { content: 'two', acquiredAt: at(2) }));
      await a.pages.sync();
      await a.pages.sync();
      // `away` stops syncing; a day later its place is old news.
      await pool.query('UPDATE page_log_readers SET seen_at = 0 WHERE id = ANY($1)', [[away.local.logReader(), quiet.local.logReader()]]);
      assert.deepEqual(await log.prune(lately()), { floor: 2, deleted: 2, readers: 1, forgotten: 2 });
      assert.deepEqual(await seqs(), []);
      await a.pages.putVersion(page('https://q.test/a', { content: 'three', acquiredAt: at(3) }));
      // Not due to report, it finds the rows after its place gone: the first it is given is past the next.
      assert.equal(await quiet.pages.sync(), 0);
      assert.equal(await quiet.pages.sync(), 0);
      assert.deepEqual(quiet.said, ["error this machine's pages are behind the pruned page log: it cannot catch up from it; start it from a copy of another machine's data folder"]);
      assert.deepEqual(timeline(await quiet.pages.history('https://q.test/a')), ['2026-01-02 one']);
      const fresh = machine();
      for (const m of [away, fresh]) {
        assert.equal(await m.pages.sync(), 0);
        assert.equal(await m.pages.sync(), 0);
        assert.deepEqual(m.said, ["error this machine's pages are behind the pruned page log: it cannot catch up from it; start it from a copy of another machine's data folder"]);
      }
      assert.equal(await fresh.pages.latest('https://q.test/a'), undefined);
      // Behind, they do not hold pruning back: they were not recorded as readers.
      const { rows } = await pool.query<{ id: string }>('SELECT id FROM page_log_readers');
      assert.ok(!rows.some((r) => r.id === away.local.logReader() || r.id === fresh.local.logReader()));
    }));

  test('a removal from a machine whose file cannot apply the log up to it fails there, saying so; it is in the log for the others', () =>
    withLog(async ({ machine, log }) => {
      const a = machine();
      await a.pages.putVersion(page('https://t.test/p'));
      await a.pages.sync();
      await a.pages.sync();
      assert.equal((await log.prune(lately())).deleted, 1);
      const fresh = machine(); // an empty file: behind the pruned log
      await assert.rejects(fresh.pages.removePages({ urls: ['https://t.test/p'] }, at(1)), /could not apply the page log up to its row 2 \(it stays at 0;/);
      assert.deepEqual(fresh.said, ["error this machine's pages are behind the pruned page log: it cannot catch up from it; start it from a copy of another machine's data folder"]);
      // Its capture of the page, which it may store only after the removal: in the log, not here, and it says so.
      await assert.rejects(fresh.pages.putVersion(page('https://t.test/p', { content: 'Captured anew.' })), /could not apply the page log up to its row 3 \(it stays at 0;/);
      assert.equal(await fresh.pages.latest('https://t.test/p'), undefined);
      await a.pages.sync();
      assert.equal(await a.pages.latest('https://t.test/p'), undefined, 'the capture after the removal is refused');
      assert.deepEqual((await a.pages.removals()).map((r) => r.value), ['https://t.test/p']);
    }));

  test('a copy of a data folder reports under its own name once it falls behind the folder it was copied from', () =>
    withLog(async ({ machine, pool }) => {
      const a = machine();
      await a.pages.putVersions([1, 2].map((d) => page('https://r.test/a', { content: `v${d}`, acquiredAt: at(d) })));
      await a.pages.sync();
      await a.pages.sync();
      const copy = machine();
      copy.db.prepare('UPDATE page_log_reader SET id = ?').run(a.local.logReader());
      assert.equal(await copy.pages.sync(), 2, 'the copy catches up');
      assert.notEqual(copy.local.logReader(), a.local.logReader(), 'it reported 0 under a name that had said more: it took its own');
      assert.deepEqual(copy.said, ["info this data folder is a copy of another machine's; it now reports its place in the page log as its own"]);
      const { rows } = await pool.query<{ id: string; applied: number }>('SELECT id, applied FROM page_log_readers WHERE id = ANY($1) ORDER BY applied', [[a.local.logReader(), copy.local.logReader()]]);
      assert.deepEqual(rows.map((r) => r.id === a.local.logReader() ? 'a' : 'copy'), ['copy', 'a']);
    }));
});
