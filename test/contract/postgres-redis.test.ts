/** The scale-out adapters (PostgreSQL, Redis) against the same contracts as the embedded ones. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PgAccountStore, PgStorefrontAccountStore } from '../../src/adapters/postgres/accounts.js';
import { PgLedger } from '../../src/adapters/postgres/ledger.js';
import { PgLimiterStore } from '../../src/adapters/postgres/limiter-store.js';
import { PgNonceStore, PgPaymentLog } from '../../src/adapters/postgres/payments.js';
import { PgUsageOutbox, PgUsageStore } from '../../src/adapters/postgres/usage.js';
import { connectPostgres, type PgPool } from '../../src/adapters/postgres/database.js';
import { RedisLimiterStore } from '../../src/adapters/redis/limiter-store.js';
import { RedisNonceStore } from '../../src/adapters/redis/nonce-store.js';
import { freshPostgres, freshRedis, postgresUrl, redisUrl, skipUnless } from '../fixtures/backends.js';
import { accountingContract, nonceContract } from './accounting.contract.js';
import { ledgerContract } from './ledger.contract.js';
import { limiterContract } from './limiter.contract.js';

describe('PostgreSQL', skipUnless(postgresUrl, 'TEST_POSTGRES_URL'), () => {
  accountingContract('postgres', async () => {
    const pg = await freshPostgres();
    return {
      accounts: new PgAccountStore(pg.pool),
      storefrontAccounts: new PgStorefrontAccountStore(pg.pool),
      usage: new PgUsageStore(pg.pool),
      outbox: new PgUsageOutbox(pg.pool),
      payments: new PgPaymentLog(pg.pool),
      close: pg.drop,
    };
  });

  ledgerContract('postgres', 'by every process', async () => {
    const pg = await freshPostgres();
    const others: PgPool[] = [];
    return {
      ledger: new PgLedger(pg.pool),
      accounts: new PgAccountStore(pg.pool),
      another() {
        // Another machine: a pool of its own on the same schema.
        const pool = connectPostgres({ url: postgresUrl!, schema: pg.schema, maxConnections: 5 });
        others.push(pool);
        return new PgLedger(pool);
      },
      async close() {
        for (const p of others) await p.end();
        await pg.drop();
      },
    };
  });

  test("an error of the caller's inside a transaction stays that error, not store_unavailable", async () => {
    const pg = await freshPostgres();
    try {
      await assert.rejects(new PgLedger(pg.pool).credit('org_missing', 100, 'x'), RangeError);
    } finally {
      await pg.drop();
    }
  });

  nonceContract('postgres', async () => {
    const pg = await freshPostgres();
    return { nonces: new PgNonceStore(pg.pool), close: pg.drop };
  });

  limiterContract('postgres (without Redis)', async () => {
    const pg = await freshPostgres();
    return Object.assign(new PgLimiterStore(pg.pool), { close: pg.drop });
  });
});

describe('Redis', skipUnless(redisUrl, 'TEST_REDIS_URL'), () => {
  limiterContract('redis', async () => {
    const r = await freshRedis();
    return Object.assign(new RedisLimiterStore(r.redis, r.prefix), { close: r.close });
  });

  nonceContract('redis', async () => {
    const r = await freshRedis();
    return { nonces: new RedisNonceStore(r.redis, r.prefix), close: r.close };
  });
});
