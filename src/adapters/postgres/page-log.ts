/**
 * Pages on several machines (DATABASE_URL=postgres://...): every version any machine stores is
 * appended to one log in PostgreSQL, and each machine applies the log, in its order, to its own
 * SQLite file, which its search engine follows as before. A machine's searches read only its own
 * file; a page crawled, imported or fetched on one machine is searchable on all, a second or so
 * later.
 *
 * Appends take a transaction-scoped advisory lock and number their rows after the highest, so rows
 * commit in seq order: a reader that sees seq N sees every row before it, and the log has no gaps.
 * Applying a version a file already has changes nothing (SqlitePageStore.applyLog), and versions
 * applied in different orders end the same (each takes its place in its URL's timeline), so a
 * machine stores its own writes at once and skips them when its sync reaches them.
 *
 * The position each file has applied is in that file (`page_log_applied`); the machine's serving
 * process syncs (one per machine: with `serve --workers N`, the worker that saves the index), and
 * other commands (import, crawl) only append and store.
 *
 * Every 30 s a sync also says how far its file has applied the log (`page_log_readers`, under the
 * file's own name), so `websearch share prune` can delete the rows every machine seen lately has applied
 * (`prune`); it records how far it pruned (`page_log_floor`). A file behind that floor (a machine
 * away longer than the prune allowed for, or a new empty one) cannot catch up from the log: its
 * sync says so and applies nothing, and the machine is to start from a copy of another's data
 * folder. A copy reports under its original's name until it reports a position below the one
 * recorded (the two have parted): it then takes a name of its own.
 *
 * An operator's removal of pages (websearch pages remove) and its lifting (pages allow) are rows of
 * the log too (`appendRemoval`), applied in their place by every machine, the command's own
 * included: a version before a removal in the log is deleted by it everywhere, one after it is
 * refused everywhere, until an `allow` after that. Unlike versions, these rows are never applied
 * out of the log's order, not even by the process that wrote them; nor is a machine's own version
 * of a page that such a row before it touches, which its file has not applied yet: the sync
 * stores it in its place (`held`), and its caller waits for it.
 */
import { randomUUID } from 'node:crypto';
import type { NewVersion, PageStore, PutOutcome, Removal, Removed, ResultVersion, StoredVersion } from '../../ports/page-store.js';
import { type SqlitePageStore, withOptionalColumns } from '../sqlite/page-store.js';
import type { LogFn } from '../../core/log.js';
import { hostInSite, normalizeUrl } from '../../core/url.js';
import { inTransaction, type PgClient, type PgPool } from './database.js';

/** Any number: the appenders' advisory lock, distinct from the migrations'. */
const APPEND_LOCK = 0x70676c67; // "pglg"
/** Rows read by one pull, at most, and their content at most (a row over it comes alone). */
const PULL_ROWS = 200;
const PULL_BYTES = 16 * 2 ** 20;
/** Rows appended by one statement. */
const APPEND_ROWS = 500;
/** Rows applied by one transaction of the file: the serving thread is held for no longer (~5 ms for 3 kB pages). */
const APPLY_ROWS = 25;
/** How often a machine's sync reports its file's place in the log: a write every 30 s, not one a second. */
const REPORT_MS = 30_000;
/** Rows deleted by one statement of a prune: appends and pulls are not held up for long. */
const PRUNE_ROWS = 10_000;
/** How long a store waits at most for the sync to apply a version it holds (`ReplicatedPageStore.held`): a sync is due every second. */
const HELD_WAIT_MS = 10_000;
/** A row made `erased`: what it said of its page goes, but for its URL. */
const ERASED = "op = 'erased', content = '', title = NULL, description = NULL, author = NULL";
/** Seqs one statement of `erase` looks through (by the primary key): well within the statement timeout. */
const ERASE_SEQS = 50_000;

/**
 * What a row of the log does: store a version, remove pages or lift a removal (`appendRemoval`), or
 * nothing: a version whose text a later removal erased (`erase`).
 */
type LogOp = 'put' | 'remove' | 'allow' | 'erased';

interface LogRow {
  seq: number;
  origin: string;
  op: LogOp;
  url: string;
  acquired_at: number;
  published_at: number | null;
  title: string | null;
  description: string | null;
  author: string | null;
  /** Null for the puller's own versions (it has them); a removal's JSON (`appendRemoval`). */
  content: string | null;
  lang: string | null;
  media_type: string | null;
  searchable: boolean;
}

