import { createHash, randomBytes } from 'node:crypto';
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { DiskLowError, isDiskFull } from '../../core/errors.js';
import { nearFingerprint } from '../../core/near-duplicate.js';
import { buildPassages, PASSAGE_INDEX_MIN, PASSAGES_FORMAT, SCAN_LIMIT } from '../../core/passages.js';
import { hostOfReversed, reversedSiteRange, reverseHost, urlFileType } from '../../core/url.js';
import type { NewVersion, PageStore, PutOutcome, Removal, Removed, ResultVersion, StoredVersion } from '../../ports/page-store.js';
import { type Db, descriptionKey } from './database.js';

interface VersionRow {
  id: number;
  url: string;
  host: string;
  acquired_at: number;
  published_at: number | null;
  title: string | null;
  description: string | null;
  author: string | null;
  content: string;
  content_hash: string;
  searchable: number;
  lang: string | null;
  media_type: string | null;
}

/** A result's columns, in the order `byIds` selects them: read as arrays (`raw`), not objects with a key per column, which cost more to build. */
type ResultRow = [
  id: number,
  url: string,
  acquiredAt: number,
  publishedAt: number | null,
  title: string | null,
  description: string | null,
  content: string,
  passages: Buffer | null,
  sharedDescription: number,
  near: Buffer | null,
  mediaType: string | null,
];

/** Versions given a passage index, or a near-duplicate fingerprint, per transaction by `fillDerived`. */
const PASSAGE_BATCH = 200;

const toBlob = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null);

/** What a version stores derived from its content, made before the write transaction. */
interface Derived {
  passages: Uint8Array | undefined;
  /** Empty: the text is too short for one (`nearFingerprint`). */
  near: Buffer;
}

/** A content's fingerprint as stored: empty when it is too short for one. */
const fingerprintBlob = (near: Uint8Array | undefined) => toBlob(near) ?? Buffer.alloc(0);

/** A version's `Derived`: the passage index and fingerprint a reader thread made already, or made here. */
function derive(v: NewVersion): Derived {
  return { passages: v.passages ?? buildPassages(v.content), near: fingerprintBlob(v.near ?? nearFingerprint(v.content)) };
}

/** A version's content up to the part snippets read (SCAN_LIMIT; SQLite counts code points, so at least as many UTF-16 units). */
const SCANNED_CONTENT = `CASE WHEN octet_length(content) > ${SCAN_LIMIT} THEN substr(content, 1, ${SCAN_LIMIT}) ELSE content END`;

/** Versions read by one statement (a search shows ten results by default). */
const IDS_PER_READ = 10;

const VERSION_COLUMNS = `v.id, p.url, p.host, v.acquired_at, v.published_at, v.title, v.description, v.author,
  v.content, v.content_hash, v.searchable, v.lang, v.media_type`;

function toVersion(row: VersionRow): StoredVersion {
  return withOptionalColumns(
    {
      id: row.id,
      url: row.url,
      host: row.host,
      content: row.content,
      acquiredAt: row.acquired_at,
      contentHash: row.content_hash,
      searchable: row.searchable === 1,
    },
    row,
  );
}

/** A version row's optional columns (null in the row: left out), as the file and the shared page log name them. */
export interface OptionalColumns {
  title: string | null;
  description: string | null;
  author: string | null;
  published_at: number | null;
  lang: string | null;
  media_type: string | null;
}

/** Sets on `v` the optional fields a row holds; answers `v`. */
export function withOptionalColumns<V extends NewVersion>(v: V, row: OptionalColumns): V {
  if (row.title !== null) v.title = row.title;
  if (row.description !== null) v.description = row.description;
  if (row.author !== null) v.author = row.author;
  if (row.published_at !== null) v.publishedAt = row.published_at;
  if (row.lang !== null) v.lang = row.lang;
  if (row.media_type !== null) v.mediaType = row.media_type;
  return v;
}

