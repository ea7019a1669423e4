/**
 * npm run bench:ledger [-- --rows 100000 --requests 500 --rounds 4]
 *
 * What a keyed request's credit costs in the ledger, by where reservations live: stored in the
 * database (`serve --workers N`: the reservation and the commit, two write transactions) or held in
 * the process (one server process, the default: a read of the balance, then one write, the charge).
 * On a new database (in the system's temporary folder) whose ledger already holds `--rows` settled
 * reservations and entries, as one that has served a while. Each call is timed twice over: right
 * after touching 64 MB (as the request's calls run after the engine has walked its postings), and
 * warm (back to back); the two ways alternate by rounds, so both see the same moments. p50 in us.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { SqliteAccountStore } from '../src/adapters/sqlite/accounts.js';
import { openDatabase } from '../src/adapters/sqlite/database.js';
import { SqliteLedger } from '../src/adapters/sqlite/ledger.js';
import { tempDir } from '../test/helpers.js';
import { median } from './scifact.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '4' },
  },
});
const rows = Number(values.rows);
const requests = Number(values.requests);
const rounds = Number(values.rounds);
for (const [name, n] of [['--rows', rows], ['--requests', requests], ['--rounds', rounds]] as const) {
  if (!Number.isSafeInteger(n) || n < (name === '--rows' ? 0 : 1)) throw new Error(`${name} takes a whole number, not ${n}`);
}

const dir = tempDir('websearch-bench-ledger-');
const db = openDatabase({ path: `${dir.path}/ledger.db` });
try {
  const accounts = new SqliteAccountStore(db);
  const ways = {
    database: new SqliteLedger(db, { reservations: 'database' }),
    memory: new SqliteLedger(db, { reservations: 'memory' }),
  };
  type Way = keyof typeof ways;
  const orgs = {} as Record<Way, string>;
  for (const way of Object.keys(ways) as Way[]) {
    orgs[way] = (await accounts.createOrg(`bench ${way}`)).id;
    await ways[way].credit(orgs[way], 4000 * (rows + 4 * rounds * requests + 10), 'bench');
  }
  // A ledger that has served `rows` requests before (as the database way leaves it).
  const before = await ways.database.reserve(orgs.database, 1, 'warm-up');
  if (before.ok) await ways.database.commit(before.id);
  db.transaction(() => {
    const reservation = db.prepare(
      "INSERT INTO reservations (id, org_id, amount, reference, state, created_at, settled_at) VALUES (?, ?, 4000, ?, 'committed', ?, ?)",
    );
    const entry = db.prepare("INSERT INTO ledger_entries (org_id, amount, kind, reference, created_at) VALUES (?, -4000, 'charge', ?, ?)");
    const now = Date.now();
    for (let i = 0; i < rows; i++) {
      const reference = `earlier-${i}`;
      reservation.run(`res_earlier${i}`, orgs.database, reference, now, now);
      entry.run(orgs.database, reference, now);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');

  const big = new Float64Array(8 * 1024 * 1024);
  let sink = 0;
  const touch = () => {
    for (let i = 0; i < big.length; i += 8) sink += big[i]!;
  };
  const times = { cold: { database: [] as number[][], memory: [] as number[][] }, warm: { database: [] as number[][], memory: [] as number[][] } };
  let reference = 0;
  for (let round = 0; round <= rounds; round++) {
    for (const state of ['cold', 'warm'] as const) {
      for (const way of round % 2 === 0 ? (['database', 'memory'] as const) : (['memory', 'database'] as const)) {
        const ledger = ways[way];
        for (let i = 0; i < requests; i++) {
          if (state === 'cold') touch();
          const t0 = performance.now();
          const r = await ledger.reserve(orgs[way], 4000, `req-${reference++}`);
          const t1 = performance.now();
          if (!r.ok) throw new Error('the bench ran out of credit');
          if (state === 'cold') touch();
          const t2 = performance.now();
          if (!(await ledger.commit(r.id))) throw new Error('a commit was refused');
          const t3 = performance.now();
          if (round > 0) times[state][way].push([t1 - t0, t3 - t2]);
        }
      }
    }
  }
  const us = (ms: number) => (ms * 1000).toFixed(1);
  console.log(`A keyed request's credit, p50 over ${rounds} rounds of ${requests} (after a first round untimed), a ledger of ${rows} earlier requests:`);
  console.log('| reservations | state | reserve us | commit us | both us |');
  console.log('|---|---|---|---|---|');
  for (const state of ['cold', 'warm'] as const) {
    for (const way of ['database', 'memory'] as const) {
      const t = times[state][way];
      console.log(
        `| ${way === 'database' ? 'stored (workers)' : 'held (one process)'} | ${state === 'cold' ? 'after touching 64 MB' : 'back to back'} | ${us(median(t.map((x) => x[0]!)))} | ${us(median(t.map((x) => x[1]!)))} | ${us(median(t.map((x) => x[0]! + x[1]!)))} |`,
      );
    }
  }
  if (sink !== 0) console.log(sink);
} finally {
  db.close();
  dir.remove();
}
