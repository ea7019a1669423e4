/**
 * x402 end to end on a real local chain (anvil, chain id 8453) with our EIP-3009 token at Base's
 * USDC address, our running server, and the real x402 client paying it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { type Address, type Hex, parseEventLogs } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { createServices } from '../../src/config/services.js';
import { loadSettings, type RawSettings } from '../../src/config/settings.js';
import { buildApp } from '../../src/http/app.js';
import { startFacilitatorServer } from '../fixtures/chain/facilitator-server.js';
import { BASE_USDC, type LocalChain, startLocalChain, TOKEN_ABI } from '../fixtures/chain/local-chain.js';
import { picker, rng } from '../../bench/scifact.js';
import { fillDisk, page, TestClock, tempDir } from '../helpers.js';

const PRICE = 10_000n;

/** A server of the x402 tier; `ownDatabase`: its SQLite database opened here, for the test to fill (`fillDisk`). */
async function startServer(x402: RawSettings, clock?: TestClock, ownDatabase = false) {
  const dir = tempDir();
  const settings = loadSettings({ env: {}, flags: { dataDir: dir.path, ...x402 } });
  const database = ownDatabase ? openDatabase({ path: settings.sqlitePath }) : undefined;
  const services = await createServices(settings, { ...(clock ? { clock } : {}), ...(database ? { database } : {}) });
  await services.pages.putVersion(page('https://paid.test/doc', { title: 'Paid doc', content: 'Ownership keeps memory safe.' }));
  const app = await buildApp(services, { logger: false });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    app,
    services,
    database,
    async close() {
      await app.close();
      await services.close();
      dir.remove();
    },
  };
}

function payingFetch(key: Hex) {
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(key)));
  return { fetch: wrapFetchWithPayment(fetch, client), client };
}

const b64json = (v: string) => JSON.parse(Buffer.from(v, 'base64').toString('utf8'));

