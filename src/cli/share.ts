/** `websearch share`: this machine's SQLite file moved to PostgreSQL (DATABASE_URL=postgres://...), for several machines. */
import { AlreadyShared, copyFromSqlite } from '../adapters/postgres/copy-from-sqlite.js';
import { openPostgres } from '../adapters/postgres/database.js';
import { PgPageLog } from '../adapters/postgres/page-log.js';
import { openDatabase } from '../adapters/sqlite/database.js';
import { connect } from '../config/services.js';
import { CommandFailed, parse, settingsFrom, UsageError } from './args.js';

/** How long a machine may go unseen (its sync not run) before a prune stops waiting for it, by default. */
const UNSEEN_DAYS = 7;

export async function shareCommand(argv: string[]): Promise<void> {
  if (argv[0] === 'prune') return pruneCommand(argv.slice(1));
  const { values, positionals } = parse(argv, {});
  if (positionals.length > 0) throw new UsageError('usage: websearch share [prune [--unseen-days N]] (with DATABASE_URL=postgres://... or --database-url)');
  const settings = settingsFrom(values);
  const url = settings.postgresUrl;
  if (!url) throw new UsageError("websearch share copies this machine's SQLite file to PostgreSQL: set DATABASE_URL=postgres://... (or --database-url)");
  const pool = await connect('PostgreSQL', url, () => openPostgres({ url }));
  const db = openDatabase({ path: settings.sqlitePath });
  const tty = process.stderr.isTTY;
  try {
    const s = await copyFromSqlite(db, pool, (what) => process.stderr.write(tty ? `\r${what}          ` : `${what}\n`));
    if (tty) process.stderr.write('\n');
    if (values.json) {
      process.stdout.write(`${JSON.stringify(s)}\n`);
      return;
    }
    const copied = Object.entries(s.rows).map(([table, n]) => `${n} ${table}`);
    process.stdout.write(
      `Copied ${settings.sqlitePath} to PostgreSQL: ${copied.join(', ')}` +
        `${s.released > 0 ? ` (${s.released} pending credit reservations given back first)` : ''}; ${s.versions} page versions${s.removals > 0 ? ` and ${s.removals} removals of pages` : ''} appended to the page log.\n`,
    );
  } catch (e) {
    if (e instanceof AlreadyShared) throw new CommandFailed(e.message);
    throw e;
  } finally {
    db.close();
    await pool.end();
  }
}

/**
 * `websearch share prune [--unseen-days N]`: deletes the page log's rows that every machine seen in
 * the last N days (7) has applied; a machine away longer is then behind the log and must start
 * from a copy of another's data folder (PgPageLog.prune).
 */
async function pruneCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, { 'unseen-days': { type: 'string' } });
  if (positionals.length > 0) throw new UsageError('usage: websearch share prune [--unseen-days N]');
  const raw = values['unseen-days'];
  const days = raw === undefined ? UNSEEN_DAYS : Number(raw);
  if (!(Number.isFinite(days) && days > 0 && days <= 3650)) throw new UsageError('--unseen-days must be a number of days, more than 0 (at most 3650)');
  const settings = settingsFrom(values);
  const url = settings.postgresUrl;
  if (!url) throw new UsageError('websearch share prune prunes the page log in PostgreSQL: set DATABASE_URL=postgres://... (or --database-url)');
  const pool = await connect('PostgreSQL', url, () => openPostgres({ url }));
  try {
    const r = await new PgPageLog(pool).prune(Date.now() - days * 86_400_000);
    if (values.json) {
      process.stdout.write(`${JSON.stringify(r)}\n`);
      return;
    }
    process.stdout.write(
      `Pruned ${r.deleted} page log rows (up to seq ${r.floor}): every one of the ${r.readers} machines seen in the last ${days} days has applied them` +
        `${r.forgotten > 0 ? `; ${r.forgotten} not seen since are forgotten (one that comes back is behind the log: start it from a copy of another machine's data folder)` : ''}.\n`,
    );
  } finally {
    await pool.end();
  }
}

