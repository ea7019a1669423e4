/**
 * The accounting ports' contract (organizations and keys, storefront accounts, usage rows, the
 * storefront's usage outbox, x402 nonces and payment records): run against every adapter.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import type { AccountStore, StorefrontAccountStore } from '../../src/ports/accounts.js';
import type { NonceStore, PaymentLog, PaymentRecord } from '../../src/ports/payments.js';
import type { UsageOutbox } from '../../src/ports/storefront.js';
import type { UsageEntry, UsageStore } from '../../src/ports/usage-store.js';

export interface AccountingStores {
  accounts: AccountStore;
  storefrontAccounts: StorefrontAccountStore;
  usage: UsageStore;
  outbox: UsageOutbox;
  payments: PaymentLog;
  close(): Promise<void>;
}

export function accountingContract(name: string, make: () => Promise<AccountingStores>): void {
  describe(`Accounting contract: ${name}`, () => {
    async function withStores(fn: (s: AccountingStores) => Promise<void>) {
      const s = await make();
      try {
        await fn(s);
      } finally {
        await s.close();
      }
    }

    test('organizations: created, read back, rate limit set and cleared', () =>
      withStores(async ({ accounts }) => {
        const org = await accounts.createOrg('Acme', 7);
        assert.deepEqual(await accounts.getOrg(org.id), org);
        assert.equal(org.billing, 'credits');
        assert.equal(await accounts.setOrgRateLimit(org.id, 20), true);
        assert.equal((await accounts.getOrg(org.id))!.rateLimitPerSecond, 20);
        assert.equal(await accounts.setOrgRateLimit(org.id, undefined), true);
        assert.equal((await accounts.getOrg(org.id))!.rateLimitPerSecond, undefined);
        assert.equal(await accounts.setOrgRateLimit('org_missing', 5), false);
        assert.equal(await accounts.getOrg('org_missing'), undefined);
        const sf = await accounts.createOrg('billed elsewhere', undefined, 'storefront');
        assert.equal((await accounts.getOrg(sf.id))!.billing, 'storefront');
      }));

    test('organizations: listed newest first, each with its keys not revoked, as many as asked', () =>
      withStores(async ({ accounts }) => {
        assert.deepEqual(await accounts.listOrgs(20), []);
        const orgs = [];
        for (const name of ['first', 'second', 'third']) {
          orgs.push(await accounts.createOrg(name, name === 'second' ? 9 : undefined));
          await sleep(2); // distinct creation times, so the order is theirs
        }
        const sf = await accounts.createOrg('billed elsewhere', undefined, 'storefront');
        const [first, second] = orgs as [(typeof orgs)[0], (typeof orgs)[0]];
        const createdAt = Date.now();
        await accounts.insertKey({ id: 'key_a', orgId: second.id, prefix: 'ws_la', hash: 'ha', createdAt });
        await accounts.insertKey({ id: 'key_b', orgId: second.id, prefix: 'ws_lb', hash: 'hb', createdAt });
        await accounts.insertKey({ id: 'key_c', orgId: first.id, prefix: 'ws_lc', hash: 'hc', createdAt });
        await accounts.revokeKey('key_c', createdAt + 1);
        const listed = await accounts.listOrgs(20);
        assert.deepEqual(
          listed.map((l) => [l.org.name, l.activeKeys]),
          [['billed elsewhere', 0], ['third', 0], ['second', 2], ['first', 0]],
        );
        assert.deepEqual(listed[0]!.org, sf);
        assert.deepEqual(listed[2]!.org, second, 'the organization as getOrg reads it, its rate limit too');
        assert.deepEqual(
          (await accounts.listOrgs(2)).map((l) => l.org.id),
          [sf.id, orgs[2]!.id],
        );
      }));

    test('keys: found by prefix with their organization, listed, revoked once; a prefix is unique', () =>
      withStores(async ({ accounts }) => {
        const org = await accounts.createOrg('Acme');
        const createdAt = Date.now();
        await accounts.insertKey({ id: 'key_1', orgId: org.id, prefix: 'ws_aaaa', hash: 'h1', createdAt });
        await accounts.insertKey({ id: 'key_2', orgId: org.id, prefix: 'ws_bbbb', hash: 'h2', createdAt: createdAt + 1 });
        const found = await accounts.findKeyByPrefix('ws_aaaa');
        assert.deepEqual(found, { key: { id: 'key_1', orgId: org.id, prefix: 'ws_aaaa', hash: 'h1', createdAt }, org });
        assert.equal(await accounts.findKeyByPrefix('ws_none'), undefined);
        assert.deepEqual(
          (await accounts.listKeys(org.id)).map((k) => k.id),
          ['key_1', 'key_2'],
        );
        assert.equal(await accounts.revokeKey('key_1', createdAt + 5), true);
        assert.equal(await accounts.revokeKey('key_1', createdAt + 9), false);
        assert.equal((await accounts.findKeyByPrefix('ws_aaaa'))!.key.revokedAt, createdAt + 5);
        await assert.rejects(accounts.insertKey({ id: 'key_3', orgId: org.id, prefix: 'ws_aaaa', hash: 'h3', createdAt }));
        await assert.rejects(accounts.insertKey({ id: 'key_4', orgId: 'org_missing', prefix: 'ws_cccc', hash: 'h4', createdAt }));
      }));

    test('storefront accounts: one per user however many ask at once; activated and deactivated once each', () =>
      withStores(async ({ accounts, storefrontAccounts: sfa }) => {
        const all = await Promise.all(Array.from({ length: 8 }, () => sfa.getOrCreate('user-1')));
        assert.equal(new Set(all.map((a) => a.orgId)).size, 1);
        const a = all[0]!;
        assert.deepEqual(a, { userId: 'user-1', orgId: a.orgId, generation: 0, active: false });
        assert.equal((await accounts.getOrg(a.orgId))!.billing, 'storefront');
        const key = (g: number) => ({ id: `sfk_${g}`, prefix: `sf_${g}`, hash: `h${g}`, createdAt: Date.now() });
        assert.equal(await sfa.activate('user-1', 'pro', key(0)), true);
        assert.equal(await sfa.activate('user-1', 'pro', key(0)), false);
        assert.equal(await sfa.activate('user-unknown', 'pro', key(9)), false);
        assert.deepEqual(await sfa.getOrCreate('user-1'), { userId: 'user-1', orgId: a.orgId, plan: 'pro', generation: 0, active: true });
        assert.equal((await accounts.findKeyByPrefix('sf_0'))!.org.id, a.orgId);
        assert.equal(await sfa.deactivate('user-1', (g) => `sfk_${g}`, 1234), true);
        assert.equal(await sfa.deactivate('user-1', (g) => `sfk_${g}`, 5678), false);
        assert.equal((await accounts.findKeyByPrefix('sf_0'))!.key.revokedAt, 1234, 'the key of the generation that was active');
        const after = await sfa.getOrCreate('user-1');
        assert.equal(after.generation, 1);
        assert.equal(after.active, false);
        assert.equal(await sfa.activate('user-1', undefined, key(1)), true);
        assert.equal((await sfa.getOrCreate('user-1')).plan, undefined);
      }));

    test('usage: rows come back newest first (by the time of the request), by organization, with every field', async () =>
      withStores(async ({ usage }) => {
        const row = (i: number, orgId?: string): UsageEntry => ({
          at: 1_700_000_000_000 + i,
          requestId: `req-${i}`,
          tier: orgId ? 'keyed' : 'keyless',
          operation: i % 2 ? 'search' : 'fetch',
          status: 200,
          costMicroUsd: orgId ? 4000 : 0,
          latencyMs: 1.25,
          ...(orgId ? { orgId, keyId: 'key_1' } : { appTitle: 'app', clientIp: '127.0.0.1' }),
          ...(i === 3 ? { promptTokens: 120, completionTokens: 30 } : {}),
        });
        for (let i = 1; i <= 4; i++) await usage.record(row(i, i % 2 ? 'org_a' : undefined));
        assert.deepEqual(await usage.list({ limit: 10 }), [row(4), row(3, 'org_a'), row(2), row(1, 'org_a')]);
        assert.deepEqual(await usage.list({ orgId: 'org_a', limit: 1 }), [row(3, 'org_a')]);
        await usage.record(row(5));
        await usage.flush();
        assert.equal((await usage.list({ limit: 10 })).length, 5);
        // Rows written after newer ones (another machine's batch) are listed by the time of their request.
        await usage.record(row(8, 'org_a'));
        await usage.flush();
        await usage.record(row(7, 'org_a'));
        await usage.record(row(6));
        await usage.flush();
        assert.deepEqual(await usage.list({ limit: 3 }), [row(8, 'org_a'), row(7, 'org_a'), row(6)]);
        assert.deepEqual(await usage.list({ orgId: 'org_a', limit: 3 }), [row(8, 'org_a'), row(7, 'org_a'), row(3, 'org_a')]);
      }));

    test('usage: prune deletes the rows of requests made before a time, at most max at a time, the oldest first', async () =>
      withStores(async ({ usage }) => {
        const t = 1_750_000_000_000;
        const row = (i: number, at: number): UsageEntry => ({ at, requestId: `old-${i}`, tier: 'keyless', operation: 'search', status: 200, costMicroUsd: 0, latencyMs: 1 });
        // Written in about the order of their requests; the last out of it, as another machine's late batch is.
        for (let i = 0; i < 7; i++) await usage.record(row(i, t + i * 1000));
        await usage.record(row(7, t + 2500));
        await usage.flush();
        assert.equal(await usage.prune(t + 3000, 2), 2);
        assert.deepEqual((await usage.list({ limit: 10 })).map((r) => r.requestId).sort(), ['old-2', 'old-3', 'old-4', 'old-5', 'old-6', 'old-7']);
        assert.equal(await usage.prune(t + 3000, 10), 1);
        // The row written after newer ones waits for them: it goes with a later prune's rows.
        assert.deepEqual((await usage.list({ limit: 10 })).map((r) => r.requestId).sort(), ['old-3', 'old-4', 'old-5', 'old-6', 'old-7']);
        assert.equal(await usage.prune(t + 3000, 10), 0);
        assert.equal(await usage.prune(t + 10_000, 10), 5, 'no row newer than the time: every row goes');
        assert.deepEqual(await usage.list({ limit: 10 }), []);
      }));

    test('usage: a title holding control characters (a NUL, which PostgreSQL text cannot hold) is stored without them, and its batch with it', async () =>
      withStores(async ({ usage }) => {
        const row = (i: number, appTitle: string): UsageEntry => ({
          at: 1_800_000_000_000 + i, requestId: `ctl-${i}`, tier: 'keyless', operation: 'search', status: 200, costMicroUsd: 0, latencyMs: 1, appTitle, clientIp: '127.0.0.1',
        });
        await usage.record(row(1, 'plain app'));
        await usage.record(row(2, 'evil\u0000app\u001b[31m'));
        await usage.record(row(3, 'after'));
        await usage.flush();
        assert.deepEqual((await usage.list({ limit: 3 })).map((r) => r.appTitle), ['after', 'evilapp[31m', 'plain app']);
      }));

    test('outbox: added once per request, leased to one claimer, retried when failed, done when sent', () =>
      withStores(async ({ outbox }) => {
        const t = 1_700_000_000_000;
        const usageLine = [{ meterSlug: 'search', quantity: 1 }];
        await outbox.add({ requestId: 'r1', agentId: 'agent', usage: usageLine }, t);
        await outbox.add({ requestId: 'r1', agentId: 'agent', usage: [] }, t);
        await outbox.add({ requestId: 'r2', agentId: 'agent', usage: usageLine }, t + 1);
        assert.equal(await outbox.pending(), 2);
        const [first, second] = await Promise.all([outbox.claimDue(t + 10, 10, 1000), outbox.claimDue(t + 10, 10, 1000)]);
        const claimed = [...first!, ...second!];
        assert.deepEqual(claimed.map((c) => c.requestId).sort(), ['r1', 'r2'], 'each item leased once');
        assert.deepEqual(claimed.find((c) => c.requestId === 'r1'), { requestId: 'r1', agentId: 'agent', usage: usageLine, attempts: 1 });
        assert.deepEqual(await outbox.claimDue(t + 500, 10, 1000), [], 'leased');
        await outbox.markSent('r1', t + 20);
        await outbox.markFailed('r2', t + 5000, 'HTTP 503');
        assert.equal(await outbox.pending(), 1);
        assert.deepEqual(await outbox.claimDue(t + 4999, 10, 1000), []);
        const again = await outbox.claimDue(t + 5000, 10, 1000);
        assert.deepEqual(
          again.map((c) => [c.requestId, c.attempts]),
          [['r2', 2]],
        );
        assert.deepEqual(await outbox.claimDue(t + 6001, 10, 1000), [{ ...again[0]!, attempts: 3 }], 'a lease that ran out is claimed again');
      }));

    test('payments: recorded and listed newest first', () =>
      withStores(async ({ payments }) => {
        const p = (i: number, outcome: PaymentRecord['outcome']): PaymentRecord => ({
          at: 1_700_000_000_000 + i,
          requestId: `req-${i}`,
          operation: 'search',
          payer: '0xabc',
          nonce: `0x${i}`,
          amount: '4000',
          asset: '0xusdc',
          network: 'eip155:31337',
          payTo: '0xdef',
          outcome,
          ...(outcome === 'settled' ? { transaction: `0xtx${i}` } : { reason: 'insufficient_funds' }),
        });
        await payments.record(p(1, 'settled'));
        await payments.record(p(2, 'settlement_failed'));
        assert.deepEqual(await payments.list(10), [p(2, 'settlement_failed'), p(1, 'settled')]);
        assert.deepEqual(await payments.list(1), [p(2, 'settlement_failed')]);
      }));
  });
}

/** Claims run on the real clock: Redis expires keys by its own. */
export function nonceContract(name: string, make: () => Promise<{ nonces: NonceStore; close(): Promise<void> }>): void {
  describe(`NonceStore contract: ${name}`, () => {
    test('one claim at a time; released, it can be claimed again', async () => {
      const { nonces, close } = await make();
      try {
        const claims = await Promise.all(Array.from({ length: 10 }, () => nonces.claim('n1', Date.now(), 60_000)));
        assert.equal(claims.filter(Boolean).length, 1);
        assert.equal(await nonces.claim('n2', Date.now(), 60_000), true, 'another nonce is free');
        await nonces.release('n1');
        assert.equal(await nonces.claim('n1', Date.now(), 60_000), true);
      } finally {
        await close();
      }
    });

    test('a claim expires after its time, unless kept', async () => {
      const { nonces, close } = await make();
      try {
        assert.equal(await nonces.claim('short', Date.now(), 100), true);
        assert.equal(await nonces.claim('kept', Date.now(), 100), true);
        await nonces.keep('kept', Date.now() + 60_000);
        await sleep(250);
        assert.equal(await nonces.claim('short', Date.now(), 60_000), true, 'expired');
        assert.equal(await nonces.claim('kept', Date.now(), 60_000), false, 'kept');
        await nonces.keep('kept', Date.now() - 1000);
        assert.equal(await nonces.claim('kept', Date.now(), 60_000), false, 'keeping never shortens a claim');
      } finally {
        await close();
      }
    });
  });
}
