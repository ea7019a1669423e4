/**
 * A worker thread of the reader pool: turns one fetched response at a time into a page
 * (acquire's pageFromResponse: charset, HTML or PDF to markdown, metadata, bot-challenge check;
 * then the content's passage index, near-duplicate fingerprint and, for a request, language) and answers with the page or the error, as plain data, and
 * the size of its heap. It says 'ready' once its modules are loaded.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { pageFromResponse } from '../../acquire/live-fetch.js';
import { ServiceError } from '../../core/errors.js';
import { pageLanguage } from '../../core/language.js';
import { nearFingerprint } from '../../core/near-duplicate.js';
import { buildPassages } from '../../core/passages.js';
import type { ReaderAnswer, ReaderJob, ReaderOutcome } from './reader-pool.js';

parentPort!.on('message', async ({ id, res, language }: ReaderJob) => {
  let outcome: ReaderOutcome;
  try {
    // A Buffer arrives as a Uint8Array; the readers need a Buffer over the same bytes.
    const body = Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength);
    const page = await pageFromResponse({ ...res, body });
    // The passage index, fingerprint and language the store would make on the serving thread (tens of ms for a long page).
    const passages = buildPassages(page.content);
    if (passages) page.passages = passages;
    page.near = nearFingerprint(page.content) ?? new Uint8Array(0);
    // And its language when asked, guessed when it declares none (up to a millisecond for a long page).
    if (language) page.language = pageLanguage(page.lang, page.content) ?? null;
    outcome = { page };
  } catch (e) {
    outcome =
      e instanceof ServiceError
        ? { error: { code: e.code, message: e.message, extra: e.extra } }
        : { error: { message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined } };
  }
  parentPort!.postMessage({ id, heapBytes: getHeapStatistics().total_heap_size, ...outcome } satisfies ReaderAnswer);
});
parentPort!.postMessage('ready');
