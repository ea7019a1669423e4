/** x402 pay-per-request: the facilitator that verifies and settles, the replay guard, the records. */

/** One `accepts` entry of the offer (SPEC 2.5). */
export interface PaymentRequirements {
  scheme: 'exact';
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: { name: string; version: string };
}

export interface Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/** The decoded PAYMENT-SIGNATURE (x402 v2, exact scheme on EVM). */
export interface PaymentPayload {
  x402Version: number;
  payload: { authorization: Authorization; signature: string };
  resource?: { url: string };
  accepted: PaymentRequirements;
}

export interface VerifyResult {
  isValid: boolean;
  invalidReason?: string;
  payer?: string;
}

export interface SettleResult {
  success: boolean;
  errorReason?: string;
  transaction: string;
  network: string;
  payer?: string;
}

/**
 * The x402 facilitator protocol (/verify, /settle). Answers with values for on-chain outcomes;
 * throws when it cannot be reached (the caller answers 503).
 */
export interface Facilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult>;
}

/** Set-if-absent with expiry: one claim per authorization nonce, shared by every instance. */
export interface NonceStore {
  /** True when this caller now holds the key; false when someone else does. */
  claim(key: string, now: number, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
  /** Keeps a claim after a settled payment until `until`. */
  keep(key: string, until: number): Promise<void>;
}

export type PaymentOutcome = 'settled' | 'settlement_failed' | 'not_settled';

export interface PaymentRecord {
  at: number;
  requestId: string;
  operation: string;
  payer: string;
  nonce: string;
  amount: string;
  asset: string;
  network: string;
  payTo: string;
  outcome: PaymentOutcome;
  transaction?: string;
  /** A short reason; raw chain errors go to the log only. */
  reason?: string;
}

export interface PaymentLog {
  record(entry: PaymentRecord): Promise<void>;
  list(limit: number): Promise<PaymentRecord[]>;
}
