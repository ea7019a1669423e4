import type { UsageEntry, UsageStore } from '../../ports/usage-store.js';
import { type UsageRow, toUsageEntry } from '../account-rows.js';
import type { Db } from './database.js';

/**
 * Rows are written behind the response: `record` queues the entry, and the queue goes to the
 * database in one transaction a moment later (at most FLUSH_MS, or at once past MAX_BATCH), so no
 * request waits for a commit of its own. `list` and `flush` write what is queued first; `close`
 * flushes. A process killed outright loses at most the last FLUSH_MS of usage rows (never a charge:
 * the ledger commits with the request).
 */
const FLUSH_MS = 50;
const MAX_BATCH = 500;

export class SqliteUsageStore implements UsageStore {
  private readonly s;
  private readonly insertBatch;
  private queued: UsageEntry[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    db: Db,
    private readonly onError: (e: unknown) => void = () => {},
  ) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO usage (at, request_id, tier, operation, status, cost, latency_ms, org_id, key_id, app_title, client_ip, prompt_tokens, completion_tokens)
         VALUES (@at, @requestId, @tier, @operation, @status, @cost, @latencyMs, @orgId, @keyId, @appTitle, @clientIp, @promptTokens, @completionTokens)`,
      ),
      byOrg: db.prepare<[string, number], UsageRow>('SELECT * FROM usage WHERE org_id = ? ORDER BY id DESC LIMIT ?'),
      all: db.prepare<[number], UsageRow>('SELECT * FROM usage ORDER BY id DESC LIMIT ?'),
    };
    this.insertBatch = db.transaction((entries: readonly UsageEntry[]) => {
      for (const e of entries) {
        this.s.insert.run({
          at: e.at,
          requestId: e.requestId,
          tier: e.tier,
          operation: e.operation,
          status: e.status,
          cost: e.costMicroUsd,
          latencyMs: e.latencyMs,
          orgId: e.orgId ?? null,
          keyId: e.keyId ?? null,
          appTitle: e.appTitle ?? null,
          clientIp: e.clientIp ?? null,
          promptTokens: e.promptTokens ?? null,
          completionTokens: e.completionTokens ?? null,
        });
      }
    });
  }

  async record(e: UsageEntry): Promise<void> {
    this.queued.push(e);
    if (this.queued.length >= MAX_BATCH) this.write();
    else this.timer ??= setTimeout(() => this.write(), FLUSH_MS).unref();
  }

  async flush(): Promise<void> {
    this.write();
  }

  /** Writes the queue; a failure is reported (the rows are lost, as a failed insert's row would be), never thrown at a timer. */
  private write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queued.length === 0) return;
    const batch = this.queued;
    this.queued = [];
    try {
      this.insertBatch(batch);
    } catch (e) {
      this.onError(e);
    }
  }

  async list(filter: { orgId?: string; limit: number }): Promise<UsageEntry[]> {
    this.write();
    const rows = filter.orgId ? this.s.byOrg.all(filter.orgId, filter.limit) : this.s.all.all(filter.limit);
    return rows.map(toUsageEntry);
  }
}
