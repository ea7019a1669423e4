import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ServiceError } from '../../src/core/errors.js';
import { datesInQuery, parseFetchRequest, parseSearchRequest, truncateChars } from '../../src/core/requests.js';

const now = Date.parse('2026-11-22T14:23:45Z');
const search = (body: unknown) => parseSearchRequest(body, { now });
const refusedFor = (param: string) => (e: ServiceError) => e.code === 'invalid_parameter' && e.param === param;

describe('search request', () => {
  test('defaults', () => {
    const r = search({ query: '  rust  ' });
    assert.deepEqual(r, { query: 'rust', queryOffset: 2, mode: 'standard', snippetMaxLength: 500, maxResults: 10 });
  });
  test('snippet_max_length boundaries 179/180/10000/10001', () => {
    assert.throws(() => search({ query: 'q', snippet_max_length: 179 }), refusedFor('snippet_max_length'));
    assert.equal(search({ query: 'q', snippet_max_length: 180 }).snippetMaxLength, 180);
    assert.equal(search({ query: 'q', snippet_max_length: 10000 }).snippetMaxLength, 10000);
    assert.throws(() => search({ query: 'q', snippet_max_length: 10001 }), refusedFor('snippet_max_length'));
  });
  test('max_results boundaries 0/1/50/51', () => {
    assert.throws(() => search({ query: 'q', max_results: 0 }), refusedFor('max_results'));
    assert.equal(search({ query: 'q', max_results: 1 }).maxResults, 1);
    assert.equal(search({ query: 'q', max_results: 50 }).maxResults, 50);
    assert.throws(() => search({ query: 'q', max_results: 51 }), refusedFor('max_results'));
  });
  test('integers only: fractions, strings in a JSON body are accepted only as digits', () => {
    assert.throws(() => search({ query: 'q', max_results: 2.5 }), refusedFor('max_results'));
    assert.throws(() => search({ query: 'q', max_results: true }), refusedFor('max_results'));
    assert.equal(search({ query: 'q', max_results: '7' }).maxResults, 7);
  });
  test('query: required, a string, not blank, at most 2000 characters', () => {
    assert.throws(() => search({}), refusedFor('query'));
    assert.throws(() => search({ query: 5 }), refusedFor('query'));
    assert.throws(() => search({ query: '   ' }), refusedFor('query'));
    assert.throws(() => search({ query: 'x'.repeat(2001) }), refusedFor('query'));
    assert.equal(search({ query: 'x'.repeat(2000) }).query.length, 2000);
  });
  test('unknown fields and non-object bodies are refused', () => {
    assert.throws(() => search({ query: 'q', limit: 3 }), refusedFor('limit'));
    assert.throws(() => search([{ query: 'q' }]), (e: ServiceError) => e.code === 'invalid_parameter');
    assert.throws(() => search(null), (e: ServiceError) => e.code === 'invalid_parameter');
  });
  test('tier-owned parameters are ignored when named', () => {
    assert.equal(parseSearchRequest({ query: 'q', service_title: 'x' }, { now, ignore: ['service_title'] }).query, 'q');
  });
  test('mode', () => {
    assert.equal(search({ query: 'q', mode: 'webql' }).mode, 'webql');
    assert.throws(() => search({ query: 'q', mode: 'fast' }), refusedFor('mode'));
  });
  test('site is a bare host name, lowercased', () => {
    assert.equal(search({ query: 'q', site: 'Example.COM' }).site, 'example.com');
    assert.equal(search({ query: 'q', site: 'docs.example.com.' }).site, 'docs.example.com');
    assert.equal(search({ query: 'q', site: 'bücher.de' }).site, 'xn--bcher-kva.de');
    for (const bad of ['https://example.com', 'example.com/path', 'example.com:8080', 'user@example.com', '', '-bad.com', 'a b.com']) {
      assert.throws(() => search({ query: 'q', site: bad }), refusedFor('site'), bad);
    }
  });
  test('windows resolve; an _after later than its _before is refused', () => {
    const r = search({ query: 'q', acquired_after: '2h', acquired_before: '2026-11-22' });
    assert.equal(r.acquiredAfter, Date.parse('2026-11-22T12:23:00Z'));
    assert.equal(r.acquiredBefore, Date.parse('2026-11-22T23:59:59.999Z'));
    assert.throws(() => search({ query: 'q', published_after: '2026-02-02', published_before: '2026-02-01' }), refusedFor('published_after'));
    assert.equal(search({ query: 'q', published_after: '2026-02-01', published_before: '2026-02-01' }).publishedAfter, Date.parse('2026-02-01'));
  });
  test('query_time re-bases relative deltas', () => {
    const r = search({ query: 'q', query_time: '2025-01-10T10:10:30Z', acquired_after: '1d' });
    assert.equal(r.queryTime, Date.parse('2025-01-10T10:10:30Z'));
    assert.equal(r.acquiredAfter, Date.parse('2025-01-09T10:10:00Z'));
  });
  test('after: and before: in a standard query: the published window from the start of what they name, up to its start', () => {
    const at = Date.parse;
    assert.deepEqual(datesInQuery('rust after:2024 before:2024-07', now), { text: 'rust', after: at('2024-01-01'), before: at('2024-07-01') - 1 });
    assert.deepEqual(datesInQuery('before:2024-02-29 rust', now), { text: 'rust', before: at('2024-02-29') - 1 });
    assert.deepEqual(datesInQuery('rust after:2024-01-02T03:04:05+01:00', now), { text: 'rust', after: at('2024-01-02T02:04:05Z') });
    assert.deepEqual(datesInQuery('rust after:2h', now), { text: 'rust', after: at('2026-11-22T12:23:00Z') });
    // Several of one kind: the narrowest.
    assert.deepEqual(datesInQuery('after:2020 rust after:2022 before:2025 before:2023', now), { text: 'rust', after: at('2022-01-01'), before: at('2023-01-01') - 1 });
    // No time named, no operator (inside a word, a -prefix), or nothing else left: none read.
    for (const q of ['rust after:2023-02-30', 'rust after:2023-13', 'rust after:203', 'rust after:', 'rust later:2020', 'rust xafter:2020', 'rust -after:2020', 'after:2020 before:2021', 'after:2020 , ;']) {
      assert.equal(datesInQuery(q, now), undefined, q);
    }
    const r = search({ query: ' rust after:2024  gc ', published_after: '2025-01-01', published_before: '2025-06-30' });
    assert.equal(r.query, 'rust after:2024  gc');
    assert.equal(r.text, 'rust gc');
    assert.equal(r.publishedAfter, at('2025-01-01'), 'the field is the narrower bound');
    assert.equal(r.publishedBefore, at('2025-06-30T23:59:59.999Z'));
    assert.equal(search({ query: 'rust before:2025-03', published_before: '2025-06-30' }).publishedBefore, at('2025-03-01') - 1);
    assert.equal(search({ query: 'rust after:2y', query_time: '2020-05-05' }).publishedAfter, at('2018-05-05'), 'deltas count back from query_time');
    // webql reads no date operators; a query with none has no text of its own.
    assert.equal(search({ query: 'rust after:2024', mode: 'webql' }).text, undefined);
    assert.equal(search({ query: 'rust', published_after: '2024-01-01' }).text, undefined);
  });
  test('query-string input (all strings) goes through the same rules', () => {
    const r = search({ query: 'q', max_results: '3', snippet_max_length: '200' });
    assert.equal(r.maxResults, 3);
    assert.throws(() => search({ query: 'q', max_results: '3x' }), refusedFor('max_results'));
  });
});

