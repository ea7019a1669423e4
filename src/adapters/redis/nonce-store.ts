/** x402 authorization nonces claimed in Redis (SET NX with expiry), so one payment serves once across machines. */
import type { NonceStore } from '../../ports/payments.js';
import { type RedisClient, storeError } from './redis.js';

/** Lengthens a claim's expiry to ARGV[1] ms from now, never shortens it. */
const KEEP = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl >= 0 and ttl < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return ttl
`;

export class RedisNonceStore implements NonceStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix = 'websearch:x402:',
  ) {}

  async claim(key: string, _now: number, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.prefix + key, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX').catch(storeError)) === 'OK';
  }

  async release(key: string): Promise<void> {
    await this.redis.del(this.prefix + key).catch(storeError);
  }

  async keep(key: string, until: number): Promise<void> {
    const ms = Math.ceil(until - Date.now());
    if (ms > 0) await this.redis.eval(KEEP, 1, this.prefix + key, ms).catch(storeError);
  }
}
