import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { html, type Origin, startOrigin } from '../fixtures/origin.js';
import { createFundedKey, createTestEnv, page, type TestEnv } from '../helpers.js';

let origin: Origin;
let env: TestEnv;
let key: string;
before(async () => {
  origin = await startOrigin({
    '/fresh': html('<article><p>Fresh news: the bridge over the estuary reopened this morning after repairs.</p></article>'),
    '/gone': html('gone', 404),
    '/stalled': (_q, r) => {
      r.writeHead(200, { 'content-type': 'text/html' });
      r.write('<p>estuary');
    },
  });
  env = await createTestEnv({ allowPrivateNetwork: true, realtimeDeadlineMs: 700 });
  // As `serve` does once it listens: a reader thread loading its modules (tsx here) takes most of the deadline.
  await env.services.reader!.start();
  for (const path of ['/fresh', '/gone', '/stalled']) {
    await env.services.pages.putVersion(
      page(`${origin.url}${path}`, { content: `Old indexed text about the estuary bridge closure (${path}).`, acquiredAt: Date.parse('2026-01-01T00:00:00Z') }),
    );
  }
  key = (await createFundedKey(env.services, 1_000_000)).key;
});
after(async () => {
  await env.close();
  await origin.close();
});

test('realtime_content: snippets from a live fetch, acquired_at the fetch time; failures keep the indexed snippet; one deadline', async () => {
  const started = Date.now();
  const res = await env.app.inject({
    method: 'POST',
    url: '/v1/search',
    headers: { 'x-api-key': key },
    payload: { query: 'estuary bridge', mode: 'realtime_content' },
  });
  const elapsed = Date.now() - started;
  assert.equal(res.statusCode, 200, res.body);
  const byPath = Object.fromEntries(
    (res.json().results as { url: string; snippet: string; acquired_at: string }[]).map((r) => [new URL(r.url).pathname, r]),
  );
  assert.match(byPath['/fresh']!.snippet, /^Fresh news: the bridge over the estuary reopened/);
  assert.ok(Date.parse(byPath['/fresh']!.acquired_at) >= started, 'acquired_at is the fetch time');
  assert.match(byPath['/gone']!.snippet, /^Old indexed text/);
  assert.equal(byPath['/gone']!.acquired_at, '2026-01-01T00:00:00.000Z');
  assert.match(byPath['/stalled']!.snippet, /^Old indexed text/);
  assert.ok(elapsed < 5000, `the stalled page did not hold the search beyond the deadline (${elapsed} ms)`);
  const history = await env.services.pages.history(`${origin.url}/fresh`);
  assert.equal(history.length, 2, 'the fresh content is stored as a new version');
  assert.equal(history[1]!.searchable, true);
});
