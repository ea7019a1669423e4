/**
 * One encapsulated plugin per tier, each registering the same two handlers (STYLE 1). Nothing here
 * looks at the path to decide who pays: the tier object does.
 */
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseBusy, isDatabaseBusy, isDiskFull, isStorageFault, ServiceError, storageFull, storageUnavailable } from '../core/errors.js';
import { parseFetchRequest, parseSearchRequest } from '../core/requests.js';
import type { AccessTier, Gate, Operation, OperationCall, TierRequest } from '../access/tier.js';
import type { Services } from '../config/services.js';
import { fetchPage, fetchUnavailable, type Meter } from '../ops/fetch-page.js';
import { search } from '../ops/search.js';
import { sendError } from './reply-error.js';

const RAW_BODY = Symbol('rawBody');
type WithRawBody = FastifyRequest & { [RAW_BODY]?: Buffer };
const NO_BODY = Buffer.alloc(0);

function tierRequest(request: FastifyRequest, operation: Operation): TierRequest {
  return {
    pathAndQuery: request.url,
    rawBody: (request as WithRawBody)[RAW_BODY] ?? NO_BODY,
    requestId: String(request.id),
    method: request.method,
    headers: request.headers,
    query: (request.query ?? {}) as Record<string, unknown>,
    clientIp: request.ip,
    operation,
    url: `${request.protocol}://${request.host}${request.url}`,
  };
}

/** A body kept raw (for a signature) is parsed only now, after the tier has identified the caller. */
function jsonBody(request: FastifyRequest): unknown {
  const raw = (request as WithRawBody)[RAW_BODY];
  if (raw === undefined) return request.body;
  const type = String(request.headers['content-type'] ?? '');
  if (!/^application\/json\b/i.test(type)) {
    throw new ServiceError('invalid_parameter', 'The request body must be JSON with Content-Type: application/json');
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ServiceError('invalid_parameter', 'The request body is not valid JSON');
  }
}

/** The call as validated input; what this server cannot do of it is refused here too, before admission. */
function parseCall(request: FastifyRequest, operation: Operation, tier: AccessTier, services: Services): OperationCall {
  const ignore = tier.ownParams;
  if (operation === 'fetch') {
    const input = parseFetchRequest(request.query, { ignore });
    const unavailable = fetchUnavailable(services, input);
    if (unavailable) throw unavailable;
    return { operation, input };
  }
  const raw = request.method === 'GET' ? request.query : jsonBody(request);
  return { operation, input: parseSearchRequest(raw, { now: services.clock.now(), ignore }) };
}

/**
 * The caller's connection, watched: `gone` once it closes before the answer (the request then ends as
 * 499 client_closed_request, uncharged). Calls that work outside (a live fetch, realtime fetches, a
 * model call) get a signal that stops that work then; it is made for them only (an AbortController
 * costs microseconds a request). A search asks `gone` at each turn of the event loop it reads in
 * (webql's reads) and stops there.
 */
class Caller {
  gone = false;
  private controller: AbortController | undefined;

  constructor(res: FastifyReply['raw']) {
    // Gone already (while its body was read): no 'close' is coming.
    if (res.destroyed && !res.writableEnded) this.gone = true;
    res.once('close', () => {
      if (res.writableEnded) return;
      this.gone = true;
      this.controller?.abort();
    });
  }

  signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.gone) this.controller.abort();
    return this.controller.signal;
  }
}

async function runCall(services: Services, call: OperationCall, meter: Meter, caller: Caller): Promise<unknown> {
  if (call.operation === 'search') {
    return search(services, call.input, call.input.mode === 'realtime_content' ? caller.signal() : undefined, () => caller.gone);
  }
  return fetchPage(services, call.input, meter, call.input.live || call.input.prompt !== undefined ? caller.signal() : undefined);
}

/**
 * The log of a disk that is full or cannot be written, which every request that writes meets while
 * it lasts: its first refusal is logged, then at most one line a minute with how many were refused since.
 */
class DiskFullLog {
  private loggedAt = -Infinity;
  private refused = 0;

