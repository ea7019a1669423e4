/**
 * The accounting tables' rows as both databases return them (SQLite and PostgreSQL name the columns
 * alike), and the records the ports speak. One copy for the two adapters.
 */
import { withoutControls } from '../core/controls.js';
import type { ApiKeyRecord, Billing, Org, OrgListing } from '../ports/accounts.js';
import type { PaymentOutcome, PaymentRecord } from '../ports/payments.js';
import type { UsageEntry } from '../ports/usage-store.js';

export interface OrgRow {
  id: string;
  name: string;
  billing: Billing;
  rate_limit: number | null;
  created_at: number;
}

/** An organization's row with the count of its keys not revoked (`listOrgs`). */
export type OrgListingRow = OrgRow & { active_keys: number | string };

/** The statement behind `listOrgs`, the same in both databases but for the placeholder. */
export const LIST_ORGS_SQL = (limit: string) =>
  `SELECT o.id, o.name, o.rate_limit, o.billing, o.created_at,
     (SELECT count(*) FROM api_keys k WHERE k.org_id = o.id AND k.revoked_at IS NULL) AS active_keys
   FROM orgs o ORDER BY o.created_at DESC, o.id DESC LIMIT ${limit}`;

export interface KeyRow {
  id: string;
  org_id: string;
  prefix: string;
  hash: string;
  created_at: number;
  revoked_at: number | null;
}

export function toOrg(r: OrgRow): Org {
  const org: Org = { id: r.id, name: r.name, billing: r.billing, createdAt: r.created_at };
  if (r.rate_limit !== null) org.rateLimitPerSecond = r.rate_limit;
  return org;
}

export function toOrgListing(r: OrgListingRow): OrgListing {
  // PostgreSQL's count is a bigint, which its driver returns as a string.
  return { org: toOrg(r), activeKeys: Number(r.active_keys) };
}

export function toKey(r: KeyRow): ApiKeyRecord {
  const k: ApiKeyRecord = { id: r.id, orgId: r.org_id, prefix: r.prefix, hash: r.hash, createdAt: r.created_at };
  if (r.revoked_at !== null) k.revokedAt = r.revoked_at;
  return k;
}

/** A key row joined with its organization's columns (`findKeyByPrefix`). */
export type KeyWithOrgRow = KeyRow & { org_name: string; org_rate_limit: number | null; org_billing: Billing; org_created_at: number };

export function toKeyWithOrg(row: KeyWithOrgRow): { key: ApiKeyRecord; org: Org } {
  const org = { id: row.org_id, name: row.org_name, billing: row.org_billing, rate_limit: row.org_rate_limit, created_at: row.org_created_at };
  return { key: toKey(row), org: toOrg(org) };
}

export interface UsageRow {
  at: number;
  request_id: string;
  tier: string;
  operation: 'search' | 'fetch';
  status: number;
  cost: number;
  latency_ms: number;
  org_id: string | null;
  key_id: string | null;
  app_title: string | null;
  client_ip: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
}

/** The usage table's columns an entry fills, in the order of `usageValues` (both adapters insert them so). */
export const USAGE_COLUMNS = 'at, request_id, tier, operation, status, cost, latency_ms, org_id, key_id, app_title, client_ip, prompt_tokens, completion_tokens';

export function usageValues(e: UsageEntry): (string | number | null)[] {
  return [
    e.at,
    e.requestId,
    e.tier,
    e.operation,
    e.status,
    e.costMicroUsd,
    e.latencyMs,
    e.orgId ?? null,
    e.keyId ?? null,
    // Without control characters whatever named it: PostgreSQL's text cannot hold a NUL, and one such row failed its whole batch.
    e.appTitle === undefined ? null : withoutControls(e.appTitle),
    e.clientIp ?? null,
    e.promptTokens ?? null,
    e.completionTokens ?? null,
  ];
}

export function toUsageEntry(r: UsageRow): UsageEntry {
  const e: UsageEntry = {
    at: r.at,
    requestId: r.request_id,
    tier: r.tier,
    operation: r.operation,
    status: r.status,
    costMicroUsd: r.cost,
    latencyMs: r.latency_ms,
  };
  if (r.org_id !== null) e.orgId = r.org_id;
  if (r.key_id !== null) e.keyId = r.key_id;
  if (r.app_title !== null) e.appTitle = r.app_title;
  if (r.client_ip !== null) e.clientIp = r.client_ip;
  if (r.prompt_tokens !== null) e.promptTokens = r.prompt_tokens;
  if (r.completion_tokens !== null) e.completionTokens = r.completion_tokens;
  return e;
}

export interface PaymentRow {
  at: number;
  request_id: string;
  operation: string;
  payer: string;
  nonce: string;
  amount: string;
  asset: string;
  network: string;
  pay_to: string;
  outcome: PaymentOutcome;
  tx_hash: string | null;
  reason: string | null;
}

export function toPaymentRecord(r: PaymentRow): PaymentRecord {
  const e: PaymentRecord = {
    at: r.at,
    requestId: r.request_id,
    operation: r.operation,
    payer: r.payer,
    nonce: r.nonce,
    amount: r.amount,
    asset: r.asset,
    network: r.network,
    payTo: r.pay_to,
    outcome: r.outcome,
  };
  if (r.tx_hash !== null) e.transaction = r.tx_hash;
  if (r.reason !== null) e.reason = r.reason;
  return e;
}
