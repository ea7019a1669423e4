/**
 * The two facilitator modes (notes/x402.md):
 *  - in-process: the maintained x402 facilitator with our own gas-paying key, submitting
 *    transferWithAuthorization through an RPC URL;
 *  - remote: an HTTP facilitator (POST /verify, POST /settle, GET /supported).
 * Both answer on-chain outcomes as values and throw when they cannot be reached.
 */
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { SettleError, VerifyError } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, defineChain, type Hex, http, publicActions } from 'viem';
import { nonceManager, privateKeyToAccount } from 'viem/accounts';
import type { Facilitator, PaymentPayload, PaymentRequirements } from '../../ports/payments.js';

// The package's own types are wider than ours; ours are the subset this service uses.
type AnyPayload = Parameters<x402Facilitator['verify']>[0];
type AnyRequirements = Parameters<x402Facilitator['verify']>[1];

export interface InProcessFacilitatorOptions {
  network: string;
  rpcUrl: string;
  privateKey: Hex;
  /** How often to poll for receipts (viem's default of 4 s makes settlement slow on a local chain). */
  pollingIntervalMs?: number;
  rpcTimeoutMs?: number;
}

export function chainIdOf(network: string): number {
  const m = /^eip155:(\d+)$/.exec(network);
  if (!m) throw new Error(`not an EVM network: ${network}`);
  return Number(m[1]);
}

export function createInProcessFacilitator(o: InProcessFacilitatorOptions): Facilitator & { address: string } {
  const chain = defineChain({
    id: chainIdOf(o.network),
    name: o.network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [o.rpcUrl] } },
  });
  const account = privateKeyToAccount(o.privateKey, { nonceManager });
  const client = createWalletClient({
    account,
    chain,
    transport: http(o.rpcUrl, { timeout: o.rpcTimeoutMs ?? 10_000, retryCount: 0 }),
    pollingInterval: o.pollingIntervalMs ?? 250,
  }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args: Parameters<typeof client.readContract>[0]) => client.readContract(args),
    verifyTypedData: (args: Parameters<typeof client.verifyTypedData>[0]) => client.verifyTypedData(args),
    writeContract: (args: Parameters<typeof client.writeContract>[0]) => client.writeContract(args),
    sendTransaction: (args: Parameters<typeof client.sendTransaction>[0]) => client.sendTransaction(args),
    waitForTransactionReceipt: (args: Parameters<typeof client.waitForTransactionReceipt>[0]) =>
      client.waitForTransactionReceipt(args),
    getCode: (args: Parameters<typeof client.getCode>[0]) => client.getCode(args),
  } as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]);
  const facilitator = new x402Facilitator().register(o.network as `${string}:${string}`, new ExactEvmScheme(signer));
  return {
    address: account.address,
    verify: (p: PaymentPayload, r: PaymentRequirements) =>
      facilitator.verify(p as unknown as AnyPayload, r as unknown as AnyRequirements),
    settle: (p: PaymentPayload, r: PaymentRequirements) =>
      facilitator.settle(p as unknown as AnyPayload, r as unknown as AnyRequirements),
  };
}

export function createRemoteFacilitator(o: { url: string; timeoutMs?: number }): Facilitator {
  const client = new HTTPFacilitatorClient({ url: o.url, timeoutMs: o.timeoutMs ?? 15_000 });
  return {
    async verify(p, r) {
      try {
        return await client.verify(p as unknown as AnyPayload, r as unknown as AnyRequirements);
      } catch (e) {
        // A 4xx with a verify body is an answer (the payment is invalid), not an outage.
        if (e instanceof VerifyError) return { isValid: false, invalidReason: e.invalidReason ?? 'invalid', payer: e.payer };
        throw e;
      }
    },
    async settle(p, r) {
      try {
        return await client.settle(p as unknown as AnyPayload, r as unknown as AnyRequirements);
      } catch (e) {
        if (e instanceof SettleError) {
          return { success: false, errorReason: e.errorReason ?? 'settlement_failed', transaction: e.transaction ?? '', network: r.network, payer: e.payer };
        }
        throw e;
      }
    },
  };
}
