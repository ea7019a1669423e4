import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { picker, rng } from '../../bench/scifact.js';
import { isForbiddenAddress } from '../../src/acquire/address-policy.js';
import { decodeText } from '../../src/acquire/charset.js';
import { AcquireError, createHttpClient, statusFailure } from '../../src/acquire/http-client.js';
import { RobotsCache, robotsAllows } from '../../src/acquire/robots.js';
import { html, type Origin, startOrigin } from '../fixtures/origin.js';

const refusedAs = (code: string) => (e: unknown) => e instanceof AcquireError && e.code === code;

describe('SSRF guard', () => {
  const client = createHttpClient({ allowPrivateNetwork: false, timeoutMs: 3000 });
  after(() => client.close());

  test('literal private addresses in every notation are refused before any connection', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://127.1/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://0177.0.0.1/',
      'http://10.0.0.1/',
      'http://172.16.5.4/',
      'http://192.168.0.10/',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.1.1/',
      'http://0.0.0.0/',
      'http://224.0.0.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://[64:ff9b::7f00:1]/',
    ]) {
      await assert.rejects(client.get(url), refusedAs('url_not_allowed'), url);
    }
  });

  test('a host name resolving to loopback is refused at connection time', async () => {
    await assert.rejects(client.get('http://localhost:9/'), refusedAs('url_not_allowed'));
  });

  test('non-http schemes and credentials are refused', async () => {
    await assert.rejects(client.get('ftp://example.com/'), refusedAs('url_not_allowed'));
    await assert.rejects(client.get('file:///etc/passwd'), refusedAs('url_not_allowed'));
    await assert.rejects(client.get('http://user:pw@example.com/'), refusedAs('url_not_allowed'));
  });

  test('public addresses are allowed by the policy', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isForbiddenAddress(a), false, a);
  });
});

describe('redirects re-checked at every hop', () => {
  let publicOrigin: Origin;
  let privateOrigin: Origin;
  before(async () => {
    privateOrigin = await startOrigin({ '/secret': html('<p>internal admin page</p>') }, '127.0.0.1');
    publicOrigin = await startOrigin(
      {
        '/to-private': (_q, r) => {
          r.writeHead(302, { location: `${privateOrigin.url}/secret` });
          r.end();
        },
        '/ok': html('<p>public page</p>'),
      },
      '127.0.0.2',
    );
  });
  after(async () => {
    await publicOrigin.close();
    await privateOrigin.close();
  });

  test('a redirect from a public host to a private one is refused, and the private host is never contacted', async () => {
    // 127.0.0.2 stands for a public address in this test; everything else keeps the real policy.
    const client = createHttpClient({
      allowPrivateNetwork: false,
      isForbidden: (a) => a !== '127.0.0.2' && isForbiddenAddress(a),
    });
    try {
      const ok = await client.get(`${publicOrigin.url}/ok`);
      assert.equal(ok.status, 200);
      await assert.rejects(client.get(`${publicOrigin.url}/to-private`), refusedAs('url_not_allowed'));
      assert.deepEqual(privateOrigin.hits, []);
    } finally {
      await client.close();
    }
  });
});

