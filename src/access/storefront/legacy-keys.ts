/**
 * The storefront's older key-exchange contract (notes/storefront.md): on a purchase the storefront
 * calls POST {base_url}/zeroclick/api-key {userId, plan} and gets {apiKey}; DELETE revokes it.
 * Provisioning is idempotent without keeping the key: the key is derived from our secret, the user
 * and a generation number, so a repeated POST returns the same key, and a revocation bumps the
 * generation so the next purchase gets a new one. Calls with such a key are billed by the
 * storefront (X-ZeroClick-Usage), not against our credits.
 */
import { createHmac } from 'node:crypto';
import { withoutControls } from '../../core/controls.js';
import { ServiceError } from '../../core/errors.js';
import type { StorefrontAccountStore } from '../../ports/accounts.js';
import { hashApiKey } from '../keyed/api-keys.js';
import { type Result, fail, ok } from '../tier.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let s = '';
  while (s.length < length) {
    s = ALPHABET[Number(n % 62n)]! + s;
    n /= 62n;
  }
  return s;
}

/** The key of (user, generation): `wsk_` + 12 prefix + 32 secret characters, like any other key. */
export function deriveStorefrontKey(secret: string, userId: string, generation: number): { key: string; prefix: string } {
  const a = createHmac('sha256', secret).update(`zeroclick-api-key\n${userId}\n${generation}\na`).digest();
  const b = createHmac('sha256', secret).update(`zeroclick-api-key\n${userId}\n${generation}\nb`).digest();
  const body = base62(a, 22) + base62(b, 22);
  return { key: `wsk_${body}`, prefix: body.slice(0, 12) };
}

export interface KeyExchangeBody {
  userId: string;
  plan?: string;
}

export function parseKeyExchangeBody(raw: string): Result<KeyExchangeBody> {
  let o: unknown;
  try {
    o = JSON.parse(raw);
  } catch {
    return fail(new ServiceError('invalid_parameter', 'The request body is not valid JSON'));
  }
  const rec = (o && typeof o === 'object' && !Array.isArray(o) ? o : {}) as Record<string, unknown>;
  if (typeof rec.userId !== 'string' || !/^[\w.:@-]{1,200}$/.test(rec.userId)) {
    return fail(new ServiceError('invalid_parameter', 'userId must be a string of at most 200 characters', { param: 'userId' }));
  }
  if (rec.plan !== undefined && (typeof rec.plan !== 'string' || rec.plan.length > 200)) {
    return fail(new ServiceError('invalid_parameter', 'plan must be a string', { param: 'plan' }));
  }
  // A plan is stored as text: without control characters (PostgreSQL's text cannot hold a NUL).
  return ok({ userId: rec.userId, ...(typeof rec.plan === 'string' ? { plan: withoutControls(rec.plan) } : {}) });
}

export function createKeyExchange(store: StorefrontAccountStore, secret: string) {
  const keyId = (userId: string, generation: number) => `key_${deriveStorefrontKey(secret, userId, generation).prefix}`;
  return {
    /** Returns the user's key, creating it on the first call; the same key on every later call. */
    async provision(body: KeyExchangeBody): Promise<string> {
      const account = await store.getOrCreate(body.userId);
      const { key, prefix } = deriveStorefrontKey(secret, body.userId, account.generation);
      if (!account.active) {
        await store.activate(body.userId, body.plan, { id: `key_${prefix}`, prefix, hash: hashApiKey(key), createdAt: Date.now() });
      }
      return key;
    },
    /** Revokes the user's key; true when there was one to revoke. */
    async revoke(body: KeyExchangeBody): Promise<boolean> {
      return store.deactivate(body.userId, (generation) => keyId(body.userId, generation), Date.now());
    },
  };
}
