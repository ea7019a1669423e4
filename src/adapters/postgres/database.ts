/**
 * The shared database (DATABASE_URL=postgres://...): organizations, keys, the credit ledger, usage,
 * the storefront's accounts and outbox, x402 payments and nonces, for several machines at once, and
 * the page log every machine's pages are applied from (page-log.ts). Each machine's SQLite file holds
 * its copy of the pages, which its search engine reads; the crawl frontier stays there too.
 *
 * Times are epoch milliseconds in BIGINT, read back as numbers (a pool-local type parser: the
 * `pg` default reads BIGINT as a string). Migrations run under an advisory lock, so machines
 * starting together migrate once.
 */
import pg from 'pg';
import { ServiceError, storeUnavailable } from '../../core/errors.js';

export type PgPool = pg.Pool;
/** A connection of the pool, held for a transaction (`inTransaction`). */
export type PgClient = pg.PoolClient;

const INT8_OID = 20;
const readBigint = (v: string): number => Number(v);

/** Ordered migrations; the index of each is its schema version. Never edit one that has shipped. */
const MIGRATIONS: string[] = [
  `
  CREATE TABLE orgs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    rate_limit INTEGER,
    billing TEXT NOT NULL DEFAULT 'credits' CHECK (billing IN ('credits', 'storefront')),
    balance BIGINT NOT NULL DEFAULT 0 CHECK (balance >= 0),
    created_at BIGINT NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    prefix TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
  );
  CREATE INDEX api_keys_org ON api_keys(org_id);
  CREATE TABLE reservations (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    amount BIGINT NOT NULL CHECK (amount > 0),
    reference TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'committed', 'released')),
    created_at BIGINT NOT NULL,
    settled_at BIGINT
  );
  CREATE INDEX reservations_pending ON reservations(created_at) WHERE state = 'pending';
  CREATE TABLE ledger_entries (
    id BIGSERIAL PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    amount BIGINT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('credit', 'charge')),
    reference TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX ledger_entries_org ON ledger_entries(org_id);
  CREATE TABLE usage (
    id BIGSERIAL PRIMARY KEY,
    at BIGINT NOT NULL,
    request_id TEXT NOT NULL,
    tier TEXT NOT NULL,
    operation TEXT NOT NULL,
    status INTEGER NOT NULL,
    cost BIGINT NOT NULL,
    latency_ms DOUBLE PRECISION NOT NULL,
    org_id TEXT,
    key_id TEXT,
    app_title TEXT,
    client_ip TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER
  );
  CREATE INDEX usage_org ON usage(org_id, id);
  CREATE TABLE usage_outbox (
    request_id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    usage TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    lease_until BIGINT,
    sent_at BIGINT,
    last_error TEXT
  );
  CREATE INDEX usage_outbox_due ON usage_outbox(next_attempt_at) WHERE sent_at IS NULL;
  CREATE TABLE storefront_accounts (
    user_id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id),
    plan TEXT,
    generation INTEGER NOT NULL DEFAULT 0,
    active BOOLEAN NOT NULL DEFAULT false
  );
  CREATE TABLE x402_nonces (
    key TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX x402_nonces_expiry ON x402_nonces(expires_at);
  CREATE TABLE payments (
    id BIGSERIAL PRIMARY KEY,
    at BIGINT NOT NULL,
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
  -- Every version any machine stores, in one order (page-log.ts): each machine applies them to its
  -- own SQLite file, which its search engine follows. seq is given under a lock, so rows commit in
  -- seq order and a reader that sees one sees every row before it.
  CREATE TABLE page_log (
    seq BIGINT PRIMARY KEY,
    origin TEXT NOT NULL,
    url TEXT NOT NULL,
    acquired_at BIGINT NOT NULL,
    published_at BIGINT,
    title TEXT,
    description TEXT,
    author TEXT,
    content TEXT NOT NULL,
    lang TEXT,
    searchable BOOLEAN NOT NULL,
    written_at BIGINT NOT NULL
  );
  `,
  `
  -- Rate-limit windows of all machines when there is no Redis (limiter-store.ts). Unlogged: no
  -- write-ahead log to flush for a count that is gone in a second anyway (a crash empties it).
  CREATE UNLOGGED TABLE rate_windows (id TEXT PRIMARY KEY, count INTEGER NOT NULL, expires_at BIGINT NOT NULL);
  CREATE INDEX rate_windows_expiry ON rate_windows(expires_at);
  -- One request's windows checked and counted at once: all or none, as Redis's script does. Rows
  -- are locked in id order, so two requests sharing windows never wait on each other in a cycle.
  CREATE FUNCTION consume_rate_windows(ids TEXT[], limits INTEGER[], expires BIGINT[], OUT allowed BOOLEAN, OUT counts INTEGER[]) AS $$
  BEGIN
    INSERT INTO rate_windows (id, count, expires_at)
      SELECT t.id, 0, t.expires FROM unnest(ids, expires) AS t(id, expires) ORDER BY t.id
      ON CONFLICT (id) DO NOTHING;
    PERFORM 1 FROM rate_windows WHERE id = ANY(ids) ORDER BY id FOR UPDATE;
    SELECT bool_and(r.count < t.lim) INTO allowed
      FROM unnest(ids, limits) AS t(id, lim) JOIN rate_windows r ON r.id = t.id;
    IF allowed THEN
      UPDATE rate_windows SET count = count + 1 WHERE id = ANY(ids);
    END IF;
    SELECT array_agg(r.count ORDER BY t.ord) INTO counts
      FROM unnest(ids) WITH ORDINALITY AS t(id, ord) JOIN rate_windows r ON r.id = t.id;
  END
  $$ LANGUAGE plpgsql;
  `,
  `
  -- A reservation whose commit met a lost connection is settled as not charged (ledger.ts
  -- settleUnknown): 'refunded' when the commit had been applied after all, with a 'refund' entry.
  ALTER TABLE reservations DROP CONSTRAINT reservations_state_check;
  ALTER TABLE reservations ADD CONSTRAINT reservations_state_check CHECK (state IN ('pending', 'committed', 'released', 'refunded'));
  ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
  ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('credit', 'charge', 'refund'));
  `,
  `
  -- Usage is listed newest first by the time of the request (usage.ts), not by id: each machine
  -- writes its rows in batches, so ids follow the order of the writes.
  CREATE INDEX usage_org_at ON usage(org_id, at, id);
  CREATE INDEX usage_at ON usage(at, id);
  DROP INDEX usage_org;
  `,
  `
  -- The page log's readers (page-log.ts): each machine's file, how far it has applied the log and
  -- when it last said so; and the seq up to which rows have been pruned (websearch share prune).
  CREATE TABLE page_log_readers (id TEXT PRIMARY KEY, applied BIGINT NOT NULL, seen_at BIGINT NOT NULL);
  CREATE TABLE page_log_floor (seq BIGINT NOT NULL);
  INSERT INTO page_log_floor (seq) VALUES (0);
  `,
  `
  -- The media type each version was served as (the SQLite file's versions.media_type): null for a
  -- row written before.
  ALTER TABLE page_log ADD COLUMN media_type TEXT;
  `,
  `
  -- What a row does (page-log.ts): 'put' stores a version; 'remove' and 'allow' are an operator's
  -- removal of pages and its lifting (websearch pages remove|allow), the removal as JSON in content
  -- ({"urls":[...],"site":"..."}), its time in acquired_at and its reason in description; 'erased'
  -- was a version of a page removed after it, its text erased, and does nothing. A release before
  -- this one would read such a row as a version: the schema's number keeps it from starting.
  ALTER TABLE page_log ADD COLUMN op TEXT NOT NULL DEFAULT 'put' CHECK (op IN ('put', 'remove', 'allow', 'erased'));
  `,
  `
  -- The removals and their liftings alone, by seq: an append asks for those after its file's place
  -- in the log (page-log.ts PgPageLog.append) without reading the versions between.
  CREATE INDEX page_log_removals ON page_log (seq) WHERE op IN ('remove', 'allow');
  `,
];

