import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { staleReservationMs } from '../../src/config/services.js';
import { ConfigError, loadSettings } from '../../src/config/settings.js';
import { tempDir } from '../helpers.js';

test('precedence: flags > environment > config file > defaults', () => {
  const dir = tempDir();
  try {
    const file = join(dir.path, 'config.json');
    writeFileSync(file, JSON.stringify({ port: 1111, host: '127.0.0.2', logLevel: 'warn' }));
    const s = loadSettings({ env: { WEBSEARCH_CONFIG: file, PORT: '2222' }, flags: { host: '127.0.0.3' } });
    assert.equal(s.host, '127.0.0.3');
    assert.equal(s.port, 2222);
    assert.equal(s.logLevel, 'warn');
    assert.equal(s.keylessPerHour, 1000);
    const defaults = loadSettings({ env: {} });
    assert.equal(defaults.port, 8080);
    assert.equal(defaults.host, '127.0.0.1');
    assert.match(defaults.sqlitePath, /data\/websearch\.db$/);
  } finally {
    dir.remove();
  }
});

test('unknown or invalid settings are errors, not silently ignored', () => {
  assert.throws(() => loadSettings({ env: { WEBSEARCH_PORTT: '1' } }), /Unknown configuration variable\(s\): WEBSEARCH_PORTT/);
  assert.throws(() => loadSettings({ env: { STOREFRONT_SECRET: 'x' } }), /STOREFRONT_SECRET/);
  assert.throws(() => loadSettings({ env: { PORT: '70000' } }), ConfigError);
  assert.throws(() => loadSettings({ env: { WEBSEARCH_ALLOW_PRIVATE_NETWORK: 'perhaps' } }), ConfigError);
  assert.throws(() => loadSettings({ env: { DATABASE_URL: 'mysql://x/y' } }), /DATABASE_URL must be sqlite:<path> or postgres:/);
  assert.throws(() => loadSettings({ env: { REDIS_URL: 'memcached://x' } }), /REDIS_URL must be redis:/);
  for (const url of ['notaurl', 'ftp://x', '127.0.0.1:8080']) {
    assert.throws(() => loadSettings({ env: { WEBSEARCH_URL: url } }), /WEBSEARCH_URL \(--server\) must be an http\(s\) URL/, url);
  }
  assert.equal(loadSettings({ env: { WEBSEARCH_URL: 'http://search.test:8080' } }).serverUrl, 'http://search.test:8080', 'kept as written');
  // The page log's daily prune: off unless asked, a whole number of days from 1 to 3650.
  assert.equal(loadSettings({ env: {} }).sharePruneDays, undefined);
  assert.equal(loadSettings({ env: { WEBSEARCH_SHARE_PRUNE_DAYS: '7' } }).sharePruneDays, 7);
  for (const days of ['0', '3651', '1.5', 'week']) {
    assert.throws(() => loadSettings({ env: { WEBSEARCH_SHARE_PRUNE_DAYS: days } }), /WEBSEARCH_SHARE_PRUNE_DAYS/, days);
  }
  const dir = tempDir();
  try {
    const file = join(dir.path, 'c.json');
    writeFileSync(file, JSON.stringify({ prot: 1 }));
    assert.throws(() => loadSettings({ env: { WEBSEARCH_CONFIG: file } }), /Unknown setting in .*: prot/);
  } finally {
    dir.remove();
  }
  assert.equal(loadSettings({ env: { DATABASE_URL: 'sqlite:/tmp/x.db' } }).sqlitePath, '/tmp/x.db');
});

