import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createFundedKey, createTestEnv, page, type TestEnv } from '../helpers.js';

const T = (iso: string) => Date.parse(iso);

describe('webql search mode (keyed)', () => {
  let env: TestEnv;
  let key: string;
  let orgId: string;
  before(async () => {
    env = await createTestEnv();
    // A rate limit out of the way: the tests send many requests in a second, and limits have tests of their own.
    ({ key, org: { id: orgId } } = await createFundedKey(env.services, 10_000_000, 1_000_000));
    await env.services.pages.putVersions([
      page('https://rust.test/book/ownership', {
        title: 'Ownership in Rust',
        content: 'The garbage collector is absent: ownership rules free memory.',
        lang: 'en-gb',
        publishedAt: T('2025-03-01T00:00:00Z'),
      }),
      page('https://blog.go.test/gc', {
        title: 'Go GC',
        content: 'The Go garbage collector is concurrent and the collector is fast.',
        lang: 'en',
        publishedAt: T('2023-03-01T00:00:00Z'),
      }),
      page('https://java.test/Posts/collector', {
        title: 'Collector tuning',
        content: 'A collector of garbage: tuning the JVM heap and its garbage.',
        lang: 'en',
        publishedAt: T('2024-03-01T00:00:00Z'),
      }),
      page('https://de.test/speicher', {
        title: 'Speicherbereinigung',
        content: 'Der garbage collector gibt Speicher frei.',
        lang: 'de',
        acquiredAt: T('2026-02-01T00:00:00Z'),
      }),
      page('http://plain.test/docs/python', {
        title: 'Python memory',
        content: 'Reference counting with a cycle collector.',
        acquiredAt: T('2026-03-01T00:00:00Z'),
      }),
      page('https://ja.test/tenki', { title: '天気', content: '午後になって東京の天気は急に変わりました。', acquiredAt: T('2025-01-01T00:00:00Z') }),
      page('https://ko.test/nalssi', { content: '오늘 서울의 날씨는 맑습니다.', acquiredAt: T('2025-01-01T00:00:00Z') }),
      page('https://wiki.test/wiki/%E4%BA%AC%E9%83%BD', { title: 'Kyoto', content: 'The old capital.', acquiredAt: T('2025-01-01T00:00:00Z') }),
      page('https://wiki.test/wiki/Stra%C3%9Fe', { title: 'Road', content: 'A road page.', acquiredAt: T('2025-01-01T00:00:00Z') }),
      page('https://post.test/desk', { title: 'E-mail desk', content: 'Send an e-mail to the desk.', acquiredAt: T('2025-01-01T00:00:00Z') }),
      page('https://post.test/inbox', {
        title: 'Inbox',
        content: `${'Plan the morning around quiet work before any meeting starts. '.repeat(12)}Read your email once a day.`,
        acquiredAt: T('2025-01-01T00:00:00Z'),
      }),
      page('https://post.test/letters', { title: 'Letters', content: 'The letter e of the mail, an e mail.', acquiredAt: T('2025-01-01T00:00:00Z') }),
      page('https://shop.test/price', { title: 'Laptops under 1,000', content: 'Good laptops cost 1,000 dollars now.', acquiredAt: T('2025-01-01T00:00:00Z') }),
      page('https://shop.test/bargains/1,500', { title: 'Deals', content: 'Desktops on sale.', acquiredAt: T('2025-01-01T00:00:00Z') }),
    ]);
  });
  after(() => env.close());

  const webql = async (query: string, extra: object = {}) => {
    const res = await env.app.inject({
      method: 'POST',
      url: '/v1/search',
      headers: { 'x-api-key': key },
      payload: { query, mode: 'webql', ...extra },
    });
    return { status: res.statusCode, body: res.json() };
  };
  const urls = async (query: string, extra: object = {}) => {
    const r = await webql(query, extra);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.results as { url: string }[]).map((x) => x.url).sort();
  };
  const RUST = 'https://rust.test/book/ownership';
  const GO = 'https://blog.go.test/gc';
  const JAVA = 'https://java.test/Posts/collector';
  const DE = 'https://de.test/speicher';
  const PY = 'http://plain.test/docs/python';

  test('bare terms: every term must match', async () => {
    assert.deepEqual(await urls('garbage collector'), [GO, JAVA, DE, RUST].sort());
    assert.deepEqual(await urls('garbage ownership'), [RUST]);
  });

  test('a bare word finds a page\'s hyphenated compound by the words joined, and reads its own compound both ways; a phrase or a field matches the words as written', async () => {
    const DESK = 'https://post.test/desk';
    const INBOX = 'https://post.test/inbox';
    const LETTERS = 'https://post.test/letters';
    assert.deepEqual(await urls('email'), [DESK, INBOX]);
    // `e-mail` is "e mail" (side by side: not `e` and `mail` apart) or `email`.
    assert.deepEqual(await urls('e-mail'), [DESK, INBOX, LETTERS]);
    assert.deepEqual(await urls('"e mail"'), [DESK, LETTERS]);
    assert.deepEqual(await urls('e-mail -desk'), [INBOX, LETTERS]);
    assert.deepEqual(await urls('e-mail -e-mail'), []);
    assert.deepEqual(await urls('desk OR e-mail'), [DESK, INBOX, LETTERS]);
    assert.deepEqual(await urls('"e-mail desk"'), [DESK]);
    assert.deepEqual(await urls('"e-mail"'), [DESK, LETTERS]);
    assert.deepEqual(await urls('title:e-mail'), [DESK]);
    assert.deepEqual(await urls('title:email'), []);
    assert.deepEqual(await urls('"email desk"'), []);
    // The snippet is the sentence of the joined reading, at the end of a page longer than a snippet.
    const r = await webql('e-mail');
    const snippets = Object.fromEntries((r.body.results as { url: string; snippet: string }[]).map((x) => [x.url, x.snippet]));
    assert.match(snippets[INBOX]!, /Read your email once a day/);
  });

  test('a number grouped by thousands is its digits in bare words, phrases and fields', async () => {
    const PRICE = 'https://shop.test/price';
    assert.deepEqual(await urls('1000'), [PRICE]);
    assert.deepEqual(await urls('"1000 dollars"'), [PRICE]);
    assert.deepEqual(await urls('"1,000 dollars"'), [PRICE]);
    assert.deepEqual(await urls('title:1000'), [PRICE]);
    assert.deepEqual(await urls('"1000 euros"'), []);
    // A number in the URL alone is answered as any word in the URL alone is.
    assert.deepEqual(await urls('1500'), await urls('bargains'));
  });

  test('phrases match adjacent words in order only', async () => {
    assert.deepEqual(await urls('"garbage collector"'), [GO, DE, RUST].sort());
    // java.test has both words, never side by side in this order.
    assert.deepEqual(await urls('"collector garbage"'), []);
    assert.deepEqual(await urls('"collector of garbage"'), [JAVA]);
  });

  test('phrases and terms in Japanese, written without spaces', async () => {
    const JA = 'https://ja.test/tenki';
    assert.deepEqual(await urls('東京'), [JA]);
    assert.deepEqual(await urls('"東京の天気"'), [JA]);
    assert.deepEqual(await urls('"の天気は急"'), [JA]);
    assert.deepEqual(await urls('"天気の東京"'), []);
    assert.deepEqual(await urls('title:天気 -京都'), [JA]);
  });

  test('phrases and terms in Korean, whose words carry their particles', async () => {
    const KO = 'https://ko.test/nalssi';
    assert.deepEqual(await urls('서울 날씨'), [KO]);
    assert.deepEqual(await urls('"서울의 날씨"'), [KO]);
    assert.deepEqual(await urls('"날씨의 서울"'), []);
    assert.deepEqual(await urls('서울 -날씨'), []);
  });

  test('a text item matches the page\'s text, not the words of its URL, which are read from its escapes', async () => {
    // This page's URL holds 京都 (escaped), its text does not.
    assert.deepEqual(await urls('京都'), []);
    assert.deepEqual(await urls('京都 capital'), []);
    assert.deepEqual(await urls('capital -京都'), ['https://wiki.test/wiki/%E4%BA%AC%E9%83%BD']);
    // The same for one word, which the URL's words alone decide when they lack it.
    assert.deepEqual(await urls('straße'), []);
    assert.deepEqual(await urls('road -straße'), ['https://wiki.test/wiki/Stra%C3%9Fe']);
  });

  test('OR and parentheses', async () => {
    assert.deepEqual(await urls('ownership OR counting'), [PY, RUST].sort());
    assert.deepEqual(await urls('(ownership OR concurrent) garbage'), [GO, RUST].sort());
  });

  test('exclusions: terms, phrases, groups and fields', async () => {
    assert.deepEqual(await urls('collector -garbage'), [PY]);
    assert.deepEqual(await urls('garbage -"garbage collector"'), [JAVA]);
    assert.deepEqual(await urls('collector -(concurrent OR ownership)'), [JAVA, DE, PY].sort());
    assert.deepEqual(await urls('collector -site:go.test -lang:de'), [JAVA, PY, RUST].sort());
  });

  test('title: matches the title only', async () => {
    assert.deepEqual(await urls('title:collector'), [JAVA]);
    assert.deepEqual(await urls('title:"ownership in rust"'), [RUST]);
    assert.deepEqual(await urls('title:"rust ownership"'), []);
  });

  test('site: matches the host and its subdomains', async () => {
    assert.deepEqual(await urls('collector site:go.test'), [GO]);
    assert.deepEqual(await urls('collector site:blog.go.test'), [GO]);
    assert.deepEqual(await urls('collector site:log.go.test'), []);
  });

  test('url: is a prefix, with or without the scheme; inurl: a case-insensitive substring', async () => {
    assert.deepEqual(await urls('collector url:plain.test/docs'), [PY]);
    assert.deepEqual(await urls('collector url:https://plain.test/docs'), []);
    assert.deepEqual(await urls('collector url:http://plain.test/docs/'), [PY]);
    assert.deepEqual(await urls('collector inurl:posts'), [JAVA]);
    assert.deepEqual(await urls('collector inurl:/book/'), [RUST]);
  });

  test('lang: matches a tag and its subtags; pages without a language match no lang:', async () => {
    assert.deepEqual(await urls('collector lang:en'), [GO, JAVA, RUST].sort());
    assert.deepEqual(await urls('collector lang:en-gb'), [RUST]);
    assert.deepEqual(await urls('collector lang:de'), [DE]);
    assert.deepEqual(await urls('collector (lang:de OR site:plain.test)'), [DE, PY].sort());
  });

  test('fields combine with the request filters', async () => {
    assert.deepEqual(await urls('garbage lang:en', { published_after: '2024-01-01' }), [JAVA, RUST].sort());
    assert.deepEqual(await urls('garbage OR counting', { site: 'plain.test' }), [PY]);
  });

  test('results are ranked by BM25 over the text items; a query of fields only lists the newest first', async () => {
    const ranked = await webql('collector lang:en');
    assert.equal(ranked.body.results[0].url, JAVA, 'the one page with collector in its title (title weight 3)');
    assert.equal(ranked.body.results[1].url, GO, 'then the page that says collector twice in a short text');
    const fieldsOnly = await webql('site:de.test OR site:plain.test');
    assert.deepEqual(
      fieldsOnly.body.results.map((r: { url: string }) => r.url),
      [PY, DE],
    );
  });

  test('snippets come from the text items', async () => {
    const r = await webql('"reference counting" -garbage');
    assert.equal(r.status, 200);
    assert.match(r.body.results[0].snippet, /Reference counting/);
  });

  test('a syntax error is 400 with the position and charges nothing', async () => {
    const before = await env.services.ledger.balance(orgId);
    const r = await webql('  rust (ownership');
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'invalid_parameter');
    assert.equal(r.body.param, 'query');
    assert.equal(r.body.position, 7);
    assert.match(r.body.error, /unmatched "\(" at position 7/);
    assert.equal(await env.services.ledger.balance(orgId), before);
  });
});
