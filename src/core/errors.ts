/**
 * The one error table (DESIGN.md "Errors"). Every error the service answers with is built from
 * a code listed here; `docs/errors.md` holds the same table and a test keeps the two equal.
 */

export const ERRORS = {
  invalid_parameter: { status: 400, text: 'Invalid parameter' },
  missing_app_identifier: { status: 400, text: 'Missing app identifier' },
  malformed_request: { status: 400, text: 'The request is not well-formed HTTP' },
  url_not_allowed: { status: 400, text: 'URL not allowed' },
  missing_api_key: { status: 401, text: 'Missing API key' },
  invalid_api_key: { status: 401, text: 'Invalid API key' },
  invalid_zeroclick_signature: { status: 401, text: 'invalid_zeroclick_signature' },
  insufficient_credits: { status: 402, text: 'Insufficient credits' },
  x402_payment_required: { status: 402, text: 'Payment required' },
  payment_settlement_failed: { status: 402, text: 'Payment settlement failed' },
  payment_required: { status: 402, text: 'payment_required' },
  mode_not_allowed: { status: 403, text: 'This search mode is available with an API key only' },
  blocked_by_robots: { status: 403, text: "Blocked by the origin's robots.txt" },
  not_indexed: { status: 404, text: 'URL is not in the index; use live=true to fetch it from its origin' },
  not_found: { status: 404, text: 'Not found' },
  request_timeout: { status: 408, text: 'The request did not arrive in time' },
  payload_too_large: { status: 413, text: 'The request body is too large' },
  rate_limited: { status: 429, text: 'Rate limit exceeded' },
  headers_too_large: { status: 431, text: "The request's headers are too large" },
  region_unavailable: { status: 451, text: 'Pay-per-request access is not offered in this region' },
  client_closed_request: { status: 499, text: 'The caller closed the connection before the answer' },
  internal_error: { status: 500, text: 'Internal error' },
  not_implemented: { status: 501, text: 'Not implemented yet' },
  extraction_unavailable: { status: 501, text: 'No language model is configured for prompt extraction' },
  origin_error: { status: 502, text: 'The origin answered with an error' },
  extraction_failed: { status: 502, text: 'The language model gave no usable answer' },
  origin_blocked: { status: 502, text: 'The origin answered with a bot challenge or login wall' },
  payments_unavailable: { status: 503, text: 'Payments are temporarily unavailable; retry shortly or use an API key' },
  allowance_unavailable: { status: 503, text: 'Remaining credit could not be confirmed; nothing was charged' },
  service_unavailable: { status: 503, text: 'The service is shutting down or not ready' },
  server_busy: { status: 503, text: 'The server is busy; retry shortly' },
  store_unavailable: { status: 503, text: 'A shared store (PostgreSQL or Redis) did not answer; nothing was charged' },
  storage_full: { status: 503, text: "The server's disk is full; nothing was charged" },
  storage_unavailable: { status: 503, text: 'The server cannot write to its disk; nothing was charged' },
  origin_timeout: { status: 504, text: 'The origin did not answer in time' },
  extraction_timeout: { status: 504, text: 'The language model did not answer in time' },
} as const satisfies Record<string, { status: number; text: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The JSON body of every error response. */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
  param?: string;
  [extra: string]: unknown;
}

export interface ServiceErrorOptions {
  param?: string;
  headers?: Record<string, string>;
  /** Extra body fields a peer's wire contract needs (the storefront's 402). Never `error` or `code`. */
  body?: Record<string, unknown>;
  /** The whole body, when a protocol fixes it (the x402 offer of SPEC 2.5). */
  exactBody?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * An expected failure that maps to one row of the table. Thrown only across layers that cannot
 * return a value (validation deep in a parser); tiers return it as a value.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;
  readonly exactBody: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message?: string, options: ServiceErrorOptions = {}) {
    super(message ?? ERRORS[code].text, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.extra = options.body ?? {};
    this.exactBody = options.exactBody;
  }

  toBody(): ErrorBody | Record<string, unknown> {
    if (this.exactBody) return this.exactBody;
    const body: ErrorBody = { ...this.extra, error: this.message, code: this.code };
    if (this.param !== undefined) body.param = this.param;
    return body;
  }
}

