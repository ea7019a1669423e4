import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '../src/access/keyed/api-keys.js';
import type { Db } from '../src/adapters/sqlite/database.js';
import { createServices, type ServiceOptions, type Services } from '../src/config/services.js';
import { loadSettings, type RawSettings } from '../src/config/settings.js';
import type { Clock } from '../src/core/time.js';
import { type BuildAppOptions, buildApp } from '../src/http/app.js';
import type { NewVersion, PutOutcome } from '../src/ports/page-store.js';

export class TestClock implements Clock {
  constructor(public t: number = Date.parse('2026-11-22T14:23:45.000Z')) {}
  now(): number {
    return this.t;
  }
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export function tempDir(prefix = 'websearch-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface TestEnv {
  services: Services;
  clock: TestClock;
  app: Awaited<ReturnType<typeof buildApp>>;
  close(): Promise<void>;
}

export async function createTestEnv(
  flags: RawSettings = {},
  clock = new TestClock(),
  options: Omit<ServiceOptions, 'clock'> = {},
  appOptions: BuildAppOptions = { logger: false },
): Promise<TestEnv> {
  const dir = tempDir();
  const settings = loadSettings({ env: {}, flags: { dataDir: dir.path, ...flags } });
  const services = await createServices(settings, { ...options, clock });
  const app = await buildApp(services, appOptions);
  return {
    services,
    clock,
    app,
    async close() {
      await app.close();
      await services.close();
      dir.remove();
    },
  };
}

/** An organization with a key and `microUsd` of credit. */
export async function createFundedKey(services: Services, microUsd: number, rateLimit?: number, name = 'Test org') {
  const org = await services.accounts.createOrg(name, rateLimit);
  const { key, prefix, hash } = generateApiKey();
  await services.accounts.insertKey({ id: `key_${prefix}`, orgId: org.id, prefix, hash, createdAt: Date.now() });
  if (microUsd > 0) await services.ledger.credit(org.id, microUsd, 'test');
  return { org, key, keyId: `key_${prefix}` };
}

/** Resolves once `check` holds; fails after `ms` (a deadline far below the service's own in the test). */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !(await check()); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
  }
}

export function page(url: string, overrides: Partial<NewVersion> = {}): NewVersion {
  return {
    url,
    title: `Title of ${url}`,
    content: `Content of ${url}.`,
    acquiredAt: Date.parse('2026-01-01T00:00:00Z'),
    searchable: true,
    ...overrides,
  };
}

/**
 * Fills the disk of database `db` as SQLite sees it: its file is capped at the pages it has
 * (`max_page_count`, a limit of this connection), and `write`, one of a store's own writes, runs
 * until SQLite refuses it with SQLITE_FULL, its answer when the disk has no room. The table that
 * `write` appends to has no room left then; the others may still have some in their pages, as on a
 * disk. `roomAgain` lifts the cap.
 */
export async function fillDisk(db: Db, write: () => unknown): Promise<void> {
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  for (let n = 0; n < 1_000_000; n++) {
    try {
      await write();
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_FULL') return;
      throw e;
    }
  }
  throw new Error('the database never filled');
}

/** Room on the disk again after `fillDisk`. */
export function roomAgain(db: Db): void {
  db.pragma('max_page_count = 4294967294');
}

/** The id of the version a store stored or found (a test's page, never one removed). */
export function idOf(outcome: PutOutcome): number {
  if (outcome.status === 'removed') throw new Error('the page was removed: no version');
  return outcome.version.id;
}
