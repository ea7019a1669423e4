/** Keyless tier: `/public` paths, an application title required, limited per client IP, free. */
import { withoutControls } from '../../core/controls.js';
import { ServiceError } from '../../core/errors.js';
import type { Clock } from '../../core/time.js';
import type { LimiterStore } from '../../ports/limiter-store.js';
import { DEFAULT_LIMITS, HOUR, ipLimitKey, rateLimitedError, rateLimitHeaders, SECOND } from '../limits.js';
import { type AccessTier, type TierRequest, fail, headerValue, ok } from '../tier.js';

export const APP_TITLE_MAX = 256;

export interface KeylessTierDeps {
  limiter: LimiterStore;
  clock: Clock;
  perSecond?: number;
  perHour?: number;
}

/** `X-Service-Title`, or the `service_title` query parameter, without control characters; truncated to 256 characters. */
export function appTitle(req: TierRequest): string | undefined {
  // A query string can carry any character (`%00`), which the usage log, and a terminal listing it, should not.
  const fromHeader = withoutControls(headerValue(req, 'x-service-title') ?? '').trim();
  const q = req.query.service_title;
  const fromQuery = typeof q === 'string' ? withoutControls(q).trim() : undefined;
  const title = fromHeader || fromQuery;
  if (!title) return undefined;
  return Array.from(title).slice(0, APP_TITLE_MAX).join('');
}

/** The refusal shared by every non-keyed tier for the keyed-only search modes. */
export function keyedOnlyMode(mode: string): ServiceError | undefined {
  if (mode === 'webql' || mode === 'realtime_content') {
    return new ServiceError('mode_not_allowed', `Search mode ${mode} is available with an API key only`, {
      param: 'mode',
    });
  }
  return undefined;
}

export function createKeylessTier(deps: KeylessTierDeps): AccessTier<null, null> {
  const perSecond = deps.perSecond ?? DEFAULT_LIMITS.keylessPerSecond;
  const perHour = deps.perHour ?? DEFAULT_LIMITS.keylessPerHour;
  return {
    name: 'keyless',
    routes: {
      search: { path: '/v1/search/public', methods: ['POST'] },
      fetch: { path: '/v1/fetch/public', methods: ['GET'] },
    },
    ownParams: ['service_title'],

    async identify(req) {
      const now = deps.clock.now();
      const counted = await deps.limiter.consume(
        [
          { key: `ip:${ipLimitKey(req.clientIp)}`, windowMs: SECOND, limit: perSecond },
          { key: `ip:${ipLimitKey(req.clientIp)}`, windowMs: HOUR, limit: perHour },
        ],
        now,
      );
      const headers = rateLimitHeaders(counted, now);
      if (!counted.allowed) return fail(rateLimitedError(counted, now, headers));
      const title = appTitle(req);
      if (!title) {
        return fail(new ServiceError('missing_app_identifier', 'Missing app identifier', { headers }));
      }
      return ok({ headers, attribution: { appTitle: title }, data: null });
    },

    async admit(_gate, call) {
      const refused = call.operation === 'search' ? keyedOnlyMode(call.input.mode) : undefined;
      return refused ? fail(refused) : ok({ cost: 0, data: null });
    },

    async settle() {
      return ok({});
    },
  };
}
