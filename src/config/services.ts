/** The composition root: picks and wires the adapters. Nothing connects at import time. */
import { createKeyedTier } from '../access/keyed/keyed-tier.js';
import { createKeylessTier } from '../access/keyless/keyless-tier.js';
import { createStorefrontTier } from '../access/storefront/storefront-tier.js';
import { createUsageReporter, type UsageReporter } from '../access/storefront/usage-reporter.js';
import { createHttpStorefrontApi } from '../adapters/storefront/http-storefront-api.js';
import { SqliteUsageOutbox } from '../adapters/sqlite/usage-outbox.js';
import { ServiceError } from '../core/errors.js';
import { createLogSink, type LogSink } from '../core/log.js';
import type { StorefrontApi, UsageOutbox } from '../ports/storefront.js';
import { createX402Tier } from '../access/x402/x402-tier.js';
import { SqliteNonceStore, SqlitePaymentLog } from '../adapters/sqlite/payments.js';
import { createInProcessFacilitator, createRemoteFacilitator } from '../adapters/x402/facilitators.js';
import type { Facilitator, PaymentLog } from '../ports/payments.js';
import type { Place } from '../access/x402/region.js';
import { createLiveFetcher } from '../acquire/live-fetch.js';
import { ReaderPool } from '../adapters/reader/reader-pool.js';
import type { LiveFetcher } from '../ports/live-fetcher.js';
import { SqliteCrawlFrontier } from '../adapters/sqlite/crawl-frontier.js';
import type { HttpClient } from '../acquire/http-client.js';
import type { RobotsCache } from '../acquire/robots.js';
import type { CrawlFrontier } from '../ports/crawl-frontier.js';
import { createOpenAiCompatibleExtractor, extractionLongestMs } from '../adapters/llm/openai-compatible.js';
import type { LlmExtractor } from '../ports/llm-extractor.js';
import type { AccessTier } from '../access/tier.js';
import { MemoryLimiterStore } from '../adapters/memory/limiter-store.js';
import { SqliteLimiterStore } from '../adapters/sqlite/limiter-store.js';
import { SqliteAccountStore, SqliteStorefrontAccountStore } from '../adapters/sqlite/accounts.js';
import { type Db, openDatabase } from '../adapters/sqlite/database.js';
import cluster from 'node:cluster';
import { type EngineOptions, EngineIndexStore } from '../adapters/engine/engine-index-store.js';
import { SqliteLedger } from '../adapters/sqlite/ledger.js';
import { SqlitePageStore } from '../adapters/sqlite/page-store.js';
import { SqliteUsageStore } from '../adapters/sqlite/usage-store.js';
import { PgAccountStore, PgStorefrontAccountStore } from '../adapters/postgres/accounts.js';
import { openPostgres, type PgPool } from '../adapters/postgres/database.js';
import { PgLedger } from '../adapters/postgres/ledger.js';
import { SqliteUnsettledList } from '../adapters/sqlite/unsettled-reservations.js';
import { PgLimiterStore } from '../adapters/postgres/limiter-store.js';
import { PgNonceStore, PgPaymentLog } from '../adapters/postgres/payments.js';
import { PgUsageOutbox, PgUsageStore } from '../adapters/postgres/usage.js';
import { PgPageLog, ReplicatedPageStore } from '../adapters/postgres/page-log.js';
import { RedisLimiterStore } from '../adapters/redis/limiter-store.js';
import { RedisNonceStore } from '../adapters/redis/nonce-store.js';
import { openRedis, type RedisClient } from '../adapters/redis/redis.js';
import type { NonceStore } from '../ports/payments.js';
import { type Clock, systemClock } from '../core/time.js';
import type { AccountStore, StorefrontAccountStore } from '../ports/accounts.js';
import type { IndexStore } from '../ports/index-store.js';
import type { Ledger } from '../ports/ledger.js';
import type { LimiterStore } from '../ports/limiter-store.js';
import type { PageStore } from '../ports/page-store.js';
import type { UsageStore } from '../ports/usage-store.js';
import { SAVES_INDEX, type Settings } from './settings.js';

