import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageUrls } from '../../src/adapters/engine/page-urls.js';

/** The URLs that hold a text, as an `inurl:` asks (core/webql.ts pageMatches: both lowercased). */
const holding = (all: [number, string][], text: string) => {
  const lower = text.toLowerCase();
  return all.filter(([, url]) => url.toLowerCase().includes(lower)).map(([id]) => id);
};

test('PageUrls finds the pages whose URL holds a text, as pageMatches decides it, over many chunks', () => {
  const urls = new PageUrls();
  const all: [number, string][] = [];
  // Some 3 MB of URLs: several chunks, with URLs of every kind at their edges.
  for (let i = 0; i < 60_000; i++) {
    const url =
      i % 1000 === 7
        ? `https://wide.example/caf%C3%A9/${'x'.repeat(i % 3000)}/KELVIN-\u212a-İstanbul-${i}`
        : `https://host${i % 97}.example/Doc/${i}/${i % 13 === 0 ? 'BLOG' : 'page'}?q=${i % 5}`;
    const id = 3 * i + 1;
    urls.add(id, url);
    all.push([id, url]);
  }
  // One URL longer than a chunk takes a chunk of its own.
  const long = `https://long.example/${'a'.repeat((1 << 20) + 10)}/end`;
  urls.add(1_000_000, long);
  all.push([1_000_000, long]);
  urls.add(1_000_001, 'https://after.example/end');
  all.push([1_000_001, 'https://after.example/end']);
  assert.equal(urls.size, all.length);
  assert.equal(urls.lastPage, 1_000_001);
  for (const text of ['/doc/1234/', 'blog', 'BLOG?Q=3', 'host96.', '/end', 'k', 'kelvin-k', 'i̇stanbul', 'caf%c3%a9', '0/page?q=4', 'nowhere', 'A'.repeat(40), `/${'a'.repeat(1 << 20)}`]) {
    assert.deepEqual(urls.find(text, 1_000_000), holding(all, text), text);
  }
  // Substrings of the URLs held, from anywhere in them, and the same with a byte changed: found
  // from their rarest byte on, the bytes before it compared (xblog: "blog" is in many URLs, never
  // after an x).
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const texts = ['xblog', 'ample.com/doc/1234', 'q=4', 'e/doc/5'];
  for (let i = 0; i < 150; i++) {
    const url = all[random(all.length - 2)]![1].toLowerCase();
    const from = random(url.length);
    const text = url.slice(from, from + 1 + random(20));
    texts.push(text, `${text.slice(0, -1)}${'#z/'[random(3)]}`);
  }
  for (const text of texts) assert.deepEqual(urls.find(text, 1_000_000), holding(all, text), text);
  // More than the bound: undefined.
  assert.equal(urls.find('blog', 100), undefined);
  assert.equal(urls.find('/doc/1234/', 1)?.length, 1);
  const docs = holding(all, '/doc/').length;
  assert.equal(urls.find('/doc/', docs)?.length, docs);
  assert.equal(urls.find('/doc/', docs - 1), undefined, 'one more than the bound');
  assert.equal(urls.find('', all.length)?.length, all.length, 'every URL holds the empty text');
  assert.deepEqual(urls.find('a\0b', 10), [], 'no URL holds a zero byte (they end the URLs)');
  assert.throws(() => urls.add(5, 'https://late.example/'), /not after/);
  assert.ok(urls.memory > 3_000_000 && urls.memory < 8_000_000, String(urls.memory));
});
