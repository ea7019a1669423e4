/**
 * The storefront's allowance and usage APIs over HTTP. Their shape is our working assumption
 * (notes/storefront.md): this adapter is the one place to change when the real reference appears.
 *   POST {allowanceUrl}  {requestId, agentId, usage}  -> 200 {"allowed": true|false}
 *   POST {usageUrl}      {idempotencyKey, agentId, usage} -> 2xx recorded
 */
import type { AllowanceAnswer, StorefrontApi, UsageLine } from '../../ports/storefront.js';

export interface HttpStorefrontApiOptions {
  allowanceUrl: string;
  usageUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

export function createHttpStorefrontApi(o: HttpStorefrontApiOptions): StorefrontApi {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
  const post = (url: string, body: unknown) =>
    fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(o.timeoutMs), redirect: 'error' });

  return {
    async checkAllowance(req: { requestId: string; agentId: string; usage: UsageLine[] }): Promise<AllowanceAnswer> {
      try {
        const res = await post(o.allowanceUrl, req);
        const text = await res.text();
        if (res.status !== 200) return { kind: 'unconfirmed', reason: `allowance API answered ${res.status}` };
        const body = JSON.parse(text) as unknown;
        const allowed = body && typeof body === 'object' ? (body as { allowed?: unknown }).allowed : undefined;
        if (allowed === true) return { kind: 'allowed' };
        if (allowed === false) return { kind: 'denied' };
        return { kind: 'unconfirmed', reason: 'allowance API answered without a boolean "allowed"' };
      } catch (e) {
        return { kind: 'unconfirmed', reason: `allowance API unreachable: ${(e as Error).name}: ${(e as Error).message}` };
      }
    },

    async reportUsage(report: { idempotencyKey: string; agentId: string; usage: UsageLine[] }): Promise<boolean> {
      const res = await post(o.usageUrl, report);
      await res.arrayBuffer();
      return res.status >= 200 && res.status < 300;
    },
  };
}