/** A version's columns as the log and the SQLite file hold them (searchable: a boolean there, 0 or 1 here). */
export type VersionColumns = Pick<LogRow, 'url' | 'acquired_at' | 'published_at' | 'title' | 'description' | 'author' | 'lang' | 'media_type'> & {
  content: string;
  searchable: boolean | number;
};

/**
 * A row of the log (or of a file being copied into it) as a version to store. Its URL is read in
 * the normal form of this release (core/url.ts normalizeUrl): a row appended by an older one may
 * write its escapes otherwise, and the page is the one the file keeps under the normal form.
 */
export function toNewVersion(r: VersionColumns): NewVersion {
  return withOptionalColumns({ url: normalizeUrl(r.url) ?? r.url, content: r.content, acquiredAt: r.acquired_at, searchable: r.searchable === true || r.searchable === 1 }, r);
}

/** A removal or its lifting as a row of the log holds it (`PgPageLog.appendRemoval`). */
export interface LoggedRemoval {
  op: 'remove' | 'allow';
  removal: Removal;
  at: number;
  reason?: string;
}

/** A removal row's own parts, read back (its content is the removal's JSON). */
function loggedRemoval(r: LogRow): LoggedRemoval {
  const { urls, site } = JSON.parse(r.content!) as { urls: string[]; site?: string };
  return { op: r.op as LoggedRemoval['op'], removal: { urls, ...(site === undefined ? {} : { site }) }, at: r.acquired_at, ...(r.description === null ? {} : { reason: r.description }) };
}

export class PgPageLog {
  constructor(private readonly pool: PgPool) {}

  /**
   * Takes the appenders' lock for the transaction of `c` and answers the seq the next row is to
   * have: after the highest row, or after the pruned ones when a prune took every row (a seq is
   * never given twice).
   */
  private async nextSeq(c: PgClient): Promise<number> {
    await c.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
    const { rows } = await c.query<{ top: number }>('SELECT greatest(coalesce(max(seq), 0), (SELECT seq FROM page_log_floor)) AS top FROM page_log');
    return rows[0]!.top + 1;
  }

  /** Appends a removal of pages, or its lifting (README "Removing pages on every machine"); answers its seq. */
  async appendRemoval({ op, removal, at, reason }: LoggedRemoval, origin: string): Promise<number> {
    return inTransaction(this.pool, async (c) => {
      const seq = await this.nextSeq(c);
      await c.query(
        `INSERT INTO page_log (seq, origin, op, url, acquired_at, description, content, searchable, written_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, false, $8)`,
        [seq, origin, op, removal.site ?? removal.urls[0] ?? '', at, reason ?? null, JSON.stringify({ urls: removal.urls, site: removal.site }), Date.now()],
      );
      return seq;
    });
  }

  /**
   * Erases the text of the log's versions that the removal at `seq` deletes (its URLs', its site's
   * pages'), so that an erased page is not kept in the log until a prune: each becomes an `erased`
   * row, which every machine passes over (it would have deleted the version at `seq` anyway). The
   * rows stay, so the log has no gaps. Answers how many were erased. A statement per ERASE_SEQS
   * seqs: appends and pulls go on meanwhile.
   */
  async erase(removal: Removal, seq: number): Promise<number> {
    const { rows } = await this.pool.query<{ seq: number }>('SELECT seq FROM page_log_floor');
    let erased = 0;
    for (let from = rows[0]!.seq; from < seq; from += ERASE_SEQS) {
      const { rowCount } = await this.pool.query(
        `UPDATE page_log SET ${ERASED}
         WHERE seq > $1 AND seq <= least($2::bigint, $1 + $3) AND op = 'put'
           AND (url = ANY($4::text[]) OR (strpos(url, $5) > 0
             AND (substring(url FROM '^[a-z]+://([^/:?#]+)') = $5 OR substring(url FROM '^[a-z]+://([^/:?#]+)') LIKE '%.' || $5)))`,
        [from, seq - 1, ERASE_SEQS, removal.urls, removal.site ?? null],
      );
      erased += rowCount ?? 0;
    }
    return erased;
  }

