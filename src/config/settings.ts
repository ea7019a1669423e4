/**
 * Settings: read once, here only. Precedence: flags > environment > config file > defaults.
 * Unknown names are rejected rather than ignored (a typo must not silently do nothing).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_USER_AGENT } from '../acquire/http-client.js';

export interface Settings {
  host: string;
  port: number;
  dataDir: string;
  /**
   * SQLite file: pages, versions, the crawl frontier (and, without `postgresUrl`, everything else);
   * `DATABASE_URL=sqlite:<path>` or `<dataDir>/websearch.db`.
   */
  sqlitePath: string;
  /**
   * `DATABASE_URL=postgres://...`: organizations, keys, the credit ledger, usage, the storefront's
   * accounts and outbox, x402 payments and nonces in PostgreSQL, shared by several machines.
   */
  postgresUrl?: string;
  /** `REDIS_URL=redis://...`: rate-limit windows and x402 nonce claims in Redis, shared by several machines. */
  redisUrl?: string;
  allowPrivateNetwork: boolean;
  /** Sent on every outbound request; its first token is what robots.txt rules are matched against. */
  userAgent: string;
  /** Live fetches of URLs not yet in the search index add them to it (DESIGN: off by default). */
  liveFetchIndexes: boolean;
  /** One deadline for an outbound fetch, redirects included. */
  fetchTimeoutMs: number;
  /** realtime_content: one deadline for all the live fetches of a search. */
  realtimeDeadlineMs: number;
  /** fastify's trustProxy: false, true, a hop count, or comma-separated addresses/CIDRs. */
  trustProxy: boolean | number | string;
  logLevel: string;
  keyedRatePerSecond: number;
  keylessPerSecond: number;
  keylessPerHour: number;
  /** Seconds; in-flight requests get this long to finish on shutdown. */
  shutdownGraceSeconds: number;
  /** `serve` searches its own index for up to this long before it takes requests (ops/warm-up.ts); 0: not at all. */
  warmUpMs: number;
  /** Server processes sharing the port (node:cluster); above 1, rate limits are counted in the database. */
  workers: number;
  /** With DATABASE_URL: `serve` prunes the page log daily, waiting for the machines seen in this many days (`websearch share prune --unseen-days`); unset: never. */
  sharePruneDays?: number;
  /**
   * Threads one search may use: 2 splits a search over a large index between the serving thread
   * and a helper thread (engine-index-store.ts). Default 2 with one worker, 1 with several (they
   * already use the cores).
   */
  searchThreads: 1 | 2;
  /**
   * Threads that turn fetched pages into markdown (live fetch, realtime_content, crawl), off the
   * serving thread; 0 reads them on it. Each page gets `readerTimeoutMs` and a heap of `readerHeapMb`.
   */
  readerThreads: number;
  readerTimeoutMs: number;
  readerHeapMb: number;
  /** Pages are stored only while the data folder's disk has this much room (MiB): the rest is kept for what requests must write. 0: to the last byte. */
  minFreeDiskMb: number;
  /** `serve` deletes usage rows older than this many days, daily (ops/usage-retention.ts); 0 keeps them all. */
  usageRetentionDays: number;
  /** For the `search` and `fetch` client commands: the server to call, and the key (keyless without). */
  serverUrl: string;
  apiKey?: string;
  storefront: StorefrontSettings;
  x402: X402Settings;
  /** The language model for `prompt`; undefined: prompt answers 501 extraction_unavailable. */
  llm?: { baseUrl: string; model: string; apiKey?: string; timeoutMs: number; maxInputTokens: number; maxOutputTokens: number; maxParts: number; parallelCalls: number };
}

/** Base mainnet USDC, the spec's asset. */
export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

export type X402Settings =
  | { enabled: false; problems: string[] }
  | {
      enabled: true;
      payTo: string;
      network: string;
      asset: string;
      assetName: string;
      assetVersion: string;
      /** Base units of the asset (USDC: 6 decimals; 10000 = 0.01 USD). */
      price: string;
      facilitator:
        | { mode: 'in-process'; rpcUrl: string; privateKey: `0x${string}` }
        | { mode: 'remote'; url: string };
      facilitatorTimeoutMs: number;
      /** Headers a trusted proxy sets with the caller's country / region (e.g. CF-IPCountry). */
      countryHeader?: string;
      regionHeader?: string;
    };

