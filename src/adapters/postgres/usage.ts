import type { OutboxItem, UsageLine, UsageOutbox } from '../../ports/storefront.js';
import type { UsageEntry, UsageStore } from '../../ports/usage-store.js';
import { USAGE_COLUMNS, type UsageRow, toUsageEntry, usageValues } from '../account-rows.js';
import { WriteBehind } from '../write-behind.js';
import type { PgPool } from './database.js';

export class PgUsageStore implements UsageStore {
  /** As in the SQLite store, rows are written behind the response: a batch per INSERT. */
  private readonly queue: WriteBehind<UsageEntry>;

  constructor(
    private readonly pool: PgPool,
    onError: (e: unknown) => void = () => {},
  ) {
    this.queue = new WriteBehind((batch) => this.insert(batch), onError);
  }

  async record(e: UsageEntry): Promise<void> {
    this.queue.add(e);
  }

  async flush(): Promise<void> {
    await this.queue.flush();
  }

  private async insert(batch: UsageEntry[]): Promise<void> {
    const values = batch.flatMap(usageValues);
    const width = values.length / batch.length;
    const tuples = batch.map((_, i) => `(${Array.from({ length: width }, (_, k) => `$${i * width + k + 1}`).join(', ')})`);
    await this.pool.query(`INSERT INTO usage (${USAGE_COLUMNS}) VALUES ${tuples.join(', ')}`, values);
  }

  /** Newest first by the request's time: machines write their rows in batches, so ids are not in time order. */
  async list(filter: { orgId?: string; limit: number }): Promise<UsageEntry[]> {
    await this.queue.flush();
    const { rows } = filter.orgId
      ? await this.pool.query<UsageRow>('SELECT * FROM usage WHERE org_id = $1 ORDER BY at DESC, id DESC LIMIT $2', [filter.orgId, filter.limit])
      : await this.pool.query<UsageRow>('SELECT * FROM usage ORDER BY at DESC, id DESC LIMIT $1', [filter.limit]);
    return rows.map(toUsageEntry);
  }

  /** As in the SQLite store: the old rows are those before the first newer one by id (machines' clocks and batches put a few out of that order; a later prune takes them). */
  async prune(before: number, max: number): Promise<number> {
    await this.queue.flush();
    const { rowCount } = await this.pool.query(
      `DELETE FROM usage WHERE id IN (
         SELECT id FROM usage
         WHERE id < COALESCE((SELECT id FROM usage WHERE at >= $1 ORDER BY id LIMIT 1), 9223372036854775807) AND at < $1
         ORDER BY id LIMIT $2
       )`,
      [before, max],
    );
    return rowCount ?? 0;
  }
}

interface OutboxRow {
  request_id: string;
  agent_id: string;
  usage: string;
  attempts: number;
}

export class PgUsageOutbox implements UsageOutbox {
  constructor(private readonly pool: PgPool) {}

  async add(item: { requestId: string; agentId: string; usage: UsageLine[] }, now: number): Promise<void> {
    await this.pool.query(
      'INSERT INTO usage_outbox (request_id, agent_id, usage, created_at, next_attempt_at) VALUES ($1, $2, $3, $4, $4) ON CONFLICT (request_id) DO NOTHING',
      [item.requestId, item.agentId, JSON.stringify(item.usage), now],
    );
  }

  async claimDue(now: number, limit: number, leaseMs: number): Promise<OutboxItem[]> {
    // SKIP LOCKED: reporters on other machines take other rows instead of waiting for these.
    const { rows } = await this.pool.query<OutboxRow>(
      `UPDATE usage_outbox SET lease_until = $2, attempts = attempts + 1
       WHERE request_id IN (
         SELECT request_id FROM usage_outbox
         WHERE sent_at IS NULL AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
         ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED
       )
       RETURNING request_id, agent_id, usage, attempts`,
      [now, now + leaseMs, limit],
    );
    return rows.map((r) => ({ requestId: r.request_id, agentId: r.agent_id, usage: JSON.parse(r.usage) as UsageLine[], attempts: r.attempts }));
  }

  async markSent(requestId: string, now: number): Promise<void> {
    await this.pool.query('UPDATE usage_outbox SET sent_at = $1, lease_until = NULL, last_error = NULL WHERE request_id = $2', [now, requestId]);
  }

  async markFailed(requestId: string, retryAt: number, error: string): Promise<void> {
    await this.pool.query('UPDATE usage_outbox SET next_attempt_at = $1, lease_until = NULL, last_error = $2 WHERE request_id = $3', [
      retryAt,
      error.slice(0, 500),
      requestId,
    ]);
  }

  async pending(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_outbox WHERE sent_at IS NULL');
    return rows[0]!.n;
  }
}
