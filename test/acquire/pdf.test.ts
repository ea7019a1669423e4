import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { picker, rng } from '../../bench/scifact.js';
import { crawl } from '../../src/acquire/crawler.js';
import { pdfToText } from '../../src/acquire/pdf.js';
import { type Origin, startOrigin } from '../fixtures/origin.js';
import { makePdf } from '../fixtures/pdf.js';
import { createTestEnv, tempDir, type TestEnv } from '../helpers.js';

const PDF = makePdf(
  [
    ['Annual report on river levels', 'Water rose in March and fell in August.'],
    ['Second page: the mills', 'Three mills worked through the winter.'],
  ],
  { title: 'River report', author: 'Water Board' },
);

const PDF_TEXT = 'Annual report on river levels\nWater rose in March and fell in August.\n\n---\n\nSecond page: the mills\nThree mills worked through the winter.';

test('PDF text in reading order, page breaks kept, metadata from the document info', async () => {
  const r = await pdfToText(new Uint8Array(PDF));
  assert.equal(r.pages, 2);
  assert.equal(r.title, 'River report');
  assert.equal(r.author, 'Water Board');
  assert.equal(r.content, PDF_TEXT);
});

test("a word a line broke at its end is one word again, its hyphen kept; a line's other dashes and a capital after them are not joined", async () => {
  const pdf = makePdf([['The flow of informa-', 'tion through the mills was well-', 'known in the region. Costs were', 'listed -', 'twice. See the Ohio-', 'Mississippi basin.']]);
  assert.equal(
    (await pdfToText(new Uint8Array(pdf))).content,
    'The flow of informa-tion through the mills was well-known in the region. Costs were\nlisted -\ntwice. See the Ohio-\nMississippi basin.',
  );
});

// In a process of their own, where an unhandled rejection ends the process as it would a server's.
const readOnThisThread = (files: Buffer[]) => {
  const dir = tempDir();
  try {
    const paths = files.map((b, n) => {
      const path = join(dir.path, `${n}.pdf`);
      writeFileSync(path, b);
      return path;
    });
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/fixtures/read-on-this-thread.ts', ...paths], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr.slice(-2000));
    return r.stdout.trim().split('\n');
  } finally {
    dir.remove();
  }
};

test('a broken PDF whose stray pdf.js rejections Node would end the process for is read, and the process goes on', () => {
  // Two pages' dictionaries damaged: pdf.js 4.9 rejects a promise of its in-process worker that no one handles.
  const broken = PDF.toString('latin1')
    .replace('<< /Type /Page /Parent', '<< /Ty<<pe /Page /Parent')
    .replace(/(\/Contents 2 0 R >>[\s\S]*\/Resources )<< \/Font/, '$1<<-/Font');
  assert.notEqual(broken, PDF.toString('latin1'));
  assert.deepEqual(readOnThisThread([Buffer.from(broken, 'latin1'), PDF]), ['read 0', `read ${(PDF_TEXT.length)}`, 'done']);
});

test('made-up PDFs (a real one with tokens put in, bytes cut out or changed): each is read or refused as origin_error, and the process goes on', () => {
  const random = rng(71);
  const pick = picker(random);
  const TOKENS = ['obj', 'endobj', '<<', '>>', '[', ']', '/Type', '/Pages', '/Kids', '/Count 999999999', '/Length 99999999', 'R', '0', '-1', '1e308', 'stream', 'endstream', '(', ')', '\\', '/Title 5', '/Filter /FlateDecode', '/Parent 1 0 R', '1 0 R'];
  const files = Array.from({ length: 300 }, () => {
    let text = PDF.toString('latin1');
    for (let k = 1 + Math.floor(random() * 4); k > 0; k--) {
      const at = Math.floor(random() * text.length);
      const r = random();
      if (r < 0.4) text = text.slice(0, at) + pick(TOKENS) + text.slice(at);
      else if (r < 0.7) text = text.slice(0, at) + text.slice(at + Math.floor(random() * 20));
      else text = text.slice(0, at) + String.fromCharCode(Math.floor(random() * 256)) + text.slice(at + 1);
    }
    return Buffer.from(text, 'latin1');
  });
  const lines = readOnThisThread(files);
  assert.equal(lines.length, files.length + 1);
  assert.equal(lines.at(-1), 'done');
  for (const line of lines.slice(0, -1)) assert.match(line, /^(read \d+|failed origin_error)$/);
  assert.ok(lines.filter((l) => l.startsWith('failed')).length > 30, 'some are refused');
});