export function invalidParameter(param: string, message: string): ServiceError {
  return new ServiceError('invalid_parameter', message, { param });
}

/** The system's and SQLite's codes for a disk (or a quota) with no room left. */
const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', 'DISK_LOW']);

/**
 * Pages refused because the data folder's disk has less room than `WEBSEARCH_MIN_FREE_DISK_MB`,
 * which is kept for what requests must write (charges, usage, payments): without it, an import or
 * a crawl that filled the disk would leave no room to charge a request, and every keyed request
 * would be refused. `isDiskFull` counts it in.
 */
export class DiskLowError extends Error {
  readonly code = 'DISK_LOW';

  constructor(
    readonly freeBytes: number,
    readonly keptBytes: number,
  ) {
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    super(`the disk of the data folder has ${mib(freeBytes)} MiB free, less than the ${mib(keptBytes)} MiB kept for charges and usage (WEBSEARCH_MIN_FREE_DISK_MB): pages are not stored`);
    this.name = 'DiskLowError';
  }
}

/**
 * Whether `e`, or an error it was caused by, says that the disk the service writes to is full:
 * SQLite's SQLITE_FULL (a write that found no room for its pages, in the database or its WAL),
 * the system's ENOSPC and EDQUOT (a file written directly), or pages refused to keep room
 * (`DiskLowError`). Read from the error's `code`, which better-sqlite3 and Node's file system set.
 */
export function isDiskFull(e: unknown): boolean {
  return codesOf(e).some((code) => DISK_FULL_CODES.has(code));
}

/** The `code`s of `e` and of the errors it was caused by (at most eight deep), outermost first. */
function codesOf(e: unknown): string[] {
  const codes: string[] = [];
  for (let at = e, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    const code = (at as Error & { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

/** 503 storage_full (a write the request needs found the disk full) with `Retry-After: 60`: room comes back only when someone makes it. */
export function storageFull(cause: unknown): ServiceError {
  return new ServiceError('storage_full', undefined, { headers: { 'retry-after': '60' }, cause });
}

/**
 * Whether `e`, or an error it was caused by, says that the disk cannot be written at all, full or
 * not: a file system mounted read-only (as Linux remounts one after I/O errors), or an I/O error.
 * SQLite's SQLITE_READONLY, SQLITE_IOERR and SQLITE_CANTOPEN (a database in write-ahead mode on a
 * read-only file system cannot be opened at all), with their extended codes; the system's EROFS and EIO.
 */
export function isStorageFault(e: unknown): boolean {
  return codesOf(e).some((code) => code === 'EROFS' || code === 'EIO' || /^SQLITE_(READONLY|IOERR|CANTOPEN)(_|$)/.test(code));
}

/** 503 storage_unavailable (a write the request needs could not be made: a read-only or failing disk) with `Retry-After: 60`. */
export function storageUnavailable(cause: unknown): ServiceError {
  return new ServiceError('storage_unavailable', undefined, { headers: { 'retry-after': '60' }, cause });
}

/**
 * Whether `e` is SQLite's answer that another connection held the database's write lock for longer
 * than the connection waits (`busy_timeout`): an import's or another process's transaction, not a
 * fault of the request's.
 */
export function isDatabaseBusy(e: unknown): boolean {
  const code = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && (code === 'SQLITE_LOCKED' || code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/** 503 server_busy with `Retry-After: 1` for a write the request needs that waited out the database's lock (`isDatabaseBusy`). */
export function databaseBusy(cause: unknown): ServiceError {
  return new ServiceError('server_busy', 'The database was busy with another write for too long; retry shortly', { headers: { 'retry-after': '1' }, cause });
}

/** 503 store_unavailable (PostgreSQL or Redis could not be reached) with `Retry-After: 1`; the adapters of both throw it. */
export function storeUnavailable(cause: unknown): ServiceError {
  return new ServiceError('store_unavailable', undefined, { headers: { 'retry-after': '1' }, cause });
}