  /** Erases the text of the versions at `seqs`, refused as removed (`ReplicatedPageStore.pull`); they become `erased` rows. */
  async eraseRows(seqs: readonly number[]): Promise<void> {
    await this.pool.query(`UPDATE page_log SET ${ERASED} WHERE seq = ANY($1::bigint[]) AND op = 'put'`, [seqs]);
  }

  /**
   * Appends the versions in order; answers their seqs and, given the place `applied` a file has
   * applied the log up to, the removals and liftings between it and them (`ReplicatedPageStore`
   * lets that file store a version of a page they touch only in the log's order). Read under the
   * appenders' lock, they are every such row before the versions: none is still on its way.
   */
  async append(versions: readonly NewVersion[], origin: string, applied?: number): Promise<{ seqs: number[]; removals: { seq: number; entry: LoggedRemoval }[] }> {
    if (versions.length === 0) return { seqs: [], removals: [] };
    return inTransaction(this.pool, async (c) => {
      const first = await this.nextSeq(c);
      const removals =
        applied === undefined || applied >= first - 1
          ? []
          : (
              await c.query<LogRow>(
                `SELECT seq, op, acquired_at, description, content FROM page_log WHERE seq > $1 AND op IN ('remove', 'allow') ORDER BY seq`,
                [applied],
              )
            ).rows.map((r) => ({ seq: r.seq, entry: loggedRemoval(r) }));
      const now = Date.now();
      for (let i = 0; i < versions.length; i += APPEND_ROWS) {
        const part = versions.slice(i, i + APPEND_ROWS);
        const col = <T>(f: (v: NewVersion) => T) => part.map(f);
        await c.query(
          `INSERT INTO page_log (seq, origin, url, acquired_at, published_at, title, description, author, content, lang, media_type, searchable, written_at)
           SELECT $1 + ord - 1, $2, url, acquired_at, published_at, title, description, author, content, lang, media_type, searchable, $3
           FROM unnest($4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::boolean[])
             WITH ORDINALITY AS t(url, acquired_at, published_at, title, description, author, content, lang, media_type, searchable, ord)`,
          [
            first + i,
            origin,
            now,
            col((v) => v.url),
            col((v) => v.acquiredAt),
            col((v) => v.publishedAt ?? null),
            col((v) => v.title ?? null),
            col((v) => v.description ?? null),
            col((v) => v.author ?? null),
            col((v) => v.content),
            col((v) => v.lang ?? null),
            col((v) => v.mediaType ?? null),
            col((v) => v.searchable),
          ],
        );
      }
      return { seqs: versions.map((_, k) => first + k), removals };
    });
  }

  /**
   * The rows after `seq`, in order: at most PULL_ROWS, and no more content than PULL_BYTES (but
   * always the first). `origin`'s versions come without their content.
   */
  async after(seq: number, origin: string): Promise<LogRow[]> {
    // The window runs over the first PULL_ROWS rows only (a window over the whole rest of the log
    // would read it all at every pull).
    const { rows } = await this.pool.query<LogRow>(
      `SELECT seq, origin, op, url, acquired_at, published_at, title, description, author, content, lang, media_type, searchable
       FROM (
         SELECT *, sum(size) OVER (ORDER BY seq) AS running
         FROM (
           SELECT seq, origin, op, url, acquired_at, published_at, title, description, author, lang, media_type, searchable,
             CASE WHEN origin = $2 AND op = 'put' THEN NULL ELSE content END AS content,
             CASE WHEN origin = $2 AND op = 'put' THEN 0 ELSE octet_length(content) END AS size
           FROM page_log WHERE seq > $1 ORDER BY seq LIMIT $3
         ) first_rows
       ) counted
       WHERE running - size < $4 ORDER BY seq`,
      [seq, origin, PULL_ROWS, PULL_BYTES],
    );
    return rows;
  }