export interface Services {
  settings: Settings;
  clock: Clock;
  pages: PageStore;
  index: IndexStore;
  accounts: AccountStore;
  storefrontAccounts: StorefrontAccountStore;
  ledger: Ledger;
  usage: UsageStore;
  limiter: LimiterStore;
  live: LiveFetcher;
  liveFetchIndexes: boolean;
  realtimeDeadlineMs: number;
  /** The outbound client and robots cache live fetch uses; the crawler shares them. */
  http: HttpClient;
  robots: RobotsCache;
  /**
   * The threads fetched pages are read on (WEBSEARCH_READER_THREADS; none when 0): live fetch uses
   * `read`, the crawler `readQueued` (its own concurrency bounds what waits).
   */
  reader?: ReaderPool;
  frontier: CrawlFrontier;
  /**
   * With DATABASE_URL=postgres://...: `pages` itself, whose writes also go to the shared page log;
   * `serve` starts its sync in the process that saves the index (`savesIndex`).
   */
  sharedPages?: ReplicatedPageStore;
  /** Present when a language model is configured (LLM_BASE_URL, LLM_MODEL). */
  llm?: LlmExtractor;
  tiers: AccessTier[];
  outbox: UsageOutbox;
  /** Present when usage goes to the storefront's usage API (STOREFRONT_USAGE=api). */
  usageReporter?: UsageReporter;
  logs: LogSink;
  payments: PaymentLog;
  /** Why the x402 tier is off although some of its settings are present (empty when on or unconfigured). */
  x402Problems: string[];
  /** True while the stores answer. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** Whether this process saves the engine's index (and syncs shared pages): all but the workers of `serve --workers N` but one. */
export function savesIndex(): boolean {
  return !(cluster.isWorker && process.env[SAVES_INDEX] !== '1');
}

/** How often a machine's serving process applies the shared page log (DATABASE_URL=postgres://...). */
export const PAGE_SYNC_MS = 1000;

/** PostgreSQL or Redis (DATABASE_URL, REDIS_URL) did not answer at start-up; the message says why, without the URL's password. */
export class StoreUnreachable extends Error {}

/**
 * The accounting stores: in PostgreSQL when DATABASE_URL names one (several machines share them),
 * in the SQLite file otherwise.
 */
function accountingStores(db: Db, pool: PgPool | undefined, settings: Settings, onUsageError: (e: unknown) => void) {
  if (pool) {
    return {
      accounts: new PgAccountStore(pool),
      storefrontAccounts: new PgStorefrontAccountStore(pool),
      ledger: new PgLedger(pool, new SqliteUnsettledList(db)),
      usage: new PgUsageStore(pool, onUsageError),
      outbox: new PgUsageOutbox(pool),
      payments: new PgPaymentLog(pool),
    };
  }
  return {
    accounts: new SqliteAccountStore(db),
    storefrontAccounts: new SqliteStorefrontAccountStore(db),
    // Several server processes must hold credit reservations together: in the database they share.
    // One process holds them in memory (a keyed request's one write: the charge).
    ledger: new SqliteLedger(db, { reservations: settings.workers > 1 ? 'database' : 'memory' }),
    usage: new SqliteUsageStore(db, onUsageError),
    outbox: new SqliteUsageOutbox(db),
    payments: new SqlitePaymentLog(db),
  };
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Opens a shared store, or throws StoreUnreachable saying why (without the URL's password). */
export async function connect<T>(what: string, url: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (e) {
    const reason = e instanceof ServiceError && e.cause instanceof Error ? e.cause : (e as Error);
    throw new StoreUnreachable(`cannot use ${what} at ${redactUrl(url)}: ${reason.message}`);
  }
}

/**
 * How long a reservation may stay pending before it is taken to belong to a request that will never
 * settle it (its process died, or its commit or release met a store outage): twice the longest a
 * request can last under these settings (a live fetch, its reading, realtime content and a prompt's
 * model calls, one after another), and never under 10 minutes. A request that did outlast it would
 * be served without charge (its commit finds the reservation settled), never charged twice.
 */
export function staleReservationMs(settings: Settings): number {
  const longest = settings.fetchTimeoutMs + settings.readerTimeoutMs + settings.realtimeDeadlineMs + (settings.llm ? extractionLongestMs(settings.llm) : 0);
  return Math.max(10 * 60_000, 2 * longest);
}
/** How often each process looks for stale reservations, after the look at start-up. */
const STALE_SWEEP_MS = 60_000;

/**
 * Gives back, every `everyMs`, the credit of reservations pending longer than `afterMs` (without it,
 * a reservation whose process ended before settling would hold its credit until some machine
 * restarts), and of this process's reservations whose commit met an outage (`Ledger.releaseStale`).
 * Sweeps on several processes or machines are safe together: each reservation settles once.
 */
function sweepStaleReservations(ledger: Ledger, o: { afterMs: number; everyMs: number }, log: LogSink['log']) {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= ledger
      .releaseStale(Date.now() - o.afterMs)
      .then(
        (released) => {
          if (released > 0) log('warn', 'credit reservations given back (stale, or their commit met an outage)', { released });
        },
        (e: unknown) => log('error', 'credit reservations not given back', { err: String(e) }),
      )
      .finally(() => {
        running = undefined;
      });
  }, o.everyMs);
  timer.unref();
  return {
    /** Ends the sweeps; one more first if reservations of this process wait to be settled, for at most `FINAL_SWEEP_MS`. */
    async stop() {
      clearInterval(timer);
      await running;
      if (!ledger.unsettled?.()) return;
      let timeout: NodeJS.Timeout | undefined;
      const last = ledger.releaseStale(Date.now() - o.afterMs).then(
        (released) => log('warn', 'credit reservations given back before exit', { released }),
        (e: unknown) => log('error', 'credit reservations not given back before exit: a commit that met an outage may stay charged', { err: String(e) }),
      );
      await Promise.race([last, new Promise<void>((resolve) => (timeout = setTimeout(resolve, FINAL_SWEEP_MS)))]);
      clearTimeout(timeout);
    },
  };
}
/** How long a process that is stopping waits to settle its reservations of unknown outcome. */
const FINAL_SWEEP_MS = 3_000;
/**
 * Fetched pages a request may leave waiting for a reader thread (one more gets 503 server_busy).
 * Pages of usual size take milliseconds, so 32 wait well under a second; 32 of the largest (10 MB,
 * 0.4-0.7 s each) would wait longer than a fetch's own 15 s, which is when refusing beats queueing.
 */
const READER_MAX_WAITING = 32;

export interface ServiceOptions {
  clock?: Clock;
  /** Replaces the storefront's HTTP API adapter (tests of the adapter itself use the real one). */
  storefrontApi?: StorefrontApi;
  /** How often the usage reporter looks at the outbox. */
  usageReportIntervalMs?: number;
  /** Replaces the geoip database lookup for x402 region checks. */
  placeOfIp?: (ip: string) => Place | undefined;
  /** When a search is split between two threads (EngineOptions; `npm run bench:engine-threads` sets them). */
  split?: Pick<EngineOptions, 'splitFrom' | 'splitWork'>;
  /** Prepended to the Redis keys (tests sharing one Redis); the default is `websearch:`. */
  redisKeyPrefix?: string;
  /** When a pending reservation is stale, and how often to look (defaults: staleReservationMs, every minute). */
  staleReservations?: { afterMs: number; everyMs: number };
  /**
   * The SQLite database, opened already (`openDatabase`), in place of the file of
   * `settings.sqlitePath`; the services close it. Tests of a full disk open it with a page limit.
   */
  database?: Db;
}

function createFacilitator(x: Extract<Settings['x402'], { enabled: true }>): Facilitator {
  return x.facilitator.mode === 'remote'
    ? createRemoteFacilitator({ url: x.facilitator.url, timeoutMs: x.facilitatorTimeoutMs })
    : createInProcessFacilitator({
        network: x.network,
        rpcUrl: x.facilitator.rpcUrl,
        privateKey: x.facilitator.privateKey,
        rpcTimeoutMs: x.facilitatorTimeoutMs,
      });
}

export async function createServices(settings: Settings, options: ServiceOptions = {}): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const logs = createLogSink();
  const pgUrl = settings.postgresUrl;
  const redisUrl = settings.redisUrl;
  const pool = pgUrl ? await connect('PostgreSQL', pgUrl, () => openPostgres({ url: pgUrl })) : undefined;
  let redis: RedisClient | undefined;
  let db: Db;
  try {
    redis = redisUrl ? await connect('Redis', redisUrl, () => openRedis({ url: redisUrl })) : undefined;
    db = options.database ?? openDatabase({ path: settings.sqlitePath });
  } catch (e) {
    await pool?.end();
    redis?.disconnect();
    throw e;
  }
  const { accounts, storefrontAccounts, ledger, usage, outbox, payments } = accountingStores(db, pool, settings, (e) =>
    logs.log('error', 'usage not recorded', { err: String(e) }),
  );
  const stale = options.staleReservations ?? { afterMs: staleReservationMs(settings), everyMs: STALE_SWEEP_MS };
  await ledger.releaseStale(Date.now() - stale.afterMs);
  const staleSweep = sweepStaleReservations(ledger, stale, logs.log);
  // Rate limits: counted in Redis or else PostgreSQL for several machines, in the SQLite file for
  // several processes of one, in memory for one.
  const keys = options.redisKeyPrefix ?? 'websearch:';
  const limiter: LimiterStore = redis
    ? new RedisLimiterStore(redis, `${keys}rl:`)
    : pool
      ? new PgLimiterStore(pool)
      : settings.workers > 1
        ? new SqliteLimiterStore(db)
        : new MemoryLimiterStore();
  const nonces: NonceStore = redis ? new RedisNonceStore(redis, `${keys}x402:`) : pool ? new PgNonceStore(pool) : new SqliteNonceStore(db);
  const sf = settings.storefront;
  const storefrontApi =
    options.storefrontApi ??
    (sf.allowanceUrl && sf.usageUrl
      ? createHttpStorefrontApi({ allowanceUrl: sf.allowanceUrl, usageUrl: sf.usageUrl, apiKey: sf.apiKey, timeoutMs: sf.allowanceTimeoutMs })
      : undefined);
  const usageReporter =
    sf.usage === 'api' && storefrontApi
      ? createUsageReporter(outbox, storefrontApi, {
          intervalMs: options.usageReportIntervalMs,
          onError: (e) => logs.log('error', 'usage report pass failed', { err: String(e) }),
        })
      : undefined;
  const tiers: AccessTier[] = [
    createKeyedTier({ accounts, ledger, limiter, clock, defaultRatePerSecond: settings.keyedRatePerSecond }) as AccessTier,
    createKeylessTier({
      limiter,
      clock,
      perSecond: settings.keylessPerSecond,
      perHour: settings.keylessPerHour,
    }) as AccessTier,
    createStorefrontTier({
      secrets: sf.signingSecrets,
      api: storefrontApi,
      usageChannel: sf.usage,
      serviceSlug: sf.serviceSlug,
      outbox,
      reporter: usageReporter,
      limiter,
      clock,
      log: logs.log,
    }) as AccessTier,
  ];
  const reader =
    settings.readerThreads > 0
      ? new ReaderPool({
          threads: settings.readerThreads,
          timeoutMs: settings.readerTimeoutMs,
          maxHeapMb: settings.readerHeapMb,
          maxWaiting: READER_MAX_WAITING,
          log: logs.log,
        })
      : undefined;
  const live = createLiveFetcher({
    ...(reader ? { read: reader.read } : {}),
    allowPrivateNetwork: settings.allowPrivateNetwork,
    userAgent: settings.userAgent,
    timeoutMs: settings.fetchTimeoutMs,
    robotsAgent: settings.userAgent.split(/[/\s]/)[0]!.toLowerCase(),
  });
  const x = settings.x402;
  if (x.enabled) {
    tiers.push(
      createX402Tier({
        requirements: {
          scheme: 'exact',
          network: x.network,
          amount: x.price,
          asset: x.asset,
          payTo: x.payTo,
          maxTimeoutSeconds: 300,
          extra: { name: x.assetName, version: x.assetVersion },
        },
        facilitator: createFacilitator(x),
        nonces,
        payments,
        limiter,
        clock,
        countryHeader: x.countryHeader,
        regionHeader: x.regionHeader,
        placeOfIp: options.placeOfIp,
        log: logs.log,
      }) as AccessTier,
    );
  }
  // The engine's segments live beside the database file (derived data: deleting the folder only costs
  // a rebuild); the workers of `serve --workers` but one only read them (SAVES_INDEX).
  const engineDir = settings.sqlitePath === ':memory:' ? undefined : `${settings.sqlitePath}.engine`;
  const readOnly = !savesIndex();
  const minFreeBytes = settings.minFreeDiskMb * 2 ** 20;
  const index = new EngineIndexStore(db, { dir: engineDir, readOnly, searchThreads: settings.searchThreads, log: logs.log, minFreeBytes, ...options.split });
  let closed = false;
  const localPages = new SqlitePageStore(db, { minFreeBytes });
  const sharedPages = pool
    ? new ReplicatedPageStore(localPages, new PgPageLog(pool), logs.log)
    : undefined;
  return {
    settings,
    clock,
    pages: sharedPages ?? localPages,
    ...(sharedPages ? { sharedPages } : {}),
    index,
    accounts,
    storefrontAccounts,
    ledger,
    usage,
    limiter,
    live,
    liveFetchIndexes: settings.liveFetchIndexes,
    realtimeDeadlineMs: settings.realtimeDeadlineMs,
    http: live.client,
    robots: live.robots,
    ...(reader ? { reader } : {}),
    frontier: new SqliteCrawlFrontier(db),
    llm: settings.llm ? createOpenAiCompatibleExtractor(settings.llm) : undefined,
    tiers,
    outbox,
    usageReporter,
    logs,
    payments,
    x402Problems: x.enabled ? [] : x.problems,
    async healthy() {
      try {
        if (db.prepare('SELECT 1 AS one').get() === undefined) return false;
        if (pool) await pool.query('SELECT 1');
        if (redis) await redis.ping();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await usageReporter?.stop();
      await staleSweep.stop();
      await sharedPages?.stop();
      await live.close();
      await reader?.close();
      await limiter.close?.();
      await index.close();
      await usage.flush();
      db.close();
      await pool?.end();
      await redis?.quit().catch(() => redis?.disconnect());
    },
  };
}
