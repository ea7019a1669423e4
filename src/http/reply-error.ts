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
