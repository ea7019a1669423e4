/** buildApp(services): the fastify application. The only place (with http/*) that imports fastify. */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { ServiceError } from '../core/errors.js';
import type { Services } from '../config/services.js';
import { answerClientError, fromFrameworkError, sendError } from './reply-error.js';
import { storefrontKeysPlugin } from './storefront-keys.js';
import { tierPlugin } from './tier-routes.js';

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Headers that carry secrets; never logged. */
export const REDACTED_HEADERS = ['x-api-key', 'authorization', 'payment-signature', 'zc-signature', 'x-zeroclick-signature', 'cookie'];

/**
 * The access log: one line per request once its response has gone (method, path, status, time),
 * instead of Fastify's two (one on arrival, one on completion): half the log writes on the request path.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

export interface BuildAppOptions {
  /** Replaces the logger's whole configuration (tests pass `false`). */
  logger?: FastifyServerOptions['logger'];
  /** Where the JSON log lines go instead of stdout (each line is written as it is logged). */
  logStream?: { write(line: string): void };
  /** How long a closing server leaves its idle kept-alive connections open (`drainOnClose`); 0, Node's own close. */
  closeDrainMs?: number;
}

/**
 * How long `serve`, stopping or restarting a worker, leaves a kept-alive connection that is idle open
 * for one more request (`drainOnClose`).
 */
export const CLOSE_DRAIN_MS = 1_000;

/**
 * A closing `server` stops taking connections at once, but leaves those that are idle open for
 * `drainMs`: a request that comes on one is answered, with `Connection: close` (fastify's while
 * closing), and the connection closed after it; one that brings none is closed then (and those that
 * were busy, once idle, every `drainMs` after). Node's own close (since 19) closes the idle
 * connections at once, and a client that had just sent its next request on one found it closed,
 * the request unanswered: 9 in the two restarts of the workers of `npm run bench:soak -- --minutes 2
 * --workers 2 --reloads 2` (four busy clients), none with this. The close's callback, and so
 * fastify's close and the database's after it, waits for every connection to end, as before.
 */
export function drainOnClose(server: Server, drainMs: number): void {
  server.close = function close(this: Server, callback?: (err?: Error) => void) {
    // net's close: no new connections; the callback once the last one has ended. (http's close
    // would also stop the timer that enforces the request timeouts; it runs on through the drain,
    // unref'd, until the process ends.)
    NetServer.prototype.close.call(this, callback);
    // And every `drainMs` after, for those idle by then (one whose request was under way may go on
    // idle after its answer: a request that started before the close is answered kept alive).
    const timer = setInterval(() => this.closeIdleConnections(), drainMs).unref();
    this.once('close', () => clearInterval(timer));
    return this;
  };
}

/** The logger a server runs with (with `AccessLog` as its log controller): secrets redacted, JSON lines to stdout or `stream`. */
export function serverLogger(level: string, stream?: BuildAppOptions['logStream']): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    redact: { paths: REDACTED_HEADERS.map((h) => `req.headers["${h}"]`), censor: '[redacted]' },
    ...(stream && { stream }),
  };
}

export async function buildApp(services: Services, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? serverLogger(services.settings.logLevel, options.logStream),
    logController: new AccessLog(),
    // fastify accepts a hop count too (its docs), though its types leave numbers out.
    trustProxy: services.settings.trustProxy as boolean | string,
    bodyLimit: 64 * 1024,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    },
    // A request that comes while the server closes (on a kept-alive connection, or one handed to a
    // worker of `--workers N` just as it stops for a restart) is answered as any other, with
    // `Connection: close` (fastify's while closing), rather than a 503 of fastify's own body: the
    // database closes only once every connection has ended, and the client's next request goes
    // on a new connection, to another worker.
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    // No HEAD twin of the GET routes: a HEAD fetch ran the fetch (a live one, too) and was charged
    // or paid for, and its caller got no content. HEAD is an unknown route (404 not_found).
    exposeHeadRoutes: false,
  });

  if (options.closeDrainMs) drainOnClose(app.server, options.closeDrainMs);

  services.logs.attach((level, msg, fields) => app.log[level](fields ?? {}, msg));

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, request, reply) => {
    const mapped = err instanceof ServiceError ? err : fromFrameworkError(err);
    if (mapped.status >= 500) request.log.error({ err }, 'request failed');
    return sendError(reply, mapped);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ServiceError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );

  // HEAD too: a load balancer's check may ask for the status alone.
  app.route({
    method: ['GET', 'HEAD'],
    url: '/healthz',
    handler: async (_request, reply) => {
      const healthy = await services.healthy();
      return reply.code(healthy ? 200 : 503).send({ status: healthy ? 'ok' : 'unavailable' });
    },
  });

  for (const tier of services.tiers) await app.register(tierPlugin(services, tier));
  const legacySecret = services.settings.storefront.legacySecret;
  if (legacySecret) await app.register(storefrontKeysPlugin(services, legacySecret));
  return app;
}
