/**
 * `websearch import file.warc[.gz]`: Web ARChive files (Common Crawl's among them). `response`
 * records are read as a stream (multi-member gzip included), their HTTP payloads de-chunked and
 * decompressed, extracted like a live fetch, and stored as versions acquired at the record's
 * WARC-Date. Other record types, non-200 answers and non-text payloads are counted and skipped.
 */
import { createReadStream } from 'node:fs';
import { WARCParser } from 'warcio';
import { ServiceError } from '../core/errors.js';
import { normalizeUrl } from '../core/url.js';
import type { NewVersion, PageStore } from '../ports/page-store.js';
import { pageFromResponse, versionOf } from './live-fetch.js';

export interface WarcSummary {
  records: number;
  imported: number;
  unchanged: number;
  /** Records that are not HTTP responses (warcinfo, request, metadata, ...). */
  notResponses: number;
  /** Responses that are not 200 or not HTML/text (images, redirects, ...), or are bot challenges. */
  skipped: number;
  /** Records that could not be read. */
  broken: number;
  brokenReasons: string[];
}

const MAX_PAYLOAD = 10 * 1024 * 1024;

export async function importWarc(
  pages: PageStore,
  path: string,
  options: { onProgress?: (s: WarcSummary) => void; batchSize?: number } = {},
): Promise<WarcSummary> {
  const s: WarcSummary = { records: 0, imported: 0, unchanged: 0, notResponses: 0, skipped: 0, broken: 0, brokenReasons: [] };
  const broken = (why: string) => {
    s.broken++;
    if (s.brokenReasons.length < 100) s.brokenReasons.push(why);
  };
  let batch: NewVersion[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    for (const o of await pages.putVersions(batch)) {
      if (o.status === 'added') s.imported++;
      else s.unchanged++;
    }
    batch = [];
    options.onProgress?.(s);
  };
  try {
    for await (const record of WARCParser.iterRecords(createReadStream(path))) {
      s.records++;
      if (record.warcType !== 'response') {
        s.notResponses++;
        continue;
      }
      const url = normalizeUrl(record.warcTargetURI ?? '');
      const acquiredAt = Date.parse(record.warcDate ?? '');
      const status = Number(record.httpHeaders?.statusCode);
      if (!url || Number.isNaN(acquiredAt) || !Number.isInteger(status)) {
        broken(`record ${s.records}: missing target URI, date or HTTP status`);
        continue;
      }
      if (status !== 200 || Number(record.warcHeaders.headers.get('content-length') ?? 0) > MAX_PAYLOAD) {
        s.skipped++;
        continue;
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
        broken(`record ${s.records} (${url}): ${(e as Error).message}`);
        continue;
      }
      try {
        const page = await pageFromResponse({ requestedUrl: url, url, status, headers, body, fetchedAt: acquiredAt });
        if (!page.content.trim()) {
          s.skipped++;
          continue;
        }
        batch.push(versionOf(page, { url, acquiredAt, searchable: !page.noindex }));
      } catch (e) {
        if (e instanceof ServiceError) s.skipped++;
        else broken(`record ${s.records} (${url}): ${(e as Error).message}`);
        continue;
      }
      if (batch.length >= (options.batchSize ?? 200)) await flush();
    }
  } catch (e) {
    broken(`the file stops being readable after record ${s.records}: ${(e as Error).message}`);
  }
  await flush();
  return s;
}
