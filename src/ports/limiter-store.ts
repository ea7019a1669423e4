/**
 * Counting only (STYLE 7): windows, headers and Retry-After are policy (access/limits.ts).
 * `consume` is atomic over all windows: if any would go over its limit, none is counted.
 */

export interface WindowSpec {
  key: string;
  windowMs: number;
  limit: number;
}

export interface WindowState {
  limit: number;
  /** Count after this request (or the current count when refused). */
  count: number;
  /** Epoch ms when the window resets. */
  resetAt: number;
}

export interface ConsumeResult {
  allowed: boolean;
  windows: WindowState[];
}

export interface LimiterStore {
  consume(windows: readonly WindowSpec[], now: number): Promise<ConsumeResult>;
  close?(): Promise<void>;
}
