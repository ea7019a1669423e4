/**
 * Storefront tier (ZeroClick, newer contract; notes/storefront.md): every call is a signed forward
 * from the storefront's proxy. Order: signature (401 before anything else), identity (anonymous probe
 * -> identity challenge), per-agent limit, then after validation the mode and the allowance check,
 * and usage reported only after success, through one channel.
 */
import { ServiceError } from '../../core/errors.js';
import type { LogFn } from '../../core/log.js';
import type { Clock } from '../../core/time.js';
import type { LimiterStore } from '../../ports/limiter-store.js';
import type { StorefrontApi, UsageLine, UsageOutbox } from '../../ports/storefront.js';
import { keyedOnlyMode } from '../keyless/keyless-tier.js';
import { rateLimitedError, SECOND } from '../limits.js';
import { type AccessTier, fail, headerValue, ok } from '../tier.js';
import { verifyForward } from './signature.js';
import type { UsageReporter } from './usage-reporter.js';

export const STOREFRONT_PER_AGENT_PER_SECOND = 50;
/** The storefront's price is its own; we report one request on its `requests` meter. */
export const REQUEST_USAGE: UsageLine[] = [{ meterSlug: 'requests', quantity: 1 }];
const RETRY_AFTER_SECONDS = 5;

export interface StorefrontTierDeps {
  /** kid -> signing secret; empty means no storefront is connected and every call is refused. */
  secrets: ReadonlyMap<string, string>;
  api?: StorefrontApi;
  usageChannel: 'header' | 'api';
  serviceSlug: string;
  outbox: UsageOutbox;
  reporter?: UsageReporter;
  limiter: LimiterStore;
  clock: Clock;
  perAgentPerSecond?: number;
  log?: LogFn;
}

interface Forward {
  requestId: string;
  agentId: string;
}

function paymentRequired(serviceSlug: string, usage: UsageLine[]): ServiceError {
  return new ServiceError('payment_required', 'payment_required', { body: { serviceSlug, usage } });
}

export function createStorefrontTier(deps: StorefrontTierDeps): AccessTier<Forward, null> {
  const perAgent = deps.perAgentPerSecond ?? STOREFRONT_PER_AGENT_PER_SECOND;
  return {
    name: 'storefront',
    routes: {
      search: { path: '/v1/zeroclick/search', methods: ['GET', 'POST'] },
      fetch: { path: '/v1/zeroclick/fetch', methods: ['GET'] },
    },
    ownParams: [],
    needsRawBody: true,

    async identify(req) {
      const requestId = headerValue(req, 'zc-request-id')?.trim() ?? '';
      const agentId = headerValue(req, 'zc-agent-id')?.trim() ?? '';
      const now = deps.clock.now();
      const verdict = verifyForward(
        headerValue(req, 'zc-signature'),
        { method: req.method, pathAndQuery: req.pathAndQuery, rawBody: req.rawBody, requestId, agentId },
        deps.secrets,
        Math.floor(now / 1000),
      );
      if (!verdict.ok || !/^[\w.:-]{1,200}$/.test(requestId)) {
        deps.log?.('info', 'storefront forward refused', { reason: verdict.ok ? 'bad_request_id' : verdict.reason });
        return fail(new ServiceError('invalid_zeroclick_signature'));
      }
      // A signed forward without an agent is the storefront's probe: answer with the identity challenge.
      if (!agentId) return fail(paymentRequired(deps.serviceSlug, []));

      const counted = await deps.limiter.consume([{ key: `agent:${agentId}`, windowMs: SECOND, limit: perAgent }], now);
      if (!counted.allowed) return fail(rateLimitedError(counted, now));
      return ok({ headers: {}, attribution: { appTitle: `storefront:${agentId}` }, data: { requestId, agentId } });
    },

    async admit(gate, call) {
      const refused = call.operation === 'search' ? keyedOnlyMode(call.input.mode) : undefined;
      if (refused) return fail(refused);
      if (!deps.api) {
        return fail(
          new ServiceError('allowance_unavailable', undefined, { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } }),
        );
      }
      const answer = await deps.api.checkAllowance({ ...gate.data, usage: REQUEST_USAGE });
      if (answer.kind === 'denied') return fail(paymentRequired(deps.serviceSlug, REQUEST_USAGE));
      if (answer.kind === 'unconfirmed') {
        deps.log?.('warn', 'storefront allowance unconfirmed', { reason: answer.reason, requestId: gate.data.requestId });
        return fail(
          new ServiceError('allowance_unavailable', undefined, { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } }),
        );
      }
      return ok({ cost: 0, data: null });
    },

    async settle(gate, _ticket, status) {
      if (status >= 400) return ok({});
      if (deps.usageChannel === 'header') return ok({ 'zc-usage': 'requests=1' });
      // Wall-clock time: the outbox schedules real retries, whatever clock the tier is tested with.
      await deps.outbox.add({ ...gate.data, usage: REQUEST_USAGE }, Date.now());
      deps.reporter?.kick();
      return ok({});
    },
  };
}
