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