describe('limits and failures against a local origin', () => {
  let origin: Origin;
  const client = createHttpClient({ allowPrivateNetwork: true, timeoutMs: 1500, maxBytes: 1024 * 1024 });
  before(async () => {
    origin = await startOrigin({
      '/big': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html' });
        r.end(Buffer.alloc(2 * 1024 * 1024, 'a'));
      },
      '/big-chunked': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 'b');
        let sent = 0;
        const push = () => {
          while (sent < 40 && r.write(chunk)) sent++;
          if (sent < 40) r.once('drain', push);
          else r.end();
        };
        push();
      },
      '/bomb': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        r.end(gzipSync(Buffer.alloc(50 * 1024 * 1024)));
      },
      '/gzip': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        r.end(gzipSync('<p>compressed</p>'));
      },
      '/slow': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html' });
        r.write('<p>start');
        // never ends
      },
      '/gzip-slow': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        r.write(gzipSync('<p>compressed</p>').subarray(0, 12));
        // never ends
      },
      '/gzip-cut': (_q, r) => {
        const body = gzipSync('<p>compressed</p>');
        r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': String(body.length) });
        r.write(body.subarray(0, 12));
        r.socket?.destroy();
      },
      '/nowhere': (_q, r) => {
        r.writeHead(302, { location: 'http://[::1' });
        r.end();
      },
      '/loop': (_q, r) => {
        r.writeHead(301, { location: '/loop' });
        r.end();
      },
      '/hop': (req, r) => {
        const n = Number(new URL(req.url!, 'http://x').searchParams.get('n') ?? 0);
        r.writeHead(302, { location: n >= 5 ? '/gzip' : `/hop?n=${n + 1}` });
        r.end();
      },
      '/throttled': (_q, r) => {
        r.writeHead(429, { 'retry-after': '7' });
        r.end();
      },
      '/gone': html('gone', 410),
      '/broken': html('oops', 502),
    });
  });
  after(async () => {
    await client.close();
    await origin.close();
  });

  test('bodies over the cap are refused, declared or streamed', async () => {
    await assert.rejects(client.get(`${origin.url}/big`), refusedAs('too_large'));
    await assert.rejects(client.get(`${origin.url}/big-chunked`), refusedAs('too_large'));
  });

  test('decompression is bounded: a gzip bomb stops at the cap', async () => {
    await assert.rejects(client.get(`${origin.url}/bomb`), refusedAs('too_large'));
    assert.equal((await client.get(`${origin.url}/gzip`)).body.toString(), '<p>compressed</p>');
  });

  test('a body that stalls hits the deadline', async () => {
    const started = Date.now();
    await assert.rejects(client.get(`${origin.url}/slow`), (e) => e instanceof AcquireError && e.code === 'timeout' && e.kind === 'transient');
    assert.ok(Date.now() - started < 5000);
  });

  test('a compressed body that stalls hits the deadline; one whose connection is lost fails at once', { timeout: 10_000 }, async () => {
    const started = Date.now();
    await assert.rejects(client.get(`${origin.url}/gzip-slow`), (e) => e instanceof AcquireError && e.code === 'timeout');
    assert.ok(Date.now() - started < 5000);
    await assert.rejects(client.get(`${origin.url}/gzip-cut`), (e) => e instanceof AcquireError && e.code === 'connection_failed' && e.kind === 'transient');
  });

  test('a redirect to what is no URL is the origin\'s permanent failure', async () => {
    await assert.rejects(client.get(`${origin.url}/nowhere`), (e) => e instanceof AcquireError && e.code === 'bad_redirect' && e.kind === 'permanent');
  });

  test('redirects: five are followed, a loop is refused', async () => {
    const r = await client.get(`${origin.url}/hop?n=1`);
    assert.equal(r.status, 200);
    assert.equal(r.url, `${origin.url}/gzip`);
    await assert.rejects(client.get(`${origin.url}/loop`), refusedAs('too_many_redirects'));
  });

  test('statuses are classified: throttled, permanent, transient', async () => {
    const throttled = statusFailure(await client.get(`${origin.url}/throttled`));
    assert.equal(throttled?.kind, 'throttled');
    assert.equal(throttled?.retryAfterSeconds, 7);
    assert.equal(statusFailure(await client.get(`${origin.url}/gone`))?.kind, 'permanent');
    assert.equal(statusFailure(await client.get(`${origin.url}/broken`))?.kind, 'transient');
  });

  test('connection refused is transient', async () => {
    await assert.rejects(client.get('http://127.0.0.1:9/'), (e) => e instanceof AcquireError && e.code === 'connection_failed' && e.kind === 'transient');
  });
});

