/**
 * `websearch backup <folder>`: a copy of the data folder taken while the server runs, into a new
 * or empty folder that `--data-dir` can name: the database as one consistent instant (SQLite's
 * `VACUUM INTO`, a read transaction: writers go on meanwhile, and a file copied by hand would mix
 * instants, or lose what the write-ahead log holds), and the search index as saved (copied under
 * its folder's lock). The index first: the database's instant is then as new as the index's save
 * or newer, and the copy's first start takes the index up to it from the database's log (or
 * builds it anew when that log was pruned past it meanwhile).
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { copyIndex } from '../adapters/engine/segment-files.js';
import { openDatabase } from '../adapters/sqlite/database.js';
import { CommandFailed, parse, settingsFrom, UsageError } from './args.js';

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

export async function backupCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {});
  if (positionals.length !== 1) throw new UsageError('usage: websearch backup <folder>');
  const settings = settingsFrom(values);
  const source = settings.sqlitePath;
  if (source === ':memory:') throw new UsageError('backup copies a database file; this one is in memory');
  if (!existsSync(source)) throw new CommandFailed(`no database at ${source} to back up`);
  const target = resolve(positionals[0]!);
  if (existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0)) {
    throw new UsageError(`${target} is not a new or empty folder: a backup never writes over another`);
  }
  mkdirSync(target, { recursive: true });
  const started = Date.now();
  const index = copyIndex(`${source}.engine`, join(target, 'websearch.db.engine'));
  const copy = join(target, 'websearch.db');
  const db = openDatabase({ path: source, readonly: true, mapped: false });
  try {
    db.prepare('VACUUM INTO ?').run(copy);
  } catch (e) {
    rmSync(copy, { force: true }); // a copy made in part is no backup, and holds the room that ran out
    throw e;
  } finally {
    db.close();
  }
  const withIndex = index ? `with the search index (${index.files} files, ${mib(index.bytes)} MiB)` : 'without a saved search index (the copy builds one at its first start)';
  process.stderr.write(
    `backup: the database (${mib(statSync(copy).size)} MiB) copied into ${target} in ${((Date.now() - started) / 1000).toFixed(1)} s, ${withIndex}; use it with --data-dir ${target}\n`,
  );
  return 0;
}
