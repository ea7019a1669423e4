/**
 * npm run bench:x402 [-- --requests 40]
 *
 * Added latency of a paid x402 request over an unpaid keyed one, on a local anvil chain (our
 * EIP-3009 token at Base's USDC address), for both facilitator modes. Three timings per mode,
 * each over the same search, one client, sequential:
 *   keyed:        POST /v1/search with an API key (the baseline)
 *   paid request: GET /v1/x402/search with a ready PAYMENT-SIGNATURE (verify + run + settle on-chain)
 *   client flow:  the real @x402/fetch client from scratch (402 offer, sign, paid retry)
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { generateApiKey } from '../src/access/keyed/api-keys.js';
import { createServices } from '../src/config/services.js';
import { loadSettings, type RawSettings } from '../src/config/settings.js';
import { buildApp } from '../src/http/app.js';
import { startFacilitatorServer } from '../test/fixtures/chain/facilitator-server.js';
import { startLocalChain } from '../test/fixtures/chain/local-chain.js';
import { tempDir } from '../test/helpers.js';
import { percentile } from './scifact.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '40' } } });
const N = Number(values.requests);

const chain = await startLocalChain();
const payTo = privateKeyToAccount(generatePrivateKey()).address;

async function measure(label: string, x402: RawSettings) {
  const dir = tempDir();
  const services = await createServices(loadSettings({ env: {}, flags: { dataDir: dir.path, keyedRatePerSecond: 100000, ...x402 } }));
  for (let i = 0; i < 200; i++) {
    await services.pages.putVersion({
      url: `https://bench.test/${i}`,
      title: `Page ${i}`,
      content: `Memory safety and ownership, page ${i}.`,
      acquiredAt: Date.now(),
      searchable: true,
    });
  }
  const org = await services.accounts.createOrg('bench');
  const key = generateApiKey();
  await services.accounts.insertKey({ id: `key_${key.prefix}`, orgId: org.id, prefix: key.prefix, hash: key.hash, createdAt: Date.now() });
  await services.ledger.credit(org.id, 1_000_000_000, 'bench');
  const app = await buildApp(services, { logger: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });

  const buyer = await chain.fundedBuyer(1_000_000_000n);
  const account = privateKeyToAccount(buyer.key as Hex);
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(account));
  const pay = wrapFetchWithPayment(fetch, client);
  const path = '/v1/x402/search?query=memory%20ownership';

  const time = async (fn: () => Promise<Response>) => {
    const lat: number[] = [];
    for (let i = 0; i < N + 3; i++) {
      const t = performance.now();
      const res = await fn();
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${label}: HTTP ${res.status}`);
      if (i >= 3) lat.push(performance.now() - t); // 3 warm-up requests
    }
    return lat.sort((a, b) => a - b);
  };
  const keyed = await time(() =>
    fetch(`${base}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key.key },
      body: JSON.stringify({ query: 'memory ownership' }),
    }),
  );
  const offer = decodePaymentRequiredHeader((await fetch(`${base}${path}`)).headers.get('payment-required')!);
  const signed: string[] = [];
  for (let i = 0; i < N + 3; i++) signed.push(encodePaymentSignatureHeader(await client.createPaymentPayload(offer)));
  let next = 0;
  const paid = await time(() => fetch(`${base}${path}`, { headers: { 'payment-signature': signed[next++]! } }));
  const flow = await time(() => pay(`${base}${path}`));

  const row = (name: string, l: number[]) =>
    `| ${label} | ${name} | ${percentile(l, 50).toFixed(1)} | ${percentile(l, 90).toFixed(1)} | ${(percentile(l, 50) - percentile(keyed, 50)).toFixed(1)} | ${(percentile(l, 90) - percentile(keyed, 90)).toFixed(1)} |`;
  console.log(row('keyed (baseline)', keyed));
  console.log(row('paid request (ready signature)', paid));
  console.log(row('client flow (offer + sign + pay)', flow));
  await app.close();
  await services.close();
  dir.remove();
}

console.log(`x402 added latency, ${N} sequential requests each, anvil chain id 8453, one client`);
console.log('| facilitator | request | p50 ms | p90 ms | added p50 ms | added p90 ms |\n|---|---|---|---|---|---|');
const facilitatorKey = (await chain.gasKey()).key;
await measure('in-process', { x402PayTo: payTo, x402RpcUrl: chain.rpcUrl, x402FacilitatorKey: facilitatorKey });
const remote = await startFacilitatorServer({ network: 'eip155:8453', rpcUrl: chain.rpcUrl, privateKey: (await chain.gasKey()).key });
await measure('remote (HTTP)', { x402PayTo: payTo, x402FacilitatorUrl: remote.url });
await remote.close();
await chain.stop();
