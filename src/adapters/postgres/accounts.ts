import type { AccountStore, ApiKeyRecord, Billing, Org, OrgListing, StorefrontAccount, StorefrontAccountStore } from '../../ports/accounts.js';
import { type KeyRow, type KeyWithOrgRow, LIST_ORGS_SQL, type OrgListingRow, type OrgRow, toKey, toKeyWithOrg, toOrg, toOrgListing } from '../account-rows.js';
import { newId } from '../sqlite/accounts.js';
import { inTransaction, type PgPool } from './database.js';


export class PgAccountStore implements AccountStore {
  constructor(private readonly pool: PgPool) {}

  async createOrg(name: string, rateLimitPerSecond?: number, billing: Billing = 'credits'): Promise<Org> {
    const org: Org = { id: newId('org'), name, billing, createdAt: Date.now() };
    if (rateLimitPerSecond !== undefined) org.rateLimitPerSecond = rateLimitPerSecond;
    await this.pool.query('INSERT INTO orgs (id, name, rate_limit, billing, created_at) VALUES ($1, $2, $3, $4, $5)', [
      org.id,
      name,
      rateLimitPerSecond ?? null,
      billing,
      org.createdAt,
    ]);
    return org;
  }

  async getOrg(id: string): Promise<Org | undefined> {
    const { rows } = await this.pool.query<OrgRow>('SELECT id, name, rate_limit, billing, created_at FROM orgs WHERE id = $1', [id]);
    return rows[0] ? toOrg(rows[0]) : undefined;
  }

  async listOrgs(limit: number): Promise<OrgListing[]> {
    const { rows } = await this.pool.query<OrgListingRow>(LIST_ORGS_SQL('$1'), [limit]);
    return rows.map(toOrgListing);
  }

  async setOrgRateLimit(id: string, rateLimitPerSecond: number | undefined): Promise<boolean> {
    const r = await this.pool.query('UPDATE orgs SET rate_limit = $1 WHERE id = $2', [rateLimitPerSecond ?? null, id]);
    return r.rowCount === 1;
  }

  async insertKey(record: Omit<ApiKeyRecord, 'revokedAt'>): Promise<void> {
    await this.pool.query('INSERT INTO api_keys (id, org_id, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5)', [
      record.id,
      record.orgId,
      record.prefix,
      record.hash,
      record.createdAt,
    ]);
  }

  async findKeyByPrefix(prefix: string): Promise<{ key: ApiKeyRecord; org: Org } | undefined> {
    const { rows } = await this.pool.query<KeyWithOrgRow>(
      `SELECT k.*, o.name AS org_name, o.rate_limit AS org_rate_limit, o.billing AS org_billing, o.created_at AS org_created_at
       FROM api_keys k JOIN orgs o ON o.id = k.org_id WHERE k.prefix = $1`,
      [prefix],
    );
    const row = rows[0];
    return row ? toKeyWithOrg(row) : undefined;
  }

  async listKeys(orgId: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query<KeyRow>('SELECT * FROM api_keys WHERE org_id = $1 ORDER BY created_at, id', [orgId]);
    return rows.map(toKey);
  }

  async revokeKey(id: string, at: number): Promise<boolean> {
    const r = await this.pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
    return r.rowCount === 1;
  }
}

interface SfRow {
  user_id: string;
  org_id: string;
  plan: string | null;
  generation: number;
  active: boolean;
}

function toAccount(r: SfRow): StorefrontAccount {
  const a: StorefrontAccount = { userId: r.user_id, orgId: r.org_id, generation: r.generation, active: r.active };
  if (r.plan !== null) a.plan = r.plan;
  return a;
}

export class PgStorefrontAccountStore implements StorefrontAccountStore {
  constructor(private readonly pool: PgPool) {}

  async getOrCreate(userId: string): Promise<StorefrontAccount> {
    const found = await this.pool.query<SfRow>('SELECT * FROM storefront_accounts WHERE user_id = $1', [userId]);
    if (found.rows[0]) return toAccount(found.rows[0]);
    return inTransaction(this.pool, async (c) => {
      // Two machines provisioning one user at once: the second waits on the row's key and finds it.
      const orgId = newId('org');
      await c.query("INSERT INTO orgs (id, name, billing, created_at) VALUES ($1, $2, 'storefront', $3)", [orgId, `storefront:${userId}`, Date.now()]);
      const inserted = await c.query<SfRow>(
        'INSERT INTO storefront_accounts (user_id, org_id) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING RETURNING *',
        [userId, orgId],
      );
      if (inserted.rows[0]) return toAccount(inserted.rows[0]);
      await c.query('DELETE FROM orgs WHERE id = $1', [orgId]);
      const { rows } = await c.query<SfRow>('SELECT * FROM storefront_accounts WHERE user_id = $1', [userId]);
      return toAccount(rows[0]!);
    });
  }

  async activate(userId: string, plan: string | undefined, key: Omit<ApiKeyRecord, 'revokedAt' | 'orgId'>): Promise<boolean> {
    return inTransaction(this.pool, async (c) => {
      const { rows } = await c.query<{ org_id: string }>(
        'UPDATE storefront_accounts SET active = true, plan = $1 WHERE user_id = $2 AND NOT active RETURNING org_id',
        [plan ?? null, userId],
      );
      if (!rows[0]) return false;
      await c.query('INSERT INTO api_keys (id, org_id, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5)', [
        key.id,
        rows[0].org_id,
        key.prefix,
        key.hash,
        key.createdAt,
      ]);
      return true;
    });
  }

  async deactivate(userId: string, keyId: (generation: number) => string, at: number): Promise<boolean> {
    return inTransaction(this.pool, async (c) => {
      // RETURNING gives the new generation; the key revoked is the one the old generation derived.
      const { rows } = await c.query<{ generation: number }>(
        'UPDATE storefront_accounts SET active = false, generation = generation + 1 WHERE user_id = $1 AND active RETURNING generation',
        [userId],
      );
      if (!rows[0]) return false;
      await c.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, keyId(rows[0].generation - 1)]);
      return true;
    });
  }
}
