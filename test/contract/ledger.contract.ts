/** The credit ledger contract: run against every Ledger adapter. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AccountStore } from '../../src/ports/accounts.js';
import type { Ledger } from '../../src/ports/ledger.js';

export type LedgerFactory = () => Promise<{ ledger: Ledger; accounts: AccountStore; close(): Promise<void> }>;

export function ledgerContract(name: string, make: LedgerFactory): void {
  describe(`Ledger contract: ${name}`, () => {
    async function withLedger(fn: (l: Ledger, orgId: string) => Promise<void>) {
      const s = await make();
      try {
        const org = await s.accounts.createOrg('ledger test');
        await fn(s.ledger, org.id);
      } finally {
        await s.close();
      }
    }

    test('credit, reserve, commit', () =>
      withLedger(async (l, org) => {
        assert.equal(await l.credit(org, 10_000, 'top-up'), 10_000);
        const r = await l.reserve(org, 4000, 'req1');
        assert.ok(r.ok);
        assert.equal(await l.balance(org), 6000);
        await l.commit(r.id);
        await l.commit(r.id);
        assert.equal(await l.balance(org), 6000);
      }));

    test('release gives the reservation back, once; a committed one stays charged', () =>
      withLedger(async (l, org) => {
        await l.credit(org, 10_000, 'top-up');
        const r = await l.reserve(org, 4000, 'req1');
        assert.ok(r.ok);
        await l.release(r.id);
        await l.release(r.id);
        assert.equal(await l.balance(org), 10_000);
        const c = await l.reserve(org, 4000, 'req2');
        assert.ok(c.ok);
        await l.commit(c.id);
        await l.release(c.id);
        assert.equal(await l.balance(org), 6000);
      }));

    test('a reservation the balance cannot cover is refused and changes nothing', () =>
      withLedger(async (l, org) => {
        await l.credit(org, 3999, 'top-up');
        const r = await l.reserve(org, 4000, 'req');
        assert.deepEqual(r, { ok: false, balance: 3999 });
        assert.equal(await l.balance(org), 3999);
      }));

    test('concurrent reservations never take the balance below zero', () =>
      withLedger(async (l, org) => {
        await l.credit(org, 5 * 4000, 'top-up');
        const results = await Promise.all(Array.from({ length: 25 }, (_, i) => l.reserve(org, 4000, `r${i}`)));
        assert.equal(results.filter((r) => r.ok).length, 5);
        assert.equal(await l.balance(org), 0);
      }));

    test('stale pending reservations are released', () =>
      withLedger(async (l, org) => {
        await l.credit(org, 8000, 'top-up');
        const a = await l.reserve(org, 4000, 'a');
        const b = await l.reserve(org, 4000, 'b');
        assert.ok(a.ok && b.ok);
        await l.commit(a.id);
        assert.equal(await l.releaseStale(Date.now() + 1000), 1);
        assert.equal(await l.balance(org), 4000);
      }));

    test('bad amounts and unknown organizations are refused', () =>
      withLedger(async (l, org) => {
        await assert.rejects(l.credit(org, 0, 'x'));
        await assert.rejects(l.credit(org, 1.5, 'x'));
        await assert.rejects(l.credit('org_missing', 100, 'x'));
        await assert.rejects(l.reserve(org, -1, 'x'));
        assert.equal(await l.balance('org_missing'), undefined);
      }));
  });
}
