/** A typed client of our own /v1 API (used by the CLI and the MCP server). */
import type { ErrorBody } from '../core/errors.js';
import type { FetchResponse, SearchResponse } from '../core/requests.js';

export interface ClientOptions {
  baseUrl: string;
  /** Keyed access when set; otherwise the keyless /public paths with `appTitle`. */
  apiKey?: string;
  appTitle?: string;
  timeoutMs?: number;
}

export interface SearchParams {
  query: string;
  site?: string;
  acquired_after?: string;
  acquired_before?: string;
  published_after?: string;
  published_before?: string;
  query_time?: string;
  snippet_max_length?: number;
  max_results?: number;
  mode?: string;
}

export interface FetchParams {
  url: string;
  max_chars?: number;
  live?: boolean;
  prompt?: string;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Why a call did not reach the server at all: no answer in time, or no connection (with the
 * system's code, ECONNREFUSED say); undefined for any other failure, the server's own included.
 */
export function notReached(e: unknown): { timeout: true } | { timeout: false; cause: string } | undefined {
  if (e instanceof ApiError || !(e instanceof Error)) return undefined;
  if (e.name === 'TimeoutError') return { timeout: true };
  if (e instanceof TypeError && e.message === 'fetch failed') {
    const cause = e.cause as { code?: string; message?: string } | undefined;
    return { timeout: false, cause: cause?.code ?? cause?.message ?? 'no connection' };
  }
  return undefined;
}

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const keyed = options.apiKey !== undefined;
  const headers: Record<string, string> = keyed
    ? { 'x-api-key': options.apiKey! }
    : { 'x-service-title': options.appTitle ?? 'websearch-cli' };

  async function call<T>(path: string, init: RequestInit, cancel: AbortSignal | undefined): Promise<T> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { ...headers, ...(init.headers as Record<string, string>) },
      signal: cancel ? AbortSignal.any([timeout, cancel]) : timeout,
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError(res.status, undefined, `HTTP ${res.status}: ${text.slice(0, 200)}`);
    }
    if (!res.ok) {
      const err = body as ErrorBody;
      throw new ApiError(res.status, err, `HTTP ${res.status} ${err.code ?? ''}: ${err.error ?? text.slice(0, 200)}`);
    }
    return body as T;
  }

  return {
    /** `signal` abandons the call (the server stops its work and charges nothing). */
    search(params: SearchParams, signal?: AbortSignal): Promise<SearchResponse> {
      return call(
        keyed ? '/v1/search' : '/v1/search/public',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) },
        signal,
      );
    },
    fetch(params: FetchParams, signal?: AbortSignal): Promise<FetchResponse> {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
      return call(`${keyed ? '/v1/fetch' : '/v1/fetch/public'}?${q}`, { method: 'GET' }, signal);
    },
  };
}
