/**
 * npm run bench:shared-stores -- --postgres URL --redis URL [--requests 2000 --concurrency 16]
 *
 * What a keyed request's store calls cost by where the stores are: the key's lookup, the rate-limit
 * count, the credit's reservation and its commit (the calls a keyed search makes besides the engine).
 * - one machine: SQLite, reservations held in memory, limits counted in memory (the default);
 * - one machine, several workers: SQLite, reservations stored, limits in the SQLite file;
 * - several machines: PostgreSQL and Redis (URLs from the flags or TEST_POSTGRES_URL and
 *   TEST_REDIS_URL; a schema and key prefix of its own, dropped after);
 * - several machines without Redis: PostgreSQL alone, rate limits counted in it.
 * One request at a time (p50, p99 in ms), then `--concurrency` at once (requests/s).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { MemoryLimiterStore } from '../src/adapters/memory/limiter-store.js';
import { PgAccountStore } from '../src/adapters/postgres/accounts.js';
import { openPostgres } from '../src/adapters/postgres/database.js';
import { PgLedger } from '../src/adapters/postgres/ledger.js';
import { PgLimiterStore } from '../src/adapters/postgres/limiter-store.js';
import { RedisLimiterStore } from '../src/adapters/redis/limiter-store.js';
import { openRedis } from '../src/adapters/redis/redis.js';
import { SqliteAccountStore } from '../src/adapters/sqlite/accounts.js';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { SqliteLedger } from '../src/adapters/sqlite/ledger.js';
import { SqliteLimiterStore } from '../src/adapters/sqlite/limiter-store.js';
import type { AccountStore } from '../src/ports/accounts.js';
import type { Ledger } from '../src/ports/ledger.js';
import type { LimiterStore } from '../src/ports/limiter-store.js';
import { tempDir } from '../test/helpers.js';

const { values } = parseArgs({
  options: {
    postgres: { type: 'string', default: process.env.TEST_POSTGRES_URL },
    redis: { type: 'string', default: process.env.TEST_REDIS_URL },
    requests: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
  },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
if (!values.postgres || !values.redis) throw new Error('--postgres and --redis (or TEST_POSTGRES_URL and TEST_REDIS_URL) are needed');

interface Stores {
  accounts: AccountStore;
  ledger: Ledger;
  limiter: LimiterStore;
}

/** A keyed request's store calls, as the keyed tier makes them. */
async function request(s: Stores, prefix: string, orgId: string, i: number): Promise<void> {
  const found = await s.accounts.findKeyByPrefix(prefix);
  if (!found) throw new Error('key not found');
  const counted = await s.limiter.consume([{ key: `org:${orgId}`, windowMs: 1000, limit: 1_000_000_000 }], Date.now());
  if (!counted.allowed) throw new Error('limited');
  const r = await s.ledger.reserve(orgId, 4000, `req-${i}`);
  if (!r.ok) throw new Error('no credit');
  if (!(await s.ledger.commit(r.id))) throw new Error('not committed');
}

async function measure(name: string, s: Stores): Promise<string> {
  const org = await s.accounts.createOrg(`bench ${name}`);
  const prefix = `wsk_bench${randomBytes(4).toString('hex')}`;
  await s.accounts.insertKey({ id: `key_${prefix}`, orgId: org.id, prefix, hash: 'x', createdAt: Date.now() });
  await s.ledger.credit(org.id, 4000 * (3 * requests + 100), 'bench');
  for (let i = 0; i < 200; i++) await request(s, prefix, org.id, i);
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t = performance.now();
    await request(s, prefix, org.id, i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) await request(s, prefix, org.id, requests + next++);
    }),
  );
  const perSecond = requests / ((performance.now() - t0) / 1000);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(3);
  return `| ${name} | ${q(0.5)} | ${q(0.99)} | ${Math.round(perSecond)} |`;
}

const dir = tempDir('websearch-bench-stores-');
const db = openDatabase({ path: `${dir.path}/bench.db` });
const schema = `bench_${randomBytes(4).toString('hex')}`;
const pool = await openPostgres({ url: values.postgres, schema });
const redis = await openRedis({ url: values.redis });
try {
  const lines = [
    await measure('SQLite, held reservations, memory limits (one process)', {
      accounts: new SqliteAccountStore(db),
      ledger: new SqliteLedger(db, { reservations: 'memory' }),
      limiter: new MemoryLimiterStore(),
    }),
    await measure('SQLite, stored reservations, SQLite limits (--workers N)', {
      accounts: new SqliteAccountStore(db),
      ledger: new SqliteLedger(db, { reservations: 'database' }),
      limiter: new SqliteLimiterStore(db),
    }),
    await measure('PostgreSQL and Redis on loopback (several machines)', {
      accounts: new PgAccountStore(pool),
      ledger: new PgLedger(pool),
      limiter: new RedisLimiterStore(redis, `${schema}:`),
    }),
    await measure('PostgreSQL alone, limits in it (several machines, no Redis)', {
      accounts: new PgAccountStore(pool),
      ledger: new PgLedger(pool),
      limiter: new PgLimiterStore(pool),
    }),
  ];
  console.log(`keyed request's store calls (key, rate limit, reserve, commit); ${requests} requests`);
  console.log(`| stores | p50 ms, one at a time | p99 ms | requests/s, ${concurrency} at once |`);
  console.log('|---|---|---|---|');
  for (const l of lines) console.log(l);
} finally {
  db.close();
  dir.remove();
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.end();
  await redis.quit();
}
