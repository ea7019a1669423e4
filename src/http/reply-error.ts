import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import { ServiceError } from '../core/errors.js';

export function sendError(reply: FastifyReply, error: ServiceError): FastifyReply {
  return reply.code(error.status).headers(error.headers).send(error.toBody());
}

/** Maps fastify's own errors (bad JSON, wrong content type, oversize body) onto our table. */
export function fromFrameworkError(err: { code?: string; statusCode?: number; message: string }): ServiceError {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ServiceError('invalid_parameter', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ServiceError('invalid_parameter', 'The request body must be JSON with Content-Type: application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceError('payload_too_large', 'The request body is too large');
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new ServiceError('invalid_parameter', err.message);
  }
  return new ServiceError('internal_error');
}

/** The parser's codes for a request line it cannot read. */
const BAD_REQUEST_LINE = new Set(['HPE_INVALID_URL', 'HPE_INVALID_METHOD']);

/**
 * The answer to a request Node's HTTP parser could not read (fastify's `clientErrorHandler`): our
 * error body, not fastify's own (`{"error":"Bad Request","message":"Client Error"}`). A request line
 * holding bytes outside ASCII (a URL not percent-encoded) is one; headers over Node's limit and a
 * request that did not arrive in time are the others. Written to the socket as Node does, which
 * then closes: no request was read, so nothing is logged as one or charged.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new ServiceError('request_timeout')
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? new ServiceError('headers_too_large')
        : new ServiceError('malformed_request', BAD_REQUEST_LINE.has(err.code ?? '') ? 'The request line is not well-formed HTTP (a URL must be percent-encoded: no spaces or bytes outside ASCII)' : undefined);
  if (socket.writable) {
    const body = JSON.stringify(error.toBody());
    socket.write(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}