describe('x402 pay-per-request on a local chain', () => {
  let chain: LocalChain;
  let server: Awaited<ReturnType<typeof startServer>>;
  let payTo: Address;
  let facilitatorKey: Hex;

  before(async () => {
    chain = await startLocalChain();
    facilitatorKey = (await chain.gasKey()).key;
    payTo = privateKeyToAccount(generatePrivateKey()).address;
    server = await startServer({ x402PayTo: payTo, x402RpcUrl: chain.rpcUrl, x402FacilitatorKey: facilitatorKey });
  });
  after(async () => {
    await server?.close();
    await chain?.stop();
  });

  /** The one `accepts` entry the spec (2.5) says our offer has. */
  const offerEntry = () => ({
    scheme: 'exact',
    network: 'eip155:8453',
    amount: '10000',
    asset: BASE_USDC,
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: 'USD Coin', version: '2' },
  });

  const offerFor = async (path: string) => {
    const res = await fetch(`${server.url}${path}`);
    return { res, body: (await res.json()) as Record<string, unknown> };
  };

  test('the offer: 402 with exactly the spec object in the body and, base64, in PAYMENT-REQUIRED', async () => {
    const { res, body } = await offerFor('/v1/x402/search?query=memory');
    assert.equal(res.status, 402);
    const expected = {
      x402Version: 2,
      error: 'Payment required',
      resource: { url: `${server.url}/v1/x402/search?query=memory` },
      accepts: [offerEntry()],
    };
    assert.deepEqual(body, expected);
    assert.deepEqual(b64json(res.headers.get('payment-required')!), expected);
    assert.deepEqual(decodePaymentRequiredHeader(res.headers.get('payment-required')!), expected);
  });

  test('an API key is ignored; bad parameters get 400 and no offer; keyed-only modes 403', async () => {
    const withKey = await fetch(`${server.url}/v1/x402/fetch?url=https://paid.test/doc`, { headers: { 'x-api-key': 'wsk_x' } });
    assert.equal(withKey.status, 402);
    const bad = await fetch(`${server.url}/v1/x402/search?query=x&max_results=51`);
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get('payment-required'), null);
    assert.equal(((await bad.json()) as { param: string }).param, 'max_results');
    for (const mode of ['webql', 'realtime_content']) {
      const res = await fetch(`${server.url}/v1/x402/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'x', mode }),
      });
      assert.equal(res.status, 403);
      assert.equal(res.headers.get('payment-required'), null);
    }
  });

  test('paid GET search, POST search and fetch: balances move by exactly 10,000 each, receipts are mined transfers', async () => {
    const buyer = await chain.fundedBuyer(1_000_000n);
    const pay = payingFetch(buyer.key);
    const payeeBefore = await chain.balanceOf(payTo);
    const requests: [string, RequestInit | undefined][] = [
      ['/v1/x402/search?query=memory%20ownership', undefined],
      ['/v1/x402/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'ownership' }) }],
      [`/v1/x402/fetch?url=${encodeURIComponent('https://paid.test/doc')}`, undefined],
    ];
    for (const [path, init] of requests) {
      const res = await pay.fetch(`${server.url}${path}`, init);
      assert.equal(res.status, 200, path);
      const body = (await res.json()) as { results?: { url: string }[]; content?: string };
      if (body.results) assert.equal(body.results[0]!.url, 'https://paid.test/doc');
      else assert.equal(body.content, 'Ownership keeps memory safe.');
      const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
      assert.equal(receipt.success, true);
      assert.equal(receipt.network, 'eip155:8453');
      assert.equal(receipt.payer?.toLowerCase(), buyer.address.toLowerCase());
      const mined = await chain.publicClient.getTransactionReceipt({ hash: receipt.transaction as Hex });
      assert.equal(mined.status, 'success');
      const transfers = parseEventLogs({ abi: TOKEN_ABI, logs: mined.logs, eventName: 'Transfer' });
      assert.equal(transfers.length, 1);
      assert.equal(transfers[0]!.args.from.toLowerCase(), buyer.address.toLowerCase());
      assert.equal(transfers[0]!.args.to.toLowerCase(), payTo.toLowerCase());
      assert.equal(transfers[0]!.args.value, PRICE);
    }
    assert.equal(await chain.balanceOf(buyer.address), 1_000_000n - 3n * PRICE);
    assert.equal((await chain.balanceOf(payTo)) - payeeBefore, 3n * PRICE);
    const records = await server.services.payments.list(10);
    assert.equal(records.filter((r) => r.outcome === 'settled' && r.payer === buyer.address.toLowerCase()).length, 3);
  });

  /** A valid signed payment made by the real client for the offer at `path`. */
  async function signedFor(key: Hex, path: string) {
    const { res } = await offerFor(path);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    const payload = await payingFetch(key).client.createPaymentPayload(required);
    return encodePaymentSignatureHeader(payload);
  }

  test('the same signature sent twice at once runs the operation once and is charged once', async () => {
    const buyer = await chain.fundedBuyer(1_000_000n);
    const path = '/v1/x402/search?query=memory';
    const header = await signedFor(buyer.key, path);
    const before = await server.services.usage.list({ limit: 1000 });
    const [a, b] = await Promise.all([
      fetch(`${server.url}${path}`, { headers: { 'payment-signature': header } }),
      fetch(`${server.url}${path}`, { headers: { 'payment-signature': header } }),
    ]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [200, 402]);
    const refused = a.status === 402 ? a : b;
    assert.match(((await refused.json()) as { error: string }).error, /already used/);
    assert.equal(await chain.balanceOf(buyer.address), 1_000_000n - PRICE);
    const after = await server.services.usage.list({ limit: 1000 });
    const ran = after.slice(0, after.length - before.length).filter((u) => u.tier === 'x402' && u.status === 200);
    assert.equal(ran.length, 1);
    // And later: still refused (the chain has it too).
    const again = await fetch(`${server.url}${path}`, { headers: { 'payment-signature': header } });
    assert.equal(again.status, 402);
  });

  /** Signs an EIP-3009 authorization by hand, to build payments the real client would never make. */
  async function handmade(o: { signer: Hex; from?: Address; to?: Address; value?: bigint; validBefore?: bigint; accepted?: Record<string, unknown>; signature?: string }) {
    const account = privateKeyToAccount(o.signer);
    const now = BigInt(Math.floor(Date.now() / 1000));
    const authorization = {
      from: o.from ?? account.address,
      to: o.to ?? payTo,
      value: o.value ?? PRICE,
      validAfter: 0n,
      validBefore: o.validBefore ?? now + 300n,
      nonce: `0x${randomBytes(32).toString('hex')}` as Hex,
    };
    const signature = await account.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: BASE_USDC },
      types: {
        TransferWithAuthorization: [
          { name: 'from', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' },
          { name: 'validBefore', type: 'uint256' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'TransferWithAuthorization',
      message: authorization,
    });
    const accepted = { ...offerEntry(), ...o.accepted };
    const payload = {
      x402Version: 2,
      payload: {
        authorization: {
          ...authorization,
          value: String(authorization.value),
          validAfter: '0',
          validBefore: String(authorization.validBefore),
        },
        signature: o.signature ?? signature,
      },
      resource: { url: `${server.url}/v1/x402/search?query=memory` },
      accepted,
    };
    return Buffer.from(JSON.stringify(payload)).toString('base64');
  }

  test('refused payments: wrong amount, wrong payee, expired, over-long validity, foreign signer, garbage; nothing moves', async () => {
    const buyer = await chain.fundedBuyer(1_000_000n);
    const stranger = generatePrivateKey();
    const now = BigInt(Math.floor(Date.now() / 1000));
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const cases: [string, string, RegExp][] = [
      ['amount lowered in the offer', await handmade({ signer: buyer.key, value: 5000n, accepted: { amount: '5000' } }), /does not accept this offer/],
      ['amount lowered in the authorization', await handmade({ signer: buyer.key, value: 5000n }), /Payment rejected/],
      ['payee changed in the offer', await handmade({ signer: buyer.key, to: other, accepted: { payTo: other } }), /does not accept this offer/],
      ['payee changed in the authorization', await handmade({ signer: buyer.key, to: other }), /Payment rejected/],
      ['expired', await handmade({ signer: buyer.key, validBefore: now - 10n }), /expired/],
      ['valid for an hour', await handmade({ signer: buyer.key, validBefore: now + 3600n }), /at most 300 seconds/],
      ['signed by someone else', await handmade({ signer: stranger, from: buyer.address }), /Payment rejected/],
      ['not base64 JSON', '%%%', /not base64 JSON/],
      ['a signature that is no hex', await handmade({ signer: buyer.key, signature: 'not a signature' }), /Payment rejected/],
      ['a signature too short', await handmade({ signer: buyer.key, signature: '0x1234' }), /Payment rejected/],
      ['an empty signature', await handmade({ signer: buyer.key, signature: '' }), /Payment rejected/],
    ];
    for (const [name, header, reason] of cases) {
      const res = await fetch(`${server.url}/v1/x402/search?query=memory`, { headers: { 'payment-signature': header } });
      assert.equal(res.status, 402, name);
      const body = (await res.json()) as { error: string; accepts: unknown[] };
      assert.match(body.error, reason, name);
      assert.equal(body.accepts.length, 1, `${name}: a fresh offer comes back`);
    }
    assert.equal(await chain.balanceOf(buyer.address), 1_000_000n);
  });

  test('made-up payments: a signed payment with one field made up is refused with 402 and a fresh offer, never a 5xx; nothing moves', async () => {
    const buyer = await chain.fundedBuyer(1_000_000n);
    const random = rng(61);
    const pick = picker(random);
    const PATHS = [
      ['x402Version'],
      ['payload'],
      ['payload', 'signature'],
      ...['from', 'to', 'value', 'validAfter', 'validBefore', 'nonce'].map((k) => ['payload', 'authorization', k]),
      ['accepted'],
      ['accepted', 'amount'],
      ['accepted', 'network'],
      ['accepted', 'extra'],
    ];
    for (let n = 0; n < 60; n++) {
      const good = JSON.parse(Buffer.from(await handmade({ signer: buyer.key }), 'base64').toString()) as Record<string, unknown>;
      const path = pick(PATHS);
      let parent = good;
      for (const k of path.slice(0, -1)) parent = parent[k] as Record<string, unknown>;
      const last = path.at(-1)!;
      const was = parent[last];
      // The value it had, in another type or shape, or something else altogether.
      parent[last] = pick([[was], { value: was }, null, 0, 1e21, -1, '', 'x', true, `${String(was)} `, ` ${String(was)}`, `${String(was)}0`, 1]);
      const made = pick([() => Buffer.from(JSON.stringify(good)).toString('base64'), () => Buffer.from(JSON.stringify(pick([null, [], 5, 'x', [good]]))).toString('base64')])();
      const what = `${path.join('.')} = ${JSON.stringify(parent[last])}: ${Buffer.from(made, 'base64').toString().slice(0, 120)}`;
      const res = await fetch(`${server.url}/v1/x402/search?query=memory`, { headers: { 'payment-signature': made } });
      const body = (await res.json()) as { error: string; accepts?: unknown[] };
      assert.equal(res.status, 402, `${what}: ${JSON.stringify(body)}`);
      assert.match(body.error, /^(Invalid payment|Payment rejected)/, what);
      assert.equal(body.accepts?.length, 1, `${what}: a fresh offer comes back`);
    }
    assert.equal(await chain.balanceOf(buyer.address), 1_000_000n);
  });

  test('a buyer without funds is refused before anything runs', async () => {
    const broke = await chain.fundedBuyer(0n);
    const res = await payingFetch(broke.key).fetch(`${server.url}/v1/x402/search?query=memory`);
    assert.equal(res.status, 402);
    assert.match(((await res.json()) as { error: string }).error, /Payment rejected: .*insufficient/i);
  });

  test('a failed request is not settled: the payment can be used again', async () => {
    const buyer = await chain.fundedBuyer(1_000_000n);
    const path = `/v1/x402/fetch?url=${encodeURIComponent('https://paid.test/missing')}`;
    const header = await signedFor(buyer.key, path);
    const res = await fetch(`${server.url}${path}`, { headers: { 'payment-signature': header } });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('payment-response'), null);
    assert.equal(await chain.balanceOf(buyer.address), 1_000_000n);
    const records = await server.services.payments.list(5);
    assert.equal(records[0]!.outcome, 'not_settled');
  });

  test('two concurrent payments from a buyer who can afford one: one result, one 402 Payment settlement failed', async () => {
    const buyer = await chain.fundedBuyer(PRICE);
    const path = '/v1/x402/search?query=ownership';
    const [h1, h2] = [await signedFor(buyer.key, path), await signedFor(buyer.key, path)];
    const responses = await Promise.all([h1, h2].map((h) => fetch(`${server.url}${path}`, { headers: { 'payment-signature': h } })));
    const statuses = responses.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 402]);
    const failed = responses.find((r) => r.status === 402)!;
    const body = (await failed.json()) as { error: string; results?: unknown };
    assert.equal(body.error, 'Payment settlement failed');
    assert.equal(body.results, undefined, 'the result is withheld');
    const receipt = decodePaymentResponseHeader(failed.headers.get('payment-response')!);
    assert.equal(receipt.success, false);
    assert.ok(String(receipt.errorReason).length <= 64, 'a short reason, not the raw chain error');
    assert.equal(await chain.balanceOf(buyer.address), 0n);
    const records = await server.services.payments.list(5);
    assert.ok(records.some((r) => r.outcome === 'settlement_failed'));
  });

  test('regions: 451 before any offer, from the trusted header and from the geoip database', async () => {
    const inject = (remoteAddress: string, headers: Record<string, string> = {}) =>
      server.app.inject({ url: '/v1/x402/search?query=x', remoteAddress, headers });
    assert.equal((await inject('2.176.0.1')).statusCode, 451, 'Iran by the database');
    assert.equal((await inject('188.190.0.1')).statusCode, 451, 'Donetsk region by the database');
    assert.equal((await inject('8.8.8.8')).statusCode, 402);
    const res = await inject('2.176.0.1');
    assert.equal(res.headers['payment-required'], undefined);
    assert.equal(res.json().code, 'region_unavailable');

    const proxied = await startServer({
      x402PayTo: payTo,
      x402RpcUrl: chain.rpcUrl,
      x402FacilitatorKey: facilitatorKey,
      x402CountryHeader: 'CF-IPCountry',
      x402RegionHeader: 'X-Region',
    });
    try {
      const via = (h: Record<string, string>) => proxied.app.inject({ url: '/v1/x402/search?query=x', remoteAddress: '8.8.8.8', headers: h });
      assert.equal((await via({ 'cf-ipcountry': 'CU' })).statusCode, 451);
      assert.equal((await via({ 'cf-ipcountry': 'KP' })).statusCode, 451);
      assert.equal((await via({ 'cf-ipcountry': 'UA', 'x-region': 'UA-43' })).statusCode, 451, 'Crimea');
      assert.equal((await via({ 'cf-ipcountry': 'UA', 'x-region': '40' })).statusCode, 451, 'Sevastopol');
      assert.equal((await via({ 'cf-ipcountry': 'UA', 'x-region': '30' })).statusCode, 402, 'Kyiv');
      assert.equal((await via({ 'cf-ipcountry': 'DE' })).statusCode, 402);
    } finally {
      await proxied.close();
    }
  });

  test('the remote facilitator mode pays the same way', async () => {
    const remote = await startFacilitatorServer({ network: 'eip155:8453', rpcUrl: chain.rpcUrl, privateKey: (await chain.gasKey()).key });
    const s = await startServer({ x402PayTo: payTo, x402FacilitatorUrl: remote.url });
    try {
      const buyer = await chain.fundedBuyer(1_000_000n);
      const res = await payingFetch(buyer.key).fetch(`${s.url}/v1/x402/search?query=memory`);
      assert.equal(res.status, 200);
      assert.equal(decodePaymentResponseHeader(res.headers.get('payment-response')!).success, true);
      assert.deepEqual(remote.calls, ['POST /verify', 'POST /settle']);
      assert.equal(await chain.balanceOf(buyer.address), 1_000_000n - PRICE);
    } finally {
      await s.close();
      await remote.close();
    }
  });

  test('a settled payment whose record finds the disk full: the result is answered all the same, its transaction in the log', async () => {
    const s = await startServer({ x402PayTo: payTo, x402RpcUrl: chain.rpcUrl, x402FacilitatorKey: facilitatorKey }, undefined, true);
    const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
    s.services.logs.attach((_level, msg, fields) => logged.push({ msg, ...(fields ? { fields } : {}) }));
    try {
      // The payments' table filled with rows like a request's, so a settled payment's row finds no room.
      const filler = { at: Date.now(), requestId: 'filler', operation: 'search', payer: payTo, nonce: '0x00', amount: '1', asset: BASE_USDC, network: 'eip155:8453', payTo, outcome: 'not_settled' as const, reason: 'filler' };
      await fillDisk(s.database!, () => s.services.payments.record(filler));
      const buyer = await chain.fundedBuyer(1_000_000n);
      const payeeBefore = await chain.balanceOf(payTo);
      const res = await payingFetch(buyer.key).fetch(`${s.url}/v1/x402/search?query=memory`);
      assert.equal(res.status, 200, 'the chain has the money: the caller has the result');
      assert.equal(((await res.json()) as { results: { url: string }[] }).results[0]!.url, 'https://paid.test/doc');
      const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
      assert.equal(receipt.success, true);
      assert.equal(await chain.balanceOf(buyer.address), 1_000_000n - PRICE);
      assert.equal(await chain.balanceOf(payTo), payeeBefore + PRICE);
      assert.equal((await s.services.payments.list(1))[0]!.requestId, 'filler', 'the settled payment had no room for its row');
      const lost = logged.find((l) => l.msg === 'x402 payment not recorded');
      assert.equal(lost?.fields?.transaction, receipt.transaction);
    } finally {
      await s.close();
    }
  });

  test('a facilitator that cannot be reached: 503 payments_unavailable with Retry-After, nothing charged', async () => {
    const s = await startServer({ x402PayTo: payTo, x402FacilitatorUrl: 'http://127.0.0.1:9/', x402FacilitatorTimeoutMs: 2000 });
    try {
      const buyer = await chain.fundedBuyer(1_000_000n);
      const res = await payingFetch(buyer.key).fetch(`${s.url}/v1/x402/search?query=memory`);
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '5');
      assert.equal(((await res.json()) as { code: string }).code, 'payments_unavailable');
      assert.equal(await chain.balanceOf(buyer.address), 1_000_000n);
    } finally {
      await s.close();
    }
  });
});

describe('x402 per-wallet limit on a local chain', () => {
  test('50 paid requests per second per wallet; the 51st is 429 and nothing is charged for it', async () => {
    const chain = await startLocalChain();
    // A clock that stands still at the real time: every request falls in one one-second window,
    // while the signatures' validity (real time) still checks out.
    const clock = new TestClock(Date.now());
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const s = await startServer({ x402PayTo: payTo, x402RpcUrl: chain.rpcUrl, x402FacilitatorKey: (await chain.gasKey()).key }, clock);
    try {
      const buyer = await chain.fundedBuyer(1_000_000n);
      const { client } = payingFetch(buyer.key);
      const path = '/v1/x402/search?query=memory';
      const required = decodePaymentRequiredHeader((await fetch(`${s.url}${path}`)).headers.get('payment-required')!);
      const statuses: number[] = [];
      for (let i = 0; i < 51; i++) {
        const header = encodePaymentSignatureHeader(await client.createPaymentPayload(required));
        statuses.push((await fetch(`${s.url}${path}`, { headers: { 'payment-signature': header } })).status);
      }
      assert.equal(statuses.filter((c) => c === 200).length, 50);
      assert.equal(statuses[50], 429);
      assert.equal(await chain.balanceOf(buyer.address), 1_000_000n - 50n * PRICE);
    } finally {
      await s.close();
      await chain.stop();
    }
  });
});

describe('x402 limits and configuration', () => {
  test('100 requests per second per IP, unpaid ones included; the 101st is 429 with Retry-After', async () => {
    const clock = new TestClock();
    const s = await startServer({ x402PayTo: '0x000000000000000000000000000000000000dEaD', x402FacilitatorUrl: 'http://127.0.0.1:9/' }, clock);
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 101; i++) {
        last = await s.app.inject({ url: '/v1/x402/search?query=x', remoteAddress: '8.8.4.4' });
        statuses.push(last.statusCode);
      }
      assert.equal(statuses.filter((c) => c === 402).length, 100);
      assert.equal(statuses[100], 429);
      assert.equal(last!.headers['retry-after'], '1');
      clock.advance(1000);
      assert.equal((await s.app.inject({ url: '/v1/x402/search?query=x', remoteAddress: '8.8.4.4' })).statusCode, 402);
    } finally {
      await s.close();
    }
  });

  test('an incomplete configuration leaves the x402 tier off and says why; the other tiers run', async () => {
    const s = await startServer({ x402PayTo: '0x000000000000000000000000000000000000dEaD' });
    try {
      assert.match(s.services.x402Problems.join('; '), /a facilitator is needed/);
      assert.equal((await s.app.inject({ url: '/v1/x402/search?query=x' })).statusCode, 404);
      assert.equal((await s.app.inject({ url: '/v1/fetch/public?url=https://paid.test/doc&service_title=t' })).statusCode, 200);
    } finally {
      await s.close();
    }
    const bad = loadSettings({ env: { X402_PAY_TO: 'nope', X402_FACILITATOR_URL: 'http://127.0.0.1:9/' } }).x402;
    assert.equal(bad.enabled, false);
    assert.match((bad as { problems: string[] }).problems.join(), /X402_PAY_TO must be/);
    assert.equal(loadSettings({ env: {} }).x402.enabled, false);
  });
});