test('DATABASE_URL postgres:// and REDIS_URL: kept as given; pages stay in the SQLite file; a bad URL is refused without repeating it', () => {
  const s = loadSettings({ env: { WEBSEARCH_DATA_DIR: '/tmp/d', DATABASE_URL: 'postgresql://u:secret@db.internal:5433/ws', REDIS_URL: 'rediss://:pw@cache:6380/2' } });
  assert.equal(s.postgresUrl, 'postgresql://u:secret@db.internal:5433/ws');
  assert.equal(s.redisUrl, 'rediss://:pw@cache:6380/2');
  assert.equal(s.sqlitePath, '/tmp/d/websearch.db');
  const plain = loadSettings({ env: {} });
  assert.equal(plain.postgresUrl, undefined);
  assert.equal(plain.redisUrl, undefined);
  assert.throws(
    () => loadSettings({ env: { DATABASE_URL: 'postgres://u:secret@' } }),
    (e: Error) => e instanceof ConfigError && /not a URL with a host/.test(e.message) && !e.message.includes('secret'),
  );
});

test('search threads: two with one worker, one with several (they use the cores already), 1 or 2 when set', () => {
  assert.equal(loadSettings({ env: {} }).searchThreads, 2);
  assert.equal(loadSettings({ env: { WEBSEARCH_WORKERS: '2' } }).searchThreads, 1);
  assert.equal(loadSettings({ env: { WEBSEARCH_SEARCH_THREADS: '1' } }).searchThreads, 1);
  assert.equal(loadSettings({ env: { WEBSEARCH_WORKERS: '2' }, flags: { searchThreads: '2' } }).searchThreads, 2);
  assert.throws(() => loadSettings({ env: { WEBSEARCH_SEARCH_THREADS: '3' } }), ConfigError);
  assert.throws(() => loadSettings({ env: { WEBSEARCH_SEARCH_THREADS: '0' } }), ConfigError);
});

test('warm-up: five seconds of searches by default, 0 for none, at most ten minutes', () => {
  assert.equal(loadSettings({ env: {} }).warmUpMs, 5000);
  assert.equal(loadSettings({ env: { WEBSEARCH_WARM_UP_MS: '0' } }).warmUpMs, 0);
  assert.throws(() => loadSettings({ env: { WEBSEARCH_WARM_UP_MS: '-1' } }), ConfigError);
  assert.throws(() => loadSettings({ env: { WEBSEARCH_WARM_UP_MS: '600001' } }), ConfigError);
});

test('room kept on the disk: 256 MiB by default, 0 for none; usage kept 90 days by default, 0 for ever', () => {
  const d = loadSettings({ env: {} });
  assert.deepEqual([d.minFreeDiskMb, d.usageRetentionDays], [256, 90]);
  const s = loadSettings({ env: { WEBSEARCH_MIN_FREE_DISK_MB: '0', WEBSEARCH_USAGE_RETENTION_DAYS: '0' } });
  assert.deepEqual([s.minFreeDiskMb, s.usageRetentionDays], [0, 0]);
  assert.equal(loadSettings({ env: {}, flags: { minFreeDiskMb: '1024', usageRetentionDays: '365' } }).usageRetentionDays, 365);
  for (const bad of [{ WEBSEARCH_MIN_FREE_DISK_MB: '-1' }, { WEBSEARCH_MIN_FREE_DISK_MB: '1.5' }, { WEBSEARCH_USAGE_RETENTION_DAYS: '36501' }, { WEBSEARCH_USAGE_RETENTION_DAYS: 'forever' }]) {
    assert.throws(() => loadSettings({ env: bad }), ConfigError, JSON.stringify(bad));
  }
});

test('reader threads: one by default with 10 s and 1024 MiB a page; 0 reads pages on the serving thread', () => {
  const d = loadSettings({ env: {} });
  assert.deepEqual([d.readerThreads, d.readerTimeoutMs, d.readerHeapMb], [1, 10_000, 1024]);
  const s = loadSettings({ env: { WEBSEARCH_READER_THREADS: '0', WEBSEARCH_READER_TIMEOUT_MS: '2500', WEBSEARCH_READER_HEAP_MB: '256' } });
  assert.deepEqual([s.readerThreads, s.readerTimeoutMs, s.readerHeapMb], [0, 2500, 256]);
  assert.throws(() => loadSettings({ env: { WEBSEARCH_READER_THREADS: '17' } }), ConfigError);
  assert.throws(() => loadSettings({ env: { WEBSEARCH_READER_TIMEOUT_MS: '50' } }), ConfigError);
  assert.throws(() => loadSettings({ env: { WEBSEARCH_READER_HEAP_MB: '32' } }), ConfigError);
});