/** Any number: the advisory lock's key, one per application using the database. */
const MIGRATION_LOCK = 0x77656273; // "webs"

export interface PostgresOptions {
  url: string;
  /** Connections this process may hold (default 10). */
  maxConnections?: number;
  /** Statements running longer are cancelled (default 10 s): a stuck query must not hold a request forever. */
  statementTimeoutMs?: number;
  /** Tests: a schema of their own (created if missing), as the connection's search_path. */
  schema?: string;
}

/** A pool on the database, connecting at its first query; `openPostgres` also migrates. */
export function connectPostgres(options: PostgresOptions): PgPool {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new RangeError(`bad schema name ${schema}`);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 10_000,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? readBigint : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
  });
  // An idle connection's error (the server restarted) must not crash the process: the pool drops it.
  pool.on('error', () => {});
  // A database that cannot be reached answers 503 store_unavailable, not 500 (storeError): the
  // pool's queries and connections, and each client's queries (transactions), once per client.
  // (pool.query itself calls pool.connect and client.query with callbacks: those are left as they are.)
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient> | undefined;
  Object.assign(pool, {
    query: (...args: unknown[]) => query(...args).catch(storeError),
    connect: (callback?: unknown) => (callback === undefined ? connect()!.catch(storeError) : connect(callback)),
  });
  pool.on('connect', (client) => {
    const clientQuery = client.query.bind(client) as (...args: unknown[]) => unknown;
    Object.assign(client, {
      query: (...args: unknown[]) => {
        const answer = clientQuery(...args);
        return answer instanceof Promise ? answer.catch(storeError) : answer;
      },
    });
  });
  return pool;
}

/**
 * SQLSTATE classes of a database that is away or overloaded: 08 connection exception, 53
 * insufficient resources, 57 operator intervention (shutdown, statement timeout).
 */
const OUTAGE_CLASSES = new Set(['08', '53', '57']);

/**
 * An error of the database itself (a constraint, a bug: 500 as before) is thrown as it is; one of
 * reaching it (refused, reset, timed out, shut down) becomes 503 store_unavailable.
 */
export function storeError(e: unknown): never {
  if (e instanceof ServiceError) throw e;
  const code = (e as { code?: unknown }).code;
  const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  if (sqlState && !OUTAGE_CLASSES.has(sqlState.slice(0, 2))) throw e;
  throw storeUnavailable(e);
}

/** Connects, migrates, and answers the pool. Throws with the server's reason when it cannot. */
export async function openPostgres(options: PostgresOptions): Promise<PgPool> {
  const pool = connectPostgres(options);
  const schema = options.schema;
  try {
    if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await migrate(pool);
  } catch (e) {
    await pool.end();
    throw e;
  }
  return pool;
}

async function migrate(pool: PgPool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_version');
    let version = rows[0]?.version ?? 0;
    if (rows.length === 0) await client.query('INSERT INTO schema_version (version) VALUES (0)');
    if (version > MIGRATIONS.length) throw new Error(`the database's schema (${version}) is newer than this release's (${MIGRATIONS.length})`);
    for (; version < MIGRATIONS.length; version++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[version]!);
        await client.query('UPDATE schema_version SET version = $1', [version + 1]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}

/** Runs `fn` in one transaction on one connection: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: PgPool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    // The database's own errors were classified by the client's query (storeError); `fn`'s are its own.
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}
