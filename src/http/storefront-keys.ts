/** POST / DELETE /zeroclick/api-key: the storefront's older key-exchange contract. */
import type { FastifyInstance } from 'fastify';
import { createKeyExchange, parseKeyExchangeBody } from '../access/storefront/legacy-keys.js';
import { verifyLegacy } from '../access/storefront/signature.js';
import type { Services } from '../config/services.js';
import { ServiceError } from '../core/errors.js';
import { sendError } from './reply-error.js';

export function storefrontKeysPlugin(services: Services, secret: string) {
  const exchange = createKeyExchange(services.storefrontAccounts, secret);
  return async function register(app: FastifyInstance): Promise<void> {
    app.removeAllContentTypeParsers();
    // Bytes: the signature is over the body as sent.
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    app.route({
      method: ['POST', 'DELETE'],
      url: '/zeroclick/api-key',
      handler: async (request, reply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = (name: string) => {
          const v = request.headers[name];
          return Array.isArray(v) ? v[0] : v;
        };
        const nowSeconds = Math.floor(services.clock.now() / 1000);
        if (!verifyLegacy(header('x-zeroclick-signature'), header('x-zeroclick-timestamp'), raw, secret, nowSeconds)) {
          return sendError(reply, new ServiceError('invalid_zeroclick_signature'));
        }
        const body = parseKeyExchangeBody(raw.toString('utf8'));
        if (!body.ok) return sendError(reply, body.error);
        if (request.method === 'POST') return reply.send({ apiKey: await exchange.provision(body.value) });
        return reply.send({ revoked: await exchange.revoke(body.value) });
      },
    });
  };
}
