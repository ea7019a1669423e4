/** The credit reservations of unknown outcome of a machine on PostgreSQL, in its SQLite file (postgres/ledger.ts `UnsettledList`). */
import type { UnsettledList } from '../postgres/ledger.js';
import type { Db } from './database.js';

export class SqliteUnsettledList implements UnsettledList {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      add: db.prepare<[string, number]>('INSERT OR IGNORE INTO unsettled_reservations (id, at) VALUES (?, ?)'),
      remove: db.prepare<[string]>('DELETE FROM unsettled_reservations WHERE id = ?'),
      all: db.prepare<[], string>('SELECT id FROM unsettled_reservations ORDER BY at').pluck(),
    };
  }

  add(id: string): void {
    this.stmts.add.run(id, Date.now());
  }

  remove(id: string): void {
    this.stmts.remove.run(id);
  }

  all(): string[] {
    return this.stmts.all.all();
  }
}
