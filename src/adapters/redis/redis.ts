/**
 * Redis (REDIS_URL): rate-limit windows and x402 nonce claims shared by several machines. One
 * connection per process; commands are pipelined by the client. A command gets `commandTimeoutMs`
 * and then fails (the caller answers 503) rather than hold a request while Redis is away.
 */
import { Redis } from 'ioredis';
import { storeUnavailable } from '../../core/errors.js';

export type RedisClient = Redis;

export interface RedisOptions {
  url: string;
  /** Default 2 s. */
  commandTimeoutMs?: number;
}

/** Connects and checks the server answers; throws the client's error when it does not. */
export async function openRedis(options: RedisOptions): Promise<RedisClient> {
  const client = new Redis(options.url, {
    lazyConnect: true,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    connectTimeout: 5000,
    // Fail queued commands at once while disconnected instead of retrying them 20 times.
    maxRetriesPerRequest: 1,
  });
  // Errors of the connection are reported through failed commands; unlistened, they would crash the process.
  let connectionError: Error | undefined;
  client.on('error', (e: Error) => (connectionError = e));
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    client.disconnect();
    // "Connection is closed" says less than the socket's own error (ECONNREFUSED, ENOTFOUND, NOAUTH).
    throw connectionError ?? e;
  }
  return client;
}

/** A reply error (a script's bug: thrown as it is, 500) or a Redis that cannot be reached (503 store_unavailable). */
export function storeError(e: unknown): never {
  if ((e as Error).name === 'ReplyError') throw e;
  throw storeUnavailable(e);
}
