/** A feed read to markdown (acquire/extract/feed.ts): RSS 2.0, RSS 1.0 and Atom, as sites write them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feedToMarkdown, isFeedXml } from '../../src/acquire/extract/feed.js';
import { LINK_GROWTH_LIMIT } from '../../src/acquire/extract/markdown.js';

test('RSS 2.0: each item a section of its linked title, its time in UTC and author, its summary from escaped HTML or CDATA', () => {
  const feed = feedToMarkdown(
    `<?xml version="1.0"?><?xml-stylesheet href="/rss.xsl"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
    <title>Jane&apos;s blog</title><link>https://jane.test/</link><description>Notes on systems</description><language>en-us</language>
    <item><title>Rust in a month</title><link>https://jane.test/rust</link><dc:creator><![CDATA[Jane Doe]]></dc:creator><pubDate>Wed, 01 May 2024 12:00:00 +0200</pubDate>
      <description><![CDATA[<p>One chapter of <a href="/book">the book</a> a day.</p>]]></description><content:encoded><![CDATA[<p>The whole post.</p>]]></content:encoded></item>
    <item><title>Go &amp;amp; me&amp;nbsp;</title><guid>https://jane.test/go</guid><description>Five years &amp;lt;b&amp;gt;of&amp;lt;/b&amp;gt; Go.</description></item>
    <item><guid isPermaLink="false">tag:1</guid><content:encoded>&lt;p&gt;Only content.&lt;/p&gt;</content:encoded></item>
    </channel></rss>`,
    'https://jane.test/feed.xml',
  );
  assert.deepEqual(feed, {
    title: "Jane's blog",
    description: 'Notes on systems',
    lang: 'en-us',
    content: [
      '## [Rust in a month](https://jane.test/rust)',
      '2024-05-01T10:00:00Z · Jane Doe',
      'One chapter of [the book](https://jane.test/book) a day.',
      '## [Go & me](https://jane.test/go)',
      'Five years \\<b>of\\</b> Go.', // text that reads as a tag, escaped
      'Only content.',
    ].join('\n\n'),
    links: ['https://jane.test/rust', 'https://jane.test/go'],
  });
});

test("RSS 1.0's items beside its channel; Atom's alternate link, its XHTML content, an HTML title and a time that does not parse", () => {
  const rdf = feedToMarkdown(
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>Old</title></channel><item><title>First</title><link>https://old.test/1</link></item></rdf:RDF>',
    'https://old.test/rss',
  );
  assert.equal(rdf?.title, 'Old');
  assert.equal(rdf?.content, '## [First](https://old.test/1)');
  const atom = feedToMarkdown(
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="de"><title>Changelog</title><subtitle>What changed</subtitle>
    <entry><title type="html">Version 2 &lt;em&gt;out&lt;/em&gt;</title><link rel="replies" href="/2#c"/><link rel="alternate" href="/releases/2"/><published>soon</published><author><name>Max</name><email>m@x.test</email></author>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>New <code>--fast</code> flag.</p><ul><li>One</li></ul></div></content></entry></feed>`,
    'https://x.test/atom.xml',
  );
  assert.deepEqual(atom, {
    title: 'Changelog',
    description: 'What changed',
    lang: 'de',
    content: '## [Version 2 out](https://x.test/releases/2)\n\nsoon · Max\n\nNew `--fast` flag.\n\n- One',
    links: ['https://x.test/releases/2'],
  });
  assert.equal(feedToMarkdown('<?xml version="1.0"?><birds><bird>plover</bird></birds>', 'https://x.test/b.xml'), undefined);
});

test('a feed is known by its root element after a declaration, comments and a stylesheet; a javascript: link is no link; links made absolute are bounded in all', () => {
  assert.equal(isFeedXml('<?xml version="1.0"?>\n<!-- generated -->\n<?xml-stylesheet href="a.xsl"?>\n<rss version="2.0">'), true);
  assert.equal(isFeedXml('<feed xmlns="http://www.w3.org/2005/Atom">'), true);
  assert.equal(isFeedXml('<?xml version="1.0"?><urlset>'), false);
  assert.equal(feedToMarkdown('<rss><channel><item><title>X</title><link>javascript:alert(1)</link></item></channel></rss>', 'https://x.test/f')?.content, '## X');
  // 2,000 items, each a relative link and a summary of 20 more, under a feed URL of 4,000 characters.
  const base = `https://x.test/${'a'.repeat(4000)}`;
  const items = Array.from({ length: 2000 }, (_, i) => `<item><title>T${i}</title><link>b${i}</link><description>${'&lt;a href="c"&gt;c&lt;/a&gt; '.repeat(20)}</description></item>`).join('');
  const feed = feedToMarkdown(`<rss><channel>${items}</channel></rss>`, base)!;
  assert.ok(feed.content.length < LINK_GROWTH_LIMIT + 200_000, `${feed.content.length} characters`);
  assert.match(feed.content, /^## \[T0\]\(https:\/\/x\.test\/b0\)/);
});

test("links resolve against the xml:base around them (the feed's, an entry's, a link's or content's own), and against the feed's URL without one", () => {
  const atom = feedToMarkdown(
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.test/posts/"><title>Posts</title>
    <entry><title>One</title><link href="one"/><summary type="html">&lt;a href="img/a.png"&gt;a&lt;/a&gt;</summary></entry>
    <entry xml:base="/archive/2019/"><title>Two</title><link href="two"/></entry>
    <entry><title>Three</title><link xml:base="https://mirror.test/x/" href="three"/><content type="xhtml" xml:base="https://cdn.test/"><div xmlns="http://www.w3.org/1999/xhtml"><a href="c">c</a></div></content></entry>
    <entry xml:base="javascript:alert(1)//"><title>Four</title><link href="four"/></entry></feed>`,
    'https://feeds.test/atom.xml',
  )!;
  assert.deepEqual(atom.links, ['https://blog.test/posts/one', 'https://blog.test/archive/2019/two', 'https://mirror.test/x/three', 'https://blog.test/posts/four']);
  assert.match(atom.content, /\[a\]\(https:\/\/blog\.test\/posts\/img\/a\.png\)/);
  assert.match(atom.content, /\[c\]\(https:\/\/cdn\.test\/c\)/);
  const rss = feedToMarkdown('<rss><channel><item><title>X</title><link>x/1</link></item></channel></rss>', 'https://feeds.test/rss/all.xml')!;
  assert.deepEqual(rss.links, ['https://feeds.test/rss/x/1']);
});
