import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSitemap } from '../../src/acquire/sitemap.js';

test('a sitemap\'s locs: text with named and numeric references, CDATA sections, any case of the tag', () => {
  const xml = `<?xml version="1.0"?><urlset><url><loc>https://a.test/x?a=1&amp;b=2</loc></url>
    <url><loc><![CDATA[https://a.test/y?a=1&b=2]]></loc></url>
    <url><loc>
      https://a.test/&#x7E;z&#38;q&nbsp; </loc></url><url><LOC>https://a.test/up</LOC></url></urlset>`;
  assert.deepEqual(parseSitemap(xml), { sitemaps: [], urls: ['https://a.test/x?a=1&b=2', 'https://a.test/y?a=1&b=2', 'https://a.test/~z&q&nbsp;', 'https://a.test/up'] });
  assert.deepEqual(parseSitemap('<sitemapindex><sitemap><loc><![CDATA[ https://a.test/s1.xml ]]></loc></sitemap></sitemapindex>'), { sitemaps: ['https://a.test/s1.xml'], urls: [] });
});

// Not a timing: with the regular expression before (time growing with the cube of such a run), this test does not end.
test('a sitemap cut off in a run of spaces, in text or in CDATA, is read to its last whole loc', () => {
  const whole = '<urlset><url><loc>https://a.test/1</loc></url><url><loc><![CDATA[https://a.test/2]]></loc></url>';
  for (const cut of [`<url><loc>https://a.test/3${' '.repeat(200_000)}`, `<url><loc><![CDATA[${' '.repeat(200_000)}`, `${'<loc>x '.repeat(50_000)}`]) {
    assert.deepEqual(parseSitemap(whole + cut), { sitemaps: [], urls: ['https://a.test/1', 'https://a.test/2'] });
  }
  // A loc holding markup is no URL; an empty one is nothing.
  assert.deepEqual(parseSitemap('<loc>a<b>c</loc><loc> </loc><loc>https://a.test/4</loc>').urls, ['https://a.test/4']);
});
