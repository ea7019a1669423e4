/** Opens the embedded database (WAL) and brings its schema up to date. */
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { makeDirs } from '../make-dirs.js';
import { PASSAGES_FORMAT } from '../../core/passages.js';
import { normalizeUrl, urlFileType } from '../../core/url.js';

export type Db = Database.Database;

/**
 * The FTS5 index over the versions and the triggers that kept it, from schema version 1 until
 * migration 10 dropped them (the first migration holds this text as it shipped). The FTS5
 * reference store (index-store.ts) creates them again in the databases of tests and benchmarks.
 */
export const FTS5_SCHEMA = `
  CREATE VIRTUAL TABLE versions_fts USING fts5(
    title, description, content,
    content='versions', content_rowid='id',
    tokenize='porter unicode61'
  );
  CREATE TRIGGER versions_fts_insert AFTER INSERT ON versions BEGIN
    INSERT INTO versions_fts(rowid, title, description, content)
    VALUES (new.id, coalesce(new.title, ''), coalesce(new.description, ''), new.content);
  END;
  CREATE TRIGGER versions_fts_delete AFTER DELETE ON versions BEGIN
    INSERT INTO versions_fts(versions_fts, rowid, title, description, content)
    VALUES ('delete', old.id, coalesce(old.title, ''), coalesce(old.description, ''), old.content);
  END;
  CREATE TRIGGER versions_fts_update AFTER UPDATE OF title, description, content ON versions BEGIN
    INSERT INTO versions_fts(versions_fts, rowid, title, description, content)
    VALUES ('delete', old.id, coalesce(old.title, ''), coalesce(old.description, ''), old.content);
    INSERT INTO versions_fts(rowid, title, description, content)
    VALUES (new.id, coalesce(new.title, ''), coalesce(new.description, ''), new.content);
  END;
`;

/**
 * Migration 25's test of a stored URL that this release writes otherwise (`normal_url`): one
 * holding an escape or what may be a session id (LIKE reads ASCII letters in either case), and
 * whose normal form differs. Part of a shipped migration: never edit it.
 */
const NOT_NORMAL = "(instr(url, '%') > 0 OR url LIKE '%sessi%' OR url LIKE '%cfid%' OR url LIKE '%cftoken%') AND normal_url(url) != url";