  /**
   * Records that the file `reader` has applied the log up to `applied`, unless it is behind the
   * floor (it cannot catch up, and must not hold back pruning), or the position recorded for that
   * name is beyond it (another file of the same name, a copy, has gone further): `reported` false
   * then. Answers the floor too (the rows up to it are pruned).
   */
  async report(reader: string, applied: number, now: number): Promise<{ reported: boolean; floor: number }> {
    const { rows } = await this.pool.query<{ reported: number; floor: number }>(
      `WITH f AS (SELECT seq FROM page_log_floor), r AS (
         INSERT INTO page_log_readers (id, applied, seen_at) SELECT $1, $2, $3 WHERE $2 >= (SELECT seq FROM f)
         ON CONFLICT (id) DO UPDATE SET applied = EXCLUDED.applied, seen_at = EXCLUDED.seen_at WHERE page_log_readers.applied <= EXCLUDED.applied
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM r)::int AS reported, (SELECT seq FROM f) AS floor`,
      [reader, applied, now],
    );
    return { reported: rows[0]!.reported === 1, floor: rows[0]!.floor };
  }

  /**
   * Deletes the rows every reader seen since `seenSince` has applied, and forgets the readers not
   * seen since (they are behind the floor if they come back). The floor is raised first, under the
   * appenders' lock, then the rows go in batches. Answers the new floor, the rows deleted, and the
   * readers kept and forgotten.
   */
  async prune(seenSince: number): Promise<{ floor: number; deleted: number; readers: number; forgotten: number }> {
    const { floor, readers, forgotten } = await inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
      const gone = await c.query('DELETE FROM page_log_readers WHERE seen_at < $1', [seenSince]);
      const { rows } = await c.query<{ lowest: number | null; readers: number }>('SELECT min(applied) AS lowest, count(*)::int AS readers FROM page_log_readers');
      const { lowest, readers: kept } = rows[0]!;
      const raised = await c.query<{ seq: number }>('UPDATE page_log_floor SET seq = greatest(seq, $1) RETURNING seq', [lowest ?? 0]);
      return { floor: raised.rows[0]!.seq, readers: kept, forgotten: gone.rowCount ?? 0 };
    });
    let deleted = 0;
    for (;;) {
      const { rowCount } = await this.pool.query('DELETE FROM page_log WHERE seq IN (SELECT seq FROM page_log WHERE seq <= $1 ORDER BY seq LIMIT $2)', [floor, PRUNE_ROWS]);
      deleted += rowCount ?? 0;
      if (!rowCount) return { floor, deleted, readers, forgotten };
    }
  }
}

/** How long after `startPruning` the first prune comes (a restart need not wait a day for one). */
const FIRST_PRUNE_MS = 60_000;

/**
 * The page store of a machine that shares its pages: writes go to the log and to this machine's
 * file; reads come from the file. `sync` applies the other machines' writes.
 */
export class ReplicatedPageStore implements PageStore {
  /**
   * This process's rows in the log: its sync skips them (they are in the file already). A new one
   * after a version the file could not store: the sync then applies the old origin's rows too.
   */
  origin = randomUUID();
  /** Own rows stored in the file, as ranges of seqs (one per append), until a sync passes them. */
  private stored: [first: number, last: number][] = [];
  /**
   * Own versions not stored at once, by seq, until the sync applies them in the log's order: each
   * of a page that a removal or its lifting before it in the log touches, which the file had not
   * applied when it was appended (`putVersions`). Their callers wait for their outcome.
   */
  private held = new Map<number, { version: NewVersion; settle: (outcome: PutOutcome | Error) => void }>();
  private syncing: Promise<number> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** `startPruning`'s timer, and the prune under way. */
  private pruneTimer: NodeJS.Timeout | undefined;
  private pruning: Promise<void> | undefined;
  /** Set by `stop`: a sync in progress ends after the transaction it is in. */
  private stopping = false;
  /** The file was behind the pruned log at the last sync (said once, not every second). */
  private behind = false;
  /** When this file's place in the log was last reported (0: not yet; the first sync does). */
  private reportedAt = 0;

  constructor(
    private readonly local: SqlitePageStore,
    private readonly log: PgPageLog,
    private readonly say: LogFn = () => {},
    /** How often a sync reports the file's place (a prune waits for the last report). */
    private readonly reportEveryMs = REPORT_MS,
    /** How long a version held for the sync (`held`) is waited for, at most. */
    private readonly heldWaitMs = HELD_WAIT_MS,
  ) {}

  async putVersion(version: NewVersion): Promise<PutOutcome> {
    return (await this.putVersions([version]))[0]!;
  }

