/**
 * The storefront's signed forwards (notes/storefront.md, newer contract):
 *   zc-signature: t=<unix seconds>,kid=<key id>,v1=<64 lowercase hex HMAC-SHA256>
 * The canonical string is inferred, not published: it lives in `canonicalString` alone so that the
 * storefront's published vectors can replace ours in one place.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface SignedParts {
  timestamp: string;
  method: string;
  /** Path and query exactly as received, e.g. `/v1/zeroclick/fetch?url=https%3A%2F%2Fa.b%2F`. */
  pathAndQuery: string;
  /** The raw body bytes as received ('' without a body); a string stands for its UTF-8 bytes. */
  rawBody: Buffer | string;
  requestId: string;
  /** '' on an anonymous probe. */
  agentId: string;
}

/**
 * Six newline-joined fields: t, METHOD, path_and_query, raw_body, zc-request-id, zc-agent-id, as
 * bytes: the body's as they came (a body that is not UTF-8 is signed as it was sent), the rest UTF-8.
 */
export function canonicalString(p: SignedParts): Buffer {
  const utf8 = (s: string) => Buffer.from(s, 'utf8');
  const head = utf8(`${p.timestamp}\n${p.method.toUpperCase()}\n${p.pathAndQuery}\n`);
  const body = typeof p.rawBody === 'string' ? utf8(p.rawBody) : p.rawBody;
  return Buffer.concat([head, body, utf8(`\n${p.requestId}\n${p.agentId}`)]);
}

export function sign(secret: string, parts: SignedParts): string {
  return createHmac('sha256', secret).update(canonicalString(parts)).digest('hex');
}

export interface ParsedSignature {
  t: string;
  kid: string;
  v1: string;
}

const HEADER_RE = /^t=(\d{1,20}),kid=([A-Za-z0-9._-]{1,64}),v1=([0-9a-f]{64})$/;

export function parseSignatureHeader(value: string | undefined): ParsedSignature | undefined {
  const m = value ? HEADER_RE.exec(value.trim()) : null;
  return m ? { t: m[1]!, kid: m[2]!, v1: m[3]! } : undefined;
}

export function formatSignatureHeader(t: string | number, kid: string, v1: string): string {
  return `t=${t},kid=${kid},v1=${v1}`;
}

export type VerifyOutcome = { ok: true; kid: string } | { ok: false; reason: 'malformed' | 'unknown_kid' | 'stale' | 'mismatch' };

/** Checks a forward: known kid, timestamp within tolerance both ways, HMAC equal in constant time. */
export function verifyForward(
  header: string | undefined,
  parts: Omit<SignedParts, 'timestamp'>,
  secrets: ReadonlyMap<string, string>,
  nowSeconds: number,
): VerifyOutcome {
  const sig = parseSignatureHeader(header);
  if (!sig) return { ok: false, reason: 'malformed' };
  const secret = secrets.get(sig.kid);
  if (secret === undefined) return { ok: false, reason: 'unknown_kid' };
  if (Math.abs(nowSeconds - Number(sig.t)) > SIGNATURE_TOLERANCE_SECONDS) return { ok: false, reason: 'stale' };
  const expected = Buffer.from(sign(secret, { ...parts, timestamp: sig.t }), 'hex');
  const given = Buffer.from(sig.v1, 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'mismatch' };
  return { ok: true, kid: sig.kid };
}

/** The older contract: `X-ZeroClick-Signature: sha256=<hex HMAC of "{timestamp}.{rawBody}">` (the body's bytes as they came). */
export function legacySignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest('hex')}`;
}

export function verifyLegacy(
  header: string | undefined,
  timestamp: string | undefined,
  rawBody: Buffer | string,
  secret: string,
  nowSeconds: number,
): boolean {
  if (!header || !timestamp || !/^\d{1,20}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(legacySignature(secret, timestamp, rawBody));
  const given = Buffer.from(header.trim());
  return expected.length === given.length && timingSafeEqual(expected, given);
}
