/**
 * `websearch import file.warc[.gz]`: Web ARChive files (Common Crawl's among them). `response`
 * records are read as a stream (multi-member gzip included), their HTTP payloads de-chunked and
 * decompressed, extracted like a live fetch, and stored as versions acquired at the record's
 * WARC-Date. Other record types, non-200 answers and non-text payloads are counted and skipped.
 *
 * Given `read` (the reader threads' `readQueued`), pages are extracted on those threads, with their
 * limits of time and heap per page, while this thread parses the next records and writes batches;
 * up to `inFlight` pages are read at once, and they are stored in the file's order.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { LimitReader, WARCParser, type WARCRecord } from 'warcio';
import { ServiceError } from '../core/errors.js';
import { normalizeUrl } from '../core/url.js';
import { acquiredTooLate } from '../core/time.js';
import type { NewVersion, PageStore } from '../ports/page-store.js';
import type { LivePage } from '../ports/live-fetcher.js';
import type { RawResponse } from './http-client.js';
import { parseLooseTime } from './html-time.js';
import { InOrder } from './in-order.js';
import { isPage, pageFromResponse, type ReadPage, versionOf } from './live-fetch.js';

export interface WarcSummary {
  records: number;
  imported: number;
  unchanged: number;
  /** Records that are not HTTP responses (warcinfo, request, metadata, ...). */
  notResponses: number;
  /** Responses that are not 200, not of an http(s) URL (`dns:`) or not HTML/text (images, redirects, ...), bot challenges, or pages not readable (within the reader's limits). */
  skipped: number;
  /** Responses of pages the operator removed (websearch pages remove): not stored. */
  removed: number;
  /** Records that could not be read. */
  broken: number;
  brokenReasons: string[];
}

const MAX_PAYLOAD = 10 * 1024 * 1024;

/**
 * Reads what is left of a record's content and returns how many of its declared bytes were not
 * there: 0 for a whole record, more for one the file's end cuts short. (Less than 0 when warcio
 * read HTTP headers past the record's end, as it does for a crawler's `dns:` response records,
 * whose payload has none: it finds its way to the next record, and where it does not, the check
 * of the parser's offset against the file's size at the end says so.)
 */
async function drained(limited: LimitReader | undefined): Promise<number> {
  if (!limited) return 0;
  for await (const chunk of limited) void chunk;
  return limited.limit;
}

/** A response record on its way to becoming a version: its page is being read. */
interface Reading {
  record: number;
  url: string;
  acquiredAt: number;
}

export async function importWarc(
  pages: PageStore,
  path: string,
  options: { onProgress?: (s: WarcSummary) => void; batchSize?: number; read?: ReadPage; inFlight?: number; now?: () => number } = {},
): Promise<WarcSummary> {
  const now = options.now ?? Date.now;
  const read = options.read ?? pageFromResponse;
  const inFlight = options.read ? (options.inFlight ?? 8) : 1;
  const s: WarcSummary = { records: 0, imported: 0, unchanged: 0, notResponses: 0, skipped: 0, removed: 0, broken: 0, brokenReasons: [] };
  const broken = (why: string) => {
    s.broken++;
    if (s.brokenReasons.length < 100) s.brokenReasons.push(why);
  };
  let batch: NewVersion[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    for (const o of await pages.putVersions(batch)) {
      if (o.status === 'added') s.imported++;
      else if (o.status === 'removed') s.removed++;
      else s.unchanged++;
    }
    batch = [];
    options.onProgress?.(s);
  };
  /**
   * A response record's response, to be read as a page; undefined for a record that is counted and
   * skipped (another type, not a 200 or too large, unreadable).
   */
  const responseOf = async (record: WARCRecord, n: number): Promise<{ reading: Reading; response: RawResponse } | undefined> => {
    if (record.warcType !== 'response') {
      s.notResponses++;
      return undefined;
    }
    const target = record.warcTargetURI ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !/^https?:/i.test(target)) {
      s.skipped++; // not a web page: a crawler's `dns:` records, say
      return undefined;
    }
    const url = normalizeUrl(target);
    // Read as a page's own times are (in years 0000-9999): Date.parse alone rolled 2026-02-30 over to March 2.
    const acquiredAt = parseLooseTime(record.warcDate ?? undefined);
    const status = Number(record.httpHeaders?.statusCode);
    if (!url || acquiredAt === undefined || !Number.isInteger(status)) {
      broken(`record ${n}: missing target URI, date or HTTP status`);
      return undefined;
    }
    if (acquiredTooLate(acquiredAt, now())) {
      broken(`record ${n}: WARC-Date ${record.warcDate} is not a time of capture (more than a day after now)`);
      return undefined;
    }
    if (status !== 200 || Number(record.warcHeaders.headers.get('content-length') ?? 0) > MAX_PAYLOAD) {
      s.skipped++;
      return undefined;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of record.httpHeaders!.headers as Iterable<[string, string]>) headers[k.toLowerCase()] = v;
    // The payload is already de-chunked and decompressed; its encodings no longer apply.
    delete headers['content-encoding'];
    delete headers['transfer-encoding'];
    let body: Buffer;
    try {
      body = Buffer.from(await record.readFully(true));
    } catch (e) {
      broken(`record ${n} (${url}): ${(e as Error).message}`);
      return undefined;
    }
    const response: RawResponse = { requestedUrl: url, url, status, headers, body, fetchedAt: acquiredAt };
    if (!isPage(response)) {
      s.skipped++; // a script, an image, a feed: no page to store
      return undefined;
    }
    return { reading: { record: n, url, acquiredAt }, response };
  };
  /** A page read, stored (or counted as skipped or broken). */
  const reading = new InOrder<LivePage, Reading>(inFlight, async (r, outcome) => {
    if ('error' in outcome) {
      if (outcome.error instanceof ServiceError) s.skipped++;
      else broken(`record ${r.record} (${r.url}): ${(outcome.error as Error).message}`);
      return;
    }
    const page = outcome.value;
    if (!page.content.trim()) {
      s.skipped++;
      return;
    }
    batch.push(versionOf(page, { url: r.url, acquiredAt: r.acquiredAt, searchable: !page.noindex }));
    if (batch.length >= (options.batchSize ?? 200)) await flush();
  });
  try {
    const parser = new WARCParser(createReadStream(path));
    let stopped = false;
    for await (const record of parser) {
      s.records++;
      const limited = record.reader instanceof LimitReader ? record.reader : undefined;
      const got = await responseOf(record, s.records);
      // The record's bytes are all read here, never left to warcio to skip: its skip past the end
      // of a cut file never ends (a loop of microtasks: the import would spin forever).
      const left = await drained(limited);
      if (left > 0) {
        broken(`the file is cut short in record ${s.records}${got ? ` (${got.reading.url})` : ''}: ${left} of its bytes are missing`);
        stopped = true;
        break;
      }
      if (got) await reading.push(got.reading, read(got.response));
    }
    // warcio ends without a word where a gzip member is cut short (a partial download) or where it
    // lost its place; either way the file goes on past the last record it read.
    const size = (await stat(path)).size;
    if (!stopped && parser.offset < size) broken(`the file's last ${size - parser.offset} bytes, after record ${s.records}, are no whole record (is the file cut short?)`);
  } catch (e) {
    broken(`the file stops being readable after record ${s.records}: ${(e as Error).message}`);
  }
  await reading.drain();
  await flush();
  return s;
}
