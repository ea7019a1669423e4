/**
 * The access-tier abstraction (DESIGN "one request path for all four tiers"). Every tier wraps the
 * same two operations in three steps:
 *
 *   identify(): who is calling and may they call now (authentication, rate limits) - before validation
 *   admit():    may this validated call run (reserve credit, verify a payment, check a mode)
 *   settle():   after the operation; charges only when status < 400, releases otherwise
 *
 * Expected outcomes are values (STYLE 3); a tier throws only for bugs and infrastructure faults.
 */
import type { ServiceError } from '../core/errors.js';
import type { FetchRequest, SearchRequest } from '../core/requests.js';

export type Operation = 'search' | 'fetch';
export type TierName = 'keyed' | 'keyless' | 'x402' | 'storefront';

export type Result<T> = { ok: true; value: T } | { ok: false; error: ServiceError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(error: ServiceError): Result<T> => ({ ok: false, error });

/** What a tier sees of an HTTP request; no framework types. */
export interface TierRequest {
  requestId: string;
  method: string;
  /** Lowercase header names. */
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  clientIp: string;
  operation: Operation;
  /** Absolute URL of the request as the caller addressed it. */
  url: string;
  /** Path and query exactly as received. */
  pathAndQuery: string;
  /** The raw body's bytes as received, for tiers that sign it (`needsRawBody`); empty without a body. */
  rawBody: Buffer;
}

export type OperationCall = { operation: 'search'; input: SearchRequest } | { operation: 'fetch'; input: FetchRequest };

export interface Attribution {
  orgId?: string;
  keyId?: string;
  appTitle?: string;
}

export interface Gate<D = unknown> {
  /** Headers for every response after identification (e.g. X-RateLimit-*). */
  headers: Record<string, string>;
  attribution: Attribution;
  data: D;
}

export interface Ticket<D = unknown> {
  /** Micro-USD charged if the call succeeds. */
  cost: number;
  data: D;
}

export interface TierRoutes {
  search: { path: string; methods: ('GET' | 'POST')[] };
  fetch: { path: string; methods: ('GET' | 'POST')[] };
}

export interface AccessTier<G = unknown, T = unknown> {
  readonly name: TierName;
  readonly routes: TierRoutes;
  /** Query parameters the tier reads itself; they are not the operation's. */
  readonly ownParams: readonly string[];
  /** The tier verifies a signature over the exact body bytes: keep them, parse nothing before identify(). */
  readonly needsRawBody?: boolean;
  identify(req: TierRequest): Promise<Result<Gate<G>>>;
  admit(gate: Gate<G>, call: OperationCall, req: TierRequest): Promise<Result<Ticket<T>>>;
  /** Returns headers to add, or an error that replaces the operation's response. */
  settle(gate: Gate<G>, ticket: Ticket<T>, status: number): Promise<Result<Record<string, string>>>;
}

export function headerValue(req: TierRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
