import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { WARCRecord } from 'warcio';
import { WARCSerializer } from 'warcio/node';
import { picker, rng } from '../../bench/scifact.js';
import { importWarc } from '../../src/acquire/import-warc.js';
import { startMadeUpOrigin } from '../fixtures/made-up-origin.js';
import { createTestEnv, tempDir, type TestEnv } from '../helpers.js';

const enc = new TextEncoder();

async function record(o: {
  url: string;
  date: string;
  type?: 'response' | 'request';
  status?: string;
  headers?: Record<string, string>;
  body: Uint8Array | string;
}): Promise<Uint8Array> {
  const body = typeof o.body === 'string' ? enc.encode(o.body) : o.body;
  const rec = WARCRecord.create(
    {
      url: o.url,
      date: o.date,
      type: o.type ?? 'response',
      warcVersion: 'WARC/1.1',
      statusline: o.type === 'request' ? 'GET / HTTP/1.1' : `HTTP/1.1 ${o.status ?? '200 OK'}`,
      httpHeaders: o.headers ?? { 'Content-Type': 'text/html; charset=utf-8' },
    },
    (async function* () {
      yield body;
    })(),
  );
  return WARCSerializer.serialize(rec, { gzip: true });
}

function chunked(data: Uint8Array): Uint8Array {
  const half = Math.floor(data.length / 2);
  const parts = [data.subarray(0, half), data.subarray(half)];
  const out: Uint8Array[] = [];
  for (const p of parts) out.push(enc.encode(`${p.length.toString(16)}\r\n`), p, enc.encode('\r\n'));
  out.push(enc.encode('0\r\n\r\n'));
  return Buffer.concat(out);
}

