/**
 * The reader pool: fetched responses turned into pages on worker threads, with the same result as
 * on the calling thread, errors that keep their code, and limits on waiting, time and memory.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { RawResponse } from '../../src/acquire/http-client.js';
import { languageOf, pageFromResponse } from '../../src/acquire/live-fetch.js';
import { ReaderPool } from '../../src/adapters/reader/reader-pool.js';
import { ServiceError } from '../../src/core/errors.js';
import { pageLanguage } from '../../src/core/language.js';
import { nearFingerprint } from '../../src/core/near-duplicate.js';
import { buildPassages } from '../../src/core/passages.js';

const response = (html: string, o: Partial<RawResponse> = {}): RawResponse => ({
  requestedUrl: 'https://example.com/a',
  url: 'https://example.com/a',
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: Buffer.from(html),
  fetchedAt: 1_700_000_000_000,
  ...o,
});

const ARTICLE = `<html lang="en"><head><title>Otters</title><meta name="author" content="Ada"></head><body><nav><a href="/">Home</a></nav>
<article><h1>Otters</h1>${Array.from({ length: 60 }, (_, i) => `<p>Otter number ${i} is a semiaquatic mammal that eats fish and crabs, and holds hands while sleeping.</p>`).join('')}
<p>See <a href="/sea-otters">sea otters</a>.</p></article></body></html>`;
/** A page whose reading takes seconds (300,000 paragraphs). */
const SLOW = `<html><body>${'<p>ab</p>'.repeat(300_000)}</body></html>`;

const pools: ReaderPool[] = [];
const pool = (o: Partial<ConstructorParameters<typeof ReaderPool>[0]> = {}) => {
  const p = new ReaderPool({ threads: 1, timeoutMs: 60_000, maxWaiting: 8, maxHeapMb: 1024, ...o });
  pools.push(p);
  return p;
};
after(async () => {
  for (const p of pools) await p.close();
});

const rejectsWith = async (p: Promise<unknown>, code: string, message?: RegExp) => {
  const e = await p.then(
    () => assert.fail(`expected ${code}`),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ServiceError, `a ServiceError, not ${String(e)}`);
  assert.equal(e.code, code);
  if (message) assert.match(e.message, message);
  return e;
};

test('a page read on a thread is the page read here, with its passage index, fingerprint and language', async () => {
  const readers = pool({ threads: 2 });
  const res = response(ARTICLE);
  const here = await pageFromResponse(res);
  const [there, again] = await Promise.all([readers.read(res), readers.read(res)]);
  const { passages, near, language, ...page } = there;
  assert.deepEqual(page, here);
  assert.equal(language, 'en', 'the language it declares');
  assert.ok(passages && passages.length > 0, 'a long page comes with its passage index');
  assert.deepEqual(Buffer.from(passages), Buffer.from(buildPassages(here.content)!));
  const print = nearFingerprint(here.content);
  assert.ok(print, 'the article is long enough for a fingerprint');
  assert.deepEqual(Buffer.from(near!), Buffer.from(print));
  const short = await readers.read(response('<p>A short page.</p>'));
  assert.deepEqual(short.near && [...short.near], [], 'a text too short for one: an empty one, not none');
  assert.equal(short.language, null, 'too short for a guess: none, not left to be made');
  // A page that declares none: the guess from its text, as the thread that stores it would make it.
  const undeclared = await readers.read(response(ARTICLE.replace(' lang="en"', '').replace('<title>', '<title>Loutres ').replace(/is a semiaquatic mammal that eats fish and crabs, and/g, 'est un animal qui mange les poissons dans les rivières et')));
  assert.equal(undeclared.lang, undefined);
  assert.equal(undeclared.language, 'fr');
  assert.equal(languageOf(undeclared), 'fr');
  assert.equal(languageOf({ ...undeclared, language: undefined }), pageLanguage(undefined, undeclared.content));
  // A crawl's or an import's page leaves it to the thread that stores it, which mostly waits for the readers.
  const { language: queued, ...queuedPage } = await readers.readQueued(res);
  assert.equal(queued, undefined);
  assert.deepEqual(queuedPage, { ...page, passages, near });
  assert.deepEqual(again, there);
  assert.deepEqual(readers.load, { reading: 0, waiting: 0 });
});

