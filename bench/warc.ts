/**
 * npm run bench:warc [-- --records 20000 --paragraphs 3 --reader-threads 1 --format warc|jsonl]
 *
 * WARC import on a large generated file: N gzip-member response records of ~6 KB HTML each (three
 * paragraphs of ~1 kB; `--paragraphs 30` makes ~32 kB pages, which are stored with a passage index),
 * written with warcio, then imported twice into fresh data folders: pages read on the importing thread,
 * then on the reader threads as `websearch import` reads them (WEBSEARCH_READER_THREADS, default 1).
 * Prints records/s, their ratio, and resident memory sampled during each import (it should stay
 * flat: records are streamed and written in batches). `--format jsonl` writes the same pages as JSONL
 * lines of HTML (gzip) and imports those instead.
 */
import { createWriteStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { WARCRecord } from 'warcio';
import { WARCSerializer } from 'warcio/node';
import { createGzip } from 'node:zlib';
import { importJsonl } from '../src/acquire/import-jsonl.js';
import { importWarc } from '../src/acquire/import-warc.js';
import { createServices } from '../src/config/services.js';
import { loadSettings } from '../src/config/settings.js';
import { tempDir } from '../test/helpers.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '20000' },
    paragraphs: { type: 'string', default: '3' },
    'reader-threads': { type: 'string', default: '1' },
    format: { type: 'string', default: 'warc' },
  },
});
const jsonl = values.format === 'jsonl';
if (!jsonl && values.format !== 'warc') throw new Error(`--format takes warc or jsonl, not ${values.format}`);
const readerThreads = Number(values['reader-threads']);
const n = Number(values.records);
const paragraphs = Number(values.paragraphs);
const dir = tempDir();
const file = join(dir.path, jsonl ? 'big.jsonl.gz' : 'big.warc.gz');
const gzip = jsonl ? createGzip() : undefined;
const fileOut = createWriteStream(file);
const out = gzip ?? fileOut;
gzip?.pipe(fileOut);
const para = 'Rivers carry water from the hills to the sea, and towns grow where they can be crossed. '.repeat(12);
for (let i = 0; i < n; i++) {
  const html = `<html><head><title>Doc ${i}</title></head><body><article><h1>Doc ${i}</h1>${Array.from({ length: paragraphs }, (_, k) => `<p>${para} ${i} ${k}</p>`).join('')}</article></body></html>`;
  if (jsonl) {
    if (!out.write(`${JSON.stringify({ url: `https://warc.bench/doc/${i}`, html, acquired_at: '2026-01-01T00:00:00Z' })}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
    continue;
  }
  const rec = WARCRecord.create(
    { url: `https://warc.bench/doc/${i}`, date: '2026-01-01T00:00:00Z', type: 'response', warcVersion: 'WARC/1.1', statusline: 'HTTP/1.1 200 OK', httpHeaders: { 'Content-Type': 'text/html' } },
    (async function* () {
      yield new TextEncoder().encode(html);
    })(),
  );
  if (!out.write(await WARCSerializer.serialize(rec, { gzip: true }))) await new Promise<void>((r) => out.once('drain', () => r()));
}
await new Promise<void>((r) => {
  fileOut.once('close', () => r());
  out.end();
});

const mib = (b: number) => (b / 2 ** 20).toFixed(0);
console.log(`${n} records of ${paragraphs} paragraphs, ${(statSync(file).size / 1e6).toFixed(1)} MB gzip ${jsonl ? 'JSONL' : 'WARC'}`);

/** One import into a fresh data folder: pages read on this thread, or on the reader threads as `websearch import` does. */
async function importOnce(threads: number): Promise<number> {
  const data = tempDir();
  const services = await createServices(loadSettings({ env: {}, flags: { dataDir: data.path, readerThreads: threads } }));
  await services.reader?.start();
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(process.memoryUsage().rss), 200);
  const started = performance.now();
  const read = services.reader ? { read: services.reader.readQueued } : {};
  const imported = jsonl ? (await importJsonl(services.pages, file, read)).imported : (await importWarc(services.pages, file, read)).imported;
  const secs = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const q = (f: number) => samples[Math.floor(f * (samples.length - 1))]!;
  const where = threads === 0 ? 'on the importing thread' : `on ${threads} reader thread${threads > 1 ? 's' : ''}`;
  console.log(`read ${where}: imported ${imported} in ${secs.toFixed(1)} s (${(n / secs).toFixed(0)} records/s)`);
  console.log(`  RSS during the import: at 10% ${mib(q(0.1))} MiB, 50% ${mib(q(0.5))} MiB, 90% ${mib(q(0.9))} MiB, peak ${mib(Math.max(...samples))} MiB`);
  await services.close();
  data.remove();
  return n / secs;
}

const inline = await importOnce(0);
const threaded = await importOnce(readerThreads);
console.log(`reader threads / importing thread: ${(threaded / inline).toFixed(2)}x records/s`);
dir.remove();
