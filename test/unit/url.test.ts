/**
 * A page's identity (core/url.ts normalizeUrl): on made-up URLs of the parts that have more than one
 * spelling (cases, trailing dots, default ports, dot segments, escapes, internationalized hosts,
 * credentials, fragments), the normal form is its own normal form and names the same resource (its
 * escapes in their normal form: RFC 3986 6.2.2), and a host with an empty label is refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { picker, rng } from '../../bench/scifact.js';
import { normalizeUrl, parseSiteFilter, urlAuthority, urlFileType, urlTwins } from '../../src/core/url.js';

/**
 * `text` with each percent-escape as the normal form writes it (RFC 3986 6.2.2), read one
 * character at a time: an unreserved character's (a letter, a digit, - . _ ~) as the character,
 * any other's in upper case.
 */
function escapesRead(text: string): string {
  const unreserved = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '%' && /^[0-9a-f]{2}$/i.test(hex)) {
      const c = String.fromCharCode(Number.parseInt(hex, 16));
      out += unreserved.includes(c) ? c : `%${hex.toUpperCase()}`;
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

describe('normalizeUrl', () => {
  test('the normal form of made-up URLs is its own normal form, and the same scheme, host, port, path and query', () => {
    const random = rng(11);
    const pick = picker(random);
    const labels = ['example', 'EXAMPLE', 'Sub', 'bücher', 'xn--bcher-kva', 'a-b', '%41b', 'a%2Eb', 'a1', '7z'];
    let refused = 0;
    for (let n = 0; n < 5_000; n++) {
      const scheme = pick(['http', 'https', 'HTTP', 'Https']);
      // Only the ending `..` leaves an empty label (a%2Eb is a.b).
      const ending = pick(['', '', '.', '..', '.com', '.COM.']);
      const host = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(labels)).join('.') + ending;
      const port = pick(['', '', ':80', ':443', ':8080', ':0080']);
      const credentials = pick(['', '', 'user@', 'user:pass@']);
      const path = Array.from({ length: Math.floor(random() * 4) }, () => pick(['a', 'B', '.', '..', '%2e', '%7E', '%7e', '%2f', '%c3%bc', 'ü', ' ', ''])).join('/');
      const raw = `${pick(['', ' '])}${scheme}://${credentials}${host}${port}/${path}${pick(['', '?q=1', '?Q=%41', '?a=%2b%7e', '?'])}${pick(['', '#top', '#'])}`;
      const normal = normalizeUrl(raw);
      assert.equal(normal === undefined, ending === '..', raw);
      if (normal === undefined) {
        refused++;
        continue;
      }
      assert.equal(normalizeUrl(normal), normal, raw);
      const [a, b] = [new URL(raw.trim()), new URL(normal)];
      assert.equal(b.hash, '', raw);
      assert.equal(b.username + b.password, '', raw);
      assert.ok(!b.hostname.endsWith('.') && !b.hostname.split('.').includes(''), raw);
      assert.equal(b.hostname, a.hostname.replace(/\.$/, ''), raw);
      assert.deepEqual([b.protocol, b.port, b.pathname, b.search], [a.protocol, a.port, escapesRead(a.pathname), escapesRead(a.search)], raw);
      assert.equal(escapesRead(normal), normal, raw);
    }
    assert.ok(refused > 100 && refused < 2_500, `${refused} refused`);
  });

  test('tracking parameters and session ids are taken off (the others stay as written); an empty query leaves no ?', () => {
    const cases: [string, string][] = [
      ['https://a.test/x?utm_source=tw&b=1&UTM_Medium=x', 'https://a.test/x?b=1'],
      ['https://a.test/x?fbclid=abc', 'https://a.test/x'],
      ['https://a.test/x?q=a%20b&gclid=1&flag', 'https://a.test/x?q=a%20b&flag'],
      ['https://a.test/x?mc_cid=1&mc_eid=2&_ga=3&msclkid=4', 'https://a.test/x'],
      ['https://a.test/x?', 'https://a.test/x'],
      ['https://a.test/x?ref=main&utm_campaignx=1&_gaxyz=2&page=2', 'https://a.test/x?ref=main&_gaxyz=2&page=2'],
      ['https://a.test/x?a=1&&b=2', 'https://a.test/x?a=1&&b=2'],
      ['https://a.test/x?%E0%A4%A=1&utm_id=2', 'https://a.test/x?%E0%A4%A=1'],
      // Session ids: a servlet's path parameter, and PHP's, servlets' and ColdFusion's in the query.
      ['https://a.test/cart;jsessionid=0A1B2C?x=1', 'https://a.test/cart?x=1'],
      ['https://a.test/a;JSESSIONID=abc/b;v=1;jsessionid=d', 'https://a.test/a/b;v=1'],
      ['https://a.test/x?PHPSESSID=9f&p=2', 'https://a.test/x?p=2'],
      ['https://a.test/x?CFID=1&CFTOKEN=2&jsessionid=3', 'https://a.test/x'],
      ['https://a.test/x?sessionid=1&sid=2&cfidx=3', 'https://a.test/x?sessionid=1&sid=2&cfidx=3'],
    ];
    for (const [raw, normal] of cases) {
      assert.equal(normalizeUrl(raw), normal, raw);
      assert.equal(normalizeUrl(normal), normal, `${normal} is its own normal form`);
    }
  });

  test('percent-escapes: an unreserved character\'s is the character, any other is in upper case, in the path and the query', () => {
    const cases: [string, string][] = [
      ['https://a.test/%7Euser/', 'https://a.test/~user/'],
      ['https://a.test/%7euser/%41%62%2D%2E%5F%30', 'https://a.test/~user/Ab-._0'],
      ['https://a.test/caf%c3%a9', 'https://a.test/caf%C3%A9'],
      ['https://a.test/café', 'https://a.test/caf%C3%A9'],
      ['https://a.test/a%2fb%3f%23', 'https://a.test/a%2Fb%3F%23'],
      ['https://a.test/x?q=%7e%2b%26&r=a%20b', 'https://a.test/x?q=~%2B%26&r=a%20b'],
      ['https://a.test/x?utm%5Fsource=tw&b=1', 'https://a.test/x?b=1'],
      ['https://a.test/a%252Fb', 'https://a.test/a%252Fb'],
      ['https://a.test/a%zz%4', 'https://a.test/a%zz%4'],
      ['https://a.test/a/.%2E%2E/b', 'https://a.test/a/.../b'],
    ];
    for (const [raw, normal] of cases) {
      assert.equal(normalizeUrl(raw), normal, raw);
      assert.equal(normalizeUrl(normal), normal, `${normal} is its own normal form`);
    }
  });

  test('a host with an empty label names nothing: refused', () => {
    for (const raw of ['http://example.com../', 'http://a..b.com/', 'http://./', 'https://a.b.c.../p']) assert.equal(normalizeUrl(raw), undefined, raw);
    assert.equal(normalizeUrl('http://Example.COM.:80/a/../b?x#y'), 'http://example.com/b?x');
    assert.equal(parseSiteFilter('a..b.com'), undefined);
  });
});

