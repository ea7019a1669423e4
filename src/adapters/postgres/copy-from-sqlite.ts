/**
 * `websearch share`: one machine's SQLite file moved to PostgreSQL, for a service that outgrows
 * one machine. Its organizations, keys, ledger, usage, storefront accounts and outbox, nonces and
 * x402 payments are copied (rows, ids and balances as they are) in one transaction, into a database
 * that holds none yet; its page versions, every one oldest first, are appended to the page log,
 * from which the other machines apply them, and then its removals of pages in force (websearch
 * pages remove), oldest first, so that every machine keeps those pages out too.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../sqlite/database.js';
import { SqliteLedger } from '../sqlite/ledger.js';
import { SqlitePageStore } from '../sqlite/page-store.js';
import { inTransaction, type PgPool } from './database.js';
import { PgPageLog, toNewVersion, type VersionColumns } from './page-log.js';

/** The accounting tables, in an order their references allow, with the columns both schemas have. */
const TABLES: readonly { name: string; columns: readonly string[]; serial?: boolean; booleans?: readonly string[] }[] = [
  { name: 'orgs', columns: ['id', 'name', 'rate_limit', 'billing', 'balance', 'created_at'] },
  { name: 'api_keys', columns: ['id', 'org_id', 'prefix', 'hash', 'created_at', 'revoked_at'] },
  { name: 'ledger_entries', columns: ['id', 'org_id', 'amount', 'kind', 'reference', 'created_at'], serial: true },
  { name: 'reservations', columns: ['id', 'org_id', 'amount', 'reference', 'state', 'created_at', 'settled_at'] },
  {
    name: 'usage',
    columns: ['id', 'at', 'request_id', 'tier', 'operation', 'status', 'cost', 'latency_ms', 'org_id', 'key_id', 'app_title', 'client_ip', 'prompt_tokens', 'completion_tokens'],
    serial: true,
  },
  { name: 'usage_outbox', columns: ['request_id', 'agent_id', 'usage', 'created_at', 'attempts', 'next_attempt_at', 'lease_until', 'sent_at', 'last_error'] },
  { name: 'storefront_accounts', columns: ['user_id', 'org_id', 'plan', 'generation', 'active'], booleans: ['active'] },
  { name: 'x402_nonces', columns: ['key', 'expires_at'] },
  {
    name: 'payments',
    columns: ['id', 'at', 'request_id', 'operation', 'payer', 'nonce', 'amount', 'asset', 'network', 'pay_to', 'outcome', 'tx_hash', 'reason'],
    serial: true,
  },
];

/** Rows read from SQLite and written to PostgreSQL at a time. */
const CHUNK = 500;

export interface ShareSummary {
  /** Rows copied, by table. */
  rows: Record<string, number>;
  /** Pending credit reservations given back before the copy (a server that died holding them). */
  released: number;
  /** Page versions appended to the page log. */
  versions: number;
  /** Removals of pages in force (a URL or a site each) appended to the page log after them. */
  removals: number;
}

/** PostgreSQL already holds accounts: copying this file's would mix two services' ids and balances. */
export class AlreadyShared extends Error {}

type VersionRow = VersionColumns & { id: number };

/** Run with the file's server stopped: requests it took meanwhile would not be copied. */
export async function copyFromSqlite(db: Db, pool: PgPool, onProgress: (what: string) => void = () => {}): Promise<ShareSummary> {
  const released = await new SqliteLedger(db).releaseStale(Date.now() + 1);
  const rows: Record<string, number> = {};
  await inTransaction(pool, async (c) => {
    const { rows: held } = await c.query<{ n: number }>('SELECT (SELECT count(*) FROM orgs) + (SELECT count(*) FROM usage) + (SELECT count(*) FROM payments) AS n');
    if (held[0]!.n > 0) throw new AlreadyShared('PostgreSQL already holds organizations, usage or payments: a file is copied only into a database no service has used yet');
    for (const t of TABLES) {
      const read = db.prepare<[number], Record<string, unknown>>(`SELECT rowid AS rowid_, ${t.columns.join(', ')} FROM ${t.name} WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`);
      let copied = 0;
      for (let after = 0; ; ) {
        const chunk = read.all(after);
        if (chunk.length === 0) break;
        const values: unknown[] = [];
        const tuples = chunk.map((row) => {
          const marks = t.columns.map((col) => {
            const v = row[col];
            values.push(t.booleans?.includes(col) ? v === 1 : v);
            return `$${values.length}`;
          });
          return `(${marks.join(', ')})`;
        });
        await c.query(`INSERT INTO ${t.name} (${t.columns.join(', ')}) VALUES ${tuples.join(', ')}`, values);
        copied += chunk.length;
        after = chunk.at(-1)!.rowid_ as number;
      }
      // The table's own ids were copied: its sequence goes on after the highest.
      if (t.serial && copied > 0) await c.query(`SELECT setval(pg_get_serial_sequence('${t.name}', 'id'), (SELECT max(id) FROM ${t.name}))`);
      rows[t.name] = copied;
      onProgress(`${t.name}: ${copied}`);
    }
  });

  // The pages: every version, oldest first, to the log. The file has them all already: if nothing
  // else is in the log before them, it has applied the log up to the last of them.
  const log = new PgPageLog(pool);
  const origin = `share:${randomUUID()}`;
  const read = db.prepare<[number], VersionRow>(
    `SELECT v.id, p.url, v.acquired_at, v.published_at, v.title, v.description, v.author, v.content, v.lang, v.media_type, v.searchable
     FROM versions v JOIN pages p ON p.id = v.page_id WHERE v.id > ? ORDER BY v.id LIMIT ${CHUNK}`,
  );
  let versions = 0;
  const file = new SqlitePageStore(db);
  let contiguous = file.logApplied() === 0;
  let last = 0;
  for (let after = 0; ; ) {
    const chunk = read.all(after);
    if (chunk.length === 0) break;
    const { seqs } = await log.append(chunk.map(toNewVersion), origin);
    contiguous &&= seqs[0] === last + 1;
    last = seqs.at(-1)!;
    versions += chunk.length;
    after = chunk.at(-1)!.id;
    onProgress(`page versions: ${versions}`);
  }
  // The file's removals, oldest first: it has applied them already, as it has its versions.
  const removals = (await file.removals()).reverse();
  for (const r of removals) {
    const removal = r.kind === 'url' ? { urls: [r.value] } : { urls: [], site: r.value };
    const seq = await log.appendRemoval({ op: 'remove', removal, at: r.removedAt, ...(r.reason === undefined ? {} : { reason: r.reason }) }, origin);
    contiguous &&= seq === last + 1;
    last = seq;
  }
  if (removals.length > 0) onProgress(`removals of pages: ${removals.length}`);
  // Applying nothing up to `last` records the position.
  if (contiguous && last > 0) await file.applyLog([], last);
  return { rows, released, versions, removals: removals.length };
}