describe('WARC import', () => {
  let env: TestEnv;
  let file: string;
  before(async () => {
    env = await createTestEnv({ keylessPerSecond: 10000, keylessPerHour: 100000 });
    const page = (text: string) => `<html><head><title>Llamas</title></head><body><article><p>${text}</p></article></body></html>`;
    const members = [
      await record({ url: 'https://zoo.test/llamas', date: '2026-01-10T00:00:00Z', body: page('The first capture says llamas hum when they are curious about alpacas.') }),
      await record({ url: 'https://zoo.test/llamas', date: '2026-03-10T00:00:00Z', body: page('The second capture says llamas spit when they are annoyed by alpacas.') }),
      await record({ url: 'https://zoo.test/llamas', date: '2026-01-01T00:00:00Z', type: 'request', body: '' }),
      // A day the calendar lacks: Date.parse took it for March 2.
      await record({ url: 'https://zoo.test/leap', date: '2026-02-30T00:00:00Z', body: page('A capture on a day that never was.') }),
      await record({ url: 'https://zoo.test/logo.png', date: '2026-01-10T00:00:00Z', headers: { 'Content-Type': 'image/png' }, body: new Uint8Array(20) }),
      // A site's script and data are no pages: a live fetch reads them, an import does not store them.
      await record({ url: 'https://zoo.test/app.js', date: '2026-01-10T00:00:00Z', headers: { 'Content-Type': 'application/javascript' }, body: 'var llamas = "humming";' }),
      await record({ url: 'https://zoo.test/api.json', date: '2026-01-10T00:00:00Z', headers: { 'Content-Type': 'application/json' }, body: '{"llamas": "humming"}' }),
      await record({ url: 'https://zoo.test/old', date: '2026-01-10T00:00:00Z', status: '301 Moved Permanently', headers: { Location: '/new' }, body: '' }),
      await record({
        url: 'https://zoo.test/yaks',
        date: '2026-02-01T00:00:00Z',
        headers: { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip', 'Transfer-Encoding': 'chunked' },
        body: chunked(gzipSync(page('Yaks live on the high plateaus and grow thick wool for the winter.'))),
      }),
    ];
    // A well-formed response record whose WARC-Date is not a date: readable, but unusable.
    const http = 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>undated</p>';
    members.push(
      gzipSync(
        `WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: https://zoo.test/undated\r\nWARC-Date: yesterday\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${http.length}\r\n\r\n${http}\r\n\r\n`,
      ),
    );
    file = join(env.services.settings.dataDir, 'crawl.warc.gz');
    // Multi-member gzip, then a truncated record at the end.
    writeFileSync(file, Buffer.concat([...members.map((m) => Buffer.from(m)), Buffer.from('WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 9999\r\n\r\ntrunc')]));
  });
  after(() => env.close());

  test('response records become versions at their WARC-Date; the rest is counted and skipped', async () => {
    const s = await importWarc(env.services.pages, file);
    assert.equal(s.imported, 3);
    assert.equal(s.notResponses, 1);
    assert.equal(s.skipped, 4, 'an image, a script, JSON and a redirect');
    assert.equal(s.broken, 3, 'the records of 30 February and of no date, and the truncated one at the end');
    assert.match(s.brokenReasons[0]!, /record 4: missing target URI, date or HTTP status/);
    assert.equal(await env.services.pages.latest('https://zoo.test/api.json'), undefined);
    assert.match(s.brokenReasons[1]!, /missing target URI, date or HTTP status/);
    assert.match(s.brokenReasons[2]!, /cut short/);
    assert.equal(await env.services.pages.latest('https://zoo.test/leap'), undefined);
    const history = await env.services.pages.history('https://zoo.test/llamas');
    assert.deepEqual(
      history.map((v) => new Date(v.acquiredAt).toISOString()),
      ['2026-01-10T00:00:00.000Z', '2026-03-10T00:00:00.000Z'],
    );
    assert.match((await env.services.pages.latest('https://zoo.test/yaks'))!.content, /Yaks live on the high plateaus/);
    // Each with the type its record's HTTP headers say it was served as, without parameters.
    assert.deepEqual(history.map((v) => v.mediaType), ['text/html', 'text/html']);
    assert.equal((await env.services.pages.latest('https://zoo.test/yaks'))!.mediaType, 'text/html');
  });

  test('a record dated more than a day after now is broken, not a capture to come', async () => {
    const fresh = await createTestEnv();
    try {
      // The file's records are of 2026-01-10, 02-01 and 03-10; now is 03-09, so 03-10 is within a day and 03-11 would not be.
      const within = await importWarc(fresh.services.pages, file, { now: () => Date.parse('2026-03-09T00:00:01Z') });
      assert.equal(within.imported, 3);
      const early = await createTestEnv();
      try {
        const s = await importWarc(early.services.pages, file, { now: () => Date.parse('2026-02-15T00:00:00Z') });
        assert.equal(s.imported, 2);
        assert.equal(s.broken, 4, 'the records of 30 February, of no date and of 03-10, and the truncated one');
        assert.match(s.brokenReasons.join('\n'), /WARC-Date 2026-03-10T00:00:00Z is not a time of capture \(more than a day after now/);
        assert.deepEqual((await early.services.pages.history('https://zoo.test/llamas')).map((v) => new Date(v.acquiredAt).toISOString()), ['2026-01-10T00:00:00.000Z']);
      } finally {
        await early.close();
      }
    } finally {
      await fresh.close();
    }
  });

  test('query_time between the two captures finds the first; re-importing adds nothing', async () => {
    const at = async (query_time?: string) => {
      const res = await env.app.inject({
        method: 'POST',
        url: '/v1/search/public',
        headers: { 'x-service-title': 't' },
        payload: query_time ? { query: 'alpacas', query_time } : { query: 'alpacas' },
      });
      return res.json().results.map((r: { snippet: string; acquired_at: string }) => `${r.acquired_at} ${r.snippet}`);
    };
    assert.deepEqual(await at('2026-02-01'), ['2026-01-10T00:00:00.000Z The first capture says llamas hum when they are curious about alpacas.']);
    assert.deepEqual(await at(), ['2026-03-10T00:00:00.000Z The second capture says llamas spit when they are annoyed by alpacas.']);
    assert.deepEqual(await at('2026-01-09T23:59:59Z'), []);
    const again = await importWarc(env.services.pages, file);
    assert.equal(again.imported, 0);
    assert.equal(again.unchanged, 3);
  });
});

describe('WARC import on the reader threads', () => {
  test('a file cut short (a partial download) says so, whatever record it cuts, and the cut page is not stored', async () => {
    const page = (text: string) => `<html><body><article><p>${text.repeat(40)}</p></article></body></html>`;
    const env = await createTestEnv();
    try {
      for (const gzip of [true, false]) {
        for (const type of ['request', 'response'] as const) {
          const whole = Buffer.from(await WARCSerializer.serialize(WARCRecord.create({ url: 'https://cut.test/whole', date: '2026-01-10T00:00:00Z', type: 'response', warcVersion: 'WARC/1.1', httpHeaders: { 'Content-Type': 'text/html' } }, (async function* () { yield enc.encode(page('Otters float on their backs. ')); })()), { gzip }));
          const cut = Buffer.from(await WARCSerializer.serialize(WARCRecord.create({ url: `https://cut.test/${type}-${gzip}`, date: '2026-01-10T00:00:00Z', type, warcVersion: 'WARC/1.1', statusline: type === 'request' ? 'POST / HTTP/1.1' : 'HTTP/1.1 200 OK', httpHeaders: { 'Content-Type': 'text/html' } }, (async function* () { yield enc.encode(page('Otters hold hands. ')); })()), { gzip }));
          const path = join(env.services.settings.dataDir, `cut-${type}-${gzip}.warc`);
          writeFileSync(path, Buffer.concat([whole, cut.subarray(0, Math.floor(cut.length / 2))]));
          // Before, a cut record that is skipped unread (a request, say) made warcio's skip spin forever.
          const s = await importWarc(env.services.pages, path);
          assert.equal(s.broken, 1, `${path}: ${JSON.stringify(s)}`);
          assert.match(s.brokenReasons[0]!, /cut short/);
          assert.ok(await env.services.pages.latest('https://cut.test/whole'));
          assert.equal(await env.services.pages.latest(`https://cut.test/${type}-${gzip}`), undefined);
        }
      }
    } finally {
      await env.close();
    }
  });

  test("a crawler's dns: response records (no HTTP headers) are skipped, and the pages after them imported", async () => {
    const rec = (type: string, uri: string, contentType: string, payload: string) =>
      `WARC/1.0\r\nWARC-Type: ${type}\r\nWARC-Target-URI: ${uri}\r\nWARC-Date: 2026-01-10T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:${uri}>\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}\r\n\r\n`;
    const page = (n: number) => `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body><article><p>Page ${n}: otters hold hands while they sleep in the kelp.</p></article></body></html>`;
    const dns = (host: string) => rec('response', `dns:${host}`, 'text/dns', `20260110000000\n${host}.\t300\tIN\tA\t93.184.216.34\n`);
    const records = [rec('warcinfo', 'info', 'application/warc-fields', 'software: a crawler\r\n'), dns('a.test'), rec('response', 'https://a.test/1', 'application/http; msgtype=response', page(1)), dns('b.test'), rec('response', 'https://b.test/2', 'application/http; msgtype=response', page(2))];
    const env = await createTestEnv();
    try {
      for (const gzip of [false, true]) {
        const path = join(env.services.settings.dataDir, `dns-${gzip}.warc`);
        writeFileSync(path, gzip ? Buffer.concat(records.map((r) => gzipSync(r))) : Buffer.from(records.join('')));
        const s = await importWarc(env.services.pages, path);
        assert.deepEqual([s.records, s.imported + s.unchanged, s.skipped, s.broken], [5, 2, 2, 0], JSON.stringify(s));
      }
    } finally {
      await env.close();
    }
  });

  test('pages are read on the threads, with their time limit per page; the pages after a slow one are imported', async () => {
    const env = await createTestEnv({ readerThreads: 2, readerTimeoutMs: 300 });
    try {
      const page = (i: number) => `<html><head><title>Ferry ${i}</title></head><body><article><p>Ferry ${i} crosses the fjord at dawn with ${i} cars.</p></article></body></html>`;
      const members: Uint8Array[] = [];
      for (let i = 0; i < 20; i++) {
        members.push(await record({ url: `https://fjord.test/ferry/${i}`, date: '2026-01-10T00:00:00Z', body: page(i) }));
        // A page that takes seconds to read (400,000 elements): over the threads' 300 ms.
        if (i === 5) members.push(await record({ url: 'https://fjord.test/huge', date: '2026-01-10T00:00:00Z', body: `<body>${'<p>ab</p>'.repeat(400_000)}</body>` }));
      }
      const file = join(env.services.settings.dataDir, 'fjord.warc.gz');
      writeFileSync(file, Buffer.concat(members.map((m) => Buffer.from(m))));
      const reader = env.services.reader!;
      const s = await importWarc(env.services.pages, file, { read: reader.readQueued, inFlight: 4, batchSize: 7 });
      assert.deepEqual({ records: s.records, imported: s.imported, skipped: s.skipped, broken: s.broken }, { records: 21, imported: 20, skipped: 1, broken: 0 });
      assert.equal(await env.services.pages.latest('https://fjord.test/huge'), undefined, 'the page over the limit is not stored');
      for (const i of [0, 6, 19]) assert.match((await env.services.pages.latest(`https://fjord.test/ferry/${i}`))!.content, new RegExp(`Ferry ${i} crosses the fjord`));
      assert.equal(reader.threadIds.length, 2, 'both threads read');
    } finally {
      await env.close();
    }
  });
});

/**
 * Made-up WARC files: records of every type, with target URIs, dates and lengths right or wrong,
 * gzip members or not, the file cut short or not, and as payloads the made-up origin's responses
 * (any status, type, encoding and framing). Every record is counted once, the import never throws,
 * and search and fetch answer whatever it stored.
 */
describe('made-up WARC files', () => {
  test('every record is counted once; what is stored is answered', { timeout: 120_000 }, async () => {
    const random = rng(43);
    const pick = picker(random);
    const origin = await startMadeUpOrigin(random, { wellFormed: 0.3 });
    const env = await createTestEnv({ keylessPerSecond: 100_000, keylessPerHour: 1_000_000 });
    const dir = tempDir();
    try {
      let stored = 0;
      for (let file = 0; file < 12; file++) {
        const members: Buffer[] = [];
        const count = 5 + Math.floor(random() * 40);
        let lengthsRight = true;
        for (let n = 0; n < count; n++) {
          const payload = random() < 0.9 ? origin.bytes(origin.answer()) : Buffer.from(pick(['', 'GET / HTTP/1.1\r\n\r\n', 'HTTP/1.1 200\r\n\r\n', 'garbage']));
          const type = pick(['response', 'response', 'response', 'response', 'request', 'metadata', 'revisit', 'warcinfo', 'resource']);
          const head = [`WARC/1.${pick([0, 1])}`, `WARC-Type: ${type}`, `WARC-Record-ID: <urn:uuid:${file}-${n}>`];
          if (random() < 0.95) head.push(`WARC-Target-URI: ${random() < 0.85 ? `https://w${n % 5}.test/f${file}/r${n}` : pick(['', 'not a url', 'ftp://w.test/', 'https://w..test/', 'https://w.test/%zz'])}`);
          if (random() < 0.95) head.push(`WARC-Date: ${random() < 0.9 ? `2026-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 10)}T00:00:00Z` : pick(['', 'yesterday', '2026-02-30T00:00:00Z', '99999-01-01T00:00:00Z'])}`);
          head.push('Content-Type: application/http; msgtype=response');
          const length = random() < 0.97 ? payload.length : pick([0, payload.length + 5, Math.max(0, payload.length - 5), -1]);
          if (length >= 0) head.push(`Content-Length: ${length}`);
          if (length !== payload.length) lengthsRight = false;
          const member = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), payload, Buffer.from('\r\n\r\n')]);
          members.push(file % 3 === 0 ? member : gzipSync(member));
        }
        let bytes = Buffer.concat(members);
        if (file % 4 === 1) bytes = bytes.subarray(0, Math.floor(bytes.length * (0.3 + 0.6 * random())));
        const path = join(dir.path, `made-up-${file}.warc${file % 3 === 0 ? '' : '.gz'}`);
        writeFileSync(path, bytes);
        const s = await importWarc(env.services.pages, path);
        const counted = s.imported + s.unchanged + s.notResponses + s.skipped + s.broken;
        // A record is counted once; a file that stops being readable adds one broken for its rest.
        assert.ok(counted === s.records || counted === s.records + 1, `${path}: ${JSON.stringify(s)}`);
        const said = (re: RegExp) => s.brokenReasons.some((r) => re.test(r));
        const what = `${path}: ${count} written, ${JSON.stringify(s)}`;
        // A cut file says so. One whose lengths are all right is read to its end, unless a response
        // without a blank line after its HTTP headers leaves warcio lost, which the import says too.
        if (file % 4 === 1) assert.ok(said(/is cut short in|no whole record/), what);
        else if (lengthsRight) assert.ok(!said(/is cut short in/) && (s.records === count || said(/no whole record/)), what);
        stored += s.imported;
      }
      assert.ok(stored >= 10, `${stored} stored`);
      for (const query of ['otters', 'well formed page', 'hands sleeping']) {
        const res = await env.app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 't' }, payload: { query, max_results: 50, acquired_after: '2026-03-01' } });
        assert.equal(res.statusCode, 200, res.body.slice(0, 300));
        for (const r of res.json().results as { url: string }[]) {
          const fetched = await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(r.url)}`, headers: { 'x-service-title': 't' } });
          assert.equal(fetched.statusCode, 200, `${r.url}: ${fetched.body.slice(0, 300)}`);
        }
      }
    } finally {
      await env.close();
      await origin.close();
      dir.remove();
    }
  });
});