let origin: Origin;
let env: TestEnv;
before(async () => {
  origin = await startOrigin({
    '/report.pdf': (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/pdf' });
      r.end(PDF);
    },
    '/stored/report': (_q, r) => {
      r.writeHead(200, { 'content-type': 'binary/octet-stream' }); // as an object store serves an upload
      r.end(PDF);
    },
    '/stored/blob': (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/octet-stream' });
      r.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    },
    '/reports': (_q, r) => {
      r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      r.end('<html><head><title>River reports</title></head><body><main><p>The river reports of the Water Board, by year, for the mills.</p><a href="/pdf/2101.00001">The report</a></main></body></html>');
    },
    '/pdf/2101.00001': (_q, r) => {
      r.writeHead(200, { 'content-type': 'Application/PDF; name=report' });
      r.end(PDF);
    },
    '/broken.pdf': (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/pdf' });
      r.end('%PDF-1.4 this is not really a pdf');
    },
  });
  env = await createTestEnv({ allowPrivateNetwork: true });
});
after(async () => {
  await env.close();
  await origin.close();
});

test('live fetch of a PDF, one served as octet-stream too; a broken one is an origin error', async () => {
  const ok = await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(`${origin.url}/report.pdf`)}&live=true`, headers: { 'x-service-title': 't' } });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().title, 'River report');
  assert.match(ok.json().content, /Water rose in March[\s\S]*---[\s\S]*Three mills/);
  // Served as bytes of no kind: the bytes say it is a PDF; other bytes are still refused.
  const stored = await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(`${origin.url}/stored/report`)}&live=true`, headers: { 'x-service-title': 't' } });
  assert.equal(stored.json().title, 'River report');
  const blob = await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(`${origin.url}/stored/blob`)}&live=true`, headers: { 'x-service-title': 't' } });
  assert.equal(blob.statusCode, 502);
  assert.match(blob.json().error, /Unsupported content type application\/octet-stream/);
  const bad = await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(`${origin.url}/broken.pdf`)}&live=true`, headers: { 'x-service-title': 't' } });
  assert.equal(bad.statusCode, 502);
  assert.equal(bad.json().code, 'origin_error');
});

test('a PDF is stored as served, so filetype:pdf finds one at a URL without the extension; the page linking it is filetype:html', async () => {
  // The type as read is kept: the header's, lowercased, or what the bytes were read as.
  assert.equal((await env.services.pages.latest(`${origin.url}/report.pdf`))?.mediaType, 'application/pdf');
  assert.equal((await env.services.pages.latest(`${origin.url}/stored/report`))?.mediaType, 'application/pdf');
  const r = await crawl(
    { client: env.services.http, robots: env.services.robots, frontier: env.services.frontier, pages: env.services.pages, read: env.services.reader?.readQueued },
    { seeds: [`${origin.url}/reports`], maxPages: 10, maxDepth: 2, scope: 'same-site', concurrency: 2, delayMs: 0, sitemaps: false },
  );
  assert.equal(r.stored, 2, JSON.stringify(r));
  const urls = async (query: string) => {
    const res = await env.app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 't' }, payload: { query } });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json().results as { url: string }[]).map((x) => x.url.slice(origin.url.length)).sort();
  };
  assert.deepEqual(await urls('mills filetype:pdf'), ['/pdf/2101.00001']);
  assert.deepEqual(await urls('mills filetype:html'), ['/reports']);
  assert.deepEqual(await urls('mills -ext:pdf'), ['/reports']);
});