test('urlTwins: the other scheme, the trailing slash and www., one change before two; an address gets no www, the root no slash twin', () => {
  assert.deepEqual(urlTwins('https://example.com/a'), [
    'http://example.com/a',
    'https://example.com/a/',
    'https://www.example.com/a',
    'http://example.com/a/',
    'http://www.example.com/a',
    'https://www.example.com/a/',
    'http://www.example.com/a/',
  ]);
  assert.deepEqual(urlTwins('http://www.example.com/?q=1'), ['https://www.example.com/?q=1', 'http://example.com/?q=1', 'https://example.com/?q=1']);
  assert.deepEqual(urlTwins('http://127.0.0.1/x/'), ['https://127.0.0.1/x/', 'http://127.0.0.1/x', 'https://127.0.0.1/x']);
});

test('urlFileType: what follows the last dot of the path\'s last segment, in lower case; none without a dot or a path', () => {
  const cases: [string, string | undefined][] = [
    ['https://a.org/docs/Report.PDF', 'pdf'],
    ['https://a.org/docs/report.pdf?dl=1&x=a.html', 'pdf'],
    ['https://a.org/x/archive.tar.gz#part', 'gz'],
    ['https://a.org/.pdf', 'pdf'],
    ['https://a.org/dir.d/', undefined],
    ['https://report.pdf/', undefined],
    ['https://a.org/download?file=x.pdf', undefined],
    ['https://a.org/readme', undefined],
    ['https://a.org/trailing.', undefined],
    ['http://127.0.0.1:8080/a.b/c.mp4', 'mp4'],
  ];
  for (const [url, type] of cases) assert.equal(urlFileType(url), type, url);
});

test('urlAuthority: the host and port of a normalized URL, whatever follows them', () => {
  const cases: [string, string][] = [
    ['https://a.org/docs/x', 'a.org'],
    ['https://a.org', 'a.org'],
    ['https://a.org?q=/x', 'a.org'],
    ['https://a.org#top', 'a.org'],
    ['http://127.0.0.1:8080/a', '127.0.0.1:8080'],
    ['https://[::1]:8443/x', '[::1]:8443'],
    ['https://xn--bcher-kva.example/b', 'xn--bcher-kva.example'],
  ];
  for (const [url, authority] of cases) assert.equal(urlAuthority(url), authority, url);
  // The normal form of made-up URLs: as URL reads its host.
  for (const raw of ['HTTPS://Sub.Example.COM:443/a?b#c', 'http://example.com:8080', 'https://bücher.example/x/../y']) {
    const url = normalizeUrl(raw)!;
    assert.equal(urlAuthority(url), new URL(url).host, raw);
  }
});