/** Ordered migrations; the index of each is its schema version. Never edit one that has shipped. */
const MIGRATIONS: string[] = [
  `
  CREATE TABLE pages (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    host TEXT NOT NULL,
    rev_host TEXT NOT NULL
  );
  CREATE INDEX pages_rev_host ON pages(rev_host);

  CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    page_id INTEGER NOT NULL REFERENCES pages(id),
    acquired_at INTEGER NOT NULL,
    superseded_at INTEGER,
    published_at INTEGER,
    title TEXT,
    description TEXT,
    author TEXT,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    searchable INTEGER NOT NULL
  );
  CREATE INDEX versions_page_time ON versions(page_id, acquired_at);

${FTS5_SCHEMA}
  CREATE TABLE orgs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    rate_limit INTEGER,
    balance INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
    created_at INTEGER NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    prefix TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_org ON api_keys(org_id);
  CREATE TABLE reservations (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    amount INTEGER NOT NULL CHECK (amount > 0),
    reference TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'committed', 'released')),
    created_at INTEGER NOT NULL,
    settled_at INTEGER
  );
  CREATE INDEX reservations_pending ON reservations(state, created_at);
  CREATE TABLE ledger_entries (
    id INTEGER PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    amount INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('credit', 'charge')),
    reference TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX ledger_entries_org ON ledger_entries(org_id);

  CREATE TABLE usage (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    request_id TEXT NOT NULL,
    tier TEXT NOT NULL,
    operation TEXT NOT NULL,
    status INTEGER NOT NULL,
    cost INTEGER NOT NULL,
    latency_ms REAL NOT NULL,
    org_id TEXT,
    key_id TEXT,
    app_title TEXT,
    client_ip TEXT
  );
  CREATE INDEX usage_org_at ON usage(org_id, at);
  `,
  `
  CREATE TABLE usage_outbox (
    request_id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    usage TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER,
    sent_at INTEGER,
    last_error TEXT
  );
  CREATE INDEX usage_outbox_due ON usage_outbox(sent_at, next_attempt_at);

  -- Organizations billed by the storefront (older key-exchange contract) draw no credits.
  ALTER TABLE orgs ADD COLUMN billing TEXT NOT NULL DEFAULT 'credits' CHECK (billing IN ('credits', 'storefront'));
  CREATE TABLE storefront_accounts (
    user_id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    plan TEXT,
    generation INTEGER NOT NULL DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 0
  );
  `,
  `
  CREATE TABLE x402_nonces (
    key TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  );
  CREATE TABLE payments (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    request_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    payer TEXT NOT NULL,
    nonce TEXT NOT NULL,
    amount TEXT NOT NULL,
    asset TEXT NOT NULL,
    network TEXT NOT NULL,
    pay_to TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('settled', 'settlement_failed', 'not_settled')),
    tx_hash TEXT,
    reason TEXT
  );
  CREATE INDEX payments_at ON payments(at);
  `,
  `
  CREATE TABLE crawl_frontier (
    crawl_id TEXT NOT NULL,
    url TEXT NOT NULL,
    host TEXT NOT NULL,
    depth INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'done', 'failed', 'skipped')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    done_at INTEGER,
    last_error TEXT,
    PRIMARY KEY (crawl_id, url)
  );
  CREATE INDEX crawl_frontier_due ON crawl_frontier(crawl_id, state, next_at, depth);
  ALTER TABLE usage ADD COLUMN prompt_tokens INTEGER;
  ALTER TABLE usage ADD COLUMN completion_tokens INTEGER;
  CREATE TABLE fetch_validators (
    url TEXT PRIMARY KEY,
    etag TEXT,
    last_modified TEXT,
    fetched_at INTEGER NOT NULL
  );
  `,
  `
  -- The page's language tag (declared or detected), for webql's lang: field.
  ALTER TABLE versions ADD COLUMN lang TEXT;
  `,
  `
  -- Every change to a version, in order, for the search engine to follow (adapters/engine).
  CREATE TABLE index_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL);
  CREATE TRIGGER index_log_insert AFTER INSERT ON versions BEGIN
    INSERT INTO index_log (version_id) VALUES (new.id);
  END;
  CREATE TRIGGER index_log_update AFTER UPDATE ON versions BEGIN
    INSERT INTO index_log (version_id) VALUES (new.id);
  END;
  CREATE TRIGGER index_log_delete AFTER DELETE ON versions BEGIN
    INSERT INTO index_log (version_id) VALUES (old.id);
  END;
  `,
  `
  -- Rate-limit windows shared by the server's worker processes (adapters/sqlite/limiter-store.ts).
  CREATE TABLE rate_windows (id TEXT PRIMARY KEY, count INTEGER NOT NULL, reset_at INTEGER NOT NULL);
  `,
  `
  -- Each version's passage index, for snippets of long pages without reading them (core/passages.ts).
  -- Filling it in (index rebuild) is no change the search engine needs to follow.
  ALTER TABLE versions ADD COLUMN passages BLOB;
  DROP TRIGGER index_log_update;
  CREATE TRIGGER index_log_update AFTER UPDATE OF page_id, acquired_at, superseded_at, published_at, title,
    description, author, content, content_hash, searchable, lang ON versions BEGIN
    INSERT INTO index_log (version_id) VALUES (new.id);
  END;
  `,
  `
  -- The searchable versions' ids: the search engine's build counts and splits them here instead of
  -- reading every row of versions (0.5-2.5 s at 1M versions).
  CREATE INDEX versions_searchable ON versions(id) WHERE searchable = 1;
  `,
  `
  -- The engine answers every query, webql included: the FTS5 index (29% of a 1M-page database) and
  -- the triggers that kept it on every write go. Tests and benchmarks add it back where they compare
  -- with it (adapters/sqlite/index-store.ts). The freed pages are reused; VACUUM returns them.
  DROP TRIGGER IF EXISTS versions_fts_insert;
  DROP TRIGGER IF EXISTS versions_fts_delete;
  DROP TRIGGER IF EXISTS versions_fts_update;
  DROP TABLE IF EXISTS versions_fts;
  `,
  `
  -- The versions in a language, for webql's lang: (a rare language is looked up here instead of
  -- reading every candidate's row).
  CREATE INDEX versions_lang ON versions(lang) WHERE lang IS NOT NULL;
  `,
  `
  -- index_log's rows up to seq have been deleted (adapters/engine: pruned once the saved index is
  -- past them); a process that had applied less takes the saved index again.
  CREATE TABLE index_log_floor (seq INTEGER NOT NULL);
  INSERT INTO index_log_floor (seq) VALUES (0);
  `,
  `
  -- The passage index format (core/passages.ts PASSAGES_FORMAT) every stored version has once it is
  -- long enough for one; 0 until a fill has gone through them all. A release with a new format
  -- finds another number here and fills the versions in again (page-store.ts fillPassages).
  CREATE TABLE passages_filled (format INTEGER NOT NULL);
  INSERT INTO passages_filled (format) VALUES (0);
  `,
  `
  -- The crawler's next pages, shallowest first, in index order: through crawl_frontier_due (next_at
  -- first) every pick sorted all the due rows (28 ms at 200,000 queued; 1.6 ms this way:
  -- npm run bench:crawl -- --backlog 200000).
  CREATE INDEX crawl_frontier_pick ON crawl_frontier(crawl_id, state, depth, next_at);
  `,
  `
  -- With DATABASE_URL=postgres://...: how far this file has applied the shared page log
  -- (adapters/postgres/page-log.ts); 0 until then.
  CREATE TABLE page_log_applied (seq INTEGER NOT NULL);
  INSERT INTO page_log_applied (seq) VALUES (0);
  `,
  `
  -- Usage is listed newest first by the time of the request, not by the order rows were written
  -- (each process writes its rows in batches, and several write to one file); usage_org_at serves a
  -- listing by organization.
  CREATE INDEX usage_at ON usage(at);
  `,
  `
  -- With DATABASE_URL=postgres://...: this file's name among the page log's readers (page-log.ts),
  -- under which it says how far it has applied the log. A copy of the file takes a new one when
  -- it falls behind the file it was copied from.
  CREATE TABLE page_log_reader (id TEXT NOT NULL);
  INSERT INTO page_log_reader (id) VALUES (lower(hex(randomblob(8))));
  `,
  `
  -- With DATABASE_URL=postgres://...: the credit reservations whose commit met an outage, until a
  -- sweep settles them as not charged (postgres/ledger.ts): kept here so that a process killed
  -- first leaves them to the next one on this machine.
  CREATE TABLE unsettled_reservations (id TEXT PRIMARY KEY, at INTEGER NOT NULL);
  `,
  `
  -- A page's timeline is its captures' (page-store.ts putOne): each run of one content, by time and
  -- then content hash, is a version from its first capture to the next run's, whatever order the
  -- captures were stored in (machines sharing a page log store them in different orders). The
  -- captures after a version's first are kept, each with whether it was searchable, so that a capture
  -- stored later can come between them; first_searchable is the first's (null: stored before, as
  -- searchable). Timelines are mended to that order: a tie at one instant went by id, and a capture
  -- at an instant that already had a version, of the content that came next, moved that version back
  -- before it. Only pages with two versions at one instant can be touched, found on versions_page_time.
  ALTER TABLE versions ADD COLUMN first_searchable INTEGER;
  CREATE TABLE captures (
    version_id INTEGER NOT NULL REFERENCES versions(id),
    at INTEGER NOT NULL,
    searchable INTEGER NOT NULL,
    PRIMARY KEY (version_id, at)
  ) WITHOUT ROWID;
  UPDATE versions SET superseded_at = t.next_at
  FROM (
    SELECT id, lead(acquired_at) OVER (PARTITION BY page_id ORDER BY acquired_at, content_hash) AS next_at FROM versions
    WHERE page_id IN (SELECT page_id FROM versions GROUP BY page_id, acquired_at HAVING count(*) > 1)
  ) AS t
  WHERE versions.id = t.id AND versions.superseded_at IS NOT t.next_at;
  `,
  `
  -- A version's description keyed with its page's host (descriptionKey), and whether another page
  -- of the host, of other content, holds it too (a site's one description for all its pages): a
  -- search shows such a page's opening text instead (ops/search.ts). Kept as versions are stored
  -- (page-store.ts putOne), so that a search reads it with the row instead of looking it up.
  ALTER TABLE versions ADD COLUMN description_key INTEGER;
  ALTER TABLE versions ADD COLUMN description_shared INTEGER NOT NULL DEFAULT 0;
  UPDATE versions SET description_key = host_description_key((SELECT host FROM pages WHERE pages.id = versions.page_id), description)
  WHERE description IS NOT NULL;
  CREATE INDEX versions_description ON versions(description_key, description_shared, page_id) WHERE description_key IS NOT NULL;
  UPDATE versions SET description_shared = 1
  WHERE description_key IS NOT NULL AND EXISTS (SELECT 1 FROM versions o WHERE o.description_key = versions.description_key
    AND o.page_id != versions.page_id AND o.content_hash != versions.content_hash);
  `,
  `
  -- A version's near-duplicate fingerprint (core/near-duplicate.ts nearFingerprint), which a search
  -- compares among its results: empty for a text too short for one; null for a version stored
  -- before, until the background fill makes it (page-store.ts fillDerived), found on the partial
  -- index, which is empty once they are all made.
  ALTER TABLE versions ADD COLUMN near_fingerprint BLOB;
  CREATE INDEX versions_near_missing ON versions(id) WHERE near_fingerprint IS NULL;
  `,
  `
  -- The media type a version was served as (application/pdf), which filetype: reads with its URL's
  -- (core/webql.ts pageMatches): null for a version stored before, until its page is read again
  -- with the same content (page-store.ts putOne). The index finds the versions of a type for a
  -- filetype: (engine-index-store.ts versionsOfType); pages served as HTML, most of them, are
  -- left out of it, since a filetype: that HTML answers to is not looked up.
  ALTER TABLE versions ADD COLUMN media_type TEXT;
  CREATE INDEX versions_media_type ON versions(media_type) WHERE media_type != 'text/html';
  `,
  `
  -- The type a page's URL names its file by (core/url.ts urlFileType: pdf for /Report.PDF?dl=1),
  -- null when it names none: with the versions' media types, the versions a filetype: keeps to are
  -- looked up on the two partial indexes (engine-index-store.ts versionsOfType) instead of a scan
  -- of every URL.
  ALTER TABLE pages ADD COLUMN url_type TEXT;
  UPDATE pages SET url_type = url_file_type(url);
  CREATE INDEX pages_url_type ON pages(url_type) WHERE url_type IS NOT NULL;
  -- A version's media type filled in (page-store.ts putOne) is a change the engine follows: it
  -- keeps the versions of a type it looked up until the log moves on.
  DROP TRIGGER index_log_update;
  CREATE TRIGGER index_log_update AFTER UPDATE OF page_id, acquired_at, superseded_at, published_at, title,
    description, author, content, content_hash, searchable, lang, media_type ON versions BEGIN
    INSERT INTO index_log (version_id) VALUES (new.id);
  END;
  `,
  `
  -- The versions of no media type (stored before types were kept, or a JSONL markdown line's): with
  -- versions_media_type, a -filetype:html looks up the versions served as no web page and keeps a
  -- search to them (engine-index-store.ts versionsNotOfType); empty once every page was read again.
  CREATE INDEX versions_untyped ON versions(id) WHERE media_type IS NULL;
  `,
  `
  -- Percent-escapes in their normal form (core/url.ts normalizeUrl, here normal_url): an escaped
  -- letter, digit, - . _ or ~ as itself, any other escape in upper case, so that /%7Euser/ and
  -- /~user/ are one page. A page stored under another spelling takes the normal one, its URL's
  -- file type read again (/report.%70df names a pdf); where a page already has it (both spellings
  -- were stored), the other keeps its own (OR IGNORE), a page apart as before. The URL's words,
  -- which the search index holds, are the same either way (the escapes are read as what they
  -- stand for: engine-index-store.ts urlText). A crawl's queued URL and a fetch's validators
  -- take it too; a second spelling of one already there is dropped. So do URLs that held a
  -- session id (;jsessionid= in the path, or phpsessid, jsessionid, cfid, cftoken in the query),
  -- which the normal form leaves out from this release on.
  UPDATE OR IGNORE pages SET url = normal_url(url), url_type = url_file_type(normal_url(url)) WHERE ${NOT_NORMAL};
  UPDATE OR IGNORE crawl_frontier SET url = normal_url(url) WHERE ${NOT_NORMAL};
  DELETE FROM crawl_frontier WHERE ${NOT_NORMAL};
  UPDATE OR IGNORE fetch_validators SET url = normal_url(url) WHERE ${NOT_NORMAL};
  DELETE FROM fetch_validators WHERE ${NOT_NORMAL};
  `,
  `
  -- Pages the operator removed (websearch pages remove): a URL in its normal form, or a site as
  -- its reversed host ('com.example.', rev_host's form: a site's pages are those whose rev_host
  -- starts with it). Their versions are deleted, and a store of one is refused while it is here.
  CREATE TABLE removed (
    kind TEXT NOT NULL CHECK (kind IN ('url', 'site')),
    key TEXT NOT NULL,
    removed_at INTEGER NOT NULL,
    reason TEXT,
    PRIMARY KEY (kind, key)
  ) WITHOUT ROWID;
  `,
];