export interface StorefrontSettings {
  /** kid -> secret. Empty: no storefront connected, so every storefront path answers 401. */
  signingSecrets: Map<string, string>;
  allowanceUrl?: string;
  usageUrl?: string;
  apiKey?: string;
  usage: 'header' | 'api';
  serviceSlug: string;
  allowanceTimeoutMs: number;
  /** The older key-exchange contract (`/zeroclick/api-key`); unset disables it. */
  legacySecret?: string;
}

/** Environment variable -> setting name. Every one is documented in the README. */
const ENV_NAMES = {
  HOST: 'host',
  PORT: 'port',
  WEBSEARCH_DATA_DIR: 'dataDir',
  DATABASE_URL: 'databaseUrl',
  REDIS_URL: 'redisUrl',
  WEBSEARCH_ALLOW_PRIVATE_NETWORK: 'allowPrivateNetwork',
  WEBSEARCH_TRUST_PROXY: 'trustProxy',
  WEBSEARCH_LOG_LEVEL: 'logLevel',
  WEBSEARCH_KEYED_RATE_LIMIT: 'keyedRatePerSecond',
  WEBSEARCH_KEYLESS_RATE_PER_SECOND: 'keylessPerSecond',
  WEBSEARCH_KEYLESS_RATE_PER_HOUR: 'keylessPerHour',
  WEBSEARCH_SHUTDOWN_GRACE_SECONDS: 'shutdownGraceSeconds',
  WEBSEARCH_WARM_UP_MS: 'warmUpMs',
  WEBSEARCH_WORKERS: 'workers',
  WEBSEARCH_SHARE_PRUNE_DAYS: 'sharePruneDays',
  WEBSEARCH_SEARCH_THREADS: 'searchThreads',
  WEBSEARCH_READER_THREADS: 'readerThreads',
  WEBSEARCH_READER_TIMEOUT_MS: 'readerTimeoutMs',
  WEBSEARCH_READER_HEAP_MB: 'readerHeapMb',
  WEBSEARCH_MIN_FREE_DISK_MB: 'minFreeDiskMb',
  WEBSEARCH_USAGE_RETENTION_DAYS: 'usageRetentionDays',
  WEBSEARCH_CONFIG: 'configFile',
  WEBSEARCH_USER_AGENT: 'userAgent',
  WEBSEARCH_LIVE_FETCH_INDEXES: 'liveFetchIndexes',
  WEBSEARCH_FETCH_TIMEOUT_MS: 'fetchTimeoutMs',
  WEBSEARCH_REALTIME_DEADLINE_MS: 'realtimeDeadlineMs',
  WEBSEARCH_URL: 'serverUrl',
  WEBSEARCH_API_KEY: 'apiKey',
  STOREFRONT_SIGNING_SECRETS: 'storefrontSigningSecrets',
  STOREFRONT_ALLOWANCE_URL: 'storefrontAllowanceUrl',
  STOREFRONT_USAGE_URL: 'storefrontUsageUrl',
  STOREFRONT_API_KEY: 'storefrontApiKey',
  STOREFRONT_USAGE: 'storefrontUsage',
  STOREFRONT_SERVICE_SLUG: 'storefrontServiceSlug',
  STOREFRONT_ALLOWANCE_TIMEOUT_MS: 'storefrontAllowanceTimeoutMs',
  STOREFRONT_LEGACY_SECRET: 'storefrontLegacySecret',
  LLM_BASE_URL: 'llmBaseUrl',
  LLM_MODEL: 'llmModel',
  LLM_API_KEY: 'llmApiKey',
  LLM_TIMEOUT_MS: 'llmTimeoutMs',
  LLM_MAX_INPUT_TOKENS: 'llmMaxInputTokens',
  LLM_MAX_OUTPUT_TOKENS: 'llmMaxOutputTokens',
  LLM_MAX_PARTS: 'llmMaxParts',
  LLM_PARALLEL_CALLS: 'llmParallelCalls',
  X402_PAY_TO: 'x402PayTo',
  X402_NETWORK: 'x402Network',
  X402_ASSET: 'x402Asset',
  X402_ASSET_NAME: 'x402AssetName',
  X402_ASSET_VERSION: 'x402AssetVersion',
  X402_PRICE: 'x402Price',
  X402_RPC_URL: 'x402RpcUrl',
  X402_FACILITATOR_KEY: 'x402FacilitatorKey',
  X402_FACILITATOR_URL: 'x402FacilitatorUrl',
  X402_FACILITATOR_TIMEOUT_MS: 'x402FacilitatorTimeoutMs',
  X402_COUNTRY_HEADER: 'x402CountryHeader',
  X402_REGION_HEADER: 'x402RegionHeader',
} as const;