/** Hash of everything a reader sees, so a metadata change is a new version too. */
export function contentHash(v: NewVersion): string {
  const h = createHash('sha256');
  for (const part of [v.title, v.description, v.author, v.publishedAt?.toString(), v.content]) {
    h.update(part ?? '');
    h.update('\u0000');
  }
  return h.digest('hex');
}

/** Pages a removal deletes per transaction (`removePages`). */
const REMOVE_PAGES = 1_000;

export interface SqlitePageStoreOptions {
  /**
   * Versions are stored only while the database's disk has this many bytes free (DiskLowError
   * otherwise; WEBSEARCH_MIN_FREE_DISK_MB): the room left is kept for what requests must write.
   * 0 (the default): stored while they fit.
   */
  minFreeBytes?: number;
}

export class SqlitePageStore implements PageStore {
  private readonly stmts;
  private readonly minFreeBytes: number;
  /** The folder of the database file (undefined in memory), whose disk `assertRoom` asks about. */
  private readonly dir: string | undefined;

  constructor(
    private readonly db: Db,
    options: SqlitePageStoreOptions = {},
  ) {
    this.minFreeBytes = options.minFreeBytes ?? 0;
    this.dir = db.memory ? undefined : dirname(db.name);
    this.stmts = {
      pageByUrl: db.prepare<[string], { id: number; host: string }>('SELECT id, host FROM pages WHERE url = ?'),
      // Removals (removePages): checked on every store once any is in force.
      anyRemoved: db.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM removed)').pluck(),
      urlRemoved: db.prepare<[string], number>("SELECT 1 FROM removed WHERE kind = 'url' AND key = ?").pluck(),
      siteRemoved: db.prepare<[string], number>("SELECT 1 FROM removed WHERE kind = 'site' AND substr(?, 1, length(key)) = key LIMIT 1").pluck(),
      remove: db.prepare<[string, string, number, string | null]>('INSERT OR REPLACE INTO removed (kind, key, removed_at, reason) VALUES (?, ?, ?, ?)'),
      allow: db.prepare<[string, string]>('DELETE FROM removed WHERE kind = ? AND key = ?'),
      removals: db.prepare<[], { kind: 'url' | 'site'; key: string; removed_at: number; reason: string | null }>(
        'SELECT kind, key, removed_at, reason FROM removed ORDER BY removed_at DESC, kind, key',
      ),
      // What a removal would take (`heldOf`): a page's versions, and a site's pages and versions.
      pageVersions: db.prepare<[number], number>('SELECT count(*) FROM versions WHERE page_id = ?').pluck(),
      siteHeld: db.prepare<[string, string], { pages: number; versions: number }>(
        'SELECT count(*) AS pages, coalesce(sum((SELECT count(*) FROM versions v WHERE v.page_id = p.id)), 0) AS versions FROM pages p WHERE rev_host >= ? AND rev_host < ?',
      ),
      removedKey: db.prepare<[string, string], number>('SELECT count(*) FROM removed WHERE kind = ? AND key = ?').pluck(),
      // A site's pages: rev_host in its range (`reversedSiteRange`), by its index.
      sitePages: db.prepare<[string, string, number], { id: number; url: string }>('SELECT id, url FROM pages WHERE rev_host >= ? AND rev_host < ? LIMIT ?'),
      dropCaptures: db.prepare<[number]>('DELETE FROM captures WHERE version_id IN (SELECT id FROM versions WHERE page_id = ?)'),
      dropVersions: db.prepare<[number]>('DELETE FROM versions WHERE page_id = ?'),
      dropPage: db.prepare<[number]>('DELETE FROM pages WHERE id = ?'),
      dropValidators: db.prepare<[string]>('DELETE FROM fetch_validators WHERE url = ?'),
      insertPage: db.prepare<[string, string, string, string | null]>('INSERT INTO pages (url, host, rev_host, url_type) VALUES (?, ?, ?, ?)'),
      // A page's versions in timeline order: by time, then content hash (`putOne`).
      atOrBefore: db.prepare<[number, number, number, string], VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM versions v JOIN pages p ON p.id = v.page_id
         WHERE v.page_id = ? AND (v.acquired_at < ? OR (v.acquired_at = ? AND v.content_hash <= ?))
         ORDER BY v.acquired_at DESC, v.content_hash DESC LIMIT 1`,
      ),
      after: db.prepare<[number, number, number, string], VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM versions v JOIN pages p ON p.id = v.page_id
         WHERE v.page_id = ? AND (v.acquired_at > ? OR (v.acquired_at = ? AND v.content_hash > ?))
         ORDER BY v.acquired_at ASC, v.content_hash ASC LIMIT 1`,
      ),
      insertVersion: db.prepare(
        `INSERT INTO versions (page_id, acquired_at, superseded_at, published_at, title, description, author,
           content, content_hash, searchable, first_searchable, lang, passages, description_key, description_shared, near_fingerprint, media_type)
         VALUES (@pageId, @acquiredAt, @supersededAt, @publishedAt, @title, @description, @author, @content, @hash, @searchable, @searchable, @lang, @passages,
           @descriptionKey, @descriptionShared, @near, @mediaType)`,
      ),
      // A version's later captures start a copy of it at the first of them (`putOne`).
      copyVersion: db.prepare<[number, number, number, number]>(
        `INSERT INTO versions (page_id, acquired_at, superseded_at, published_at, title, description, author,
           content, content_hash, searchable, first_searchable, lang, passages, description_key, description_shared, near_fingerprint, media_type)
         SELECT page_id, ?, superseded_at, published_at, title, description, author, content, content_hash, ?, ?, lang, passages, description_key,
           description_shared, near_fingerprint, media_type
         FROM versions WHERE id = ?`,
      ),
      // Another page of the host, of other content, with the description of key ? (migration 20).
      descriptionPartner: db.prepare<[number, number, string]>(
        'SELECT 1 FROM versions WHERE description_key = ? AND page_id != ? AND content_hash != ? LIMIT 1',
      ),
      // Those pages' versions not yet marked: they have a partner now (the version being stored).
      shareDescription: db.prepare<[number, number, string]>(
        'UPDATE versions SET description_shared = 1 WHERE description_key = ? AND description_shared = 0 AND page_id != ? AND content_hash != ?',
      ),
      // A capture stored again is searchable when either was.
      addCapture: db.prepare<[number, number, number]>(
        'INSERT INTO captures (version_id, at, searchable) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET searchable = max(searchable, excluded.searchable)',
      ),
      firstMadeSearchable: db.prepare<[number]>('UPDATE versions SET first_searchable = 1 WHERE id = ?'),
      capturesFrom: db.prepare<[number, number], { at: number; searchable: number }>('SELECT at, searchable FROM captures WHERE version_id = ? AND at >= ? ORDER BY at'),
      moveCaptures: db.prepare<[number, number, number]>('UPDATE captures SET version_id = ? WHERE version_id = ? AND at >= ?'),
      dropCapture: db.prepare<[number, number]>('DELETE FROM captures WHERE version_id = ? AND at = ?'),
      firstSearchable: db.prepare<[number], number>('SELECT coalesce(first_searchable, searchable) FROM versions WHERE id = ?').pluck(),
      anyCaptureSearchable: db.prepare<[number], number>('SELECT count(*) FROM captures WHERE version_id = ? AND searchable = 1').pluck(),
      setSearchable: db.prepare<[number, number]>('UPDATE versions SET searchable = ? WHERE id = ?'),
      setFirst: db.prepare<[number, number, number]>('UPDATE versions SET acquired_at = ?, first_searchable = ? WHERE id = ?'),
      supersede: db.prepare<[number, number]>('UPDATE versions SET superseded_at = ? WHERE id = ?'),
      fillLang: db.prepare<[string, number]>('UPDATE versions SET lang = ? WHERE id = ? AND lang IS NULL'),
      fillMediaType: db.prepare<[string, number]>('UPDATE versions SET media_type = ? WHERE id = ? AND media_type IS NULL'),
      latest: db.prepare<[string], VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM versions v JOIN pages p ON p.id = v.page_id
         WHERE p.url = ? ORDER BY v.acquired_at DESC, v.content_hash DESC LIMIT 1`,
      ),
      history: db.prepare<[string], VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM versions v JOIN pages p ON p.id = v.page_id
         WHERE p.url = ? ORDER BY v.acquired_at ASC, v.content_hash ASC`,
      ),
      // Only the part of the content a snippet reads (SCAN_LIMIT characters: SQLite counts code
      // points, so at least as many UTF-16 units): ten 5 MB results read and their snippets made in
      // 9 ms instead of 63 (bench:hostile). octet_length does not read the text, so a short page costs no substr.
      byIds: db
        .prepare<number[], ResultRow>(
          `SELECT v.id, p.url, v.acquired_at, v.published_at, v.title, v.description,
             ${SCANNED_CONTENT}, v.passages,
             v.description_shared, v.near_fingerprint, v.media_type
           FROM versions v JOIN pages p ON p.id = v.page_id WHERE v.id IN (${Array(IDS_PER_READ).fill('?').join(', ')})`,
        )
        .raw(),
      byId: db.prepare<[number], VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM versions v JOIN pages p ON p.id = v.page_id WHERE v.id = ?`,
      ),
      // An index's first four bytes are its format, little-endian.
      missingPassages: db.prepare<[number, number, Buffer], { id: number; content: string }>(
        `SELECT id, content FROM versions WHERE id > ? AND length(content) >= ?
           AND (passages IS NULL OR substr(passages, 1, 4) != ?) ORDER BY id LIMIT ${PASSAGE_BATCH}`,
      ),
      setPassages: db.prepare<[Buffer | null, number]>('UPDATE versions SET passages = ? WHERE id = ?'),
      // Versions stored before fingerprints (migration 21), on its partial index.
      missingNear: db.prepare<[number], { id: number; content: string }>(
        `SELECT id, ${SCANNED_CONTENT} AS content
         FROM versions WHERE near_fingerprint IS NULL AND id > ? ORDER BY id LIMIT ${PASSAGE_BATCH}`,
      ),
      anyMissingNear: db.prepare<[], number>('SELECT 1 FROM versions WHERE near_fingerprint IS NULL LIMIT 1').pluck(),
      setNear: db.prepare<[Buffer, number]>('UPDATE versions SET near_fingerprint = ? WHERE id = ?'),
      passagesFilled: db.prepare<[], number>('SELECT format FROM passages_filled').pluck(),
      setPassagesFilled: db.prepare<[number]>('UPDATE passages_filled SET format = ?'),
      logApplied: db.prepare<[], number>('SELECT seq FROM page_log_applied').pluck(),
      setLogApplied: db.prepare<[number]>('UPDATE page_log_applied SET seq = max(seq, ?)'),
      logReader: db.prepare<[], string>('SELECT id FROM page_log_reader').pluck(),
      setLogReader: db.prepare<[string]>('UPDATE page_log_reader SET id = ?'),
      counts: db.prepare<[], { pages: number; versions: number }>(
        'SELECT (SELECT count(*) FROM pages) AS pages, (SELECT count(*) FROM versions) AS versions',
      ),
    };
  }

  /**
   * Stores a capture at its place in the URL's timeline. The timeline is the captures', whatever
   * order they come in: in order of time, then content hash (captures at one instant), each run of
   * one content is a version, from its first capture until the next run's first (`superseded_at`),
   * searchable when one of its captures was; a version's later captures are kept (`captures`), so a
   * capture stored later can come between them.
   */
  private putOne(v: NewVersion, { passages, near }: Derived, removals: boolean): PutOutcome {
    const s = this.stmts;
    if (removals && this.isRemoved(v.url)) return { status: 'removed' };
    const hash = contentHash(v);
    const t = v.acquiredAt;
    const searchable = v.searchable ? 1 : 0;
    let page = s.pageByUrl.get(v.url);
    if (!page) {
      const host = new URL(v.url).hostname;
      const info = s.insertPage.run(v.url, host, reverseHost(host), urlFileType(v.url) ?? null);
      page = { id: Number(info.lastInsertRowid), host };
    }
    const prev = s.atOrBefore.get(page.id, t, t, hash);
    if (prev && prev.content_hash === hash) {
      // A capture of the run it falls in: one more of its captures (none when it is the first again).
      if (prev.acquired_at !== t) s.addCapture.run(prev.id, t, searchable);
      else if (v.searchable) s.firstMadeSearchable.run(prev.id);
      if (v.searchable && prev.searchable === 0) s.setSearchable.run(1, prev.id);
      if (v.lang !== undefined && prev.lang === null) s.fillLang.run(v.lang, prev.id);
      if (v.mediaType !== undefined && prev.media_type === null) s.fillMediaType.run(v.mediaType, prev.id);
      return {
        status: 'unchanged',
        version: toVersion({ ...prev, searchable: prev.searchable | searchable, media_type: prev.media_type ?? v.mediaType ?? null }),
      };
    }
    let next = s.after.get(page.id, t, t, hash);
    if (prev) {
      // The run before has captures after this one: they go on as a copy of it, from the first of them.
      const later = s.capturesFrom.all(prev.id, prev.content_hash > hash ? t : t + 1);
      if (later.length > 0) {
        const first = later[0]!;
        const moved = later.some((c) => c.searchable === 1) ? 1 : 0;
        const copy = Number(s.copyVersion.run(first.at, moved, first.searchable, prev.id).lastInsertRowid);
        s.moveCaptures.run(copy, prev.id, first.at + 1);
        s.dropCapture.run(prev.id, first.at);
        const kept = s.firstSearchable.get(prev.id) === 1 || s.anyCaptureSearchable.get(prev.id)! > 0 ? 1 : 0;
        if (kept !== prev.searchable) s.setSearchable.run(kept, prev.id);
        next = s.byId.get(copy);
      }
    }
    if (next && next.content_hash === hash) {
      // The first capture of the run after: that run starts here, its old first one of its captures.
      s.addCapture.run(next.id, next.acquired_at, s.firstSearchable.get(next.id)!);
      s.setFirst.run(t, searchable, next.id);
      if (prev) s.supersede.run(t, prev.id);
      if (v.searchable && next.searchable === 0) s.setSearchable.run(1, next.id);
      return { status: 'unchanged', version: toVersion({ ...next, acquired_at: t, searchable: next.searchable | searchable }) };
    }
    // Whether another page of the host, of other content, holds its description; if so, that page holds
    // this one's now: versions of one description are marked on the index as the second page comes.
    const key = v.description === undefined ? null : descriptionKey(page.host, v.description);
    const shared = key !== null && s.descriptionPartner.get(key, page.id, hash) !== undefined;
    if (shared) s.shareDescription.run(key, page.id, hash);
    const info = s.insertVersion.run({
      pageId: page.id,
      acquiredAt: t,
      supersededAt: next ? next.acquired_at : null,
      publishedAt: v.publishedAt ?? null,
      title: v.title ?? null,
      description: v.description ?? null,
      author: v.author ?? null,
      content: v.content,
      hash,
      searchable,
      lang: v.lang ?? null,
      mediaType: v.mediaType ?? null,
      passages: toBlob(passages),
      descriptionKey: key,
      descriptionShared: shared ? 1 : 0,
      near,
    });
    if (prev) s.supersede.run(t, prev.id);
    const id = Number(info.lastInsertRowid);
    return { status: 'added', version: toVersion(s.byId.get(id)!) };
  }

  /**
   * Refuses versions while the disk has less room than `minFreeBytes` (DiskLowError): a system call,
   * about a microsecond. Also asked before a version is shared (adapters/postgres/page-log.ts).
   */
  assertRoom(): void {
    if (this.minFreeBytes === 0 || this.dir === undefined) return;
    const { bavail, bsize } = statfsSync(this.dir);
    if (bavail * bsize < this.minFreeBytes) throw new DiskLowError(bavail * bsize, this.minFreeBytes);
  }

  // Passage indexes and fingerprints are made before the write transaction, not while it holds the
  // database's write lock (2.2 ms and 0.29 ms for a 30 kB page, bench:snippets), though a version
  // found unchanged then does not use its own. A page read on a reader thread comes with both.
  async putVersion(version: NewVersion): Promise<PutOutcome> {
    this.assertRoom();
    const derived = derive(version);
    return this.db.transaction(() => this.putOne(version, derived, this.stmts.anyRemoved.get() === 1)).immediate();
  }

  async putVersions(versions: readonly NewVersion[]): Promise<PutOutcome[]> {
    this.assertRoom();
    const derived = versions.map(derive);
    return this.db
      .transaction(() => {
        const removals = this.stmts.anyRemoved.get() === 1;
        return versions.map((v, k) => this.putOne(v, derived[k]!, removals));
      })
      .immediate();
  }

  /**
   * Versions from the shared page log (adapters/postgres/page-log.ts), stored as `putVersions`
   * stores them, and the log's position `upTo`, in one transaction. Storing a version again changes
   * nothing, so a version this file has already (its own machine wrote it) costs only its lookup.
   * A version that cannot be stored (each in a savepoint) is left out rather than stop the log
   * there for good. Answers each version's outcome, as `putVersions` does, or the error that kept
   * it out.
   */
  async applyLog(versions: readonly NewVersion[], upTo: number): Promise<(PutOutcome | Error)[]> {
    this.assertRoom();
    const derived = versions.map(derive);
    const removals = this.stmts.anyRemoved.get() === 1;
    const one = this.db.transaction((v: NewVersion, k: number) => this.putOne(v, derived[k]!, removals));
    return this.db
      .transaction(() => {
        const outcomes = versions.map((v, k) => {
          try {
            return one(v, k);
          } catch (e) {
            // A full disk is no fault of the version's: nothing of the batch is kept, nor its
            // position, and the next sync tries it again (left out, it would be lost to this file).
            if (isDiskFull(e)) throw e;
            return e as Error;
          }
        });
        this.stmts.setLogApplied.run(upTo);
        return outcomes;
      })
      .immediate();
  }

  /** How far this file has applied the shared page log (0: not at all). */
  logApplied(): number {
    return this.stmts.logApplied.get()!;
  }

  /** This file's name among the page log's readers (a copy of the file has the same until it takes a new one). */
  logReader(): string {
    return this.stmts.logReader.get()!;
  }

  /** Gives this file a new name among the page log's readers, and answers it. */
  renewLogReader(): string {
    const id = randomBytes(8).toString('hex');
    this.stmts.setLogReader.run(id);
    return id;
  }

  /** Which of `versions` this file refuses as removed by the operator (`removePages`). */
  removedOf(versions: readonly NewVersion[]): boolean[] {
    const any = this.stmts.anyRemoved.get() === 1;
    return versions.map((v) => any && this.isRemoved(v.url));
  }

  /** Whether the operator removed `url`, or a site it is of (`removePages`). */
  private isRemoved(url: string): boolean {
    const s = this.stmts;
    return s.urlRemoved.get(url) === 1 || s.siteRemoved.get(reverseHost(new URL(url).hostname)) === 1;
  }

  /**
   * The removals are recorded first, in a transaction of their own: a store refuses the pages from
   * then on. Then the pages go, REMOVE_PAGES at a time, so that a site of many pages does not hold
   * the write lock for long (a server's charges wait on it). Deleted content is overwritten in the
   * file (`secure_delete`), not only unlinked, and the write-ahead log emptied when it can be; the
   * search index takes the deletions in from index_log as it takes any change.
   */
  async removePages(removal: Removal, at: number, reason?: string): Promise<{ pages: number; versions: number }> {
    const s = this.stmts;
    const site = removal.site === undefined ? undefined : reversedSiteRange(removal.site);
    this.db
      .transaction(() => {
        for (const url of removal.urls) s.remove.run('url', url, at, reason ?? null);
        if (site !== undefined) s.remove.run('site', site[0], at, reason ?? null);
      })
      .immediate();
    const secure = this.db.pragma('secure_delete', { simple: true }) as number;
    this.db.pragma('secure_delete = ON');
    let pages = 0;
    let versions = 0;
    const drop = (page: { id: number; url: string }) => {
      s.dropCaptures.run(page.id);
      versions += s.dropVersions.run(page.id).changes;
      s.dropPage.run(page.id);
      s.dropValidators.run(page.url);
      pages++;
    };
    try {
      this.db
        .transaction(() => {
          for (const url of removal.urls) {
            const page = s.pageByUrl.get(url);
            if (page) drop({ id: page.id, url });
          }
        })
        .immediate();
      if (site !== undefined) {
        for (let batch = s.sitePages.all(...site, REMOVE_PAGES); batch.length > 0; batch = s.sitePages.all(...site, REMOVE_PAGES)) {
          this.db.transaction(() => batch.forEach(drop)).immediate();
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      this.db.pragma(`secure_delete = ${secure}`);
    }
    // The write-ahead log still holds the pages as they were written: emptied when no reader holds
    // it (a server's search, say, may; then its frames are overwritten as the log is reused).
    if (pages > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return { pages, versions };
  }

  /** The pages and versions this file holds that `removal` would delete. */
  heldOf(removal: Removal): { pages: number; versions: number } {
    const s = this.stmts;
    const site = removal.site === undefined ? undefined : reversedSiteRange(removal.site);
    const held = site === undefined ? { pages: 0, versions: 0 } : s.siteHeld.get(...site)!;
    for (const url of removal.urls) {
      const page = s.pageByUrl.get(url);
      if (!page) continue;
      const rev = reverseHost(page.host);
      if (site !== undefined && rev >= site[0] && rev < site[1]) continue; // counted with the site
      held.pages++;
      held.versions += s.pageVersions.get(page.id)!;
    }
    return held;
  }

  /** How many of the removals of `removal` (its URLs, its site) are in force here: what `allowPages` would lift. */
  removalsOf(removal: Removal): number {
    const s = this.stmts;
    let n = 0;
    for (const url of removal.urls) n += s.removedKey.get('url', url)!;
    if (removal.site !== undefined) n += s.removedKey.get('site', reverseHost(removal.site))!;
    return n;
  }

  /**
   * Applies a removal, or its lifting, that is row `seq` of the shared page log
   * (adapters/postgres/page-log.ts) and records the position, unless this file has applied the log
   * that far (another process of this machine did). Answers what a removal deleted, undefined when
   * nothing was applied. A crash before the position is recorded applies it again, in the same
   * place: the same end.
   */
  async applyRemoval(entry: { op: 'remove' | 'allow'; removal: Removal; at: number; reason?: string }, seq: number): Promise<{ pages: number; versions: number } | undefined> {
    if (this.logApplied() >= seq) return undefined;
    let gone = { pages: 0, versions: 0 };
    if (entry.op === 'remove') gone = await this.removePages(entry.removal, entry.at, entry.reason);
    else await this.allowPages(entry.removal);
    this.stmts.setLogApplied.run(seq);
    return gone;
  }

  async allowPages(removal: Removal): Promise<number> {
    const s = this.stmts;
    return this.db
      .transaction(() => {
        let lifted = 0;
        for (const url of removal.urls) lifted += s.allow.run('url', url).changes;
        if (removal.site !== undefined) lifted += s.allow.run('site', reverseHost(removal.site)).changes;
        return lifted;
      })
      .immediate();
  }

  async removals(): Promise<Removed[]> {
    return this.stmts.removals.all().map((r) => ({
      kind: r.kind,
      value: r.kind === 'site' ? hostOfReversed(r.key) : r.key,
      removedAt: r.removed_at,
      ...(r.reason === null ? {} : { reason: r.reason }),
    }));
  }

  async latest(url: string): Promise<StoredVersion | undefined> {
    const row = this.stmts.latest.get(url);
    return row ? toVersion(row) : undefined;
  }

  async getVersions(ids: readonly number[]): Promise<ResultVersion[]> {
    // A statement per ten ids (a search asks for ten), the last ten padded with a repeat, and only
    // the columns a result shows: bound ids read in half the time of one JSON array through json_each.
    const rows = new Map<number, ResultRow>();
    for (let i = 0; i < ids.length; i += IDS_PER_READ) {
      const part = ids.slice(i, i + IDS_PER_READ);
      while (part.length < IDS_PER_READ) part.push(part[0]!);
      for (const row of this.stmts.byIds.all(...part)) rows.set(row[0], row);
    }
    const out: ResultVersion[] = [];
    for (const id of ids) {
      const row = rows.get(id);
      if (!row) continue;
      const [, url, acquiredAt, publishedAt, title, description, content, passages, shared, near, mediaType] = row;
      const v: ResultVersion = { id, url, content, acquiredAt };
      if (title !== null) v.title = title;
      if (description !== null) v.description = description;
      if (shared === 1) v.sharedDescription = true;
      if (publishedAt !== null) v.publishedAt = publishedAt;
      if (passages !== null) v.passages = passages;
      if (near !== null && near.length > 0) v.near = near;
      if (mediaType !== null) v.mediaType = mediaType;
      out.push(v);
    }
    return out;
  }

  async history(url: string): Promise<StoredVersion[]> {
    return this.stmts.history.all(url).map(toVersion);
  }

  async stats(): Promise<{ pages: number; versions: number }> {
    return this.stmts.counts.get()!;
  }

  async derivedFilled(): Promise<boolean> {
    return this.stmts.passagesFilled.get() === PASSAGES_FORMAT && this.stmts.anyMissingNear.get() === undefined;
  }

  async fillDerived(signal?: AbortSignal): Promise<{ fingerprints: number; passages: number }> {
    const s = this.stmts;
    const format = Buffer.alloc(4);
    format.writeUInt32LE(PASSAGES_FORMAT);
    const fingerprints = await this.fillIn(
      (after) => s.missingNear.all(after),
      (content) => fingerprintBlob(nearFingerprint(content)),
      (made, id) => s.setNear.run(made, id),
      signal,
    );
    const passages = await this.fillIn(
      (after) => s.missingPassages.all(after, PASSAGE_INDEX_MIN, format),
      (content) => toBlob(buildPassages(content)),
      (made, id) => s.setPassages.run(made, id),
      signal,
    );
    if (!signal?.aborted) s.setPassagesFilled.run(PASSAGES_FORMAT);
    return { fingerprints, passages };
  }

  /**
   * Goes through the versions `missing` finds after an id, in id order, a batch at a time: `make`
   * makes what each lacks from its content before the write transaction (not while it holds the
   * database's write lock), and `set` stores them in it. It yields to the event loop between
   * batches (a serving process keeps answering), until none is left or `signal` stops it, and
   * answers how many it filled.
   */
  private async fillIn<T>(
    missing: (after: number) => { id: number; content: string }[],
    make: (content: string) => T,
    set: (made: T, id: number) => void,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    let filled = 0;
    for (let after = 0; !signal?.aborted; ) {
      const rows = missing(after);
      if (rows.length === 0) break;
      const made = rows.map((r) => make(r.content));
      this.db.transaction(() => rows.forEach((r, k) => set(made[k]!, r.id)))();
      filled += rows.length;
      after = rows.at(-1)!.id;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return filled;
  }
}
