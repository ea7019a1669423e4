/**
 * npm run bench:page-log -- --postgres URL [--pages 20000 --chars 3000]
 *
 * Pages shared through PostgreSQL's page log (adapters/postgres/page-log.ts), against one machine's
 * SQLite file alone, in one run (URL from the flag or TEST_POSTGRES_URL; a schema of its own, dropped
 * after):
 * - storing `--pages` versions of ~`--chars` characters of markdown in batches of 200 (as imports
 *   store them): into the file alone, and into the log and the file (versions/s, and the ratio);
 * - a new machine catching up: one sync of the whole log into an empty file (versions/s);
 * - one version stored on one machine, then the other's sync: its time (ms, p50 over 50).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { connectPostgres, openPostgres } from '../src/adapters/postgres/database.js';
import { PgPageLog, ReplicatedPageStore } from '../src/adapters/postgres/page-log.js';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import type { NewVersion, PageStore } from '../src/ports/page-store.js';
import { tempDir } from '../test/helpers.js';

const { values } = parseArgs({
  options: {
    postgres: { type: 'string', default: process.env.TEST_POSTGRES_URL },
    pages: { type: 'string', default: '20000' },
    chars: { type: 'string', default: '3000' },
  },
});
if (!values.postgres) throw new Error('--postgres (or TEST_POSTGRES_URL) is needed');
const url = values.postgres;
const n = Number(values.pages);
const chars = Number(values.chars);

const WORDS = 'river ferry fjord puffin cliff harbour tide lantern granite meadow orchard glacier valley willow heron basalt'.split(' ');
function version(i: number, at: number): NewVersion {
  const words: string[] = [];
  for (let k = 0, len = 0; len < chars; k++) {
    const w = WORDS[(i * 7 + k * 13 + (k >> 3)) % WORDS.length]!;
    words.push(k % 12 === 11 ? `${w}.` : w);
    len += w.length + 1;
  }
  return { url: `https://bench.test/${i}`, title: `Page ${i}`, content: `${words.join(' ')} ${i}`, acquiredAt: at, searchable: true };
}

async function store(pages: PageStore, versions: NewVersion[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < versions.length; i += 200) await pages.putVersions(versions.slice(i, i + 200));
  return versions.length / ((performance.now() - started) / 1000);
}

const dir = tempDir();
const schema = `bench_${randomBytes(6).toString('hex')}`;
const admin = await openPostgres({ url, schema, maxConnections: 2 });
const versions = Array.from({ length: n }, (_, i) => version(i, Date.parse('2026-11-01T00:00:00Z')));
const rate = (r: number) => `${r.toFixed(0)} versions/s`;
try {
  const alone = await store(new SqlitePageStore(openDatabase({ path: join(dir.path, 'alone.db') })), versions);
  const machine = (name: string) =>
    new ReplicatedPageStore(
      new SqlitePageStore(openDatabase({ path: join(dir.path, `${name}.db`) })),
      new PgPageLog(connectPostgres({ url, schema, maxConnections: 3 })),
    );
  const a = machine('a');
  const shared = await store(a, versions);
  console.log(`${n} versions of ~${chars} characters, stored in batches of 200 (2 cores):`);
  console.log(`  SQLite file alone: ${rate(alone)}; page log and file: ${rate(shared)} (${(shared / alone).toFixed(2)}x)`);

  const b = machine('b');
  let started = performance.now();
  const applied = await b.sync();
  console.log(`  a new machine's sync of the whole log (${applied} versions): ${rate(applied / ((performance.now() - started) / 1000))}`);

  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    await a.putVersion(version(n + i, Date.parse('2026-11-02T00:00:00Z')));
    started = performance.now();
    if ((await b.sync()) !== 1) throw new Error('the sync did not apply the version');
    times.push(performance.now() - started);
  }
  times.sort((x, y) => x - y);
  console.log(`  one new version, the other machine's sync: p50 ${times[25]!.toFixed(2)} ms, max ${times.at(-1)!.toFixed(2)} ms (then up to the sync interval, 1 s, before it runs)`);
} finally {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
  dir.remove();
}
process.exit(0);
