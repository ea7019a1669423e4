/** `websearch share`: this machine's SQLite file moved to PostgreSQL (DATABASE_URL=postgres://...), for several machines. */
import { AlreadyShared, copyFromSqlite } from '../adapters/postgres/copy-from-sqlite.js';
import { openPostgres } from '../adapters/postgres/database.js';
import { openDatabase } from '../adapters/sqlite/database.js';
import { connect } from '../config/services.js';
import { CommandFailed, parse, settingsFrom, UsageError } from './args.js';

export async function shareCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {});
  if (positionals.length > 0) throw new UsageError('usage: websearch share (with DATABASE_URL=postgres://... or --database-url)');
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
        `${s.released > 0 ? ` (${s.released} pending credit reservations given back first)` : ''}; ${s.versions} page versions appended to the page log.\n`,
    );
  } catch (e) {
    if (e instanceof AlreadyShared) throw new CommandFailed(e.message);
    throw e;
  } finally {
    db.close();
    await pool.end();
  }
}
