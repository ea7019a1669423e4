import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { WARCRecord } from 'warcio';
import { WARCSerializer } from 'warcio/node';
import { importWarc } from '../../src/acquire/import-warc.js';
import { createTestEnv, type TestEnv } from '../helpers.js';

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
      await record({ url: 'https://zoo.test/logo.png', date: '2026-01-10T00:00:00Z', headers: { 'Content-Type': 'image/png' }, body: new Uint8Array(20) }),
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
    assert.equal(s.skipped, 2, 'an image and a redirect');
    assert.equal(s.broken, 1, 'the undated record');
    assert.match(s.brokenReasons[0]!, /missing target URI, date or HTTP status/);
    const history = await env.services.pages.history('https://zoo.test/llamas');
    assert.deepEqual(
      history.map((v) => new Date(v.acquiredAt).toISOString()),
      ['2026-01-10T00:00:00.000Z', '2026-03-10T00:00:00.000Z'],
    );
    assert.match((await env.services.pages.latest('https://zoo.test/yaks'))!.content, /Yaks live on the high plateaus/);
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