describe('charsets', () => {
  test('header, BOM, meta, and the windows-1252 fallback', () => {
    const cp1252 = Buffer.from([0x93, 0x63, 0x61, 0x66, 0xe9, 0x94]); // “café”
    assert.equal(decodeText(cp1252, 'text/html; charset=windows-1252', true), '\u201ccaf\u00e9\u201d');
    assert.equal(decodeText(cp1252, 'text/html', true), '\u201ccaf\u00e9\u201d', 'invalid UTF-8 without a label');
    const sjis = Buffer.concat([Buffer.from('<meta charset="Shift_JIS"><p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b]), Buffer.from('</p>')]);
    assert.match(decodeText(sjis, 'text/html', true), /日本/);
    const httpEquiv = Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>'), Buffer.from([0xe9]), Buffer.from('</p>')]);
    assert.match(decodeText(httpEquiv, undefined, true), /é/);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo')]);
    assert.equal(decodeText(bom, 'text/plain; charset=iso-8859-1', false), 'héllo', 'a BOM wins over the header');
    assert.equal(decodeText(Buffer.from('naïve'), undefined, false), 'naïve');
  });

  test('a meta that names UTF-16 means UTF-8 (a meta read as ASCII was not UTF-16), and x-user-defined windows-1252, as browsers do', () => {
    for (const label of ['utf-16', 'UTF-16LE', 'utf-16be', 'unicode']) {
      const page = Buffer.from(`<html><head><meta charset="${label}"><title>Café</title></head><body><p>naïve — ok</p></body></html>`);
      assert.match(decodeText(page, 'text/html', true), /<title>Café<\/title>.*naïve — ok/, label);
    }
    const userDefined = Buffer.concat([Buffer.from('<meta charset="x-user-defined"><p>'), Buffer.from([0x93, 0xe9, 0x94]), Buffer.from('</p>')]);
    assert.match(decodeText(userDefined, undefined, true), /\u201c\u00e9\u201d/);
  });
});

describe('robots.txt', () => {
  // Each origin answers robots.txt in its own way; a fresh cache asks each once.
  const rules = (status: number, body: string, chunked = false) => ({
    '/robots.txt': (_q: unknown, r: import('node:http').ServerResponse) => {
      r.writeHead(status, { 'content-type': 'text/plain', ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }) });
      if (chunked) for (let i = 0; i < body.length; i += 64 * 1024) r.write(body.slice(i, i + 64 * 1024));
      r.end(chunked ? undefined : body);
    },
  });
  const origins: Origin[] = [];
  const client = createHttpClient({ allowPrivateNetwork: true, timeoutMs: 3000 });
  after(async () => {
    await client.close();
    for (const o of origins) await o.close();
  });
  const verdicts = async (status: number, body: string, chunked = false) => {
    const origin = await startOrigin(rules(status, body, chunked));
    origins.push(origin);
    const robots = new RobotsCache({ client, agent: 'websearch' });
    return Promise.all(['/private/a', '/late/a', '/public'].map(async (p) => (await robots.check(`${origin.url}${p}`)).allowed));
  };

  test('a file over 500 KiB is read to its last whole line within them, not refused as a whole (RFC 9309 2.5)', async () => {
    const filler = '# a comment line that pads the file out\n'.repeat(Math.ceil((600 * 1024) / 40));
    const big = `User-agent: *\nDisallow: /private\n${filler}Disallow: /late\n`;
    for (const chunked of [false, true]) assert.deepEqual(await verdicts(200, big, chunked), [false, true, true], `chunked ${chunked}`);
    // Cut inside a rule, the rule's part is not read as a rule of its own.
    const cutRule = `User-agent: *\nDisallow: /private\n${'#'.repeat(500 * 1024 - 45)}\nDisallow: /late/a/deeper\n`;
    assert.deepEqual(await verdicts(200, cutRule), [false, true, true]);
  });

  test('paths are compared with unreserved characters unescaped (RFC 9309 2.2.2): /%7Ejoe is /~joe; a reserved %2F stays itself', async () => {
    const origin = await startOrigin(rules(200, 'User-agent: *\nDisallow: /%7Ejoe\nDisallow: /b%61d\nDisallow: /caf%C3%A9\nDisallow: /sp%2Fx\nAllow: /\n'));
    origins.push(origin);
    const robots = new RobotsCache({ client, agent: 'websearch' });
    const allowed = async (path: string) => (await robots.check(`${origin.url}${path}`)).allowed;
    for (const path of ['/~joe/x', '/%7Ejoe/x', '/%7ejoe', '/bad', '/b%61d', '/%62ad', '/café', '/caf%C3%A9', '/sp%2Fx']) assert.equal(await allowed(path), false, path);
    for (const path of ['/sp/x', '/joe', '/good', '/cafe']) assert.equal(await allowed(path), true, path);
  });

  test("made-up robots.txt files and URLs: our matcher answers as robots-parser's own isAllowed does", () => {
    const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, body: string) => { isAllowed(url: string, ua: string): boolean | undefined };
    const random = rng(73);
    const pick = picker(random);
    const PIECES = ['/', '/', 'a', 'b', 'ab', '*', '*', '$', '.html', '?', '=', '&', '%2F', '%2f', '%7E', '~', 'é', '%C3%A9', '-', '_', ' '];
    // Half the files in a small alphabet, where parts of a pattern overlap in the path (`/a*a$` and `/a`).
    let alphabet = PIECES;
    const made = (n: number) => Array.from({ length: n }, () => pick(alphabet)).join('');
    let disallowed = 0;
    for (let n = 0; n < 400; n++) {
      alphabet = n % 2 ? PIECES : ['a', 'a', 'b', '*'];
      const lines: string[] = [];
      for (let g = 1 + Math.floor(random() * 3); g > 0; g--) {
        lines.push(`User-agent: ${pick(['websearch', 'WebSearch/2.0', '*', 'otherbot', 'websearch-news'])}`);
        if (random() < 0.3) lines.push(`User-agent: ${pick(['*', 'websearch', 'x'])}`);
        for (let r = Math.floor(random() * 6); r > 0; r--) lines.push(`${pick(['Allow', 'Disallow', 'disallow', 'ALLOW'])}: ${pick(['', '/'])}${made(Math.floor(random() * 5))}${pick(['', '', '$', '*'])}`);
        lines.push('');
      }
      const txt = lines.join(pick(['\n', '\r\n']));
      const parsed = robotsParser('https://r.test/robots.txt', txt);
      for (let u = 0; u < 10; u++) {
        const url = `https://r.test/${made(Math.floor(random() * 6))}`;
        const expected = parsed.isAllowed(url, 'websearch') !== false;
        // Unreserved escapes aside (robots-parser leaves /%7E as is: RFC 9309 2.2.2 is ours), the two agree.
        if (/%7E|~/i.test(txt + url)) continue;
        assert.equal(robotsAllows(txt, url, 'websearch'), expected, `${url} under\n${txt}`);
        if (!expected) disallowed++;
      }
    }
    assert.ok(disallowed > 100, `${disallowed} disallowed`);
  });

  // Not a timing: with robots-parser's matcher these 200 checks take minutes (2.4 s each), here milliseconds.
  test('500 KiB of wildcard rules are checked against long URLs in linear time, with the answers robots-parser gives', () => {
    const rule = `/${'*a'.repeat(50)}$`;
    const txt = `User-agent: *\n${`Disallow: ${rule}\n`.repeat(Math.floor(500_000 / (rule.length + 11)))}`;
    for (let n = 0; n < 200; n++) {
      const path = 'a'.repeat(1900 + n);
      assert.equal(robotsAllows(txt, `https://r.test/${path}b`, 'websearch'), true);
      assert.equal(robotsAllows(txt, `https://r.test/${path}`, 'websearch'), false);
    }
  });

  test('4xx means no rules, but 429 (come back later) disallows for a while, as a 5xx does', async () => {
    assert.deepEqual(await verdicts(404, ''), [true, true, true]);
    assert.deepEqual(await verdicts(403, 'User-agent: *\nDisallow: /\n'), [true, true, true]);
    assert.deepEqual(await verdicts(429, ''), [false, false, false]);
    assert.deepEqual(await verdicts(503, ''), [false, false, false]);
  });
});
