/** Organizations and their API keys. Keys are stored as hashes; the key itself is never kept. */

/** `credits`: draws on our credit ledger. `storefront`: billed by the storefront (older contract). */
export type Billing = 'credits' | 'storefront';

export interface Org {
  id: string;
  name: string;
  billing: Billing;
  /** Requests per second; undefined means the service default. */
  rateLimitPerSecond?: number;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  /** Public part of the key, used to find the record. */
  prefix: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  createdAt: number;
  revokedAt?: number;
}

/** An organization as `websearch org list` shows it: with how many of its keys are not revoked. */
export interface OrgListing {
  org: Org;
  activeKeys: number;
}

export interface AccountStore {
  createOrg(name: string, rateLimitPerSecond?: number, billing?: Billing): Promise<Org>;
  getOrg(id: string): Promise<Org | undefined>;
  /** The `limit` newest organizations, newest first (by creation time, then id). */
  listOrgs(limit: number): Promise<OrgListing[]>;
  setOrgRateLimit(id: string, rateLimitPerSecond: number | undefined): Promise<boolean>;
  insertKey(record: Omit<ApiKeyRecord, 'revokedAt'>): Promise<void>;
  /** The key with this public prefix and its organization, read together (a keyed request's first read). */
  findKeyByPrefix(prefix: string): Promise<{ key: ApiKeyRecord; org: Org } | undefined>;
  listKeys(orgId: string): Promise<ApiKeyRecord[]>;
  /** True when the key existed and was not yet revoked. */
  revokeKey(id: string, at: number): Promise<boolean>;
}

/** Storefront users provisioned through the older key-exchange contract. */
export interface StorefrontAccount {
  userId: string;
  orgId: string;
  plan?: string;
  /** Bumped on every revocation, so a later provisioning derives a new key. */
  generation: number;
  active: boolean;
}

export interface StorefrontAccountStore {
  /** The account of `userId`, creating it (and its storefront-billed organization) if needed. */
  getOrCreate(userId: string): Promise<StorefrontAccount>;
  /** Marks it active with its key, in one transaction; false if it was active already. */
  activate(userId: string, plan: string | undefined, key: Omit<ApiKeyRecord, 'revokedAt' | 'orgId'>): Promise<boolean>;
  /** Revokes its key and bumps the generation; false if it was not active. */
  deactivate(userId: string, keyId: (generation: number) => string, at: number): Promise<boolean>;
}
