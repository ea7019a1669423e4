/**
 * Live fetches of made-up origins (test/fixtures/made-up-origin.ts): the service must answer each
 * with a documented status and error body, never a 500, and within its deadline; a failed fetch
 * is never charged and stores nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rng } from '../../bench/scifact.js';
import { KEYED_REQUEST_COST } from '../../src/access/keyed/keyed-tier.js';
import { type MadeUpOrigin, startMadeUpOrigin } from '../fixtures/made-up-origin.js';
import { createFundedKey, createTestEnv, page, type TestEnv } from '../helpers.js';

const FETCH_TIMEOUT_MS = 400;
/** What a failed live fetch may answer (DESIGN's error table). */
const FAILURES = new Map([
  ['url_not_allowed', 400],
  ['blocked_by_robots', 403],
  ['origin_error', 502],
  ['origin_blocked', 502],
  ['origin_timeout', 504],
]);

describe('made-up origins', () => {
  const random = rng(31);
  let origin: MadeUpOrigin;
  let env: TestEnv;
  let key: string;
  let orgId: string;

  before(async () => {
    origin = await startMadeUpOrigin(random);
    env = await createTestEnv({ allowPrivateNetwork: true, fetchTimeoutMs: FETCH_TIMEOUT_MS });
    ({ key, org: { id: orgId } } = await createFundedKey(env.services, 100_000_000, 1_000_000));
  });
  after(async () => {
    await env.close();
    await origin.close();
  });

  test('every live fetch is answered with a documented status; a failure charges and stores nothing', async () => {
    const outcomes = new Map<string, number>();
    const one = async () => {
      const path = origin.answer();
      const url = `${origin.base}${path}`;
      const sent = origin.sent(path);
      let timer: NodeJS.Timeout | undefined;
      const res = await Promise.race([
        env.app.inject({ url: `/v1/fetch?url=${encodeURIComponent(url)}&live=true`, headers: { 'x-api-key': key } }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${sent}: no answer in 10 s, with a deadline of ${FETCH_TIMEOUT_MS} ms`)), 10_000);
        }),
      ]).finally(() => clearTimeout(timer));
      const what = `${sent} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
      const body = JSON.parse(res.body) as { code?: unknown; error?: unknown; content?: unknown };
      if (res.statusCode === 200) {
        assert.equal(typeof body.content, 'string', what);
        outcomes.set('200', (outcomes.get('200') ?? 0) + 1);
        return true;
      }
      assert.ok(typeof body.error === 'string' && typeof body.code === 'string', what);
      assert.equal(FAILURES.get(body.code as string), res.statusCode, what);
      outcomes.set(body.code as string, (outcomes.get(body.code as string) ?? 0) + 1);
      assert.equal(await env.services.pages.latest(url), undefined, `${what}: a failed fetch stored the page`);
      return false;
    };
    for (let n = 0; n < 400; n++) {
      const before = (await env.services.ledger.balance(orgId))!;
      // Now and then a few at once, on the client's shared connections: a bad answer must not spoil the others.
      const answered = (await Promise.all(random() < 0.1 ? [one(), one(), one()] : [one()])).filter(Boolean).length;
      assert.equal(await env.services.ledger.balance(orgId), before - answered * KEYED_REQUEST_COST, 'charged once for each fetch answered, never for a failure');
    }
    // The made-up answers reach every outcome, so the run checks each of them.
    console.log(JSON.stringify([...outcomes]));
    for (const outcome of ['200', 'origin_error', 'origin_blocked', 'origin_timeout']) assert.ok((outcomes.get(outcome) ?? 0) >= 3, `${outcome}: ${JSON.stringify([...outcomes])}`);
  });
});

describe('realtime_content over made-up origins', () => {
  test('a search whose results live on origins that misbehave answers 200, charged once, each result keeping a snippet', { timeout: 120_000 }, async () => {
    const random = rng(53);
    const origin = await startMadeUpOrigin(random, { wellFormed: 0.3 });
    const env = await createTestEnv({ allowPrivateNetwork: true, fetchTimeoutMs: FETCH_TIMEOUT_MS, realtimeDeadlineMs: 1500 });
    try {
      const { key, org } = await createFundedKey(env.services, 100_000_000, 1_000_000);
      for (let round = 0; round < 12; round++) {
        const urls = Array.from({ length: 10 }, () => `${origin.base}${origin.answer()}`);
        await env.services.pages.putVersions(urls.map((url) => page(url, { content: `Herons wade in round ${round} of the estuary, which the page describes at length.` })));
        const before = (await env.services.ledger.balance(org.id))!;
        const res = await env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query: `herons round ${round}`, mode: 'realtime_content', max_results: 10 } });
        const sent = urls.map((u) => origin.sent(new URL(u).pathname)).join('\n');
        assert.equal(res.statusCode, 200, `${res.body.slice(0, 300)}\n${sent}`);
        const results = res.json().results as { url: string; snippet?: string; acquired_at: string }[];
        assert.ok(results.length > 0, sent);
        for (const r of results) assert.ok(typeof r.snippet === 'string' && r.snippet.length > 0 && !Number.isNaN(Date.parse(r.acquired_at)), JSON.stringify(r));
        assert.equal(await env.services.ledger.balance(org.id), before - KEYED_REQUEST_COST);
      }
    } finally {
      await env.close();
      await origin.close();
    }
  });
});