/**
 * A description's key among its host's: 48 bits of a hash of both, an integer SQLite stores in
 * 6 bytes (two different descriptions of one host share a key once in 2^48 pairs).
 */
export function descriptionKey(host: string, description: string): number {
  return createHash('md5').update(host).update('\u0000').update(description).digest().readUIntBE(0, 6);
}

export interface OpenOptions {
  /** File path, or ':memory:'. */
  path: string;
  readonly?: boolean;
  /**
   * Reads through a memory map (the default) or through read(). The engine's builds read the whole
   * table once, sequentially: mapped, those pages would count in the process's resident memory.
   */
  mapped?: boolean;
}

const MMAP_BYTES = 2 ** 31;

export function openDatabase(options: OpenOptions): Db {
  if (options.path !== ':memory:') makeDirs(dirname(options.path));
  const db = new Database(options.path, { readonly: options.readonly ?? false });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Reads of the database file through a memory map instead of a read() per page: a search reads
  // ten random versions, 20 us each through read(), 11 us mapped (1M-version file). The map is
  // capped at 2 GiB; the pages are the file's own, shared and reclaimable.
  if (options.path !== ':memory:' && options.mapped !== false) db.pragma(`mmap_size = ${MMAP_BYTES}`);
  if (!options.readonly) migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  // For migration 20, which keys the stored descriptions, 23, which keeps the type each URL names,
  // and 25, which writes URLs' escapes in their normal form.
  if (current < MIGRATIONS.length) {
    db.function('normal_url', { deterministic: true }, (url: unknown) => (typeof url === 'string' ? (normalizeUrl(url) ?? url) : url));
    db.function('host_description_key', { deterministic: true }, (host: unknown, description: unknown) =>
      typeof host === 'string' && typeof description === 'string' ? descriptionKey(host, description) : null,
    );
    db.function('url_file_type', { deterministic: true }, (url: unknown) => (typeof url === 'string' ? (urlFileType(url) ?? null) : null));
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      // A new database's versions are all stored by this release, each with its passage index.
      if (current === 0 && v === MIGRATIONS.length - 1) db.prepare('UPDATE passages_filled SET format = ?').run(PASSAGES_FORMAT);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}
