import type { NonceStore, PaymentLog, PaymentRecord } from '../../ports/payments.js';
import { type PaymentRow, toPaymentRecord } from '../account-rows.js';
import type { Db } from './database.js';

export class SqliteNonceStore implements NonceStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      expire: db.prepare<[string, number]>('DELETE FROM x402_nonces WHERE key = ? AND expires_at <= ?'),
      insert: db.prepare<[string, number]>('INSERT OR IGNORE INTO x402_nonces (key, expires_at) VALUES (?, ?)'),
      release: db.prepare<[string]>('DELETE FROM x402_nonces WHERE key = ?'),
      keep: db.prepare<[number, string]>('UPDATE x402_nonces SET expires_at = max(expires_at, ?) WHERE key = ?'),
      sweep: db.prepare<[number]>('DELETE FROM x402_nonces WHERE expires_at <= ?'),
    };
  }

  async claim(key: string, now: number, ttlMs: number): Promise<boolean> {
    return this.db
      .transaction(() => {
        this.s.expire.run(key, now);
        const claimed = this.s.insert.run(key, now + ttlMs).changes === 1;
        if (claimed && Math.random() < 0.01) this.s.sweep.run(now);
        return claimed;
      })
      .immediate();
  }

  async release(key: string): Promise<void> {
    this.s.release.run(key);
  }

  async keep(key: string, until: number): Promise<void> {
    this.s.keep.run(until, key);
  }
}

export class SqlitePaymentLog implements PaymentLog {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        `INSERT INTO payments (at, request_id, operation, payer, nonce, amount, asset, network, pay_to, outcome, tx_hash, reason)
         VALUES (@at, @requestId, @operation, @payer, @nonce, @amount, @asset, @network, @payTo, @outcome, @transaction, @reason)`,
      ),
      list: db.prepare<[number], PaymentRow>('SELECT * FROM payments ORDER BY id DESC LIMIT ?'),
    };
  }

  async record(e: PaymentRecord): Promise<void> {
    this.s.insert.run({ ...e, transaction: e.transaction ?? null, reason: e.reason ?? null });
  }

  async list(limit: number): Promise<PaymentRecord[]> {
    return this.s.list.all(limit).map(toPaymentRecord);
  }
}
