/** Organizations and their API keys. Keys are stored as hashes; the key itself is never kept. */

export interface Org {
  id: string;
  name: string;
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

export interface AccountStore {
  createOrg(name: string, rateLimitPerSecond?: number): Promise<Org>;
  getOrg(id: string): Promise<Org | undefined>;
  setOrgRateLimit(id: string, rateLimitPerSecond: number | undefined): Promise<boolean>;
  insertKey(record: Omit<ApiKeyRecord, 'revokedAt'>): Promise<void>;
  findKeyByPrefix(prefix: string): Promise<ApiKeyRecord | undefined>;
  listKeys(orgId: string): Promise<ApiKeyRecord[]>;
  /** True when the key existed and was not yet revoked. */
  revokeKey(id: string, at: number): Promise<boolean>;
}