test('errors keep their code across the thread: a bot challenge, an unsupported type; a PDF that is not one', async () => {
  const readers = pool();
  await rejectsWith(readers.read(response('<html><head><title>Just a moment...</title></head><body>Checking your browser before accessing</body></html>', { status: 503 })), 'origin_blocked');
  const e = await rejectsWith(readers.read(response('GIF89a', { headers: { 'content-type': 'image/gif' } })), 'origin_error', /Unsupported content type image\/gif/);
  assert.equal(e.status, 502);
  await rejectsWith(readers.read(response('%PDF-1.7 broken', { headers: { 'content-type': 'application/pdf' } })), 'origin_error', /PDF could not be read/);
  assert.equal((await readers.read(response('<p>still reading</p>'))).content, 'still reading', 'the thread goes on after an error');
});

test('pages beyond the threads wait; one more than maxWaiting is refused with 503 server_busy and Retry-After', async () => {
  const readers = pool({ maxWaiting: 2 });
  const reading = readers.read(response(SLOW));
  const waiting = [readers.read(response('<p>one</p>')), readers.read(response('<p>two</p>'))];
  assert.deepEqual(readers.load, { reading: 1, waiting: 2 });
  const busy = await rejectsWith(readers.read(response('<p>three</p>')), 'server_busy');
  assert.equal(busy.status, 503);
  assert.equal(busy.headers['retry-after'], '1');
  // A crawl's pages are bounded by its own concurrency, not by maxWaiting.
  const queued = readers.readQueued(response('<p>queued</p>'));
  assert.deepEqual(readers.load, { reading: 1, waiting: 3 });
  assert.ok((await reading).content.includes('ab'));
  assert.deepEqual((await Promise.all(waiting)).map((p) => p.content), ['one', 'two']);
  assert.equal((await queued).content, 'queued');
});

test('a waiting page whose caller gives up leaves the queue', async () => {
  const readers = pool();
  const reading = readers.read(response(SLOW));
  const stop = new AbortController();
  const waiting = readers.read(response('<p>late</p>'), stop.signal);
  assert.equal(readers.load.waiting, 1);
  stop.abort(new Error('deadline'));
  await assert.rejects(waiting, /deadline/);
  assert.equal(readers.load.waiting, 0);
  await reading;
});

test('a page over the time limit fails with 502 origin_error; a new thread reads the next page', async () => {
  const logged: string[] = [];
  const readers = pool({ timeoutMs: 300, log: (_level, msg) => logged.push(msg) });
  await readers.start(); // the limit counts from when the thread is ready, not while it loads
  const slow = rejectsWith(readers.read(response(SLOW)), 'origin_error', /within 300 ms/);
  const next = readers.read(response('<p>after the slow one</p>'));
  await slow;
  assert.equal((await next).content, 'after the slow one');
  assert.ok(logged.some((m) => /took too long/.test(m)), logged.join('; '));
});

test('a page that needs more than the heap fails with 502 origin_error; a new thread reads the next page', async () => {
  const readers = pool({ maxHeapMb: 64 });
  const huge = response(`<html><body>${'<i>x</i>'.repeat(1_250_000)}</body></html>`);
  await rejectsWith(readers.read(huge), 'origin_error', /needs more than 64 MiB/);
  assert.equal((await readers.read(response('<p>small</p>'))).content, 'small');
});

test('a thread whose heap a page grew past recycleHeapBytes is replaced after it, so the memory goes back', async () => {
  const kept = pool();
  await kept.read(response(ARTICLE));
  const [first] = kept.threadIds;
  await kept.read(response(ARTICLE));
  assert.deepEqual(kept.threadIds, [first], 'a heap under the limit keeps its thread');
  const recycled = pool({ recycleHeapBytes: 1 });
  await recycled.read(response(ARTICLE));
  const [before] = recycled.threadIds;
  assert.ok(before !== undefined, 'a new thread is started at once');
  const page = await recycled.read(response('<p>read by the new thread</p>'));
  assert.equal(page.content, 'read by the new thread');
  assert.notDeepEqual(recycled.threadIds, [before]);
});

test('close fails what waits and what is being read with 503 service_unavailable, and what comes after', async () => {
  const readers = pool();
  const reading = rejectsWith(readers.read(response(SLOW)), 'service_unavailable');
  const waiting = rejectsWith(readers.read(response('<p>never</p>')), 'service_unavailable');
  await readers.close();
  await reading;
  await waiting;
  await rejectsWith(readers.read(response('<p>later</p>')), 'service_unavailable');
});
