/** Pages that are no page's content (acquire/challenge.ts): a redirect to a consent page. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageFromResponse } from '../../src/acquire/live-fetch.js';
import { ServiceError } from '../../src/core/errors.js';

const consentHtml = '<html><head><title>Before you continue to YouTube</title></head><body><main><p>We use cookies and data to deliver and maintain services, track outages and protect against spam, fraud and abuse.</p><form><button>Accept all</button></form></main></body></html>';
const answer = (requestedUrl: string, url: string) => ({ requestedUrl, url, status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(consentHtml), fetchedAt: 0 });

test("a request redirected to a consent page (consent.*, guce.*) is origin_blocked, not the cookie banner's text; the consent page asked for by its URL is read", async () => {
  for (const [from, to] of [
    ['https://www.youtube.com/watch?v=1', 'https://consent.youtube.com/m?continue=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3D1'],
    ['https://news.yahoo.com/a', 'https://guce.yahoo.com/consent?sessionId=1'],
  ]) {
    await assert.rejects(pageFromResponse(answer(from!, to!)), (e: unknown) => e instanceof ServiceError && e.code === 'origin_blocked' && /consent page/.test(e.message), to);
  }
  const asked = await pageFromResponse(answer('https://consent.youtube.com/m', 'https://consent.youtube.com/m'));
  assert.match(asked.content, /We use cookies/);
  // A host that only starts with the word is no consent host.
  assert.match((await pageFromResponse(answer('https://a.test/x', 'https://consentmanager.test/x'))).content, /We use cookies/);
});
