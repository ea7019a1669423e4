import type { NonceStore, PaymentLog, PaymentRecord } from '../../ports/payments.js';
import { type PaymentRow, toPaymentRecord } from '../account-rows.js';
import type { PgPool } from './database.js';

export class PgNonceStore implements NonceStore {
  constructor(private readonly pool: PgPool) {}

  async claim(key: string, now: number, ttlMs: number): Promise<boolean> {
    // One statement: a missing or expired claim becomes ours; a live one stays its holder's.
    const { rowCount } = await this.pool.query(
      `INSERT INTO x402_nonces (key, expires_at) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE x402_nonces.expires_at <= $3`,
      [key, now + ttlMs, now],
    );
    if (rowCount === 1 && Math.random() < 0.01) await this.pool.query('DELETE FROM x402_nonces WHERE expires_at <= $1', [now]);
    return rowCount === 1;
  }

  async release(key: string): Promise<void> {
    await this.pool.query('DELETE FROM x402_nonces WHERE key = $1', [key]);
  }

  async keep(key: string, until: number): Promise<void> {
    await this.pool.query('UPDATE x402_nonces SET expires_at = greatest(expires_at, $1) WHERE key = $2', [until, key]);
  }
}

export class PgPaymentLog implements PaymentLog {
  constructor(private readonly pool: PgPool) {}

  async record(e: PaymentRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO payments (at, request_id, operation, payer, nonce, amount, asset, network, pay_to, outcome, tx_hash, reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [e.at, e.requestId, e.operation, e.payer, e.nonce, e.amount, e.asset, e.network, e.payTo, e.outcome, e.transaction ?? null, e.reason ?? null],
    );
  }

  async list(limit: number): Promise<PaymentRecord[]> {
    const { rows } = await this.pool.query<PaymentRow>('SELECT * FROM payments ORDER BY id DESC LIMIT $1', [limit]);
    return rows.map(toPaymentRecord);
  }
}