  async putVersions(versions: readonly NewVersion[]): Promise<PutOutcome[]> {
    // What no file could store must not reach the log (every machine would meet it).
    for (const v of versions) new URL(v.url);
    // Nor what this file has no room for (WEBSEARCH_MIN_FREE_DISK_MB): refused as on one machine,
    // before the log, rather than left to the others while this machine's own sync waits for room.
    this.local.assertRoom();
    // Nor a page this file has removed: every machine that has applied the removal refuses it, and
    // a removed page's text is not to be kept in the log either (an erasure request).
    const removed = this.local.removedOf(versions);
    const kept = versions.filter((_, k) => !removed[k]);
    // The log first: a version this file has must be one every machine gets.
    const { seqs, removals } = await this.log.append(kept, this.origin, this.local.logApplied());
    // A version of a page that a removal or its lifting touches, before it in the log but not yet
    // applied here, waits for the sync to apply them first, as every other machine does: stored at
    // once, it would be deleted by the removal applied late (though an `allow` after it let it in
    // everywhere else), or stored until then (though every other machine refuses it).
    const waits = kept.map((v) => removals.some((r) => touches(r.entry.removal, v.url)));
    let stored: PutOutcome[];
    try {
      stored = await this.local.putVersions(kept.filter((_, k) => !waits[k]));
    } catch (e) {
      // In the log, not in the file (busy, full): the sync is to apply them as another machine's.
      this.origin = randomUUID();
      throw e;
    }
    if (seqs.length > 0) this.stored.push([seqs[0]!, seqs.at(-1)!]);
    const outcomes = kept.map((v, k) => {
      if (!waits[k]) return undefined;
      const outcome = new Promise<PutOutcome>((resolve, reject) => {
        this.held.set(seqs[k]!, { version: v, settle: (o) => (o instanceof Error ? reject(o) : resolve(o)) });
      });
      // Failed before it is awaited below (the sync failing) is not an unhandled rejection.
      outcome.catch(() => {});
      return outcome;
    });
    const lastHeld = seqs.findLast((_, k) => waits[k]);
    if (lastHeld !== undefined) await this.syncHeld(lastHeld);
    let k = 0;
    let n = 0;
    return Promise.all(removed.map((r) => (r ? { status: 'removed' as const } : (outcomes[k++] ?? stored[n++]!))));
  }

