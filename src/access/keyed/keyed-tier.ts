/** Keyed tier: API key, per-organization rate limit, credits reserved before and committed after (or refused then: ports/ledger.ts). */
import { ServiceError } from '../../core/errors.js';
import type { Clock } from '../../core/time.js';
import type { AccountStore } from '../../ports/accounts.js';
import type { Ledger } from '../../ports/ledger.js';
import type { LimiterStore } from '../../ports/limiter-store.js';
import { DEFAULT_LIMITS, rateLimitedError, rateLimitHeaders, SECOND } from '../limits.js';
import { type AccessTier, fail, headerValue, ok, type TierRequest } from '../tier.js';
import { apiKeyMatches, apiKeyPrefix } from './api-keys.js';

/** 4 USD per 1,000 requests, in micro-USD. */
export const KEYED_REQUEST_COST = 4000;

export interface KeyedTierDeps {
  accounts: AccountStore;
  ledger: Ledger;
  limiter: LimiterStore;
  clock: Clock;
  defaultRatePerSecond?: number;
}

interface KeyedGate {
  orgId: string;
  /** Storefront-billed organizations (older storefront contract) report usage instead of paying credits. */
  storefrontBilled: boolean;
}

function insufficientCredits(balance = 0): ServiceError {
  return new ServiceError(
    'insufficient_credits',
    `Insufficient credits: a request costs ${KEYED_REQUEST_COST / 1e6} USD and the balance is ${balance / 1e6} USD`,
  );
}

/** `X-API-Key` wins over `Authorization: Bearer` when both are sent. */
export function presentedKey(req: TierRequest): string | undefined {
  const header = headerValue(req, 'x-api-key')?.trim();
  if (header) return header;
  const auth = headerValue(req, 'authorization');
  const m = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return m?.[1];
}

export function createKeyedTier(deps: KeyedTierDeps): AccessTier<KeyedGate, { reservationId: string | undefined }> {
  const defaultRate = deps.defaultRatePerSecond ?? DEFAULT_LIMITS.keyedPerSecond;
  return {
    name: 'keyed',
    routes: {
      search: { path: '/v1/search', methods: ['POST'] },
      fetch: { path: '/v1/fetch', methods: ['GET'] },
    },
    ownParams: [],

    async identify(req) {
      const key = presentedKey(req);
      if (!key) {
        return fail(new ServiceError('missing_api_key', 'Missing API key: send it in the X-API-Key header'));
      }
      const prefix = apiKeyPrefix(key);
      const found = prefix === undefined ? undefined : await deps.accounts.findKeyByPrefix(prefix);
      if (!found || !apiKeyMatches(key, found.key.hash) || found.key.revokedAt !== undefined) {
        return fail(new ServiceError('invalid_api_key', 'Invalid or revoked API key'));
      }
      const { key: record, org } = found;

      const now = deps.clock.now();
      const limit = org.rateLimitPerSecond ?? defaultRate;
      const counted = await deps.limiter.consume([{ key: `org:${org.id}`, windowMs: SECOND, limit }], now);
      const headers = rateLimitHeaders(counted, now);
      if (!counted.allowed) return fail(rateLimitedError(counted, now, headers));
      return ok({
        headers,
        attribution: { orgId: org.id, keyId: record.id },
        data: { orgId: org.id, storefrontBilled: org.billing === 'storefront' },
      });
    },

    async admit(gate, _call, req) {
      if (gate.data.storefrontBilled) return ok({ cost: 0, data: { reservationId: undefined } });
      const r = await deps.ledger.reserve(gate.data.orgId, KEYED_REQUEST_COST, req.requestId);
      if (!r.ok) return fail(insufficientCredits(r.balance));
      return ok({ cost: KEYED_REQUEST_COST, data: { reservationId: r.id } });
    },

    async settle(gate, ticket, status) {
      const reservation = ticket.data.reservationId;
      if (reservation === undefined) {
        return ok(gate.data.storefrontBilled && status < 400 ? { 'x-zeroclick-usage': 'api-requests=1' } : {});
      }
      if (status >= 400) {
        await deps.ledger.release(reservation);
        return ok({});
      }
      // A reservation held by this process finds the balance short if another spent it meanwhile.
      if (!(await deps.ledger.commit(reservation))) return fail(insufficientCredits(await deps.ledger.balance(gate.data.orgId)));
      return ok({});
    },
  };
}
