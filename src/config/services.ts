/** The composition root: picks and wires the adapters. Nothing connects at import time. */
import { createKeyedTier } from '../access/keyed/keyed-tier.js';
import { createKeylessTier } from '../access/keyless/keyless-tier.js';
import type { AccessTier } from '../access/tier.js';
import { MemoryLimiterStore } from '../adapters/memory/limiter-store.js';
import { SqliteAccountStore } from '../adapters/sqlite/accounts.js';
import { type Db, openDatabase } from '../adapters/sqlite/database.js';
import { SqliteIndexStore } from '../adapters/sqlite/index-store.js';
import { SqliteLedger } from '../adapters/sqlite/ledger.js';
import { SqlitePageStore } from '../adapters/sqlite/page-store.js';
import { SqliteUsageStore } from '../adapters/sqlite/usage-store.js';
import { type Clock, systemClock } from '../core/time.js';
import type { AccountStore } from '../ports/accounts.js';
import type { IndexStore } from '../ports/index-store.js';
import type { Ledger } from '../ports/ledger.js';
import type { LimiterStore } from '../ports/limiter-store.js';
import type { PageStore } from '../ports/page-store.js';
import type { UsageStore } from '../ports/usage-store.js';
import type { Settings } from './settings.js';

export interface Services {
  settings: Settings;
  clock: Clock;
  pages: PageStore;
  index: IndexStore;
  accounts: AccountStore;
  ledger: Ledger;
  usage: UsageStore;
  limiter: LimiterStore;
  tiers: AccessTier[];
  /** True while the stores answer. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** Reservations still pending this long after they were made belong to a request that died. */
const STALE_RESERVATION_MS = 10 * 60_000;

export async function createServices(settings: Settings, options: { clock?: Clock } = {}): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const db: Db = openDatabase({ path: settings.sqlitePath });
  const accounts = new SqliteAccountStore(db);
  const ledger = new SqliteLedger(db);
  await ledger.releaseStale(Date.now() - STALE_RESERVATION_MS);
  const limiter: LimiterStore = new MemoryLimiterStore();
  const tiers: AccessTier[] = [
    createKeyedTier({ accounts, ledger, limiter, clock, defaultRatePerSecond: settings.keyedRatePerSecond }) as AccessTier,
    createKeylessTier({
      limiter,
      clock,
      perSecond: settings.keylessPerSecond,
      perHour: settings.keylessPerHour,
    }) as AccessTier,
  ];
  let closed = false;
  return {
    settings,
    clock,
    pages: new SqlitePageStore(db),
    index: new SqliteIndexStore(db),
    accounts,
    ledger,
    usage: new SqliteUsageStore(db),
    limiter,
    tiers,
    async healthy() {
      try {
        return db.prepare('SELECT 1 AS one').get() !== undefined;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await limiter.close?.();
      db.close();
    },
  };
}