  note(request: FastifyRequest, e: unknown, msg = 'disk full: requests that must write are answered 503 storage_full'): void {
    this.refused++;
    const now = Date.now();
    if (now - this.loggedAt < 60_000) return;
    request.log.error({ err: e, refused: this.refused }, msg);
    this.loggedAt = now;
    this.refused = 0;
  }
}

function asServiceError(request: FastifyRequest, e: unknown, diskFull: DiskFullLog): ServiceError {
  if (isDiskFull(e)) {
    diskFull.note(request, e);
    return storageFull(e);
  }
  if (isStorageFault(e)) {
    diskFull.note(request, e, 'the disk cannot be written: requests that must write are answered 503 storage_unavailable');
    return storageUnavailable(e);
  }
  if (isDatabaseBusy(e)) {
    request.log.warn({ err: e }, 'database busy: the request is answered 503 server_busy');
    return databaseBusy(e);
  }
  if (e instanceof ServiceError) {
    if (e.code === 'store_unavailable') request.log.error({ err: e.cause }, 'store unavailable');
    return e;
  }
  request.log.error({ err: e }, 'operation failed');
  return new ServiceError('internal_error', undefined, { cause: e });
}

async function handle(
  services: Services,
  tier: AccessTier,
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  diskFull: DiskFullLog,
): Promise<FastifyReply> {
  const started = performance.now();
  const treq = tierRequest(request, operation);
  let gate: Gate | undefined;
  let cost = 0;
  const meter: Meter = {};
  const caller = new Caller(reply.raw);
  try {
    const identified = await tier.identify(treq);
    if (!identified.ok) return sendError(reply, identified.error);
    gate = identified.value;
    reply.headers(gate.headers);

    let call: OperationCall;
    try {
      call = parseCall(request, operation, tier, services);
    } catch (e) {
      return sendError(reply, asServiceError(request, e, diskFull));
    }
    const admitted = await tier.admit(gate, call, treq);
    if (!admitted.ok) return sendError(reply, admitted.error);

    let body: unknown;
    let failure: ServiceError | undefined;
    try {
      if (!caller.gone) body = await runCall(services, call, meter, caller);
    } catch (e) {
      if (!caller.gone) failure = asServiceError(request, e, diskFull);
    }
    // An answer no one can receive is not charged.
    if (caller.gone) failure = new ServiceError('client_closed_request');
    // Settle before a byte of the result leaves: a failed settlement replaces the result.
    const settled = await tier.settle(gate, admitted.value, failure ? failure.status : 200);
    if (failure) return sendError(reply, failure);
    if (!settled.ok) return sendError(reply, settled.error);
    cost = admitted.value.cost;
    return reply.code(200).headers(settled.value).send(body);
  } catch (e) {
    // A fault in a tier: 503 store_unavailable when a store is down, storage_full or storage_unavailable when the disk is full or cannot be written, server_busy when the database stayed locked, a 500 otherwise; nothing was charged.
    return sendError(reply, asServiceError(request, e, diskFull));
  } finally {
    // Fastify logs a request once its response has gone; this one's never goes.
    if (caller.gone) reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request closed by the caller');
    const attribution = gate?.attribution ?? {};
    const entry = {
      at: Date.now(),
      requestId: treq.requestId,
      tier: tier.name,
      operation,
      status: reply.statusCode,
      costMicroUsd: cost,
      latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
      clientIp: treq.clientIp,
      ...attribution,
      ...meter,
    };
    services.usage.record(entry).catch((e: unknown) => request.log.error({ err: e }, 'usage not recorded'));
  }
}

export function tierPlugin(services: Services, tier: AccessTier) {
  return async function register(app: FastifyInstance): Promise<void> {
    if (tier.needsRawBody) {
      // Encapsulated: only this tier's routes keep bodies raw, whatever their content type.
      app.removeAllContentTypeParsers();
      app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
        (request as WithRawBody)[RAW_BODY] = body as Buffer;
        done(null, body);
      });
    }
    const diskFull = new DiskFullLog();
    for (const operation of ['search', 'fetch'] as const) {
      const route = tier.routes[operation];
      app.route({
        method: route.methods,
        url: route.path,
        handler: (request, reply) => handle(services, tier, operation, request, reply, diskFull),
      });
    }
  };
}
