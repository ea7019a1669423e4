/**
 * Outbound HTTP that is safe to point at the internet on a caller's behalf:
 * - http(s) only; every hop's address checked (acquire/address-policy.ts), and the connection made
 *   to the very address that was checked (the check runs inside the socket's DNS lookup), so DNS
 *   rebinding cannot slip a private address in between;
 * - at most 5 redirects, each checked again; one deadline for the whole chain (15 s);
 * - a body cap (10 MB) applied after decompression too, so a compression bomb stops early;
 * - failures classified by what the caller should do (STYLE 5): permanent, transient, throttled.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, request } from 'undici';
import { deadline } from '../core/deadline.js';
import { isForbiddenAddress } from './address-policy.js';

/** Our outbound User-Agent; `websearch` is the token robots.txt rules address. */
export const DEFAULT_USER_AGENT = 'websearch/0.1 (+https://github.com/websearch/websearch)';

export interface HttpClientOptions {
  /** Lifts the address policy (tests and local demos only). */
  allowPrivateNetwork: boolean;
  userAgent?: string;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** The address policy; tests replace it to make one loopback address stand for "public". */
  isForbidden?: (address: string) => boolean;
}

export interface RawResponse {
  /** The URL asked for. */
  requestedUrl: string;
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body was cut at `maxBytes` (asked for with `truncate`). */
  truncated?: boolean;
  fetchedAt: number;
}

export type FailureKind = 'permanent' | 'transient' | 'throttled';
export type FailureCode =
  | 'url_not_allowed'
  | 'dns_failure'
  | 'connection_failed'
  | 'timeout'
  | 'too_many_redirects'
  | 'bad_redirect'
  | 'too_large'
  | 'bad_encoding'
  | 'http_status';

export class AcquireError extends Error {
  override name = 'AcquireError';
  constructor(
    readonly code: FailureCode,
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const FORBIDDEN = 'EFORBIDDENADDRESS';

function guardedLookup(allowPrivate: boolean, isForbidden: (address: string) => boolean) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err);
      if (!allowPrivate && addresses.some((a) => isForbidden(a.address))) {
        const e: NodeJS.ErrnoException = new Error(`${hostname} resolves to a private or reserved address`);
        e.code = FORBIDDEN;
        return callback(e);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function retryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : Math.max(0, Math.ceil((t - Date.now()) / 1000));
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The body up to `maxBytes`: beyond it, a failure (too_large), or with `truncate` the first `maxBytes` bytes. */
async function readCapped(stream: Readable, maxBytes: number, truncate: boolean): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      stream.destroy();
      if (!truncate) throw new AcquireError('too_large', 'permanent', `the body is larger than ${maxBytes} bytes`);
      chunks.push((chunk as Buffer).subarray(0, (chunk as Buffer).length - (size - maxBytes)));
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk as Buffer);
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/**
 * The body, decompressed. Through `pipeline`, not `pipe`: a body that fails (the connection lost,
 * the deadline passed) fails the decompressor too, where `pipe` would leave it waiting forever.
 */
function decoded(body: Readable, encoding: string | undefined): Readable {
  let decompress;
  switch ((encoding ?? 'identity').trim().toLowerCase()) {
    case 'identity':
    case '':
      return body;
    case 'gzip':
    case 'x-gzip':
      decompress = createGunzip();
      break;
    case 'deflate':
      decompress = createInflate();
      break;
    case 'br':
      decompress = createBrotliDecompress();
      break;
    default:
      throw new AcquireError('bad_encoding', 'permanent', `unsupported content-encoding ${encoding}`);
  }
  pipeline(body, decompress, () => {});
  return decompress;
}

/** A redirect's Location, resolved against the URL that answered; one that is no URL is the origin's failure. */
function redirectTarget(location: string, from: URL): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new AcquireError('bad_redirect', 'permanent', `the origin redirected to ${JSON.stringify(location.slice(0, 200))}, which is no URL`);
  }
}

export interface GetOptions {
  headers?: Record<string, string>;
  maxBytes?: number;
  /** A body over `maxBytes` is cut there (and `truncated` set) instead of failing as too large. */
  truncate?: boolean;
  signal?: AbortSignal;
  /**
   * Called with each redirect's target before it is requested; what it throws ends the fetch there
   * (robots.txt or a crawl's scope forbidding the target, say).
   */
  beforeRedirect?: (target: URL) => void | Promise<void>;
}

export interface HttpClient {
  get(url: string, options?: GetOptions): Promise<RawResponse>;
  close(): Promise<void>;
}

