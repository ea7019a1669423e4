/** One row per answered request, for metering and attribution. */

export interface UsageEntry {
  at: number;
  requestId: string;
  tier: string;
  operation: 'search' | 'fetch';
  status: number;
  costMicroUsd: number;
  latencyMs: number;
  orgId?: string;
  keyId?: string;
  appTitle?: string;
  clientIp?: string;
  /** Language-model tokens used by `prompt`. */
  promptTokens?: number;
  completionTokens?: number;
}

export interface UsageStore {
  /** Queues the row; it is stored shortly after (see the adapter), and before `list` reads. */
  record(entry: UsageEntry): Promise<void>;
  list(filter: { orgId?: string; limit: number }): Promise<UsageEntry[]>;
  /** Stores every queued row now (at shutdown). */
  flush(): Promise<void>;
  /**
   * Deletes at most `max` rows of requests made before `before` (ms), the oldest written first;
   * answers how many. The retention (ops/usage-retention.ts) calls it until it answers less than `max`.
   */
  prune(before: number, max: number): Promise<number>;
}
