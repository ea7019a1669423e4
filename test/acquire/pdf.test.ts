import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pdfToText } from '../../src/acquire/pdf.js';
import { type Origin, startOrigin } from '../fixtures/origin.js';
import { makePdf } from '../fixtures/pdf.js';
import { createTestEnv, type TestEnv } from '../helpers.js';

const PDF = makePdf(
  [
    ['Annual report on river levels', 'Water rose in March and fell in August.'],
    ['Second page: the mills', 'Three mills worked through the winter.'],
  ],
  { title: 'River report', author: 'Water Board' },
);

test('PDF text in reading order, page breaks kept, metadata from the document info', async () => {
  const r = await pdfToText(new Uint8Array(PDF));
  assert.equal(r.pages, 2);
  assert.equal(r.title, 'River report');
  assert.equal(r.author, 'Water Board');
  assert.equal(
    r.content,
    'Annual report on river levels\nWater rose in March and fell in August.\n\n---\n\nSecond page: the mills\nThree mills worked through the winter.',
  );
});

let origin: Origin;
let env: TestEnv;
before(async () => {
  origin = await startOrigin({
    '/report.pdf': (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/pdf' });
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

test('live fetch of a PDF; a broken one is an origin error', async () => {
  const ok = await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(`${origin.url}/report.pdf`)}&live=true`, headers: { 'x-service-title': 't' } });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().title, 'River report');
  assert.match(ok.json().content, /Water rose in March[\s\S]*---[\s\S]*Three mills/);
  const bad = await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(`${origin.url}/broken.pdf`)}&live=true`, headers: { 'x-service-title': 't' } });
  assert.equal(bad.statusCode, 502);
  assert.equal(bad.json().code, 'origin_error');
});
