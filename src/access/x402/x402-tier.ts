/**
 * x402 pay-per-request (SPEC 2.5, 4.1, 4.2; notes/x402.md). Order of checks: region (451, before
 * any offer), per-IP limit (100/s, unpaid and paid alike), then after validation: keyed-only modes
 * (403), the offer or the payment. A payment's nonce is claimed before verification (released if
 * verification or the request fails, kept after settlement), its validity window is bounded, and the
 * result leaves only after settlement succeeded.
 */
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { ServiceError } from '../../core/errors.js';
import type { LogFn } from '../../core/log.js';
import type { Clock } from '../../core/time.js';
import type { LimiterStore } from '../../ports/limiter-store.js';
import type { Facilitator, NonceStore, PaymentLog, PaymentPayload, PaymentRequirements } from '../../ports/payments.js';
import { keyedOnlyMode } from '../keyless/keyless-tier.js';
import { ipLimitKey, rateLimitedError, SECOND } from '../limits.js';
import { type AccessTier, fail, headerValue, ok, type TierRequest } from '../tier.js';
import { isBlockedPlace, type Place, placeOfIp } from './region.js';

export const MAX_TIMEOUT_SECONDS = 300;
/** Clock skew allowed on the upper bound of an authorization's validity. */
const VALIDITY_SKEW_SECONDS = 6;
const PAYMENTS_RETRY_AFTER = 5;

export interface X402TierDeps {
  requirements: PaymentRequirements;
  facilitator: Facilitator;
  nonces: NonceStore;
  payments: PaymentLog;
  limiter: LimiterStore;
  clock: Clock;
  countryHeader?: string;
  regionHeader?: string;
  perIpPerSecond?: number;
  perWalletPerSecond?: number;
  /** Replaces the geoip lookup (tests of the header path). */
  placeOfIp?: (ip: string) => Place | undefined;
  log?: LogFn;
}

interface Paid {
  payload: PaymentPayload;
  nonceKey: string;
  payer: string;
  operation: string;
  requestId: string;
  resourceUrl: string;
}

function offerBody(requirements: PaymentRequirements, resourceUrl: string, error: string) {
  return { x402Version: 2, error, resource: { url: resourceUrl }, accepts: [requirements] };
}

/** 402 with the offer in the body and, base64, in PAYMENT-REQUIRED. */
export function offerError(requirements: PaymentRequirements, resourceUrl: string, error = 'Payment required'): ServiceError {
  const body = offerBody(requirements, resourceUrl, error);
  return new ServiceError('x402_payment_required', error, {
    headers: { 'payment-required': encodePaymentRequiredHeader(body as never) },
    exactBody: body,
  });
}

const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** A uint256 in decimal, as written canonically (no leading zeros): one payment has one spelling. */
const UINT = /^(0|[1-9]\d{0,77})$/;

/** The decoded header, or a reason it is unusable. */
function readPayment(header: string): PaymentPayload | string {
  let p: PaymentPayload;
  try {
    p = decodePaymentSignatureHeader(header) as unknown as PaymentPayload;
  } catch {
    return 'PAYMENT-SIGNATURE is not base64 JSON';
  }
  if (p?.x402Version !== 2) return 'only x402Version 2 payments are accepted';
  const a = p.payload?.authorization;
  // `test` would take ["0x..."] for its string: each field must be the string itself.
  const is = (re: RegExp, v: unknown) => typeof v === 'string' && re.test(v);
  if (
    !a ||
    !is(ADDRESS, a.from) ||
    !is(ADDRESS, a.to) ||
    !is(UINT, a.value) ||
    !is(UINT, a.validAfter) ||
    !is(UINT, a.validBefore) ||
    !is(HEX32, a.nonce) ||
    typeof p.payload.signature !== 'string'
  ) {
    return 'the payment is not an exact-scheme EVM authorization';
  }
  if (!p.accepted || typeof p.accepted !== 'object') return 'the payment does not say which offer it accepts';
  return p;
}