type RawName = (typeof ENV_NAMES)[keyof typeof ENV_NAMES];
export type RawSettings = Partial<Record<RawName, string | number | boolean>>;

const KNOWN = new Set<string>(Object.values(ENV_NAMES));

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function bool(name: string, v: string | number | boolean): boolean {
  if (typeof v === 'boolean') return v;
  const s = String(v).trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(s)) return false;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(v)}`);
}

function int(name: string, v: string | number | boolean, min: number, max: number): number {
  const n = typeof v === 'number' ? v : /^\d+$/.test(String(v).trim()) ? Number(String(v).trim()) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

function trustProxy(v: string | number | boolean): boolean | number | string {
  if (typeof v === 'boolean' || typeof v === 'number') return v;
  const s = v.trim();
  if (/^(true|false)$/i.test(s)) return s.toLowerCase() === 'true';
  if (/^\d+$/.test(s)) return Number(s);
  return s;
}

/**
 * Set (to 1) by `serve --workers N`'s primary in the environment of the one worker that saves the
 * engine's segments after its merges, as a single process does (cli/serve.ts, config/services.ts);
 * the others only load them. Not a setting.
 */
export const SAVES_INDEX = 'WEBSEARCH_WORKER_SAVES_INDEX';

/** Environment variables we own that are not known: a typo or a retired name. */
function unknownEnv(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter((k) => /^(WEBSEARCH|STOREFRONT|X402|LLM)_/.test(k) && !(k in ENV_NAMES) && k !== SAVES_INDEX);
}

function httpUrl(name: string, v: string | number | boolean | undefined): string | undefined {
  if (v === undefined) return undefined;
  try {
    const u = new URL(String(v));
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.toString();
  } catch {
    // reported below
  }
  throw new ConfigError(`${name} must be an http(s) URL`);
}

/** `kid:secret,kid2:secret2`; each secret at least 16 characters. */
function signingSecrets(v: string | number | boolean | undefined): Map<string, string> {
  const m = new Map<string, string>();
  if (v === undefined) return m;
  for (const part of String(v).split(',').map((x) => x.trim()).filter(Boolean)) {
    const i = part.indexOf(':');
    const kid = part.slice(0, i);
    const secret = part.slice(i + 1);
    if (i <= 0 || !/^[A-Za-z0-9._-]{1,64}$/.test(kid) || secret.length < 16) {
      throw new ConfigError('STOREFRONT_SIGNING_SECRETS must be kid:secret pairs separated by commas, each secret at least 16 characters');
    }
    m.set(kid, secret);
  }
  return m;
}

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/**
 * The x402 tier runs only with a complete configuration. None of its variables set: disabled
 * quietly. Some set but not all it needs: disabled, and `problems` says what is missing (the server
 * logs it at start-up and runs the other tiers).
 */
function x402Settings(raw: RawSettings): X402Settings {
  const str = (v: unknown) => (v === undefined ? undefined : String(v).trim());
  const payTo = str(raw.x402PayTo);
  const rpcUrl = str(raw.x402RpcUrl);
  const key = str(raw.x402FacilitatorKey);
  const facilitatorUrl = str(raw.x402FacilitatorUrl);
  const anySet = Object.keys(raw).some((k) => k.startsWith('x402'));
  if (!anySet) return { enabled: false, problems: [] };
  const problems: string[] = [];
  if (!payTo) problems.push('X402_PAY_TO is not set');
  else if (!ADDRESS_RE.test(payTo)) problems.push('X402_PAY_TO must be a 0x-prefixed 20-byte address');
  const network = str(raw.x402Network) ?? 'eip155:8453';
  if (!/^eip155:\d+$/.test(network)) problems.push('X402_NETWORK must be eip155:<chain id>');
  const asset = str(raw.x402Asset) ?? BASE_USDC;
  if (!ADDRESS_RE.test(asset)) problems.push('X402_ASSET must be a 0x-prefixed 20-byte address');
  const price = str(raw.x402Price) ?? '10000';
  if (!/^[1-9]\d{0,17}$/.test(price)) problems.push('X402_PRICE must be a positive whole number of base units');
  if (facilitatorUrl && (rpcUrl || key)) problems.push('set X402_FACILITATOR_URL or X402_RPC_URL with X402_FACILITATOR_KEY, not both');
  let facilitator: Extract<X402Settings, { enabled: true }>['facilitator'] | undefined;
  if (facilitatorUrl) {
    try {
      facilitator = { mode: 'remote', url: httpUrl('X402_FACILITATOR_URL', facilitatorUrl)! };
    } catch (e) {
      problems.push((e as Error).message);
    }
  } else if (rpcUrl && key) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(key)) problems.push('X402_FACILITATOR_KEY must be a 0x-prefixed 32-byte hex private key');
    else {
      try {
        facilitator = { mode: 'in-process', rpcUrl: httpUrl('X402_RPC_URL', rpcUrl)!, privateKey: key as `0x${string}` };
      } catch (e) {
        problems.push((e as Error).message);
      }
    }
  } else {
    problems.push('a facilitator is needed: X402_FACILITATOR_URL, or X402_RPC_URL with X402_FACILITATOR_KEY');
  }
  const timeout = int('X402_FACILITATOR_TIMEOUT_MS', raw.x402FacilitatorTimeoutMs ?? 15000, 100, 120_000);
  if (problems.length > 0 || !facilitator || !payTo) return { enabled: false, problems };
  const settings: X402Settings = {
    enabled: true,
    payTo,
    network,
    asset,
    assetName: str(raw.x402AssetName) ?? 'USD Coin',
    assetVersion: str(raw.x402AssetVersion) ?? '2',
    price,
    facilitator,
    facilitatorTimeoutMs: timeout,
  };
  const countryHeader = str(raw.x402CountryHeader)?.toLowerCase();
  const regionHeader = str(raw.x402RegionHeader)?.toLowerCase();
  if (countryHeader) settings.countryHeader = countryHeader;
  if (regionHeader) settings.regionHeader = regionHeader;
  return settings;
}

function llmSettings(raw: RawSettings): Pick<Settings, 'llm'> {
  if (raw.llmBaseUrl === undefined) {
    if (raw.llmModel !== undefined || raw.llmApiKey !== undefined) throw new ConfigError('LLM_MODEL and LLM_API_KEY need LLM_BASE_URL');
    return {};
  }
  if (raw.llmModel === undefined) throw new ConfigError('LLM_BASE_URL needs LLM_MODEL (the model name the endpoint serves)');
  return {
    llm: {
      baseUrl: httpUrl('LLM_BASE_URL', raw.llmBaseUrl)!,
      model: String(raw.llmModel),
      ...(raw.llmApiKey !== undefined ? { apiKey: String(raw.llmApiKey) } : {}),
      timeoutMs: int('LLM_TIMEOUT_MS', raw.llmTimeoutMs ?? 60_000, 100, 600_000),
      maxInputTokens: int('LLM_MAX_INPUT_TOKENS', raw.llmMaxInputTokens ?? 8000, 100, 2_000_000),
      maxOutputTokens: int('LLM_MAX_OUTPUT_TOKENS', raw.llmMaxOutputTokens ?? 1000, 1, 200_000),
      maxParts: int('LLM_MAX_PARTS', raw.llmMaxParts ?? 4, 1, 64),
      parallelCalls: int('LLM_PARALLEL_CALLS', raw.llmParallelCalls ?? 4, 1, 64),
    },
  };
}

function storefrontSettings(raw: RawSettings): StorefrontSettings {
  const secrets = signingSecrets(raw.storefrontSigningSecrets);
  const allowanceUrl = httpUrl('STOREFRONT_ALLOWANCE_URL', raw.storefrontAllowanceUrl);
  if (secrets.size > 0 && !allowanceUrl) {
    throw new ConfigError('STOREFRONT_SIGNING_SECRETS is set but STOREFRONT_ALLOWANCE_URL is not: the storefront tier needs both');
  }
  const usage = String(raw.storefrontUsage ?? 'header');
  if (usage !== 'header' && usage !== 'api') throw new ConfigError('STOREFRONT_USAGE must be header or api');
  const usageUrl =
    httpUrl('STOREFRONT_USAGE_URL', raw.storefrontUsageUrl) ?? (allowanceUrl ? new URL('/usage', allowanceUrl).toString() : undefined);
  const legacy = raw.storefrontLegacySecret === undefined ? undefined : String(raw.storefrontLegacySecret);
  if (legacy !== undefined && legacy.length < 16) throw new ConfigError('STOREFRONT_LEGACY_SECRET must be at least 16 characters');
  const settings: StorefrontSettings = {
    signingSecrets: secrets,
    usage,
    serviceSlug: String(raw.storefrontServiceSlug ?? 'websearch'),
    allowanceTimeoutMs: int('STOREFRONT_ALLOWANCE_TIMEOUT_MS', raw.storefrontAllowanceTimeoutMs ?? 2000, 100, 60_000),
  };
  if (allowanceUrl) settings.allowanceUrl = allowanceUrl;
  if (usageUrl) settings.usageUrl = usageUrl;
  if (raw.storefrontApiKey !== undefined) settings.apiKey = String(raw.storefrontApiKey);
  if (legacy !== undefined) settings.legacySecret = legacy;
  return settings;
}

export function loadSettings(options: { env?: NodeJS.ProcessEnv; flags?: RawSettings } = {}): Settings {
  const env = options.env ?? {};
  const unknown = unknownEnv(env);
  if (unknown.length > 0) throw new ConfigError(`Unknown configuration variable(s): ${unknown.join(', ')}`);

  const fromEnv: RawSettings = {};
  for (const [envName, key] of Object.entries(ENV_NAMES)) {
    const v = env[envName];
    if (v !== undefined && v !== '') fromEnv[key] = v;
  }
  const flags = options.flags ?? {};
  const configFile = flags.configFile ?? fromEnv.configFile;
  let fromFile: RawSettings = {};
  if (configFile !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(String(configFile), 'utf8'));
    } catch (e) {
      throw new ConfigError(`Cannot read config file ${configFile}: ${(e as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new ConfigError(`Config file ${configFile} must hold a JSON object`);
    }
    for (const k of Object.keys(parsed)) {
      if (!KNOWN.has(k) || k === 'configFile') throw new ConfigError(`Unknown setting in ${configFile}: ${k}`);
    }
    fromFile = parsed as RawSettings;
  }
  const raw: RawSettings = { ...fromFile, ...fromEnv, ...flags };

  const dataDir = resolve(String(raw.dataDir ?? './data'));
  let sqlitePath = join(dataDir, 'websearch.db');
  let postgresUrl: string | undefined;
  if (raw.databaseUrl !== undefined) {
    const url = String(raw.databaseUrl);
    if (url.startsWith('sqlite:')) sqlitePath = resolve(url.slice('sqlite:'.length).replace(/^\/\//, ''));
    else if (/^postgres(ql)?:\/\/./.test(url)) postgresUrl = withHost('DATABASE_URL', url);
    else throw new ConfigError('DATABASE_URL must be sqlite:<path> or postgres://[user[:password]@]host[:port]/database');
  }
  let redisUrl: string | undefined;
  if (raw.redisUrl !== undefined) {
    const url = String(raw.redisUrl);
    if (!/^rediss?:\/\/./.test(url)) throw new ConfigError('REDIS_URL must be redis://[user:password@]host[:port][/db] (or rediss:// for TLS)');
    redisUrl = withHost('REDIS_URL', url);
  }

  const workers = int('WEBSEARCH_WORKERS', raw.workers ?? 1, 1, 64);
  // Checked, and kept as written: the client commands name it back to the user.
  httpUrl('WEBSEARCH_URL (--server)', raw.serverUrl);
  return {
    host: String(raw.host ?? '127.0.0.1'),
    port: int('PORT', raw.port ?? 8080, 0, 65535),
    dataDir,
    sqlitePath,
    ...(postgresUrl ? { postgresUrl } : {}),
    ...(redisUrl ? { redisUrl } : {}),
    allowPrivateNetwork: bool('WEBSEARCH_ALLOW_PRIVATE_NETWORK', raw.allowPrivateNetwork ?? false),
    userAgent: String(raw.userAgent ?? DEFAULT_USER_AGENT),
    liveFetchIndexes: bool('WEBSEARCH_LIVE_FETCH_INDEXES', raw.liveFetchIndexes ?? false),
    fetchTimeoutMs: int('WEBSEARCH_FETCH_TIMEOUT_MS', raw.fetchTimeoutMs ?? 15_000, 100, 120_000),
    realtimeDeadlineMs: int('WEBSEARCH_REALTIME_DEADLINE_MS', raw.realtimeDeadlineMs ?? 10_000, 100, 120_000),
    trustProxy: trustProxy(raw.trustProxy ?? false),
    logLevel: String(raw.logLevel ?? 'info'),
    keyedRatePerSecond: int('WEBSEARCH_KEYED_RATE_LIMIT', raw.keyedRatePerSecond ?? 50, 1, 1_000_000),
    keylessPerSecond: int('WEBSEARCH_KEYLESS_RATE_PER_SECOND', raw.keylessPerSecond ?? 10, 1, 1_000_000),
    keylessPerHour: int('WEBSEARCH_KEYLESS_RATE_PER_HOUR', raw.keylessPerHour ?? 1000, 1, 1_000_000_000),
    shutdownGraceSeconds: int('WEBSEARCH_SHUTDOWN_GRACE_SECONDS', raw.shutdownGraceSeconds ?? 10, 0, 3600),
    warmUpMs: int('WEBSEARCH_WARM_UP_MS', raw.warmUpMs ?? 5000, 0, 600_000),
    workers,
    ...(raw.sharePruneDays !== undefined ? { sharePruneDays: int('WEBSEARCH_SHARE_PRUNE_DAYS', raw.sharePruneDays, 1, 3650) } : {}),
    searchThreads: int('WEBSEARCH_SEARCH_THREADS', raw.searchThreads ?? (workers > 1 ? 1 : 2), 1, 2) as 1 | 2,
    readerThreads: int('WEBSEARCH_READER_THREADS', raw.readerThreads ?? 1, 0, 16),
    readerTimeoutMs: int('WEBSEARCH_READER_TIMEOUT_MS', raw.readerTimeoutMs ?? 10_000, 100, 120_000),
    readerHeapMb: int('WEBSEARCH_READER_HEAP_MB', raw.readerHeapMb ?? 1024, 64, 16384),
    minFreeDiskMb: int('WEBSEARCH_MIN_FREE_DISK_MB', raw.minFreeDiskMb ?? 256, 0, 16_777_216),
    usageRetentionDays: int('WEBSEARCH_USAGE_RETENTION_DAYS', raw.usageRetentionDays ?? 90, 0, 36_500),
    serverUrl: String(raw.serverUrl ?? 'http://127.0.0.1:8080'),
    ...(raw.apiKey !== undefined ? { apiKey: String(raw.apiKey) } : {}),
    storefront: storefrontSettings(raw),
    x402: x402Settings(raw),
    ...llmSettings(raw),
  };
}

/** A server URL as given, once it parses with a host; the message never repeats it (it may hold a password). */
function withHost(name: string, url: string): string {
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // reported below
  }
  if (!host) throw new ConfigError(`${name} is not a URL with a host`);
  return url;
}

export function readEnv(): NodeJS.ProcessEnv {
  return process.env;
}
