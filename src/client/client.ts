/** A typed client of our own /v1 API (used by the CLI and the MCP server). */
import { deadline } from '../core/deadline.js';
import type { ErrorBody } from '../core/errors.js';
import type { FetchResponse, SearchResponse } from '../core/requests.js';
import { isStorableTime } from '../core/time.js';

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

type Shape = Record<string, 'string' | 'string?' | 'seconds?'>;

const RESULT: Shape = { title: 'string', url: 'string', description: 'string', snippet: 'string?', published_at: 'string?', acquired_at: 'string?' };
const FETCHED: Shape = { url: 'string', content: 'string', title: 'string?', description: 'string?', author: 'string?', published_at: 'seconds?' };

/** Whether `v` is an object whose fields named in `shape` have their types (other fields are let be). */
function fits(v: unknown, shape: Shape): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return Object.entries(shape).every(([k, type]) => {
    const x = o[k];
    if (x === undefined) return type.endsWith('?');
    if (type === 'seconds?') return Number.isInteger(x) && isStorableTime((x as number) * 1000);
    return typeof x === 'string';
  });
}

const isSearchAnswer = (v: unknown): v is SearchResponse =>
  fits(v, { query: 'string' }) && Array.isArray(v.results) && v.results.every((r) => fits(r, RESULT));
const isFetchAnswer = (v: unknown): v is FetchResponse => fits(v, FETCHED);
const isErrorBody = (v: unknown): v is ErrorBody => fits(v, { error: 'string', code: 'string' });

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const keyed = options.apiKey !== undefined;
  const headers: Record<string, string> = keyed
    ? { 'x-api-key': options.apiKey! }
    : { 'x-service-title': options.appTitle ?? 'websearch-cli' };

  /** The answer at `path` when it has the shape `is` checks; an ApiError for a failure or an answer of another shape. */
  function call<T>(path: string, init: RequestInit, cancel: AbortSignal | undefined, is: (v: unknown) => v is T): Promise<T> {
    const limit = deadline(options.timeoutMs ?? 60_000, cancel);
    return callWithin(path, init, limit.signal, is).finally(limit.clear);
  }

  /** `call` until `signal` aborts: the time it is given (the answer read too), or `cancel`. */
  async function callWithin<T>(path: string, init: RequestInit, signal: AbortSignal, is: (v: unknown) => v is T): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { ...headers, ...(init.headers as Record<string, string>) },
      signal,
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError(res.status, undefined, `HTTP ${res.status}: ${text.slice(0, 200)}`);
    }
    if (!res.ok) {
      if (isErrorBody(body)) throw new ApiError(res.status, body, `HTTP ${res.status} ${body.code}: ${body.error}`);
      throw new ApiError(res.status, undefined, `HTTP ${res.status}: ${text.slice(0, 200)}`);
    }
    // What answers at the address may be no websearch server (or a proxy's page): said, not used.
    if (!is(body)) throw new ApiError(res.status, undefined, `HTTP ${res.status}, but not an answer of this API: ${text.slice(0, 200)}`);
    return body;
  }

  return {
    /** `signal` abandons the call (the server stops its work and charges nothing). */
    search(params: SearchParams, signal?: AbortSignal): Promise<SearchResponse> {
      return call(
        keyed ? '/v1/search' : '/v1/search/public',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) },
        signal,
        isSearchAnswer,
      );
    },
    fetch(params: FetchParams, signal?: AbortSignal): Promise<FetchResponse> {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
      return call(`${keyed ? '/v1/fetch' : '/v1/fetch/public'}?${q}`, { method: 'GET' }, signal, isFetchAnswer);
    },
  };
}
