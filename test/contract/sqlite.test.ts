import { EngineIndexStore } from '../../src/adapters/engine/engine-index-store.js';
import { MemoryLimiterStore } from '../../src/adapters/memory/limiter-store.js';
import { SqliteAccountStore } from '../../src/adapters/sqlite/accounts.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteIndexStore } from '../../src/adapters/sqlite/index-store.js';
import { SqliteLimiterStore } from '../../src/adapters/sqlite/limiter-store.js';
import { SqliteLedger } from '../../src/adapters/sqlite/ledger.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { tempDir } from '../helpers.js';
import { ledgerContract } from './ledger.contract.js';
import { limiterContract } from './limiter.contract.js';
import { pageIndexContract } from './page-index.contract.js';

function sqlite() {
  const dir = tempDir();
  const db = openDatabase({ path: `${dir.path}/test.db` });
  return {
    db,
    async close() {
      db.close();
      dir.remove();
    },
  };
}

pageIndexContract('sqlite FTS5 (reference; serves webql)', async () => {
  const s = sqlite();
  return { pages: new SqlitePageStore(s.db), index: new SqliteIndexStore(s.db), close: s.close };
});

pageIndexContract('engine over sqlite', async () => {
  const s = sqlite();
  return { pages: new SqlitePageStore(s.db), index: await new EngineIndexStore(s.db).open(), close: s.close };
});

ledgerContract('sqlite', async () => {
  const s = sqlite();
  return { ledger: new SqliteLedger(s.db), accounts: new SqliteAccountStore(s.db), close: s.close };
});

limiterContract('memory', async () => new MemoryLimiterStore());

limiterContract('sqlite (shared by workers)', async () => {
  const s = sqlite();
  const store = new SqliteLimiterStore(s.db);
  return Object.assign(store, { close: s.close });
});
