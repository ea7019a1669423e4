/** The storefront's allowance and usage APIs, and the outbox that makes usage reports durable. */

export interface UsageLine {
  meterSlug: string;
  quantity: number;
}

export type AllowanceAnswer = { kind: 'allowed' } | { kind: 'denied' } | { kind: 'unconfirmed'; reason: string };

export interface StorefrontApi {
  /** Never throws: anything but a clear yes or no is `unconfirmed`. */
  checkAllowance(req: { requestId: string; agentId: string; usage: UsageLine[] }): Promise<AllowanceAnswer>;
  /** Resolves true when the storefront recorded it (2xx); false or a throw means try again later. */
  reportUsage(report: { idempotencyKey: string; agentId: string; usage: UsageLine[] }): Promise<boolean>;
}

export interface OutboxItem {
  requestId: string;
  agentId: string;
  usage: UsageLine[];
  attempts: number;
}

export interface UsageOutbox {
  /** Adds a report once per request id; a second add of the same id is a no-op. */
  add(item: { requestId: string; agentId: string; usage: UsageLine[] }, now: number): Promise<void>;
  /** Leases up to `limit` due items for `leaseMs` so that no other worker sends them meanwhile. */
  claimDue(now: number, limit: number, leaseMs: number): Promise<OutboxItem[]>;
  markSent(requestId: string, now: number): Promise<void>;
  /** Schedules another attempt at `retryAt`. */
  markFailed(requestId: string, retryAt: number, error: string): Promise<void>;
  pending(): Promise<number>;
}
