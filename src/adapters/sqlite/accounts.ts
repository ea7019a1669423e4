import { randomBytes } from 'node:crypto';
import type { AccountStore, ApiKeyRecord, Org } from '../../ports/accounts.js';
import type { Db } from './database.js';

interface OrgRow {
  id: string;
  name: string;
  rate_limit: number | null;
  created_at: number;
}
interface KeyRow {
  id: string;
  org_id: string;
  prefix: string;
  hash: string;
  created_at: number;
  revoked_at: number | null;
}

function toOrg(r: OrgRow): Org {
  const org: Org = { id: r.id, name: r.name, createdAt: r.created_at };
  if (r.rate_limit !== null) org.rateLimitPerSecond = r.rate_limit;
  return org;
}
function toKey(r: KeyRow): ApiKeyRecord {
  const k: ApiKeyRecord = { id: r.id, orgId: r.org_id, prefix: r.prefix, hash: r.hash, createdAt: r.created_at };
  if (r.revoked_at !== null) k.revokedAt = r.revoked_at;
  return k;
}

export function newId(kind: string): string {
  return `${kind}_${randomBytes(9).toString('base64url')}`;
}

export class SqliteAccountStore implements AccountStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insertOrg: db.prepare('INSERT INTO orgs (id, name, rate_limit, created_at) VALUES (?, ?, ?, ?)'),
      getOrg: db.prepare<[string], OrgRow>('SELECT id, name, rate_limit, created_at FROM orgs WHERE id = ?'),
      setRate: db.prepare('UPDATE orgs SET rate_limit = ? WHERE id = ?'),
      insertKey: db.prepare(
        'INSERT INTO api_keys (id, org_id, prefix, hash, created_at) VALUES (@id, @orgId, @prefix, @hash, @createdAt)',
      ),
      keyByPrefix: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE prefix = ?'),
      keysOfOrg: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE org_id = ? ORDER BY created_at, id'),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    };
  }

  async createOrg(name: string, rateLimitPerSecond?: number): Promise<Org> {
    const org: Org = { id: newId('org'), name, createdAt: Date.now() };
    if (rateLimitPerSecond !== undefined) org.rateLimitPerSecond = rateLimitPerSecond;
    this.s.insertOrg.run(org.id, name, rateLimitPerSecond ?? null, org.createdAt);
    return org;
  }

  async getOrg(id: string): Promise<Org | undefined> {
    const row = this.s.getOrg.get(id);
    return row ? toOrg(row) : undefined;
  }

  async setOrgRateLimit(id: string, rateLimitPerSecond: number | undefined): Promise<boolean> {
    return this.s.setRate.run(rateLimitPerSecond ?? null, id).changes === 1;
  }

  async insertKey(record: Omit<ApiKeyRecord, 'revokedAt'>): Promise<void> {
    this.s.insertKey.run(record);
  }

  async findKeyByPrefix(prefix: string): Promise<ApiKeyRecord | undefined> {
    const row = this.s.keyByPrefix.get(prefix);
    return row ? toKey(row) : undefined;
  }

  async listKeys(orgId: string): Promise<ApiKeyRecord[]> {
    return this.s.keysOfOrg.all(orgId).map(toKey);
  }

  async revokeKey(id: string, at: number): Promise<boolean> {
    return this.s.revoke.run(at, id).changes === 1;
  }
}
