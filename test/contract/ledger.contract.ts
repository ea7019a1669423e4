/** The credit ledger contract: run against every Ledger adapter. */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { picker, rng } from '../../bench/scifact.js';
import type { AccountStore } from '../../src/ports/accounts.js';
import type { Ledger } from '../../src/ports/ledger.js';

export type LedgerFactory = () => Promise<{
  ledger: Ledger;
  accounts: AccountStore;
  /** Another ledger on the same store, as another process (or this one after a restart) opens it. */
  another(): Ledger;
  close(): Promise<void>;
}>;

/** Where the adapter keeps reservations: seen by every process, or held by the one that made them. */
export type ReservationsSeen = 'by every process' | 'by their own process';

export function ledgerContract(name: string, seen: ReservationsSeen, make: LedgerFactory): void {
  describe(`Ledger contract: ${name}`, () => {
    async function withLedger(fn: (l: Ledger, orgId: string, another: () => Ledger) => Promise<void>) {
      const s = await make();
      try {
        const org = await s.accounts.createOrg('ledger test');
        await fn(s.ledger, org.id, () => s.another());
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
        assert.equal(await l.commit(r.id), true);
        assert.equal(await l.commit(r.id), true);
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

    test('a crash between reserve and settle charges nothing: after the start-up release the balance is whole', () =>
      withLedger(async (l, org, another) => {
        await l.credit(org, 8000, 'top-up');
        const a = await l.reserve(org, 4000, 'a');
        const b = await l.reserve(org, 4000, 'b');
        assert.ok(a.ok && b.ok);
        assert.equal(await l.commit(a.id), true);
        // The process dies with b pending; the next one releases what is left pending (after 10 min).
        const next = another();
        assert.equal(await next.releaseStale(Date.now() + 1000), seen === 'by every process' ? 1 : 0);
        assert.equal(await next.balance(org), 4000);
        assert.equal(await next.releaseStale(Date.now() + 1000), 0);
      }));

    test('the stale release gives back only what was pending before the cut, each organization its own sum', async () => {
      const s = await make();
      try {
        const one = (await s.accounts.createOrg('one')).id;
        const two = (await s.accounts.createOrg('two')).id;
        const l = s.ledger;
        await l.credit(one, 10_000, 'top-up');
        await l.credit(two, 10_000, 'top-up');
        const old = [await l.reserve(one, 1000, 'a'), await l.reserve(one, 2000, 'b'), await l.reserve(two, 3000, 'c')];
        const charged = await l.reserve(one, 500, 'charged');
        assert.ok(old.every((r) => r.ok) && charged.ok);
        await l.commit(charged.id);
        const cut = Date.now() + 1;
        await sleep(5);
        const recent = await l.reserve(two, 4000, 'recent');
        assert.ok(recent.ok);
        const next = s.another();
        if (seen === 'by their own process') {
          // Held reservations are nothing another process can see, or has to give back.
          assert.equal(await next.releaseStale(cut), 0);
          return;
        }
        assert.equal(await next.releaseStale(cut), 3);
        assert.equal(await next.balance(one), 10_000 - 500);
        assert.equal(await next.balance(two), 10_000 - 4000, 'the recent reservation is still held');
        // Settled by the release: the dying request's late commit charges nothing.
        assert.ok(old[0]!.ok);
        await l.commit(old[0]!.id);
        assert.equal(await l.balance(one), 10_000 - 500);
        await l.commit(recent.id);
        assert.equal(await l.balance(two), 10_000 - 4000);
        assert.equal(await next.releaseStale(Date.now() + 1), 0);
      } finally {
        await s.close();
      }
    });

    test('two processes on one balance: every charge is paid for, none twice, and the balance never goes below zero', () =>
      withLedger(async (l, org, another) => {
        await l.credit(org, 3 * 4000, 'top-up');
        const other = another();
        const mine = await Promise.all(Array.from({ length: 3 }, (_, i) => l.reserve(org, 4000, `mine${i}`)));
        const theirs = await Promise.all(Array.from({ length: 3 }, (_, i) => other.reserve(org, 4000, `theirs${i}`)));
        assert.ok(mine.every((r) => r.ok));
        if (seen === 'by every process') {
          // The other process sees the reservations: it is refused at once, before any work.
          assert.ok(theirs.every((r) => !r.ok));
        } else {
          // Each process sees its own: both reserve, and the commits that come second find the balance spent.
          assert.ok(theirs.every((r) => r.ok));
        }
        const commits: boolean[] = [];
        for (const [ledger, rs] of [
          [other, theirs],
          [l, mine],
        ] as const) {
          for (const r of rs) if (r.ok) commits.push(await ledger.commit(r.id));
        }
        assert.equal(commits.filter(Boolean).length, 3);
        if (seen === 'by their own process') assert.deepEqual(commits, [true, true, true, false, false, false]);
        assert.equal(await l.balance(org), 0);
        assert.equal(await other.balance(org), 0);
        // A refused commit leaves nothing held: new credit is all there.
        await l.credit(org, 4000, 'top-up');
        assert.equal(await l.balance(org), 4000);
        assert.equal(await other.balance(org), 4000);
      }));

    test('made-up runs of credits, reservations, commits and releases, some at once: each balance is credits less charges less what is held', async () => {
      const s = await make();
      try {
        const random = rng(3);
        const pick = picker(random);
        const orgs = await Promise.all(['one', 'two', 'three'].map(async (name) => (await s.accounts.createOrg(name)).id));
        const model = new Map(orgs.map((org) => [org, { credits: 0, charged: 0 }]));
        const reservations: { id: string; org: string; amount: number; state: 'held' | 'charged' | 'released' }[] = [];
        const other = s.another();
        const held = (org: string) => reservations.filter((r) => r.org === org && r.state === 'held').reduce((sum, r) => sum + r.amount, 0);
        for (let round = 0; round < 60; round++) {
          // A few operations at once, none on the same reservation (their order would matter).
          const chosen = new Set<string>();
          const ops = Array.from({ length: 1 + Math.floor(random() * 4) }, async () => {
            const r = random();
            const org = pick(orgs);
            if (r < 0.2) {
              const amount = 1 + Math.floor(random() * 5000);
              await s.ledger.credit(org, amount, 'top-up');
              model.get(org)!.credits += amount;
            } else if (r < 0.6) {
              const amount = 1 + Math.floor(random() * 3000);
              const got = await s.ledger.reserve(org, amount, `r${round}`);
              if (got.ok) reservations.push({ id: got.id, org, amount, state: 'held' });
              else assert.ok(got.balance < amount && got.balance >= 0, `refused ${amount} with ${got.balance} available`);
            } else if (reservations.length > 0) {
              const res = pick(reservations);
              if (chosen.has(res.id)) return;
              chosen.add(res.id);
              if (r < 0.85) {
                assert.equal(await s.ledger.commit(res.id), true, 'one process: a commit always finds its reservation covered');
                if (res.state === 'held') {
                  res.state = 'charged';
                  model.get(res.org)!.charged += res.amount;
                }
              } else {
                await s.ledger.release(res.id);
                if (res.state === 'held') res.state = 'released';
              }
            }
          });
          await Promise.all(ops);
          for (const org of orgs) {
            const { credits, charged } = model.get(org)!;
            assert.equal(await s.ledger.balance(org), credits - charged - held(org), `round ${round}`);
            // Another process sees the charges, and the reservations only where they are stored for all.
            assert.equal(await other.balance(org), credits - charged - (seen === 'by every process' ? held(org) : 0), `round ${round}, another process`);
          }
        }
        assert.ok(reservations.some((r) => r.state === 'charged') && reservations.some((r) => r.state === 'released') && reservations.some((r) => r.state === 'held'));
      } finally {
        await s.close();
      }
    });

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