/** Whether the offer a payment says it accepts is ours, field by field and type by type (addresses in any case). */
function sameRequirements(a: PaymentRequirements, b: PaymentRequirements): boolean {
  const sameAddress = (x: unknown, y: string) => typeof x === 'string' && x.toLowerCase() === y.toLowerCase();
  const extra = a.extra as Record<string, unknown> | null | undefined;
  return (
    a.scheme === b.scheme &&
    a.network === b.network &&
    a.amount === b.amount &&
    sameAddress(a.asset, b.asset) &&
    sameAddress(a.payTo, b.payTo) &&
    a.maxTimeoutSeconds === b.maxTimeoutSeconds &&
    typeof extra === 'object' &&
    extra !== null &&
    extra.name === b.extra.name &&
    extra.version === b.extra.version
  );
}

export function createX402Tier(deps: X402TierDeps): AccessTier<null, Paid> {
  const r = deps.requirements;
  const perIp = deps.perIpPerSecond ?? 100;
  const perWallet = deps.perWalletPerSecond ?? 50;
  const lookup = deps.placeOfIp ?? placeOfIp;

  const place = (req: TierRequest): Place | undefined => {
    if (deps.countryHeader) {
      const country = headerValue(req, deps.countryHeader);
      if (country) return { country, region: deps.regionHeader ? headerValue(req, deps.regionHeader) : undefined };
    }
    return lookup(req.clientIp);
  };
  const unavailable = () =>
    new ServiceError('payments_unavailable', undefined, { headers: { 'retry-after': String(PAYMENTS_RETRY_AFTER) } });

  return {
    name: 'x402',
    routes: {
      search: { path: '/v1/x402/search', methods: ['GET', 'POST'] },
      fetch: { path: '/v1/x402/fetch', methods: ['GET'] },
    },
    ownParams: [],

    async identify(req) {
      const where = place(req);
      if (where && isBlockedPlace(where)) return fail(new ServiceError('region_unavailable'));
      const now = deps.clock.now();
      const counted = await deps.limiter.consume([{ key: `x402ip:${ipLimitKey(req.clientIp)}`, windowMs: SECOND, limit: perIp }], now);
      if (!counted.allowed) return fail(rateLimitedError(counted, now));
      return ok({ headers: {}, attribution: {}, data: null });
    },

    async admit(_gate, call, req) {
      const refused = call.operation === 'search' ? keyedOnlyMode(call.input.mode) : undefined;
      if (refused) return fail(refused);
      const header = headerValue(req, 'payment-signature');
      if (!header) return fail(offerError(r, req.url));
      const payment = readPayment(header);
      if (typeof payment === 'string') return fail(offerError(r, req.url, `Invalid payment: ${payment}`));
      if (!sameRequirements(payment.accepted, r)) {
        return fail(offerError(r, req.url, 'Invalid payment: it does not accept this offer (amount, asset, network or payee differ)'));
      }
      const auth = payment.payload.authorization;
      const nowSeconds = Math.floor(deps.clock.now() / 1000);
      if (Number(auth.validBefore) > nowSeconds + MAX_TIMEOUT_SECONDS + VALIDITY_SKEW_SECONDS) {
        return fail(offerError(r, req.url, `Invalid payment: an authorization may be valid for at most ${MAX_TIMEOUT_SECONDS} seconds`));
      }
      if (Number(auth.validBefore) <= nowSeconds) return fail(offerError(r, req.url, 'Invalid payment: the authorization has expired'));

      const nonceKey = `${r.network}|${r.asset}|${auth.from}|${auth.nonce}`.toLowerCase();
      if (!(await deps.nonces.claim(nonceKey, deps.clock.now(), (MAX_TIMEOUT_SECONDS + 60) * 1000))) {
        return fail(offerError(r, req.url, 'Invalid payment: this authorization was already used'));
      }
      let verified;
      try {
        verified = await deps.facilitator.verify(payment, r);
      } catch (e) {
        await deps.nonces.release(nonceKey);
        deps.log?.('error', 'x402 facilitator unreachable at verify', { err: String(e) });
        return fail(unavailable());
      }
      if (!verified.isValid) {
        await deps.nonces.release(nonceKey);
        return fail(offerError(r, req.url, `Payment rejected: ${verified.invalidReason ?? 'invalid'}`));
      }
      const payer = (verified.payer ?? auth.from).toLowerCase();
      const counted = await deps.limiter.consume([{ key: `wallet:${payer}`, windowMs: SECOND, limit: perWallet }], deps.clock.now());
      if (!counted.allowed) {
        await deps.nonces.release(nonceKey);
        return fail(rateLimitedError(counted, deps.clock.now()));
      }
      return ok({ cost: Number(r.amount), data: { payload: payment, nonceKey, payer, operation: call.operation, requestId: req.requestId, resourceUrl: req.url } });
    },

    async settle(_gate, ticket, status) {
      const { payload, nonceKey, payer } = ticket.data;
      const record = {
        at: Date.now(),
        requestId: ticket.data.requestId,
        operation: ticket.data.operation,
        payer,
        nonce: payload.payload.authorization.nonce,
        amount: r.amount,
        asset: r.asset,
        network: r.network,
        payTo: r.payTo,
      };
      // What is written here is bookkeeping: the outcome was decided (the request failed, or the
      // chain moved the money), and a write that fails (a full disk) must not change it. A settled
      // payment's result is answered, its transaction in the log; a nonce not kept stays claimed
      // until its authorization has expired, and the chain refuses it again meanwhile.
      const bookkeeping = async (what: string, write: () => Promise<void>, fields: Record<string, unknown> = {}) => {
        try {
          await write();
        } catch (e) {
          deps.log?.('error', `x402 ${what}`, { requestId: record.requestId, ...fields, err: String(e) });
        }
      };
      if (status >= 400) {
        // The request failed: nothing is settled and the authorization may be used again.
        await bookkeeping('nonce not released', () => deps.nonces.release(nonceKey));
        await bookkeeping('payment not recorded', () => deps.payments.record({ ...record, outcome: 'not_settled', reason: `request failed with ${status}` }));
        return ok({});
      }
      const failed = async (reason: string, transaction: string, raw: unknown) => {
        deps.log?.('error', 'x402 settlement failed', { requestId: record.requestId, reason, raw: String(raw).slice(0, 2000) });
        await bookkeeping('payment not recorded', () => deps.payments.record({ ...record, outcome: 'settlement_failed', reason, transaction: transaction || undefined }));
        const response = { success: false, errorReason: reason, transaction, network: r.network, payer };
        // The result is withheld; the body is a fresh offer so the caller can pay again.
        const body = offerBody(r, ticket.data.resourceUrl, 'Payment settlement failed');
        return fail<Record<string, string>>(
          new ServiceError('payment_settlement_failed', 'Payment settlement failed', {
            headers: {
              'payment-response': encodePaymentResponseHeader(response as never),
              'payment-required': encodePaymentRequiredHeader(body as never),
            },
            exactBody: body,
          }),
        );
      };
      let settled;
      try {
        settled = await deps.facilitator.settle(payload, r);
      } catch (e) {
        return failed('facilitator_unreachable', '', e);
      }
      if (!settled.success) {
        // A short code for the client; the chain's own message only in the log.
        const reason = /^[a-z0-9_]{1,64}$/.test(settled.errorReason ?? '') ? settled.errorReason! : 'settlement_failed';
        return failed(reason, settled.transaction ?? '', settled.errorReason);
      }
      const settledAs = { transaction: settled.transaction, payer };
      await bookkeeping('nonce not kept', () => deps.nonces.keep(nonceKey, Date.now() + 24 * 3600 * 1000), settledAs);
      await bookkeeping('payment not recorded', () => deps.payments.record({ ...record, outcome: 'settled', transaction: settled.transaction }), settledAs);
      const response = { success: true, transaction: settled.transaction, network: settled.network ?? r.network, payer };
      return ok({ 'payment-response': encodePaymentResponseHeader(response as never) });
    },
  };
}