describe('fetch request', () => {
  test('defaults and normalisation', () => {
    assert.deepEqual(parseFetchRequest({ url: 'HTTPS://Example.com:443/a#frag' }), {
      url: 'https://example.com/a',
      maxChars: 50000,
      live: false,
    });
  });
  test('url: required, absolute, http(s) only', () => {
    assert.throws(() => parseFetchRequest({}), refusedFor('url'));
    assert.throws(() => parseFetchRequest({ url: '/relative' }), refusedFor('url'));
    assert.throws(() => parseFetchRequest({ url: 'ftp://example.com/x' }), (e: ServiceError) => e.code === 'url_not_allowed');
    assert.throws(() => parseFetchRequest({ url: 'file:///etc/passwd' }), (e: ServiceError) => e.code === 'url_not_allowed');
    // Written without a scheme, as people and models write them: https is put before a host.
    assert.equal(parseFetchRequest({ url: 'example.com/a?b=1' }).url, 'https://example.com/a?b=1');
    assert.equal(parseFetchRequest({ url: ' Docs.Example.co.uk:8443 ' }).url, 'https://docs.example.co.uk:8443/');
    for (const url of ['localhost/x', 'example', 'example.com.', '1.2.3.4/x', 'javascript:alert(1)', 'mailto:a@b.c']) {
      assert.throws(() => parseFetchRequest({ url }), (e: ServiceError) => e.code === 'invalid_parameter' || e.code === 'url_not_allowed', url);
    }
  });
  test('max_chars 1 to 1,000,000; live is a boolean', () => {
    assert.throws(() => parseFetchRequest({ url: 'https://a.b/', max_chars: '0' }), refusedFor('max_chars'));
    assert.equal(parseFetchRequest({ url: 'https://a.b/', max_chars: '1' }).maxChars, 1);
    assert.throws(() => parseFetchRequest({ url: 'https://a.b/', max_chars: '1000001' }), refusedFor('max_chars'));
    assert.equal(parseFetchRequest({ url: 'https://a.b/', live: 'true' }).live, true);
    assert.equal(parseFetchRequest({ url: 'https://a.b/', live: '0' }).live, false);
    assert.throws(() => parseFetchRequest({ url: 'https://a.b/', live: 'yes please' }), refusedFor('live'));
  });
  test('prompt is 1 to 2000 characters', () => {
    assert.equal(parseFetchRequest({ url: 'https://a.b/', prompt: 'p'.repeat(2000) }).prompt?.length, 2000);
    assert.throws(() => parseFetchRequest({ url: 'https://a.b/', prompt: 'p'.repeat(2001) }), refusedFor('prompt'));
    assert.throws(() => parseFetchRequest({ url: 'https://a.b/', prompt: '  ' }), refusedFor('prompt'));
  });
});

test('truncation never splits a surrogate pair', () => {
  assert.equal(truncateChars('ab😀cd', 3), 'ab');
  assert.equal(truncateChars('ab😀cd', 4), 'ab😀');
  assert.equal(truncateChars('abc', 10), 'abc');
});
