import type { OutboxItem, UsageLine, UsageOutbox } from '../../ports/storefront.js';
import type { Db } from './database.js';

interface Row {
  request_id: string;
  agent_id: string;
  usage: string;
  attempts: number;
}

export class SqliteUsageOutbox implements UsageOutbox {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      add: db.prepare(
        'INSERT OR IGNORE INTO usage_outbox (request_id, agent_id, usage, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?)',
      ),
      due: db.prepare<[number, number, number], Row>(
        `SELECT request_id, agent_id, usage, attempts FROM usage_outbox
         WHERE sent_at IS NULL AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
         ORDER BY next_attempt_at LIMIT ?`,
      ),
      lease: db.prepare('UPDATE usage_outbox SET lease_until = ?, attempts = attempts + 1 WHERE request_id = ?'),
      sent: db.prepare('UPDATE usage_outbox SET sent_at = ?, lease_until = NULL, last_error = NULL WHERE request_id = ?'),
      failed: db.prepare('UPDATE usage_outbox SET next_attempt_at = ?, lease_until = NULL, last_error = ? WHERE request_id = ?'),
      pending: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM usage_outbox WHERE sent_at IS NULL'),
    };
  }

  async add(item: { requestId: string; agentId: string; usage: UsageLine[] }, now: number): Promise<void> {
    this.s.add.run(item.requestId, item.agentId, JSON.stringify(item.usage), now, now);
  }

  async claimDue(now: number, limit: number, leaseMs: number): Promise<OutboxItem[]> {
    return this.db
      .transaction(() =>
        this.s.due.all(now, now, limit).map((r) => {
          this.s.lease.run(now + leaseMs, r.request_id);
          return { requestId: r.request_id, agentId: r.agent_id, usage: JSON.parse(r.usage) as UsageLine[], attempts: r.attempts + 1 };
        }),
      )
      .immediate();
  }

  async markSent(requestId: string, now: number): Promise<void> {
    this.s.sent.run(now, requestId);
  }

  async markFailed(requestId: string, retryAt: number, error: string): Promise<void> {
    this.s.failed.run(retryAt, error.slice(0, 500), requestId);
  }

  async pending(): Promise<number> {
    return this.s.pending.get()!.n;
  }
}