test('storefront settings', () => {
  const none = loadSettings({ env: {} }).storefront;
  assert.equal(none.signingSecrets.size, 0);
  assert.equal(none.usage, 'header');
  const s = loadSettings({
    env: {
      STOREFRONT_SIGNING_SECRETS: 'k1:0123456789abcdef, k2:fedcba9876543210xyz',
      STOREFRONT_ALLOWANCE_URL: 'https://sf.example/v1/allowance',
    },
  }).storefront;
  assert.deepEqual([...s.signingSecrets], [
    ['k1', '0123456789abcdef'],
    ['k2', 'fedcba9876543210xyz'],
  ]);
  assert.equal(s.usageUrl, 'https://sf.example/usage');
  assert.equal(s.allowanceTimeoutMs, 2000);
  assert.throws(() => loadSettings({ env: { STOREFRONT_SIGNING_SECRETS: 'k1:0123456789abcdef' } }), /STOREFRONT_ALLOWANCE_URL/);
  assert.throws(() => loadSettings({ env: { STOREFRONT_SIGNING_SECRETS: 'k1:short', STOREFRONT_ALLOWANCE_URL: 'https://a.b/' } }), ConfigError);
  assert.throws(() => loadSettings({ env: { STOREFRONT_SIGNING_SECRETS: 'nocolon', STOREFRONT_ALLOWANCE_URL: 'https://a.b/' } }), ConfigError);
  assert.throws(() => loadSettings({ env: { STOREFRONT_ALLOWANCE_URL: 'ftp://a.b/' } }), ConfigError);
  assert.throws(() => loadSettings({ env: { STOREFRONT_USAGE: 'carrier-pigeon' } }), ConfigError);
});

test('a reservation is stale after twice the longest request the settings allow, never under 10 min', () => {
  assert.equal(staleReservationMs(loadSettings({ env: {} })), 10 * 60_000);
  const slow = loadSettings({
    env: { WEBSEARCH_FETCH_TIMEOUT_MS: '120000', WEBSEARCH_READER_TIMEOUT_MS: '120000', WEBSEARCH_REALTIME_DEADLINE_MS: '60000', LLM_BASE_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'm', LLM_TIMEOUT_MS: '600000' },
  });
  // A prompt's page in up to four parts (LLM_MAX_PARTS), four calls at once, then the call that combines them.
  assert.equal(staleReservationMs(slow), 2 * (120_000 + 120_000 + 60_000 + 2 * 600_000));
  const llm = (env: Record<string, string>) => loadSettings({ env: { LLM_BASE_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'm', LLM_TIMEOUT_MS: '600000', ...env } });
  assert.equal(staleReservationMs(llm({ LLM_MAX_PARTS: '1' })), 2 * (15_000 + 10_000 + 10_000 + 600_000));
  assert.equal(staleReservationMs(llm({ LLM_MAX_PARTS: '8', LLM_PARALLEL_CALLS: '3' })), 2 * (15_000 + 10_000 + 10_000 + 4 * 600_000));
});

test('LLM_MAX_PARTS and LLM_PARALLEL_CALLS: 4 and 4 by default, each 1 to 64', () => {
  const llm = (env: Record<string, string>) => loadSettings({ env: { LLM_BASE_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'm', ...env } }).llm!;
  assert.deepEqual([llm({}).maxParts, llm({}).parallelCalls], [4, 4]);
  assert.deepEqual([llm({ LLM_MAX_PARTS: '64', LLM_PARALLEL_CALLS: '1' }).maxParts, llm({ LLM_PARALLEL_CALLS: '1' }).parallelCalls], [64, 1]);
  for (const bad of [{ LLM_MAX_PARTS: '0' }, { LLM_MAX_PARTS: '65' }, { LLM_PARALLEL_CALLS: '0' }, { LLM_PARALLEL_CALLS: 'many' }] as Record<string, string>[]) assert.throws(() => llm(bad), ConfigError, JSON.stringify(bad));
});
