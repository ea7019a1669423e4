import type { UsageEntry, UsageStore } from '../../ports/usage-store.js';
import { USAGE_COLUMNS, type UsageRow, toUsageEntry, usageValues } from '../account-rows.js';
import { WriteBehind } from '../write-behind.js';
import type { Db } from './database.js';

/**
 * Rows are written behind the response (WriteBehind): `record` queues the entry, and the queue goes
 * to the database in one transaction a moment later, so no request waits for a commit of its own.
 * `list` and `flush` write what is queued first; `close` flushes. A process killed outright loses at
 * most the last 50 ms of usage rows (never a charge: the ledger commits with the request).
 */
export class SqliteUsageStore implements UsageStore {
  private readonly s;
  private readonly queue: WriteBehind<UsageEntry>;

  constructor(db: Db, onError: (e: unknown) => void = () => {}) {
    this.s = {
      insert: db.prepare(`INSERT INTO usage (${USAGE_COLUMNS}) VALUES (${USAGE_COLUMNS.split(',').map(() => '?').join(', ')})`),
      // By the request's time, newest first (rows of one batch, or of several processes, are not written in time order).
      byOrg: db.prepare<[string, number], UsageRow>('SELECT * FROM usage WHERE org_id = ? ORDER BY at DESC, id DESC LIMIT ?'),
      all: db.prepare<[number], UsageRow>('SELECT * FROM usage ORDER BY at DESC, id DESC LIMIT ?'),
      // Rows are written in about the order of their requests, so the first row at or after the
      // time, by id, bounds the old ones: found by a scan from the start that stops there (the rows
      // before it are the ones to go), where `at` has no index of its own to find them by.
      firstFrom: db.prepare<[number], number>('SELECT id FROM usage WHERE at >= ? ORDER BY id LIMIT 1').pluck(),
      prune: db.prepare<[number, number, number]>('DELETE FROM usage WHERE id IN (SELECT id FROM usage WHERE id < ? AND at < ? ORDER BY id LIMIT ?)'),
    };
    const insertBatch = db.transaction((entries: readonly UsageEntry[]) => {
      for (const e of entries) this.s.insert.run(usageValues(e));
    });
    this.queue = new WriteBehind((batch) => insertBatch(batch), onError);
  }

  async record(e: UsageEntry): Promise<void> {
    this.queue.add(e);
  }

  async flush(): Promise<void> {
    await this.queue.flush();
  }

  async list(filter: { orgId?: string; limit: number }): Promise<UsageEntry[]> {
    await this.queue.flush();
    const rows = filter.orgId ? this.s.byOrg.all(filter.orgId, filter.limit) : this.s.all.all(filter.limit);
    return rows.map(toUsageEntry);
  }

  async prune(before: number, max: number): Promise<number> {
    await this.queue.flush();
    const bound = this.s.firstFrom.get(before) ?? Number.MAX_SAFE_INTEGER;
    return this.s.prune.run(bound, before, max).changes;
  }
}
