/**
 * npm run bench:captures [-- --pages 20000 --runs 2]
 *
 * What storing a capture costs in the page store (adapters/sqlite/page-store.ts putOne), per
 * capture, in batches of 100 as an import stores them, on a new database file: PAGES new pages;
 * each captured again a day later, unchanged (a row in `captures`); changed two days later; and
 * changed at half a day, between the first two captures, so that each splits its page's first run
 * (the unchanged capture goes on as a copy of that version).
 */
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import type { NewVersion } from '../src/ports/page-store.js';
import { tempDir } from '../test/helpers.js';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '20000' }, runs: { type: 'string', default: '2' } } });
const count = Number(values.pages);
const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const capture = (i: number, at: number, change = ''): NewVersion => ({
  url: `https://h${i % 100}.test/p${i}`,
  title: `Page ${i}`,
  content: `page ${i} ${change} `.repeat(20),
  acquiredAt: at,
  searchable: true,
});
const shapes: [string, (i: number) => NewVersion][] = [
  ['new pages', (i) => capture(i, T0)],
  ['unchanged, a day later', (i) => capture(i, T0 + DAY)],
  ['changed, two days later', (i) => capture(i, T0 + 2 * DAY, 'x')],
  ['changed, between the first two (a split)', (i) => capture(i, T0 + DAY / 2, 'y')],
];
for (let run = 1; run <= Number(values.runs); run++) {
  const dir = tempDir();
  const db = openDatabase({ path: `${dir.path}/pages.db` });
  const pages = new SqlitePageStore(db);
  const figures: string[] = [];
  for (const [name, make] of shapes) {
    const started = performance.now();
    for (let i = 0; i < count; i += 100) await pages.putVersions(Array.from({ length: Math.min(100, count - i) }, (_, k) => make(i + k)));
    figures.push(`${name} ${(((performance.now() - started) / count) * 1000).toFixed(1)} us`);
  }
  const { versions } = await pages.stats();
  if (versions !== 4 * count) throw new Error(`${versions} versions stored, not ${4 * count}`);
  console.log(`Run ${run}, ${count} pages, per capture: ${figures.join('; ')}`);
  db.close();
  dir.remove();
}
