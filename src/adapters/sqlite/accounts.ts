import { randomFillSync } from 'node:crypto';
import type { AccountStore, ApiKeyRecord, Billing, Org, OrgListing, StorefrontAccount, StorefrontAccountStore } from '../../ports/accounts.js';
import { type KeyRow, type KeyWithOrgRow, LIST_ORGS_SQL, type OrgListingRow, type OrgRow, toKey, toKeyWithOrg, toOrg, toOrgListing } from '../account-rows.js';
import type { Db } from './database.js';


const ID_BYTES = 9;
/** Random bytes for ids, filled 128 ids at a time: a keyed request makes one (its reservation), 1.7 us each from randomBytes, 0.1 us from the pool. */
const idPool = Buffer.alloc(ID_BYTES * 128);
let idPoolAt = idPool.length;

/** `kind` + `_` + 72 random bits in base64url (identifiers, not secrets). */
export function newId(kind: string): string {
  if (idPoolAt === idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  const id = idPool.toString('base64url', idPoolAt, idPoolAt + ID_BYTES);
  idPoolAt += ID_BYTES;
  return `${kind}_${id}`;
}

export class SqliteAccountStore implements AccountStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insertOrg: db.prepare('INSERT INTO orgs (id, name, rate_limit, billing, created_at) VALUES (?, ?, ?, ?, ?)'),
      getOrg: db.prepare<[string], OrgRow>('SELECT id, name, rate_limit, billing, created_at FROM orgs WHERE id = ?'),
      listOrgs: db.prepare<[number], OrgListingRow>(LIST_ORGS_SQL('?')),
      setRate: db.prepare('UPDATE orgs SET rate_limit = ? WHERE id = ?'),
      insertKey: db.prepare(
        'INSERT INTO api_keys (id, org_id, prefix, hash, created_at) VALUES (@id, @orgId, @prefix, @hash, @createdAt)',
      ),
      keyByPrefix: db.prepare<[string], KeyWithOrgRow>(
        `SELECT k.*, o.name AS org_name, o.rate_limit AS org_rate_limit, o.billing AS org_billing, o.created_at AS org_created_at
         FROM api_keys k JOIN orgs o ON o.id = k.org_id WHERE k.prefix = ?`,
      ),
      keysOfOrg: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE org_id = ? ORDER BY created_at, id'),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    };
  }

  async createOrg(name: string, rateLimitPerSecond?: number, billing: Billing = 'credits'): Promise<Org> {
    const org: Org = { id: newId('org'), name, billing, createdAt: Date.now() };
    if (rateLimitPerSecond !== undefined) org.rateLimitPerSecond = rateLimitPerSecond;
    this.s.insertOrg.run(org.id, name, rateLimitPerSecond ?? null, billing, org.createdAt);
    return org;
  }

  async getOrg(id: string): Promise<Org | undefined> {
    const row = this.s.getOrg.get(id);
    return row ? toOrg(row) : undefined;
  }

  async listOrgs(limit: number): Promise<OrgListing[]> {
    return this.s.listOrgs.all(limit).map(toOrgListing);
  }

  async setOrgRateLimit(id: string, rateLimitPerSecond: number | undefined): Promise<boolean> {
    return this.s.setRate.run(rateLimitPerSecond ?? null, id).changes === 1;
  }

  async insertKey(record: Omit<ApiKeyRecord, 'revokedAt'>): Promise<void> {
    this.s.insertKey.run(record);
  }

  async findKeyByPrefix(prefix: string): Promise<{ key: ApiKeyRecord; org: Org } | undefined> {
    const row = this.s.keyByPrefix.get(prefix);
    return row ? toKeyWithOrg(row) : undefined;
  }

  async listKeys(orgId: string): Promise<ApiKeyRecord[]> {
    return this.s.keysOfOrg.all(orgId).map(toKey);
  }

  async revokeKey(id: string, at: number): Promise<boolean> {
    return this.s.revoke.run(at, id).changes === 1;
  }
}

interface SfRow {
  user_id: string;
  org_id: string;
  plan: string | null;
  generation: number;
  active: number;
}

export class SqliteStorefrontAccountStore implements StorefrontAccountStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      get: db.prepare<[string], SfRow>('SELECT * FROM storefront_accounts WHERE user_id = ?'),
      insertOrg: db.prepare("INSERT INTO orgs (id, name, billing, created_at) VALUES (?, ?, 'storefront', ?)"),
      insert: db.prepare('INSERT INTO storefront_accounts (user_id, org_id) VALUES (?, ?)'),
      activate: db.prepare('UPDATE storefront_accounts SET active = 1, plan = ? WHERE user_id = ? AND active = 0'),
      deactivate: db.prepare(
        'UPDATE storefront_accounts SET active = 0, generation = generation + 1 WHERE user_id = ? AND active = 1',
      ),
      insertKey: db.prepare('INSERT INTO api_keys (id, org_id, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?)'),
      revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    };
  }

  private toAccount(r: SfRow): StorefrontAccount {
    const a: StorefrontAccount = { userId: r.user_id, orgId: r.org_id, generation: r.generation, active: r.active === 1 };
    if (r.plan !== null) a.plan = r.plan;
    return a;
  }

  async getOrCreate(userId: string): Promise<StorefrontAccount> {
    return this.db
      .transaction(() => {
        const row = this.s.get.get(userId);
        if (row) return this.toAccount(row);
        const orgId = newId('org');
        this.s.insertOrg.run(orgId, `storefront:${userId}`, Date.now());
        this.s.insert.run(userId, orgId);
        return this.toAccount(this.s.get.get(userId)!);
      })
      .immediate();
  }

  async activate(userId: string, plan: string | undefined, key: Omit<ApiKeyRecord, 'revokedAt' | 'orgId'>): Promise<boolean> {
    return this.db
      .transaction(() => {
        const row = this.s.get.get(userId);
        if (!row || this.s.activate.run(plan ?? null, userId).changes === 0) return false;
        this.s.insertKey.run(key.id, row.org_id, key.prefix, key.hash, key.createdAt);
        return true;
      })
      .immediate();
  }

  async deactivate(userId: string, keyId: (generation: number) => string, at: number): Promise<boolean> {
    return this.db
      .transaction(() => {
        const row = this.s.get.get(userId);
        if (!row || this.s.deactivate.run(userId).changes === 0) return false;
        this.s.revokeKey.run(at, keyId(row.generation));
        return true;
      })
      .immediate();
  }
}
