import type { OutboxItem, UsageLine, UsageOutbox } from '../../ports/storefront.js';
import type { UsageEntry, UsageStore } from '../../ports/usage-store.js';
import { type UsageRow, toUsageEntry } from '../account-rows.js';
import type { PgPool } from './database.js';

/** As in the SQLite store: rows are queued and written behind the response, a batch per statement. */
const FLUSH_MS = 50;
const MAX_BATCH = 500;
const COLUMNS = 13;

export class PgUsageStore implements UsageStore {
  private queued: UsageEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The write in flight, so that `list` and `flush` wait for it. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: PgPool,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  async record(e: UsageEntry): Promise<void> {
    this.queued.push(e);
    if (this.queued.length >= MAX_BATCH) void this.write();
    else this.timer ??= setTimeout(() => void this.write(), FLUSH_MS).unref();
  }

  async flush(): Promise<void> {
    await this.write();
  }

  /** Writes the queue in one INSERT; a failure is reported (the rows are lost, as a failed insert's row would be), never thrown at a timer. */
  private write(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queued;
    this.queued = [];
    const previous = this.writing;
    this.writing = previous.then(async () => {
      if (batch.length === 0) return;
      const values: unknown[] = [];
      const tuples = batch.map((e, i) => {
        values.push(
          e.at,
          e.requestId,
          e.tier,
          e.operation,
          e.status,
          e.costMicroUsd,
          e.latencyMs,
          e.orgId ?? null,
          e.keyId ?? null,
          e.appTitle ?? null,
          e.clientIp ?? null,
          e.promptTokens ?? null,
          e.completionTokens ?? null,
        );
        return `(${Array.from({ length: COLUMNS }, (_, k) => `$${i * COLUMNS + k + 1}`).join(', ')})`;
      });
      try {
        await this.pool.query(
          `INSERT INTO usage (at, request_id, tier, operation, status, cost, latency_ms, org_id, key_id, app_title, client_ip, prompt_tokens, completion_tokens)
           VALUES ${tuples.join(', ')}`,
          values,
        );
      } catch (e) {
        this.onError(e);
      }
    });
    return this.writing;
  }

  async list(filter: { orgId?: string; limit: number }): Promise<UsageEntry[]> {
    await this.write();
    const { rows } = filter.orgId
      ? await this.pool.query<UsageRow>('SELECT * FROM usage WHERE org_id = $1 ORDER BY id DESC LIMIT $2', [filter.orgId, filter.limit])
      : await this.pool.query<UsageRow>('SELECT * FROM usage ORDER BY id DESC LIMIT $1', [filter.limit]);
    return rows.map(toUsageEntry);
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
