/**
 * npm run bench:request-path [-- --size 1000000 --queries 300]
 *
 * Small costs on a search request's path after the engine, each against its alternative in one
 * process, the two alternating so both see the same moments of this machine (bench:http's figure
 * moves by tenths of a millisecond from run to run, more than any of these):
 * - `toIso` against `Date.prototype.toISOString`, per call;
 * - a search's ten versions read as row arrays (`getVersions`) against the same query returning
 *   objects, each set of ids read once, then again right after a 5 ms busy loop (as after the
 *   engine), on the cached 1M database; and ten rows read again and again, each time after
 *   computing for 0 to 8 ms: how the time since they were last read prices a read; and ten
 *   versions read with the join to `pages` against from `versions` alone, after computing for 4.5 ms;
 * - 200,000 pages stored with descriptions (their shared ones marked as they come) against without,
 *   and a search's ten of them read by getVersions (the mark read with the row) against without it;
 * - a page's text read as TEXT against as a BLOB decoded by `Buffer#toString`;
 * - a snippet's term weights: the engine's idf of each claim's stems, per query;
 * - the access line: the default server (logging at info, secret headers redacted) against one
 *   logging at warn (no access line) and one logging at info without redaction, requests
 *   alternating between the three query by query; the paired median (latency less the request's
 *   own engine time), as bench:http reports it.
 * Uses the corpus and segments bench:search cached in bench/.cache.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../src/adapters/sqlite/page-store.js';
import { SCAN_LIMIT } from '../src/core/passages.js';
import { cachedStem, queryReadings, termWord } from '../src/core/text.js';
import { toIso } from '../src/core/time.js';
import { buildApp } from '../src/http/app.js';
import { openServedIndex } from './http-figure.js';
import { benchQuerySets, cachedCorpus, computeFor, median, rng } from './scifact.js';
import { tempDir } from '../test/helpers.js';
import { WireClient } from './wire-client.js';

const { values } = parseArgs({ options: { size: { type: 'string', default: '1000000' }, queries: { type: 'string', default: '300' } } });
const path = cachedCorpus(values.size);
const us = (ms: number) => `${(ms * 1000).toFixed(ms < 0.01 ? 2 : 1)} us`;

// Dates: 20,000 instants of the last years, each way in turn, five passes (the first warms up).
{
  const random = rng(5);
  const instants = Array.from({ length: 20_000 }, () => Math.floor(1.2e12 + random() * 6e11));
  const per: Record<'toIso' | 'toISOString', number[]> = { toIso: [], toISOString: [] };
  let chars = 0;
  for (let pass = 0; pass < 5; pass++) {
    let t = performance.now();
    for (const ms of instants) chars += toIso(ms).length;
    const a = performance.now() - t;
    t = performance.now();
    for (const ms of instants) chars += new Date(ms).toISOString().length;
    const b = performance.now() - t;
    if (pass === 0) continue;
    per.toIso.push(a / instants.length);
    per.toISOString.push(b / instants.length);
  }
  if (chars !== 10 * 24 * instants.length) throw new Error('a date of another length');
  console.log(`Dates, per call (median of four passes): toIso ${us(median(per.toIso))}, Date.prototype.toISOString ${us(median(per.toISOString))}`);
}

// Ten random versions of the database, read both ways: once, and again after a 5 ms busy loop.
{
  const db = new Database(path, { readonly: true });
  db.pragma(`mmap_size = ${2 ** 31}`); // as adapters/sqlite/database.ts opens it
  const count = (db.prepare('SELECT max(id) AS n FROM versions').get() as { n: number }).n;
  // SqlitePageStore's `byIds` columns, but the content read whole and no description mark (these pages have no description; the mark is measured below).
  const sql = `SELECT v.id, p.url, v.acquired_at, v.published_at, v.title, v.description, v.content, v.passages
    FROM versions v JOIN pages p ON p.id = v.page_id WHERE v.id IN (${Array(10).fill('?').join(', ')})`;
  const ways = { arrays: db.prepare(sql).raw(), objects: db.prepare(sql) };
  const random = rng(9);
  const sets = Array.from({ length: 1_500 }, () => Array.from({ length: 10 }, () => 1 + Math.floor(random() * count)));
  const lat = { arrays: [] as number[], objects: [] as number[], 'arrays after 5 ms': [] as number[], 'objects after 5 ms': [] as number[] };
  for (const [k, ids] of sets.entries()) {
    for (const way of k % 2 ? (['arrays', 'objects'] as const) : (['objects', 'arrays'] as const)) {
      let t = performance.now();
      if (ways[way].all(...ids).length === 0) throw new Error('no rows');
      lat[way].push(performance.now() - t);
      computeFor(5);
      t = performance.now();
      ways[way].all(...ids);
      lat[`${way} after 5 ms`].push(performance.now() - t);
    }
  }
  console.log(
    `Ten random versions of ${count.toLocaleString('en-US')}, p50 of ${sets.length} sets: ` +
      Object.entries(lat)
        .map(([k, a]) => `${k} ${us(median(a))}`)
        .join(', '),
  );

  // The same ten rows read again and again, each time after computing for one of PAUSES (in a
  // shuffled order): what the time since the rows were last read costs, with nothing else running.
  const PAUSES = [0, 0.5, 1, 2, 4, 8];
  const again = PAUSES.map(() => [] as number[]);
  const order = PAUSES.map((_, i) => i);
  for (const ids of sets.slice(0, 500)) {
    ways.arrays.all(...ids);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const k of order) {
      computeFor(PAUSES[k]!);
      const t = performance.now();
      ways.arrays.all(...ids);
      again[k]!.push(performance.now() - t);
    }
  }
  console.log(
    `The same ten rows read again after computing for a while (p50 of 500 sets): ` +
      PAUSES.map((ms, k) => `${ms} ms ${us(median(again[k]!))}`).join(', '),
  );

  // The join to pages for the URL: the same ten versions read with it and from versions alone (the
  // page's id in the URL's place), each after computing for 4.5 ms, the two alternating.
  const unjoined = db
    .prepare(
      `SELECT v.id, v.page_id, v.acquired_at, v.published_at, v.title, v.description, v.content, v.passages
       FROM versions v WHERE v.id IN (${Array(10).fill('?').join(', ')})`,
    )
    .raw();
  const join = { 'with the join': [] as number[], 'versions alone': [] as number[] };
  for (const [k, ids] of sets.entries()) {
    for (const way of k % 2 ? (['with the join', 'versions alone'] as const) : (['versions alone', 'with the join'] as const)) {
      computeFor(4.5);
      const t = performance.now();
      (way === 'with the join' ? ways.arrays : unjoined).all(...ids);
      join[way].push(performance.now() - t);
    }
  }
  db.close();
  console.log(
    `Ten random versions after computing for 4.5 ms, p50 of ${sets.length} sets: ` +
      Object.entries(join)
        .map(([k, a]) => `${k} ${us(median(a))}`)
        .join(', '),
  );
}

// Descriptions a host's other pages share (a site's one for all its pages), marked as pages are
// stored: 200,000 pages of 2,000 hosts stored with their descriptions (half the hosts give all
// their pages one, half give each its own) against the same pages without, host by host in turn
// into two databases; then a search's ten versions read by getVersions' statement, which reads the
// mark with the row, against the same without the mark, after computing for 4.5 ms, alternating.
{
  const dir = tempDir();
  try {
    const HOSTS = 2_000;
    const PER_HOST = 100;
    const words = 'tide harbour gull kelp reef shoal current estuary dune heron'.split(' ');
    const stores = { described: openDatabase({ path: join(dir.path, 'described.db') }), undescribed: openDatabase({ path: join(dir.path, 'undescribed.db') }) };
    const pages = { described: new SqlitePageStore(stores.described), undescribed: new SqlitePageStore(stores.undescribed) };
    const writes = { described: 0, undescribed: 0 };
    for (let h = 0; h < HOSTS; h++) {
      const batch = Array.from({ length: PER_HOST }, (_, i) => ({
        url: `https://h${h}.test/p${i}`,
        title: `Page ${i} of host ${h}`,
        description: h % 2 ? `News and views from host ${h}.` : `About ${words[i % 10]} ${i} on host ${h}.`,
        content: `The ${words[(h + i) % 10]} of page ${i}, host ${h}: ${'a sentence of the page. '.repeat(30)}`,
        acquiredAt: Date.parse('2026-01-01T00:00:00Z'),
        searchable: true,
      }));
      for (const way of h % 2 ? (['described', 'undescribed'] as const) : (['undescribed', 'described'] as const)) {
        const t = performance.now();
        await pages[way].putVersions(way === 'described' ? batch : batch.map(({ description: _, ...rest }) => rest));
        writes[way] += performance.now() - t;
      }
    }
    stores.undescribed.close();
    const count = HOSTS * PER_HOST;
    console.log(
      `${count.toLocaleString('en-US')} pages stored, ${PER_HOST} a transaction, per page: with descriptions ${us(writes.described / count)}, without ${us(writes.undescribed / count)}`,
    );
    const db = stores.described;
    // getVersions' statement (`byIds`), with the mark and without it.
    const read = (mark: string) =>
      db
        .prepare(
          `SELECT v.id, p.url, v.acquired_at, v.published_at, v.title, v.description,
             CASE WHEN octet_length(v.content) > ${SCAN_LIMIT} THEN substr(v.content, 1, ${SCAN_LIMIT}) ELSE v.content END, v.passages${mark}
           FROM versions v JOIN pages p ON p.id = v.page_id WHERE v.id IN (${Array(10).fill('?').join(', ')})`,
        )
        .raw();
    const ways = { 'with the mark': read(', v.description_shared'), 'without the mark': read('') };
    const random = rng(11);
    const sets = Array.from({ length: 1_500 }, () => Array.from({ length: 10 }, () => 1 + Math.floor(random() * count)));
    const lat = { 'with the mark': [] as number[], 'without the mark': [] as number[] };
    let shared = 0;
    for (const [k, ids] of sets.entries()) {
      for (const way of k % 2 ? (['with the mark', 'without the mark'] as const) : (['without the mark', 'with the mark'] as const)) {
        computeFor(4.5);
        const t = performance.now();
        const rows = ways[way].all(...ids) as unknown[][];
        lat[way].push(performance.now() - t);
        if (way === 'with the mark') shared += rows.filter((r) => r[8] === 1).length;
      }
    }
    // The store reads them so: the marks it answers are the column's.
    const marked = (await pages.described.getVersions(sets[0]!)).filter((v) => v.sharedDescription).length;
    const column = (ways['with the mark'].all(...sets[0]!) as unknown[][]).filter((r) => r[8] === 1).length;
    db.close();
    if (shared < sets.length * 3 || marked !== column) throw new Error(`${shared} shared descriptions found; getVersions ${marked}, the column ${column}`);
    console.log(
      `Ten random versions of those described, after computing for 4.5 ms, p50 of ${sets.length} sets: ` +
        Object.entries(lat)
          .map(([k, a]) => `${k} ${us(median(a))}`)
          .join(', '),
    );
  } finally {
    dir.remove();
  }
}

// A page's text read as TEXT (better-sqlite3 decodes it) against as a BLOB decoded by Buffer#toString,
// for 850-character pages of ASCII and with one Latin-1 character, from an in-memory table.
{
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, c TEXT)');
  const line = 'We hypothesized that human cytomegalovirus (HCMV) utilizes its viral IL-10 homolog to attenuate DC functionality. ';
  const texts = { ASCII: line.repeat(8).slice(0, 850), 'one Latin-1 character': line.replace('that', 'thät').repeat(8).slice(0, 850) };
  const asText = db.prepare<[number], string>('SELECT c FROM t WHERE id = ?').pluck();
  const asBlob = db.prepare<[number], Buffer>('SELECT CAST(c AS BLOB) FROM t WHERE id = ?').pluck();
  const cells: string[] = [];
  for (const [id, [name, text]] of Object.entries(texts).entries()) {
    db.prepare('INSERT INTO t VALUES (?, ?)').run(id, text);
    if (asText.get(id) !== text || asBlob.get(id)!.toString('utf8') !== text) throw new Error('a page read back differs');
    const per = { text: [] as number[], blob: [] as number[] };
    for (let pass = 0; pass < 5; pass++) {
      let t = performance.now();
      for (let k = 0; k < 20_000; k++) asText.get(id);
      per.text.push((performance.now() - t) / 20_000);
      t = performance.now();
      for (let k = 0; k < 20_000; k++) asBlob.get(id)!.toString('utf8');
      per.blob.push((performance.now() - t) / 20_000);
    }
    cells.push(`${name}: as TEXT ${us(median(per.text.slice(1)))}, as a BLOB decoded ${us(median(per.blob.slice(1)))}`);
  }
  db.close();
  console.log(`An 850-character page read (median of four passes of 20,000 reads): ${cells.join('; ')}`);
}

// The access line: three servers on the same services, requests alternating query by query.
{
  const { services, engine } = await openServedIndex(path);
  // A snippet's term weights (ops/search.ts snippetWeights): the engine's idf of each claim's stems, per query.
  for (const [name, claims] of benchQuerySets(Number(values.queries))) {
    const stems = claims.map((q) => queryReadings(q).terms.map((t) => cachedStem(termWord(t))));
    const per: number[] = [];
    for (let pass = 0; pass < 5; pass++) {
      const t = performance.now();
      for (const s of stems) engine.idf(s);
      if (pass > 0) per.push((performance.now() - t) / stems.length);
    }
    console.log(`Snippet term weights (idf of a query's stems over ${engine.segmentCount} segment(s)), ${name} claims, per query (median of four passes): ${us(median(per))}`);
  }
  const devNull = openSync('/dev/null', 'w');
  const stream = { write: (line: string) => writeSync(devNull, line) };
  const apps = {
    default: await buildApp(services, { logStream: stream }),
    'at warn': await buildApp(services, { logger: { level: 'warn', stream } }),
    'no redaction': await buildApp(services, { logger: { level: 'info', stream } }),
  };
  const names = Object.keys(apps) as (keyof typeof apps)[];
  const clients = {} as Record<keyof typeof apps, WireClient>;
  for (const name of names) clients[name] = new WireClient(new URL(await apps[name].listen({ host: '127.0.0.1', port: 0 })));
  let engineMs = 0;
  const search = engine.search.bind(engine);
  engine.search = async (q) => {
    const t = performance.now();
    const hits = await search(q);
    engineMs = performance.now() - t;
    return hits;
  };
  try {
    for (const [set, qs] of benchQuerySets(Number(values.queries))) {
      const added = { default: [] as number[], 'at warn': [] as number[], 'no redaction': [] as number[] };
      for (let round = 0; round < 4; round++) {
        for (const [i, q] of qs.entries()) {
          for (let k = 0; k < names.length; k++) {
            const name = names[(i + round + k) % names.length]!;
            const t = performance.now();
            const res = await clients[name].post('/v1/search/public', JSON.stringify({ query: q.slice(0, 2000) }), { 'x-service-title': 'bench' });
            const ms = performance.now() - t;
            if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body}`);
            if (round > 0) added[name].push(ms - engineMs); // the first round warms up
          }
        }
      }
      console.log(
        `Access line, ${set} claims, paired median added over ${added.default.length} requests each: ` +
          names.map((name) => `${name} ${median(added[name]).toFixed(3)} ms`).join(', '),
      );
    }
  } finally {
    for (const name of names) {
      clients[name].close();
      await apps[name].close();
    }
    closeSync(devNull);
    await services.close();
  }
}
