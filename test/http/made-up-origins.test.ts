/**
 * Live fetches of made-up origins: a raw TCP server answers each path with a response of its own
 * (any status, content type, content encoding right or wrong, framing right or lying, a redirect to
 * anywhere or nowhere, a connection closed or held), and the service must answer each fetch with a
 * documented status and error body, never a 500; a failed fetch is never charged and stores nothing.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { picker, rng } from '../../bench/scifact.js';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { createFundedKey, createTestEnv, type TestEnv } from '../helpers.js';

/** What the origin sends for one path: bytes, then the connection closed, held or kept. */
interface Answer {
  bytes: Buffer;
  after: 'close' | 'hold' | 'keep';
}

const FETCH_TIMEOUT_MS = 400;
/** What a failed live fetch may answer (DESIGN's error table). */
const FAILURES = new Map([
  ['url_not_allowed', 400],
  ['blocked_by_robots', 403],
  ['origin_error', 502],
  ['origin_blocked', 502],
  ['origin_timeout', 504],
]);

describe('made-up origins', () => {
  const random = rng(31);
  const pick = picker(random);
  const answers = new Map<string, Answer>();
  const sockets = new Set<Socket>();
  let server: Server;
  let base: string;
  let env: TestEnv;
  let key: string;
  let orgId: string;
  let paths = 0;

  before(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      let head = '';
      socket.on('data', (chunk) => {
        head += chunk.toString('latin1');
        for (let end = head.indexOf('\r\n\r\n'); end >= 0; end = head.indexOf('\r\n\r\n')) {
          const path = head.slice(0, end).split(' ')[1] ?? '';
          head = head.slice(end + 4);
          const answer = path === '/robots.txt' ? { bytes: Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n'), after: 'keep' as const } : answers.get(path);
          if (!answer) {
            socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
            return;
          }
          socket.write(answer.bytes);
          if (answer.after === 'close') socket.end();
          if (answer.after !== 'keep') return;
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    env = await createTestEnv({ allowPrivateNetwork: true, fetchTimeoutMs: FETCH_TIMEOUT_MS });
    ({ key, org: { id: orgId } } = await createFundedKey(env.services, 100_000_000, 1_000_000));
  });
  after(async () => {
    await env.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  const WORDS = ['otters', 'hold', 'hands', 'while', 'sleeping', 'and', 'sea', 'use', 'stones', 'é', '—', '&amp;', '&#x1b;', '<b>', '</b>', '<br>', '<p>', '</p>', '<a href="/x">', '</a>', '\u0000', '\r\n'];
  const html = () => {
    const text = Array.from({ length: 5 + Math.floor(random() * 80) }, () => pick(WORDS)).join(' ');
    return pick([
      `<!doctype html><html><head><title>${pick(WORDS)} page</title></head><body><article><p>${text}</p></article></body></html>`,
      `<p>${text}</p>`,
      text,
      '',
      '<html><head><title>Just a moment...</title></head><body>Checking your browser before accessing</body></html>',
      `%PDF-1.4\n${text}`,
    ]);
  };
  const encoded = (body: Buffer, coding: string): Buffer => {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        return gzipSync(body);
      case 'deflate':
        return deflateSync(body);
      case 'br':
        return brotliCompressSync(body);
      default:
        return body;
    }
  };
  const chunked = (body: Buffer, broken: boolean) => {
    const parts: Buffer[] = [];
    for (let at = 0; at < body.length; ) {
      const n = 1 + Math.floor(random() * 64);
      const piece = body.subarray(at, at + n);
      parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
      at += n;
    }
    parts.push(Buffer.from(broken ? pick(['zz\r\n', '5\r\nab', '']) : '0\r\n\r\n'));
    return Buffer.concat(parts);
  };

  /** A made-up answer for a new path; redirects point at further made-up paths. */
  function answer(depth = 0): string {
    const path = `/p/${paths++}`;
    const status = pick([200, 200, 200, 200, 201, 203, 204, 206, 301, 302, 303, 307, 308, 304, 300, 400, 404, 410, 429, 500, 503, 599, 999]);
    const headers: string[] = [];
    let body: Buffer = Buffer.from(html());
    const type = pick(['text/html', 'text/html; charset=utf-8', 'text/html; charset=bogus', 'TEXT/HTML;charset=ISO-8859-1', 'text/plain', 'text/markdown', 'application/xhtml+xml', 'application/pdf', 'image/png', '', undefined]);
    if (type !== undefined) headers.push(`content-type: ${type}`);
    if (random() < 0.3) body = Buffer.from(Array.from({ length: Math.floor(random() * 300) }, () => Math.floor(random() * 256)));
    if (status >= 300 && status < 400 && random() < 0.85) {
      const next = depth < 7 && random() < 0.7 ? answer(depth + 1) : `/p/${paths + 1000}`;
      headers.push(`location: ${pick([next, `${base}${next}`, `//127.0.0.1:${base.split(':')[2]}${next}`, '', ' ', 'http://[::1', 'http://a:99999/', 'http://a b/', 'javascript:alert(1)', 'file:///etc/passwd', 'ftp://127.0.0.1/x', 'http://127.0.0.1:9/', '\u00e9/x', '/p/%zz', 'http://user:pw@127.0.0.1/'])}`);
    }
    if (random() < 0.2) headers.push(`retry-after: ${pick(['0', '5', '-1', 'soon', 'Wed, 21 Oct 2015 07:28:00 GMT', '99999999999'])}`);
    if (random() < 0.1) headers.push(`x-robots-tag: ${pick(['noindex', 'nofollow', 'none', 'all'])}`);
    if (random() < 0.1) headers.push(`content-language: ${pick(['de', 'en-US', '', 'x'.repeat(300), 'de, en'])}`);
    const coding = random() < 0.35 ? pick(['gzip', 'x-gzip', 'deflate', 'br', 'identity', 'compress', 'gzip, br', 'GZIP']) : undefined;
    if (coding !== undefined) {
      headers.push(`content-encoding: ${coding}`);
      body = encoded(body, random() < 0.8 ? coding.toLowerCase() : pick(['gzip', 'br', 'none']));
      if (random() < 0.15) body = body.subarray(0, Math.floor(body.length * random()));
    }
    const framing = pick(['length', 'length', 'chunked', 'close', 'short', 'long', 'twice']);
    let after: Answer['after'] = 'keep';
    let payload = body;
    if (framing === 'length') headers.push(`content-length: ${body.length}`);
    if (framing === 'chunked') {
      headers.push('transfer-encoding: chunked');
      payload = chunked(body, random() < 0.2);
      if (!payload.subarray(-5).equals(Buffer.from('0\r\n\r\n'))) after = 'close';
    }
    if (framing === 'close') {
      headers.push('connection: close');
      after = 'close';
    }
    if (framing === 'short') headers.push(`content-length: ${Math.max(0, body.length - 1 - Math.floor(random() * 10))}`); // extra bytes follow
    if (framing === 'long') {
      headers.push(`content-length: ${body.length + 1 + Math.floor(random() * 100)}`);
      after = pick(['close', 'hold'] as const);
    }
    if (framing === 'twice') headers.push(`content-length: ${body.length}`, `content-length: ${body.length + 1}`);
    const shape = random();
    let bytes = Buffer.concat([Buffer.from(`HTTP/1.1 ${status} Made Up\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`), payload]);
    if (shape < 0.03) after = 'hold';
    if (shape >= 0.03 && shape < 0.06) bytes = Buffer.alloc(0);
    if (shape >= 0.06 && shape < 0.08) bytes = bytes.subarray(0, Math.floor(bytes.length * random()));
    if (shape >= 0.08 && shape < 0.09) bytes = Buffer.from('garbage\r\n\r\n');
    if (shape < 0.09 && after === 'keep') after = shape < 0.03 ? 'hold' : 'close';
    answers.set(path, { bytes, after });
    return path;
  }

  test('every live fetch is answered with a documented status; a failure charges and stores nothing', async () => {
    const outcomes = new Map<string, number>();
    const one = async () => {
      const path = answer();
      const url = `${base}${path}`;
      const sent = `${path}: ${JSON.stringify(answers.get(path)!.bytes.toString('latin1').slice(0, 400))}, then ${answers.get(path)!.after}`;
      let timer: NodeJS.Timeout | undefined;
      const res = await Promise.race([
        env.app.inject({ url: `/v1/fetch?url=${encodeURIComponent(url)}&live=true`, headers: { 'x-api-key': key } }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${sent}: no answer in 10 s, with a deadline of ${FETCH_TIMEOUT_MS} ms`)), 10_000);
        }),
      ]).finally(() => clearTimeout(timer));
      const what = `${sent} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
      const body = JSON.parse(res.body) as { code?: unknown; error?: unknown; content?: unknown };
      if (res.statusCode === 200) {
        assert.equal(typeof body.content, 'string', what);
        outcomes.set('200', (outcomes.get('200') ?? 0) + 1);
        return true;
      }
      assert.ok(typeof body.error === 'string' && typeof body.code === 'string', what);
      assert.equal(FAILURES.get(body.code as string), res.statusCode, what);
      outcomes.set(body.code as string, (outcomes.get(body.code as string) ?? 0) + 1);
      assert.equal(await env.services.pages.latest(url), undefined, `${what}: a failed fetch stored the page`);
      return false;
    };
    for (let n = 0; n < 400; n++) {
      const before = (await env.services.ledger.balance(orgId))!;
      // Now and then a few at once, on the client's shared connections: a bad answer must not spoil the others.
      const answered = (await Promise.all(random() < 0.1 ? [one(), one(), one()] : [one()])).filter(Boolean).length;
      assert.equal(await env.services.ledger.balance(orgId), before - answered * KEYED_REQUEST_COST, 'charged once for each fetch answered, never for a failure');
    }
    // The made-up answers reach every outcome, so the run checks each of them.
    console.log(JSON.stringify([...outcomes]));
    for (const outcome of ['200', 'origin_error', 'origin_blocked', 'origin_timeout']) assert.ok((outcomes.get(outcome) ?? 0) >= 3, `${outcome}: ${JSON.stringify([...outcomes])}`);
  });
});