export function createHttpClient(o: HttpClientOptions): HttpClient {
  const timeoutMs = o.timeoutMs ?? 15_000;
  const maxBytes = o.maxBytes ?? 10 * 1024 * 1024;
  const maxRedirects = o.maxRedirects ?? 5;
  const isForbidden = o.isForbidden ?? isForbiddenAddress;
  const agent = new Agent({
    connect: { lookup: guardedLookup(o.allowPrivateNetwork, isForbidden) as never, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    connections: 64,
  });

  function checkUrl(u: URL): void {
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      throw new AcquireError('url_not_allowed', 'permanent', `only http and https URLs can be fetched, not ${u.protocol}`);
    }
    if (u.username || u.password) throw new AcquireError('url_not_allowed', 'permanent', 'URLs with credentials are not fetched');
    const host = u.hostname.replace(/^\[|\]$/g, '');
    // A literal address never goes through DNS, so it is checked here.
    if (!o.allowPrivateNetwork && isIP(host) && isForbidden(host)) {
      throw new AcquireError('url_not_allowed', 'permanent', `${host} is a private or reserved address`);
    }
  }

  function get(url: string, opts: GetOptions = {}): Promise<RawResponse> {
    const limit = deadline(timeoutMs, opts.signal);
    return getWithin(url, opts, limit.signal).finally(limit.clear);
  }

  /** `get` until `signal` aborts: the time it is given, or its caller's going. */
  async function getWithin(url: string, opts: GetOptions, signal: AbortSignal): Promise<RawResponse> {
    const cap = opts.maxBytes ?? maxBytes;
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      checkUrl(current);
      let res;
      try {
        res = await request(current, {
          method: 'GET',
          dispatcher: agent,
          signal,
          headers: {
            'user-agent': o.userAgent ?? DEFAULT_USER_AGENT,
            accept: 'text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5',
            'accept-encoding': 'gzip, deflate, br',
            ...opts.headers,
          },
        });
      } catch (e) {
        throw classify(e, signal);
      }
      const headers = flatHeaders(res.headers);
      if (res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304 && headers.location) {
        await res.body.dump();
        if (hop >= maxRedirects) throw new AcquireError('too_many_redirects', 'permanent', `more than ${maxRedirects} redirects`);
        current = redirectTarget(headers.location, current);
        await opts.beforeRedirect?.(current);
        continue;
      }
      const declared = Number(headers['content-length']);
      if (!opts.truncate && Number.isFinite(declared) && declared > cap) {
        res.body.destroy();
        throw new AcquireError('too_large', 'permanent', `the body is larger than ${cap} bytes`);
      }
      let read;
      try {
        read = await readCapped(decoded(res.body as unknown as Readable, headers['content-encoding']), cap, opts.truncate === true);
      } catch (e) {
        throw classify(e, signal);
      }
      const answer: RawResponse = { requestedUrl: url, url: current.toString(), status: res.statusCode, headers, body: read.body, fetchedAt: Date.now() };
      if (read.truncated) answer.truncated = true;
      return answer;
    }
  }

  function classify(e: unknown, signal: AbortSignal): AcquireError {
    if (e instanceof AcquireError) return e;
    const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = err.code ?? err.cause?.code;
    if (code === FORBIDDEN) return new AcquireError('url_not_allowed', 'permanent', err.message ?? err.cause?.message, undefined, undefined, { cause: e });
    if (signal.aborted || err.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
      return new AcquireError('timeout', 'transient', 'the origin did not answer in time', undefined, undefined, { cause: e });
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return new AcquireError('dns_failure', code === 'EAI_AGAIN' ? 'transient' : 'permanent', 'the host name does not resolve', undefined, undefined, { cause: e });
    }
    if (code === 'Z_DATA_ERROR' || code === 'ERR__ERROR_FORMAT_PADDING_1') {
      return new AcquireError('bad_encoding', 'permanent', 'the body does not decompress', undefined, undefined, { cause: e });
    }
    return new AcquireError('connection_failed', 'transient', `connection failed (${code ?? err.message})`, undefined, undefined, { cause: e });
  }

  return { get, close: () => agent.close() };
}

/** What a status means for the caller: throttled (429, 503 with Retry-After), transient (5xx), permanent (4xx). */
export function statusFailure(r: RawResponse): AcquireError | undefined {
  if (r.status < 400) return undefined;
  const after = retryAfter(r.headers['retry-after']);
  if (r.status === 429 || (r.status === 503 && after !== undefined)) {
    return new AcquireError('http_status', 'throttled', `the origin answered ${r.status}`, r.status, after);
  }
  return new AcquireError('http_status', r.status >= 500 ? 'transient' : 'permanent', `the origin answered ${r.status}`, r.status);
}