  /**
   * Applies the log up to this process's held version at `seq`. A file that cannot (behind the
   * pruned log, its database refusing rows), or not within `heldWaitMs` (catching up on a long
   * log: a live fetch is not to wait for that), fails the versions held: they are in the log, and
   * a sync applies them in their place as another machine's (a new origin).
   */
  private async syncHeld(seq: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `this machine's file has not applied the page log up to its row ${seq} within ${this.heldWaitMs} ms (it is catching up): the version is in the log, and this machine stores it in its place as it syncs`,
            ),
          ),
        this.heldWaitMs,
      );
    });
    const synced = this.syncTo(seq);
    try {
      await Promise.race([synced, late]);
    } catch (e) {
      synced.catch(() => {});
      this.origin = randomUUID();
      for (const [s, { settle }] of this.held) {
        if (s > seq) continue;
        this.held.delete(s);
        settle(e as Error);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  latest(url: string): Promise<StoredVersion | undefined> {
    return this.local.latest(url);
  }

  getVersions(ids: readonly number[]): Promise<ResultVersion[]> {
    return this.local.getVersions(ids);
  }

  history(url: string): Promise<StoredVersion[]> {
    return this.local.history(url);
  }

  stats(): Promise<{ pages: number; versions: number }> {
    return this.local.stats();
  }

  fillDerived(signal?: AbortSignal): Promise<{ fingerprints: number; passages: number }> {
    return this.local.fillDerived(signal);
  }

  derivedFilled(): Promise<boolean> {
    return this.local.derivedFilled();
  }

  /**
   * Applies the log's rows this file has not, until it has them all; answers how many versions it
   * stored. One sync at a time: a call while one runs waits for it.
   */
  sync(): Promise<number> {
    this.syncing ??= this.pull().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  /**
   * Says how far this file has applied the log (`PgPageLog.report`), as a copy under a name of its
   * own if it has parted from its original; false when the file is behind the pruned log.
   */
  private async report(): Promise<boolean> {
    const position = this.local.logApplied();
    const now = Date.now();
    const { reported, floor } = await this.log.report(this.local.logReader(), position, now);
    this.reportedAt = now;
    if (position < floor) return this.fellBehind(position, floor);
    if (!reported) {
      const reader = this.local.renewLogReader();
      this.say('info', "this data folder is a copy of another machine's; it now reports its place in the page log as its own", { reader });
      await this.log.report(reader, position, now);
    }
    return true;
  }

  /** The file cannot catch up from the log (its next rows are pruned): said once, not at every sync. */
  private fellBehind(applied: number, pruned: number): false {
    if (!this.behind) {
      this.say('error', "this machine's pages are behind the pruned page log: it cannot catch up from it; start it from a copy of another machine's data folder", {
        applied,
        pruned,
      });
    }
    this.behind = true;
    return false;
  }

  private async pull(): Promise<number> {
    let applied = 0;
    if (Date.now() - this.reportedAt >= this.reportEveryMs && !(await this.report())) return 0;
    while (!this.stopping) {
      const position = this.local.logApplied();
      const rows = await this.log.after(position, this.origin);
      // The log has no gaps but the pruned rows: a first row past the next one means they are gone.
      if (rows.length > 0 && rows[0]!.seq > position + 1) {
        this.fellBehind(position, rows[0]!.seq - 1);
        return applied;
      }
      this.behind = false;
      // The rows to apply, in order: another machine's with its version, our own without (it is
      // stored) but those held (`held`: with their version, from memory), and every removal, our
      // own too (a removal is applied in its place alone).
      const todo: { seq: number; version?: NewVersion; removal?: LoggedRemoval }[] = [];
      for (const r of rows) {
        if (r.op === 'erased') todo.push({ seq: r.seq });
        else if (r.op !== 'put') todo.push({ seq: r.seq, removal: loggedRemoval(r) });
        else if (r.origin !== this.origin) todo.push({ seq: r.seq, version: toNewVersion({ ...r, content: r.content! }) });
        else if (this.held.has(r.seq)) todo.push({ seq: r.seq, version: this.held.get(r.seq)!.version });
        // Our own, stored in the file once its append answered; one not yet stored (its append is
        // still on its way back) stops the sync there, so a crash in between loses nothing: the next
        // process, another origin, applies it.
        else if (this.stored.some(([first, last]) => r.seq >= first && r.seq <= last)) todo.push({ seq: r.seq });
        else break;
      }
      // A few at a time, each with its position, the serving thread free in between: a new machine
      // catching up on a long log keeps answering searches. A removal is a step of its own.
      for (let i = 0; i < todo.length && !this.stopping; ) {
        const { seq, removal } = todo[i]!;
        let upTo = seq;
        if (removal) {
          const gone = await this.local.applyRemoval(removal, seq);
          if (gone && removal.op === 'remove') this.say('info', 'pages removed by the page log', { seq, ...gone });
          i++;
        } else {
          let end = i + 1;
          while (end < todo.length && end - i < APPLY_ROWS && !todo[end]!.removal) end++;
          const part = todo.slice(i, end);
          upTo = part.at(-1)!.seq;
          const fromOthers = part.filter((t) => t.version);
          const versions = fromOthers.map((t) => t.version!);
          const outcomes = await this.local.applyLog(versions, upTo);
          const refused: number[] = [];
          outcomes.forEach((o, k) => {
            const held = this.held.get(fromOthers[k]!.seq);
            this.held.delete(fromOthers[k]!.seq);
            held?.settle(o);
            if (o instanceof Error) this.say('error', 'a version from the page log could not be stored', { upTo, err: o.message });
            else if (o.status === 'removed') refused.push(k);
          });
          // A version of a removed page, appended by a machine that had not yet applied the removal:
          // every machine refuses it, so its text goes from the log too.
          if (refused.length > 0) {
            await this.log.eraseRows(refused.map((k) => fromOthers[k]!.seq)).catch((e: unknown) => {
              this.say('warn', 'versions of removed pages left in the page log (not erased)', { upTo, err: String(e) });
            });
          }
          applied += versions.length;
          i = end;
        }
        this.stored = this.stored.filter(([, last]) => last > upTo);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (todo.length === 0 || todo.length < rows.length) return applied;
    }
    return applied;
  }

  /**
   * Removes pages on every machine (`PageStore.removePages`): the removal is appended to the log,
   * the text of their versions before it in the log erased (`PgPageLog.erase`), and this file
   * applies the log up to it, as every other machine's sync does. Answers the pages and versions
   * this file held of them (another process of this machine, its server's sync, may be the one
   * that deletes them) and the log's rows erased.
   */
  async removePages(removal: Removal, at: number, reason?: string): Promise<{ pages: number; versions: number; erased: number }> {
    const held = this.local.heldOf(removal);
    const seq = await this.log.appendRemoval({ op: 'remove', removal, at, ...(reason === undefined ? {} : { reason }) }, this.origin);
    const erased = await this.log.erase(removal, seq);
    await this.syncTo(seq);
    return { ...held, erased };
  }

  /** Lifts a removal on every machine, as `removePages` removes; answers how many removals this file had in force of it. */
  async allowPages(removal: Removal): Promise<number> {
    const lifted = this.local.removalsOf(removal);
    await this.syncTo(await this.log.appendRemoval({ op: 'allow', removal, at: Date.now() }, this.origin));
    return lifted;
  }

  /** The removals in force on this machine, once its file has applied the log as it stands. */
  async removals(): Promise<Removed[]> {
    await this.sync();
    return this.local.removals();
  }

  /**
   * Applies the log until this file has row `seq`. A file that cannot (behind the pruned log, or its
   * database refusing the rows) is an error: the row is in the log, and the other machines apply it.
   */
  private async syncTo(seq: number): Promise<void> {
    // A sync under way may have read the log before the row was there: it ends first.
    await this.syncing?.catch(() => {});
    for (let position = this.local.logApplied(); position < seq; ) {
      await this.sync();
      const now = this.local.logApplied();
      if (now === position) {
        throw new Error(
          `this machine's file could not apply the page log up to its row ${seq} (it stays at ${now}; see the lines above): the other machines apply it, and this one once it can sync`,
        );
      }
      position = now;
    }
  }

  /** Syncs now and every `intervalMs` (the serving process of each machine). */
  start(intervalMs: number): void {
    if (this.timer) return;
    // A database away for an hour is one line when the syncs start failing and one when they resume,
    // not one a second.
    let failing = false;
    const tick = () =>
      void this.sync().then(
        () => {
          if (failing) this.say('info', 'pages synced from the shared page log again');
          failing = false;
        },
        (e: unknown) => {
          if (!failing) this.say('error', 'pages not synced from the shared page log', { err: String(e) });
          failing = true;
        },
      );
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
    tick();
  }

  /**
   * Prunes the page log as `websearch share prune` does (`PgPageLog.prune`): the rows every machine
   * seen in the last `unseenMs` has applied. The first prune a minute after this (or `everyMs`, when
   * shorter), then every `everyMs`, so that a server restarted daily prunes too. Said in the log when
   * rows were deleted or machines forgotten, and when a prune fails (the next one tries again).
   */
  startPruning(everyMs: number, unseenMs: number): void {
    if (this.pruneTimer) return;
    const tick = () => {
      if (this.pruning) return;
      this.pruning = this.log.prune(Date.now() - unseenMs).then(
        (r) => {
          if (r.deleted > 0 || r.forgotten > 0) this.say('info', 'page log pruned', r);
        },
        (e: unknown) => this.say('warn', 'page log not pruned; the next prune tries again', { err: String(e), ...(e instanceof Error && e.cause !== undefined && { cause: String(e.cause) }) }),
      );
      void this.pruning.finally(() => (this.pruning = undefined));
    };
    this.pruneTimer = setTimeout(() => {
      tick();
      this.pruneTimer = setInterval(tick, everyMs);
      this.pruneTimer.unref();
    }, Math.min(everyMs, FIRST_PRUNE_MS));
    this.pruneTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.pruneTimer);
    this.pruneTimer = undefined;
    await this.syncing?.catch(() => {});
    await this.pruning;
    // Versions held for a sync there will not be: the next process applies them from the log.
    for (const { settle } of this.held.values()) settle(new Error('the page log\'s sync stopped before this version was stored here; it is in the log, and this machine stores it when it next syncs'));
    this.held.clear();
  }
}

/** Whether a removal (or its lifting) is of `url`: the URL itself, or a page of its site. */
function touches(removal: Removal, url: string): boolean {
  return removal.urls.includes(url) || (removal.site !== undefined && hostInSite(new URL(url).hostname, removal.site));
}
