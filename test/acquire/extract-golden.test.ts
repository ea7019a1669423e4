/**
 * Golden fixtures: HTML pages and the markdown and metadata we expect from them (tables, code with
 * its language, nested lists, blockquotes, images, relative links made absolute, JSON-LD, a nested
 * layout, a page with no article). A change of output shows up here as a diff to review; regenerate
 * a fixture only when the new output is better.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { children, MAX_DEPTH, parseHtml } from '../../src/acquire/extract/dom.js';
import { extractHtml } from '../../src/acquire/extract/index.js';
import { refreshTarget } from '../../src/acquire/extract/metadata.js';
import { pageFromResponse } from '../../src/acquire/live-fetch.js';
import { AUTHOR_MAX, TITLE_MAX } from '../../src/core/text.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'extract');

/** The markdown blocks of a page whose article is `inner`. */
const articleBlocks = (inner: string) => extractHtml(`<html><body><article>${inner}</article></body></html>`, 'https://a.test/p').content.split('\n\n');
/** A paragraph long enough to be an article, for what a test puts after it. */
const LEAD = '<p>A paragraph long enough to be the article that the extractor keeps, with what comes next.</p>';

for (const name of ['article', 'nested', 'no-article']) {
  test(`golden: ${name}`, () => {
    const html = readFileSync(join(DIR, `${name}.html`), 'utf8');
    const { content, ...meta } = extractHtml(html, `https://blog.example.com/posts/${name}?utm=1`);
    assert.equal(`${content}\n`, readFileSync(join(DIR, `${name}.md`), 'utf8'));
    assert.deepEqual(meta, JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')));
  });
}

test('what the article fixture must keep and lose', () => {
  const { content } = extractHtml(readFileSync(join(DIR, 'article.html'), 'utf8'), 'https://blog.example.com/posts/article');
  assert.match(content, /\| Documents \| p50 ms \|\n\| --- \| --- \|/);
  assert.match(content, /```sql\nSELECT rowid/);
  assert.match(content, /- Stemming helps recall\.\n {2}- Porter is the default\./);
  assert.match(content, /> Premature optimization/);
  assert.match(content, /!\[Latency chart\]\(https:\/\/blog\.example\.com\/img\/chart\.png\)/);
  for (const chrome of ['cookies', 'Popular posts', 'Great post', 'Privacy', 'Tweet', 'By Grace Hopper']) {
    assert.ok(!content.includes(chrome), chrome);
  }
});

test('robots meta: noindex and nofollow (nofollow drops the links)', () => {
  const page = extractHtml('<html><head><meta name="robots" content="noindex, nofollow"></head><body><p><a href="/x">x</a> text</p></body></html>', 'https://a.test/');
  assert.equal(page.noindex, true);
  assert.equal(page.nofollow, true);
  assert.deepEqual(page.links, []);
});

test('paragraphs inside an unknown or inline element, a list item, a cell or a layout table stay apart', () => {
  const html = `<html><head><title>Tides</title></head><body><nav><a href="/">Home</a></nav><article>
<h1>Tides</h1>
<block><p>The first paragraph is about tides and the moon, long enough to read as an article's text.</p><p>The second paragraph is about harbours and the boats in them.</p></block>
<span class="body"><p>The third paragraph sits inside a span, as some publishers write it.</p><h2>Spring tides</h2><p>The fourth paragraph follows a heading inside the span.</p></span>
<ul><li><span><p>one</p><p>two</p></span></li><li>three</li></ul>
<table><tr><th>Port</th><th>Range</th></tr><tr><td><p>Saint</p><p>Malo</p></td><td>13 m</td></tr><tr><td>Brest</td><td>7 m</td></tr></table>
<table><tr><td><h2>Neap tides</h2><p>A layout table's first paragraph.</p><p>A layout table's second paragraph.</p></td></tr></table>
</article></body></html>`;
  const { content } = extractHtml(html, 'https://a.test/tides');
  assert.equal(
    content,
    [
      "The first paragraph is about tides and the moon, long enough to read as an article's text.",
      'The second paragraph is about harbours and the boats in them.',
      'The third paragraph sits inside a span, as some publishers write it.',
      '## Spring tides',
      'The fourth paragraph follows a heading inside the span.',
      '- one two\n- three',
      '| Port | Range |\n| --- | --- |\n| Saint Malo | 13 m |\n| Brest | 7 m |',
      '## Neap tides',
      "A layout table's first paragraph.",
      "A layout table's second paragraph.",
    ].join('\n\n'),
  );
});

test('a list item\'s paragraphs stay two sentences, its code block keeps its lines under the item, a nested list is indented to its item\'s content', () => {
  const html = `<html><head><title>Herons</title></head><body><article>
<p>A page about herons and their habits in the wild, long enough to be the main content of the page.</p>
<ul><li>one<pre>code line 1\ncode line 2\n</pre></li><li><p>para a</p><p>para b</p></li><li><div><pre>x = 1</pre></div>then</li></ul>
<ol><li>first<pre>  indented</pre></li><li>second<ul><li>in<pre>deep</pre></li></ul></li></ol>
</article></body></html>`;
  assert.equal(
    extractHtml(html, 'https://a.test/herons').content,
    [
      'A page about herons and their habits in the wild, long enough to be the main content of the page.',
      ['- one', '  ```', '  code line 1', '  code line 2', '  ```', '- para a para b', '- ```', '  x = 1', '  ```', '  then'].join('\n'),
      ['1. first', '   ```', '     indented', '   ```', '2. second', '   - in', '     ```', '     deep', '     ```'].join('\n'),
    ].join('\n\n'),
  );
});

test("a list item's table, quote, heading and list keep their lines under the item, apart where a next line would join them", () => {
  const html = `<html><head><title>Egrets</title></head><body><article>
<p>A page about egrets and their habits in the wild, long enough to be the main content of the page.</p>
<ul><li>depths<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>after the table</li>
<li>said<blockquote><p>quoted one</p><p>quoted two</p></blockquote>after the quote</li>
<li><h3>Heading in an item</h3><p>text under it</p></li>
<li>kinds<div><ul><li>great</li><li>little</li></ul></div>after the list</li></ul>
</article></body></html>`;
  assert.equal(
    extractHtml(html, 'https://a.test/egrets').content,
    [
      'A page about egrets and their habits in the wild, long enough to be the main content of the page.',
      [
        '- depths', '', '  | a | b |', '  | --- | --- |', '  | 1 | 2 |', '', '  after the table',
        '- said', '', '  > quoted one', '  >', '  > quoted two', '', '  after the quote',
        '- ### Heading in an item', '  text under it',
        '- kinds', '  - great', '  - little', '', '  after the list',
      ].join('\n'),
    ].join('\n\n'),
  );
});

test('code keeps its backticks and its blank lines: a fence longer than any run of them, a code span between longer delimiters', () => {
  const html = `<html><head><title>Fences</title></head><body><article>
<p>A page about writing markdown by hand, long enough to be the main content of the page, with <code>a\`b</code> and <code>\`\`</code> in it.</p>
<pre data-lang="js\n# not a heading"><code>before\n\`\`\`\ninside\n\`\`\`\n\n\ndef b():\n    pass</code></pre>
</article></body></html>`;
  assert.equal(
    extractHtml(html, 'https://a.test/fences').content,
    [
      'A page about writing markdown by hand, long enough to be the main content of the page, with ``a`b`` and ``` `` ``` in it.',
      ['````', 'before', '```', 'inside', '```', '', '', 'def b():', '    pass', '````'].join('\n'),
    ].join('\n\n'),
  );
});

test("a table's spans keep every cell in its column, its caption comes before it; a footnote's link within the page is its mark", () => {
  const html = `<html><head><title>Ibis</title></head><body><article>
<p>A page about ibises and their habits in the wild, long enough to be the main content of the page.<sup><a href="#fn1">1</a></sup></p>
<table><caption>Table 1: Birds</caption><tr><th colspan="2">Name</th><th>Weight</th></tr>
<tr><td rowspan="2">Ibis</td><td>Sacred</td><td>1.5 kg</td></tr><tr><td>Scarlet</td><td>1.4 kg</td></tr>
<tr><td>Heron</td><td colspan="2">unknown</td></tr></table>
</article></body></html>`;
  assert.equal(
    extractHtml(html, 'https://a.test/ibis').content,
    [
      'A page about ibises and their habits in the wild, long enough to be the main content of the page.[1]',
      'Table 1: Birds',
      ['| Name |  | Weight |', '| --- | --- | --- |', '| Ibis | Sacred | 1.5 kg |', '|  | Scarlet | 1.4 kg |', '| Heron | unknown |  |'].join('\n'),
    ].join('\n\n'),
  );
  // A layout table of one cell a row stays layout though its cells span two columns.
  const layout = `<html><head><title>Storks</title></head><body><article><p>A page about storks and their habits in the wild, long enough to be the main content of the page.</p>
<table><tr><td colspan="2"><p>Storks nest on chimneys.</p></td></tr><tr><td colspan="2"><p>They eat frogs in spring.</p></td></tr></table></article></body></html>`;
  assert.equal(
    extractHtml(layout, 'https://a.test/storks').content,
    'A page about storks and their habits in the wild, long enough to be the main content of the page.\n\nStorks nest on chimneys.\n\nThey eat frogs in spring.',
  );
});

test('the space at the edge of a link or an emphasis stays outside its markup', () => {
  const html = `<html><head><title>Slogan</title></head><body><article><p>The state launched the<a href="/c"> campaign </a>on Monday, a<b> bold </b>move and an<i> odd </i>one, say readers of this long enough paragraph.</p></article></body></html>`;
  assert.equal(
    extractHtml(html, 'https://a.test/slogan').content,
    'The state launched the [campaign](https://a.test/c) on Monday, a **bold** move and an *odd* one, say readers of this long enough paragraph.',
  );
});

test('a page nested 20,000 levels deep parses to at most MAX_DEPTH levels and keeps its text in order', () => {
  const deep = 20_000;
  const html = `<html><head><title>Deep</title></head><body><article>${'<span>'.repeat(deep)}<p>The innermost words.</p><script>var hidden = 1;</script>${'</span>'.repeat(deep)}<p>${'A paragraph after the nesting. '.repeat(10)}</p></article></body></html>`;
  let depth = 0;
  const nodes = [parseHtml(html) as ReturnType<typeof children>[number]];
  const depths = [0];
  while (nodes.length > 0) {
    const n = nodes.pop()!;
    const d = depths.pop()!;
    depth = Math.max(depth, d);
    for (const c of children(n)) {
      nodes.push(c);
      depths.push(d + 1);
    }
  }
  assert.ok(depth <= MAX_DEPTH + 1, `depth ${depth}`);
  const { content } = extractHtml(html, 'https://a.test/deep');
  assert.match(content, /The innermost words\.[^]*A paragraph after the nesting\./);
  assert.ok(!content.includes('hidden'), 'a script stays a script');
});

test('a page of 200,000 paragraphs keeps them all (their blocks once overflowed the stack as push arguments)', () => {
  const n = 200_000;
  const html = `<html><body><article>${Array.from({ length: n }, (_, i) => `<p>Paragraph ${i} of the long page.</p>`).join('')}</article></body></html>`;
  const blocks = extractHtml(html, 'https://a.test/long').content.split('\n\n');
  assert.equal(blocks.length, n);
  assert.equal(blocks[0], 'Paragraph 0 of the long page.');
  assert.equal(blocks.at(-1), `Paragraph ${n - 1} of the long page.`);
});

test('a kicker, a dateline and a copyright line are trimmed; a page of short lines, a long run of them and CJK sentences are kept', () => {
  const body = articleBlocks;
  const article = 'The parliament voted on Tuesday to approve the budget, after a debate that lasted eleven hours.';
  assert.deepEqual(body(`<p>POLITICS</p><p>Updated 5 May 2024</p><p>${article}</p><p>Copyright 2024 News Co</p><p>All rights reserved</p>`), [article]);
  const haiku = ['An old silent pond', 'A frog jumps into the pond', 'Splash! Silence again.'];
  assert.deepEqual(body(haiku.map((l) => `<p>${l}</p>`).join('')), haiku, 'no paragraph to trim around');
  assert.deepEqual(body('<h2>Speakers</h2><p>Ada Lovelace</p><p>Alan Turing</p><p>Grace Hopper</p>'), ['## Speakers', 'Ada Lovelace', 'Alan Turing', 'Grace Hopper']);
  const poem = ['Two roads diverged in a yellow wood,', 'And sorry I could not travel both', 'And be one traveler, long I stood', 'And looked down one as far as I could', 'To where it bent in the undergrowth'];
  const intro = 'Robert Frost wrote this poem in 1915, and it has been read at graduations and weddings ever since.';
  assert.deepEqual(body(`<p>${intro}</p>${poem.map((l) => `<p>${l}</p>`).join('')}`), [intro, ...poem], 'five short lines are more than chrome');
  const ja = ['困った挙げ句、色々調べた結果、別の方法でこの設定を変更することにしました。この手順は、Windows10での操作方法です。スタートメニューからプログラムを探します。', 'これでようやく元の操作性を取り戻せました。'];
  assert.deepEqual(body(ja.map((l) => `<p>${l}</p>`).join('')), ja, '。 ends a sentence');
});

test('each metadata source is the first of its kind in the page, found in one walk; the base and the links too', () => {
  const page = extractHtml(
    `<html lang="EN-GB"><head><base href="https://cdn.test/b/"><base href="https://other.test/">
<title>Tide tables | Harbour</title><title>Second title</title>
<link rel="stylesheet" href="/s.css"><link rel="canonical" href="/tides"><link rel="canonical" href="/other">
<meta name="description" content="  When the sea  comes in. "><meta property="og:description" content="og">
<script type="application/ld+json">{"@graph":[{"datePublished":"2024-03-01T10:00:00Z"}]}</script>
<script type="application/ld+json">{"author":{"name":"Not this one"}}</script></head>
<body><div class="byline">By Mary Anning</div><span rel="author">Someone else</span>
<h1>First heading</h1><h1>Second heading</h1><time datetime="2020-01-01">old</time>
<article><p>${'The tide comes in twice a day, and the table says when. '.repeat(5)}<a href="x">one</a> <a href="/y" rel="nofollow">two</a> <a href="x#frag">three</a></p></article></body></html>`,
    'https://a.test/page',
  );
  assert.equal(page.title, 'Tide tables');
  assert.equal(page.description, 'When the sea comes in.');
  assert.equal(page.author, 'Not this one', 'JSON-LD before a byline element');
  assert.equal(page.publishedAt, Date.parse('2024-03-01T10:00:00Z'));
  assert.equal(page.canonicalUrl, 'https://a.test/tides');
  assert.equal(page.lang, 'en-gb');
  assert.deepEqual(page.links, ['https://cdn.test/b/x'], 'the first base; nofollow left out; the same page once');
  const noLd = extractHtml('<html><body><p class="x">a</p><div class="post-author">By Mary Anning</div><span rel="author">Someone else</span><h1>Only heading</h1><time datetime="2020-01-01T00:00:00Z">then</time><time datetime="2021-01-01T00:00:00Z">later</time></body></html>', 'https://a.test/');
  assert.equal(noLd.author, 'Mary Anning');
  assert.equal(noLd.title, 'Only heading');
  assert.equal(noLd.publishedAt, Date.parse('2020-01-01T00:00:00Z'));
});

test("a byline gives its author's name: its marked name, else its text without a label, a date, a handle or what follows a separator; a comment's, a reply form's and a post's class are no byline", () => {
  const author = (head: string, body: string) => extractHtml(`<html><head>${head}</head><body>${body}<article><p>${'The tide comes in twice a day, and the table says when. '.repeat(5)}</p></article></body></html>`, 'https://a.test/p').author;
  const cases: [string, string | undefined][] = [
    // Marked: schema.org's name, a rel="author" link, an author-name class.
    ['<ul class="article-author" itemprop="author"><li><a href="/w/b" rel="author"><img alt="mugshot"></a></li><li class="author-name"> by <span itemprop="name"><a rel="author" href="/w/b">Bryan DeArdo</a></span> <a href="https://twitter.com/b">@BryanDeArdo</a></li><li>Nov 18, 2019 at 9:24 pm ET • 2 min read</li></ul>', 'Bryan DeArdo'],
    ['<div class="article-info-author-wrapper"><span class="article-author-name"><a href="/author/ap" rel="author">Associated Press</a></span> <span>November 19, 2019, 9:02 AM</span></div>', 'Associated Press'],
    ['<div class="entry-content-post-author"><div class="author-avatar"><img alt="R"></div><div class="authorInfo"><div class="author-name">rmb8090</div><p>Siamo un memorabilia del meglio!</p></div></div>', 'rmb8090'],
    ['<div class="byline-section"><div class="attribution"><span class="author"> Lisa Kaczke and Trevor J. Mitchell </span> <span class="publication"> Sioux Falls Argus Leader </span></div><div class="publish-date"> Published 10:02 AM EST Nov 19, 2019 </div></div>', 'Lisa Kaczke and Trevor J. Mitchell'],
    // Unmarked: the first block, else the text, without what is not the name.
    ['<div class="ap-story-byline"><div>By LISA MASCARO and ERIC TUCKER</div><div>Associated Press</div></div>', 'LISA MASCARO and ERIC TUCKER'],
    ['<h3 class="byline">by Jeff Foust<br><span class="datetime">Monday, November 18, 2019</span></h3>', 'Jeff Foust'],
    ['<div class="byline">Detroit News wire services Published 11:11 PM EST Nov 19, 2019</div>', 'Detroit News wire services'],
    ['<div class="byline">Madeline Fry | November 18, 2019 12:01 PM Print this article</div>', 'Madeline Fry'],
    ['<div class="byline">JERUSALEM POST STAFF NOVEMBER 20, 2019 10:43</div>', 'JERUSALEM POST STAFF'],
    ['<span class="article-info__authors" itemprop="author creator">Текст: Венера Ерофеева</span>', 'Венера Ерофеева'],
    ['<span class="byline">Posted by Vortex</span>', 'Vortex'],
    // Not the page's: a comment's author, a reply form's field, a post's class; the next byline is.
    ['<div class="comments"><span class="comment-author vcard"><strong class="fn">A reader</strong>, on December 30, 2015 said:</span></div>', undefined],
    ['<form id="commentform"><div class="comment-form-author"><label for="author">Nama (wajib)</label><input id="author" name="author"></div></form>', undefined],
    ['<article class="post author-carlos-nadalim"><h2>Uma palinha</h2><span class="entry-author">Carlos Nadalim</span> <p>Nunca ouviu as brinquedorias?</p></article>', 'Carlos Nadalim'],
  ];
  for (const [body, name] of cases) assert.equal(author('', body), name, body);
  // A meta tag's author loses its label too; "Byron" is a name.
  assert.equal(author('<meta name="author" content="By TOM KRISHER">', ''), 'TOM KRISHER');
  assert.equal(author('<meta name="author" content="Byron Smith">', ''), 'Byron Smith');
});

test("an author's name loses what a byline says after it: a role, a news agency, the site's or another publication's name; names and degrees stay", () => {
  const author = (name: string, siteName?: string) =>
    extractHtml(`<html><head>${siteName ? `<meta property="og:site_name" content="${siteName}">` : ''}<meta name="author" content="${name}"></head><body><article><p>${'The tide comes in twice a day, and the table says when. '.repeat(5)}</p></article></body></html>`, 'https://a.test/p').author;
  const cases: [string, string | undefined, string][] = [
    ['By TOM KRISHER, AP Auto Writer', undefined, 'TOM KRISHER'],
    ['Paul Takahashi, Staff writer', 'Houston Chronicle', 'Paul Takahashi'],
    ['Analysis by Chris Cillizza, CNN Editor-at-large', 'CNN', 'Chris Cillizza'],
    ['MEG KINNARD and ERRIN HAINES, Associated Press', 'Connecticut Post', 'MEG KINNARD and ERRIN HAINES'],
    ['Jill Disis, CNN Business', 'CNN', 'Jill Disis'],
    ['Tanza Loudenback, Business Insider', 'Business Insider Deutschland', 'Tanza Loudenback'],
    // Syndicated: the publication is not the site's.
    ['Sandee LaMotte, CNN', 'MSN', 'Sandee LaMotte'],
    ['Victor Tangermann, Futurism', 'ScienceAlert', 'Victor Tangermann'],
    // Kept: names, a name surname first, degrees, a staff byline.
    ['Lia Eustachewich, Yaron Steinbuch', undefined, 'Lia Eustachewich, Yaron Steinbuch'],
    ['LISA MASCARO, MARY CLARE JALONICK and ERIC TUCKER', undefined, 'LISA MASCARO, MARY CLARE JALONICK and ERIC TUCKER'],
    ['Doe, Jane', undefined, 'Doe, Jane'],
    ['Rachael Link, MS, RD', 'Healthline', 'Rachael Link, MS, RD'],
    ['John Smith, Jr.', undefined, 'John Smith, Jr.'],
    ['Staff Reports', undefined, 'Staff Reports'],
  ];
  for (const [name, site, want] of cases) assert.equal(author(name, site), want, name);
});

test("a title loses the site's name after it (its og:site_name, its host's), as a result shows the site in its URL; another last part stays", () => {
  const title = (head: string, url = 'https://www.zdnet.test/article/x') =>
    extractHtml(`<html><head>${head}</head><body><article><p>${'The tide comes in twice a day, and the table says when. '.repeat(5)}</p></article></body></html>`, url).title;
  assert.equal(title('<meta property="og:title" content="Best tech gadgets of 2019 | ZDNet"><meta property="og:site_name" content="ZDNet">'), 'Best tech gadgets of 2019');
  assert.equal(title('<meta property="og:title" content="New York State investigating WeWork \u2013 TechCrunch"><meta property="og:site_name" content="TechCrunch">'), 'New York State investigating WeWork');
  // No og:site_name: the host's name, with its dots or without its suffix.
  assert.equal(title('<meta property="og:title" content="Nadal keeps Spain alive - Sportsnet.ca">', 'https://www.sportsnet.ca/tennis/x'), 'Nadal keeps Spain alive');
  assert.equal(title(`<meta property="og:title" content="The Early Reviews For Google's Stadia Are Here \u2014 And They're Not Great - Digg">`, 'https://digg.com/2019/x'), "The Early Reviews For Google's Stadia Are Here \u2014 And They're Not Great");
  // Another last part, a short rest, a separator without spaces: kept.
  assert.equal(title('<meta property="og:title" content="Lexus goes topless with the LC500 Convertible - Auto News"><meta property="og:site_name" content="AutoIndustriya.com">'), 'Lexus goes topless with the LC500 Convertible - Auto News');
  assert.equal(title('<meta property="og:title" content="Home | ZDNet"><meta property="og:site_name" content="ZDNet">'), 'Home | ZDNet');
  assert.equal(title('<meta property="og:title" content="The Anti-June Cleaver"><meta property="og:site_name" content="The Anti-June Cleaver">'), 'The Anti-June Cleaver');
});

test("a publication time that is a program's zero is none: the next source's is taken, an old date is kept", () => {
  const published = (head: string, body = '') =>
    extractHtml(`<html><head>${head}</head><body>${body}<p>${'The tide comes in twice a day. '.repeat(5)}</p></body></html>`, 'https://a.test/').publishedAt;
  const ld = (date: string) => `<script type="application/ld+json">{"@type": "NewsArticle", "datePublished": "${date}"}</script>`;
  assert.equal(published(ld('0001-01-01T00:00:00Z')), undefined);
  assert.equal(published(ld('1970-01-01T00:00:00Z')), undefined);
  assert.equal(published(ld('0001-01-01T00:00:00Z'), '<time datetime="2019-11-19T12:00:00Z">Nov 19</time>'), Date.parse('2019-11-19T12:00:00Z'));
  assert.equal(published(`<meta property="article:published_time" content="0001-01-01">${ld('2019-11-18')}`), Date.parse('2019-11-18T00:00:00Z'));
  // Not a time at all: the next source too.
  assert.equal(published(`<meta property="article:published_time" content="yesterday">${ld('2019-11-18')}`), Date.parse('2019-11-18T00:00:00Z'));
  // An archive's old page has its date.
  assert.equal(published(ld('1851-09-18')), Date.parse('1851-09-18T00:00:00Z'));
  assert.equal(published(ld('1970-01-01T00:00:01Z')), 1000);
});

test('a publication time that says its zone comes before one without (read as UTC) and before a date alone; the first <time> only when no meta or JSON-LD gives one', () => {
  const published = (head: string, body = '') =>
    extractHtml(`<html><head>${head}</head><body>${body}<p>${'The tide comes in twice a day. '.repeat(5)}</p></body></html>`, 'https://a.test/').publishedAt;
  const ld = (date: string) => `<script type="application/ld+json">{"@type": "NewsArticle", "datePublished": "${date}"}</script>`;
  assert.equal(published(`<meta name="pubdate" content="November 20, 2019 13:42">${ld('2019-11-20 13:42:06+08:00')}`), Date.parse('2019-11-20T05:42:06Z'));
  assert.equal(published(`<meta property="article:published" itemprop="datePublished" content="2019-11-19">${ld('Tue Nov 19 2019 03:05:46 GMT+0000')}`), Date.parse('2019-11-19T03:05:46Z'));
  // Each meta name is a source of its own: a later name's zoned time before an earlier one's without.
  assert.equal(
    published('<meta property="article:published_time" content="2019-11-18T17:01:27.893">', '<time datetime="2019-11-20T07:00:21-05:00">another story</time><meta itemprop="datePublished" content="2019-11-18T17:01:27.893Z">'),
    Date.parse('2019-11-18T17:01:27.893Z'),
  );
  // Without a sure one, the first that is read: no <time> of another story before it.
  assert.equal(published('<meta property="article:published_time" content="2019-11-18T17:01:27">', '<time datetime="2019-11-20T07:00:21-05:00">another story</time>'), Date.parse('2019-11-18T17:01:27Z'));
  // Last, the date an element of a publication date's class shows: with its zone, the instant;
  // without, the day; not a sidebar's post's, not after "Updated"; never before a meta tag's.
  const shown = (html: string, head = '') => published(head, html);
  assert.equal(shown('<div class="byline"><div class="publish-date"> Published 11:11 PM EST Nov 19, 2019 | Updated 8:02 AM EST Nov 20, 2019</div></div>'), Date.parse('2019-11-20T04:11:00Z'));
  assert.equal(shown('<span class="article-publish-date">November 19, 2019, 9:02 AM</span>'), Date.parse('2019-11-19T00:00:00Z'));
  assert.equal(shown('<aside class="sidebar"><span class="post-date">May 1, 2018</span></aside><span class="entry-date">Posted on June 2, 2019</span>'), Date.parse('2019-06-02T00:00:00Z'));
  assert.equal(shown('<span class="publish-date">yesterday</span>'), undefined);
  assert.equal(shown('<span class="publish-date">Nov 19, 2019 10:00 GMT</span>', '<meta property="article:published_time" content="2019-11-18">'), Date.parse('2019-11-18T00:00:00Z'));
  // An itemprop of two properties; JSON-LD with a raw line break in a string and a comma before a bracket.
  assert.equal(published('<meta property="article:published" itemprop="datePublished dateCreated" content="2019-11-19T11:00:09.000Z">'), Date.parse('2019-11-19T11:00:09Z'));
  assert.equal(
    published('<script type="application/ld+json">{"@type": "NewsArticle", "description": "Two\nlines", "about": ["Science", ], "datePublished": "2019-11-18T16:06:51-05:00"}</script>'),
    Date.parse('2019-11-18T21:06:51Z'),
  );
});

test('a meta or JSON-LD text is read as the text it means: markup gone, entities read again, other angle brackets kept', () => {
  const meta = (name: string, content: string, ld = '') =>
    extractHtml(`<html><head><meta name="${name}" content="${content}">${ld}</head><body><p>${'The tide comes in twice a day. '.repeat(5)}</p></body></html>`, 'https://a.test/');
  // As sites write them: an excerpt's markup escaped once, an entity escaped twice.
  assert.equal(meta('description', '&lt;p&gt;First part.&lt;/p&gt;&lt;p&gt;Second &lt;em&gt;part&lt;/em&gt;.&lt;br/&gt;Third').description, 'First part. Second part. Third');
  assert.equal(meta('description', 'Trump&amp;#039;s call &amp;mdash; the &amp;quot;transcript&amp;quot;&amp;nbsp;out').description, 'Trump\'s call — the "transcript" out');
  assert.equal(meta('og:title', 'Fish &amp;amp; chips').title, 'Fish & chips');
  // Text in angle brackets that names no tag stays, as does an ampersand that starts no entity.
  assert.equal(meta('description', 'Watch &lt;The Palace: Tale of Jang Noksu&gt; at 8 &amp; 9 &lt; 10').description, 'Watch <The Palace: Tale of Jang Noksu> at 8 & 9 < 10');
  assert.equal(meta('description', '&lt;p&gt;Watch &lt;The Palace&gt;&lt;/p&gt;').description, 'Watch <The Palace>');
  // A character the site cut in two is no character.
  assert.equal(meta('description', 'Cut in two \uFFFD...').description, 'Cut in two ...');
  // JSON-LD strings are not decoded by the HTML parser at all: read once.
  const ld = '<script type="application/ld+json">{"headline": "Fish &amp; chips &#8217;n&#8217; peas", "description": "<p>An <i>excerpt</i></p>", "author": {"name": "Jos&eacute; Saramago"}}</script>';
  const fromLd = meta('robots', 'all', ld);
  assert.equal(fromLd.author, 'José Saramago');
  assert.equal(fromLd.title, "Fish & chips ’n’ peas");
  assert.equal(fromLd.description, 'An excerpt');
});

test('text is measured with its whitespace folded: Unicode spaces fold, zero-width and other characters count', () => {
  // Two candidate blocks; the one counted longer wins. Each holds 150 letters in words; A pads them
  // with Unicode spaces (which fold to one), B with zero-width spaces (which are characters).
  const words = Array.from({ length: 30 }, () => 'tides').join('\u2003\u3000\u00a0 ');
  const zw = Array.from({ length: 30 }, () => 'waves').join('\u200b\u200b\u200b ');
  const html = `<html><body><div><p>${words}</p></div><div><p>${zw}</p></div></body></html>`;
  const { content } = extractHtml(html, 'https://a.test/');
  assert.match(content, /waves/);
  assert.ok(!content.includes('tides'), content.slice(0, 80));
});

test('an end marker cuts what follows the article, but not a <details> summary, a section with code or a table, nor "More examples"', () => {
  const body = articleBlocks;
  const p = (s: string) => `<p>${s} This sentence explains the topic in more depth so that the section reads like real documentation.</p>`;
  const intro = [p('Variables hold values.'), p('Functions group code.'), p('Loops repeat code.')].join('');
  const introBlocks = body(intro);
  assert.equal(introBlocks.length, 3);
  // What follows an article is still cut at its marker.
  assert.deepEqual(body(`${intro}<h2>Related articles</h2>${p('Another story.')}`), introBlocks);
  assert.deepEqual(body(`${intro}<h2>More Sports</h2>${p('Another story.')}`), introBlocks);
  assert.deepEqual(body(`${intro}<h2>Comments</h2>${p('Great post, thanks.')}`), introBlocks);
  // A summary alone ("More info") was taken for one, and the rest of the article cut.
  const details = body(`${intro}<details><summary>More info</summary>${p('Hidden details.')}</details>${p('The last paragraph.')}`);
  assert.equal(details.length, 6, details.join('|'));
  assert.equal(details[3], 'More info');
  assert.match(details[5]!, /^The last paragraph\./);
  // A section with code or a table is the article's.
  const code = body(`${intro}<h2>Comments</h2>${p('A comment starts with a hash sign.')}<pre><code># a comment</code></pre>`);
  assert.deepEqual(code.slice(3, 4).concat(code.slice(5)), ['## Comments', '```\n# a comment\n```']);
  const table = body(`${intro}<h2>Comments</h2>${p('Each kind of comment:')}<table><tr><th>Kind</th><th>Sign</th></tr><tr><td>line</td><td>#</td></tr></table>`);
  assert.equal(table.at(-1), '| Kind | Sign |\n| --- | --- |\n| line | # |');
  const more = body(`${intro}<h2>More examples</h2>${p('Here are more loops.')}`);
  assert.equal(more[3], '## More examples');
  assert.equal(more.length, 5);
});

test('struck text is a GFM strikethrough, its edge spaces outside it', () => {
  const { content } = extractHtml(
    '<html><body><article><p>The price was <del>50 USD </del>30 USD, and the <s>old</s> plan was <strike>dropped</strike> on Tuesday after a long debate.</p></article></body></html>',
    'https://a.test/p',
  );
  assert.equal(content, 'The price was ~~50 USD~~ 30 USD, and the ~~old~~ plan was ~~dropped~~ on Tuesday after a long debate.');
});

test("an image's URL is a lazy loader's (data-src, data-original, data-lazy-src, data-srcset), else its src, else its srcset; a data: placeholder is none, a loader's JSON is passed over", () => {
  const images = [
    '<img src="data:image/gif;base64,R0lGOD" data-src="/real.jpg" alt="Lazy">',
    '<img src="" data-srcset="/w_100,h_100/ds.png 480w, /ds2.png 800w" alt="Lazy set">',
    '<img srcset=" ,/s.png, 1x" alt="Set">',
    // A site's blank image in the src, the picture in the loader's attribute.
    '<img src="/v9/images/1x1-white.jpg" class="lazy" data-original="/gallery/33622-l.jpg" alt="Blank">',
    '<img src="data:image/svg+xml,%3Csvg%3E" data-lazy-src="/uploads/jam.jpg" alt="Rocket">',
    '<img src="/plain.png" alt="Plain">',
    `<img src="/sc/e151e5.gif" data-src='{"default":"//img.test/x.img"}' alt="Json">`,
    '<img src="data:image/gif;base64,R0lGOD" alt="Placeholder only">',
  ];
  const { content } = extractHtml(
    `<html><body><article><p>A paragraph long enough to be the article that the extractor keeps, with its images below.</p><p>${images.join(' ')}</p></article></body></html>`,
    'https://a.test/dir/page',
  );
  assert.equal(
    content.split('\n\n')[1],
    '![Lazy](https://a.test/real.jpg) ![Lazy set](https://a.test/w_100,h_100/ds.png) ![Set](https://a.test/s.png) ![Blank](https://a.test/gallery/33622-l.jpg) ![Rocket](https://a.test/uploads/jam.jpg) ![Plain](https://a.test/plain.png) ![Json](https://a.test/sc/e151e5.gif)',
  );
});

test('a title and an author are cut at a word to TITLE_MAX and AUTHOR_MAX characters, from every source', () => {
  const words = (n: number) => 'word '.repeat(n / 5).trim();
  const article = '<article><p>A paragraph long enough to be the article that the extractor keeps, and a second sentence.</p></article>';
  for (const head of [
    `<title>${words(100_000)}</title><meta name="author" content="${words(10_000)}">`,
    `<meta property="og:title" content="${words(100_000)}"><script type="application/ld+json">{"@type":"Article","author":"${words(10_000)}"}</script>`,
  ]) {
    const page = extractHtml(`<html><head>${head}</head><body>${article}</body></html>`, 'https://a.test/p');
    assert.ok(page.title!.length <= TITLE_MAX && page.title!.length > TITLE_MAX - 10, `${page.title!.length}`);
    assert.match(page.title!, /^word word .* word…$/);
    assert.ok(page.author!.length <= AUTHOR_MAX && page.author!.length > AUTHOR_MAX - 10, `${page.author!.length}`);
  }
  const byline = extractHtml(`<html><body><p class="byline">By ${words(10_000)}</p>${article}</body></html>`, 'https://a.test/p');
  assert.ok(byline.author!.length <= AUTHOR_MAX, `${byline.author!.length}`);
});

test('a publication time the page gives itself later than a day after it was fetched is dropped', async () => {
  const fetchedAt = Date.parse('2026-11-28T12:00:00Z');
  const published = async (time: string) =>
    (
      await pageFromResponse({
        requestedUrl: 'https://a.test/p',
        url: 'https://a.test/p',
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: Buffer.from(`<html><head><meta property="article:published_time" content="${time}"></head><body><article><p>A paragraph long enough to be the article that the extractor keeps.</p></article></body></html>`),
        fetchedAt,
      })
    ).publishedAt;
  assert.equal(await published('2026-11-28T08:00:00Z'), Date.parse('2026-11-28T08:00:00Z'));
  assert.equal(await published('2026-11-29T11:00:00Z'), Date.parse('2026-11-29T11:00:00Z'), 'a clock a little ahead');
  assert.equal(await published('2026-11-29T13:00:00Z'), undefined);
  assert.equal(await published('2099-01-01'), undefined);
});

test("a <tfoot>'s rows come last, as a browser shows them; a table inside a cell keeps its cells apart", () => {
  const tableOf = (inner: string) => articleBlocks(`${LEAD}<table>${inner}</table>`)[1];
  assert.equal(
    tableOf('<thead><tr><th>Item</th><th>N</th></tr></thead><tfoot><tr><td>Total</td><td>3</td></tr></tfoot><tbody><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></tbody>'),
    '| Item | N |\n| --- | --- |\n| a | 1 |\n| b | 2 |\n| Total | 3 |',
  );
  assert.equal(tableOf('<tr><th>A</th><th>B</th></tr><tr><td><table><tr><td>x</td><td>y</td></tr></table></td><td>z</td></tr>'), '| A | B |\n| --- | --- |\n| x y | z |');
});

test("a code block's language is read from the classes highlighters write, on the <pre>, its <code> or their wrappers; a <q> keeps its quotation marks", () => {
  const blocksOf = (inner: string) => articleBlocks(`${LEAD}${inner}`).slice(1);
  const pres = [
    '<div class="highlight highlight-source-python"><pre>a</pre></div>', // GitHub
    '<div class="language-ruby highlighter-rouge"><div class="highlight"><pre class="highlight"><code>b</code></pre></div></div>', // Jekyll
    '<div class="highlight-rust notranslate"><div class="highlight"><pre>c</pre></div></div>', // Sphinx
    '<div class="highlight-default notranslate"><div class="highlight"><pre>d</pre></div></div>',
    '<pre class="brush: php; gutter: false">e</pre>', // SyntaxHighlighter
    '<pre class="prettyprint lang-go">f</pre>',
    '<pre><code class="hljs language-js">g</code></pre>',
    '<div class="highlight-box"><pre>h</pre></div>',
  ];
  assert.deepEqual(
    blocksOf(pres.join('')).map((b) => b.split('\n')[0]),
    ['```python', '```ruby', '```rust', '```', '```php', '```go', '```js', '```'],
  );
  assert.deepEqual(blocksOf('<p>He said <q>hello</q> and left.</p>'), ['He said "hello" and left.']);
});

test("a quote's <footer> (its attribution) is kept; a page's footer is not", () => {
  const { content } = extractHtml(
    '<html><body><article><p>A paragraph long enough to be the article that the extractor keeps, with its quote.</p><blockquote><p>To be, or not to be.</p><footer>— <cite>Hamlet</cite></footer></blockquote></article><footer><p>Copyright 2026 the site, all rights reserved and more words.</p></footer></body></html>',
    'https://a.test/p',
  );
  assert.equal(content.split('\n\n').slice(1).join('\n\n'), '> To be, or not to be.\n>\n> — Hamlet');
});

test("a MediaWiki page: headings without their [edit] links, code with its language, what follows \"See also\" cut", () => {
  const { content } = extractHtml(
    `<html><body><div id="content" class="mw-body"><div class="mw-parser-output">
<p><b>Rust</b> is a general-purpose programming language emphasizing performance, type safety, and concurrency.</p>
<h2><span class="mw-headline" id="History">History</span><span class="mw-editsection"><span class="mw-editsection-bracket">[</span><a href="/w/index.php?title=Rust&amp;action=edit&amp;section=1">edit</a><span class="mw-editsection-bracket">]</span></span></h2>
<p>Rust began as a personal project in 2006 by Mozilla employee Graydon Hoare, who named it after a group of fungi.</p>
<div class="mw-highlight mw-highlight-lang-rust mw-content-ltr" dir="ltr"><pre><span class="k">fn</span> <span class="nf">main</span>() {}</pre></div>
<h2><span class="mw-headline" id="See_also">See also</span></h2><ul><li><a href="/wiki/Go">Go</a></li><li><a href="/wiki/Zig">Zig</a></li></ul>
</div></div></body></html>`,
    'https://en.wikipedia.org/wiki/Rust',
  );
  assert.deepEqual(content.split('\n\n').slice(1), [
    '## History',
    'Rust began as a personal project in 2006 by Mozilla employee Graydon Hoare, who named it after a group of fungi.',
    '```rust\nfn main() {}\n```',
  ]);
});

test("a heading's permalink (Sphinx's and MkDocs' ¶, rustdoc's §, Docusaurus' zero-width space) is left out; an in-page link's words stay", () => {
  const headings = [
    '<h2>Installation<a class="headerlink" href="#install" title="Permalink to this heading">¶</a></h2>',
    '<h2>Usage<a class="headerlink" href="#usage">&para;</a></h2>',
    '<h2>Setup<a href="#setup" class="hash-link" aria-label="Direct link to Setup">\u200b</a></h2>',
    '<h2>Examples<a href="#examples" class="anchor">§</a></h2>',
    '<h2><a href="#syntax">Syntax</a></h2>',
  ];
  const { content } = extractHtml(
    `<html><body><article><p>A paragraph long enough to be the article that the extractor keeps, with its sections.</p>${headings.join('<p>Some text of the section.</p>')}<p>See <a href="#fn1">note 1</a>.</p></article></body></html>`,
    'https://a.test/p',
  );
  assert.deepEqual(
    content.split('\n\n').filter((b) => b.startsWith('#')),
    ['## Installation', '## Usage', '## Setup', '## Examples', '## Syntax'],
  );
  assert.match(content, /See note 1\.$/);
});

test("a code block's lines are a browser's: a <br> and a line's block element end them; a highlighter's column of line numbers is left out", () => {
  const blocksOf = (inner: string) => articleBlocks(`${LEAD}${inner}`).slice(1);
  assert.deepEqual(blocksOf('<pre><code>x = 1<br>y = 2</code></pre>'), ['```\nx = 1\ny = 2\n```']);
  assert.deepEqual(
    blocksOf('<pre class="prism-code language-js"><code><span class="token-line"><span class="token keyword">const</span> a = 1;<br></span><span class="token-line">const b = 2;<br></span></code></pre>'),
    ['```js\nconst a = 1;\nconst b = 2;\n```'],
  );
  assert.deepEqual(blocksOf('<pre><code><div class="line">x = 1</div><div class="line">y = 2\n</div><div class="line">z = 3</div></code></pre>'), ['```\nx = 1\ny = 2\nz = 3\n```']);
  assert.deepEqual(
    blocksOf('<div class="highlight"><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre>1\n2</pre></div></td><td class="code"><div class="highlight"><pre>x = 1\ny = 2\n</pre></div></td></tr></table></div>'),
    ['```\nx = 1\ny = 2\n```'],
  );
  assert.deepEqual(blocksOf('<pre>2024\n2025</pre>'), ['```\n2024\n2025\n```'], 'digits alone outside a table cell are code');
});

test("a raised number is written with a caret (10^6, not 106); a footnote's mark is in brackets (note[1], not note1); an ordinal and a word stay as they are", () => {
  const { content } = extractHtml(
    '<html><body><article><p>A paragraph long enough to be the article: 10<sup>6</sup> cells per m<sup>-2</sup>, e<sup>\u22121.5</sup>, the 1<sup>st</sup> try, Brand<sup>TM</sup>, a note<sup><a href="#fn1">1</a></sup>, a star<sup id="r"><a href="#fn:a" class="footnote">*</a></sup>, a cite<sup>[<a href="#cite-2">2</a>]</sup>, H<sub>2</sub>O.</p></article></body></html>',
    'https://a.test/p',
  );
  assert.equal(content, 'A paragraph long enough to be the article: 10^6 cells per m^-2, e^\u22121.5, the 1st try, BrandTM, a note[1], a star[\\*], a cite[2], H2O.');
});

test("a ruby's reading (furigana) is left out of the text it is written above", () => {
  const { content } = extractHtml(
    '<html><body><article><p>これは<ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp>字<rt>じ</rt></ruby>の文章です。とても長い文章なので抽出されるはずです。</p></article></body></html>',
    'https://a.test/p',
  );
  assert.equal(content, 'これは漢字の文章です。とても長い文章なので抽出されるはずです。');
});

test('a refresh names its target as HTML parses it, and the crawler is given it as a link', () => {
  const page = 'https://a.test/dir/page';
  const cases: [string, string | undefined][] = [
    ['0; url=/new', 'https://a.test/new'],
    ['0;URL=\'new.html\'', 'https://a.test/dir/new.html'],
    ['5, url="https://b.test/x?utm_source=y"', 'https://b.test/x'],
    ['0 https://b.test/bare', 'https://b.test/bare'],
    ['3.5; url=/later', 'https://a.test/later'],
    ['11; url=/too-late', undefined],
    ['0', undefined],
    ['0; url=/dir/page#top', undefined],
    ['0; url=javascript:alert(1)', undefined],
    ['soon; url=/x', undefined],
  ];
  for (const [content, target] of cases) assert.equal(refreshTarget(content, page), target, content);
  const extracted = extractHtml('<html><head><meta http-equiv="Refresh" content="0; url=/new"></head><body><p>Moved.</p><a href="/other">other</a></body></html>', page);
  assert.equal(extracted.refreshUrl, 'https://a.test/new');
  assert.deepEqual(extracted.links, ['https://a.test/other', 'https://a.test/new']);
});

test("a chrome line inside the article (an ad's label, continue reading, a read-more button, share buttons or their heading, a link to another story, tags) is left out; a sentence or a section's heading that mentions one is not", () => {
  const p = (s: string) => `<p>${s} The council met on Tuesday to discuss the budget, which has grown by ten percent this year.</p>`;
  const chrome = [
    '<p>Advertisement</p>',
    '<p>ADVERTISEMENT</p>',
    '<p>Continue reading the main story</p>',
    '<p>Story continues below advertisement</p>',
    '<div><span>Share on Facebook</span> <span>Share on X</span></div>',
    '<p>Anzeige</p>',
    // An ad's script gone, its label left: `Advert` above it, WordAds' `Advertisements`, in Indonesian `Iklan`.
    '<div class="Off5dpXq"><center><span style="font-size:0.7em">Advert</span><br></center></div>',
    '<div><span>Advertisements</span></div>',
    '<p>Iklan</p>',
    "<p><strong>DON'T MISS</strong></p>",
    '<p><b>Advertisement</b></p>',
    '<p><strong>Related:</strong> <a href="/other"><strong>Ten budgets that went wrong</strong></a></p>',
    '<p><b>READ MORE: <a href="/more">The mayor answers</a></b></p>',
    '<p><strong>[Related: <a href="/keynote">Keynote: AI, integration and protestors</a>]</strong></p>',
    // Headings of share buttons (their buttons gone) and of a link to another story.
    '<h2>Share this story</h2>',
    '<h3>Share this:</h3>',
    '<h3>Related post: <a href="/pickles">Pickled Brussels Sprouts Recipe</a></h3>',
    // A teaser for another story, a link standing as a block between paragraphs; a paragraph that is one long link.
    '<a class="read-more-big" href="/other"><span><span>Also on news.test</span> <span>Journalists and politicians from the party threatened with sedition arrests as the purge goes on</span></span></a>',
    '<p><a href="/promo">Get access to the fastest growing financial subscription service for as little as 599 for the first year, with the code below</a></p>',
    '<p><strong>Tags<br><a href="/tag/budget">budget</a>, <a href="/tag/council">council</a>, <a href="/tag/city">city hall</a></strong></p>',
    // The button that unfolds the rest of the story: no end of it.
    '<div class="read-more-button"><div class="read-more-link">Read More</div></div>',
  ];
  const { content } = extractHtml(
    `<html><body><article>${p('First.')}${chrome.map((c, i) => c + p(`Paragraph ${i}.`)).join('')}<p>Advertisement revenue fell by a third.</p><p>Related: <a href="/r">a report</a> says more.</p><h2>Advertising</h2>${p('Last.')}</article></body></html>`,
    'https://news.test/a',
  );
  const blocks = content.split('\n\n');
  assert.equal(blocks.filter((b) => b.startsWith('Paragraph')).length, chrome.length);
  assert.deepEqual(blocks.filter((b) => !/The council met/.test(b)), ['Advertisement revenue fell by a third.', 'Related: [a report](https://news.test/r) says more.', '## Advertising']);
});

test("the blocks site plugins add to every post (Jetpack's like and share buttons, Social Pug's \"Sharing is caring!\", WordAds' slot) are left out, whatever else their class or id says", () => {
  const p = (s: string) => `<p>${s} The senate resolved to observe a minute of silence in honour of the departed souls on Tuesday.</p>`;
  const plugins = [
    // The like buttons' wrapper has an id of a post's (`like-post-wrapper-`), which alone would keep it.
    '<div class="sharedaddy sd-block sd-like jetpack-likes-widget-wrapper" id="like-post-wrapper-60322464-64645"><h3 class="sd-title">Like this:</h3><div class="likes-widget-placeholder post-likes-widget-placeholder"><span class="button"><span>Like</span></span> <span class="loading">Loading...</span></div></div>',
    '<p class="dpsp-share-text ">Sharing is caring!</p><div id="dpsp-content-top" class="dpsp-content-wrapper dpsp-shape-rectangular"><ul><li><a href="https://facebook.com/sharer">Facebook</a></li></ul></div>',
    '<div class="wpcnt"><div class="wpa top"><span class="wpa-about">Iklan</span><div class="u"></div></div></div>',
    '<div id="jp-relatedposts" class="jp-relatedposts"><h3 class="jp-relatedposts-headline"><em>Related</em></h3></div>',
    '<p class="jetpack-slideshow-noscript robots-nocontent">This slideshow requires JavaScript.</p>',
    // A rail of trending stories in a carousel, in the article's middle.
    '<div class="rail rail--trending"><div class="swiper-container"><h3 class="rail__title">Most read in world news</h3><div class="swiper-wrapper"><div class="rail__item"><h3>RANDY ANDY</h3><p>Andrew parties in unearthed pics despite claiming he avoids them</p></div></div></div></div>',
  ];
  const { content } = extractHtml(`<html><body><div class="entry-content">${p('First.')}${plugins.map((c, i) => c + p(`Paragraph ${i}.`)).join('')}</div></body></html>`, 'https://blog.test/a');
  assert.deepEqual(
    content.split('\n\n').map((b) => b.split(' ')[0]),
    ['First.', 'Paragraph', 'Paragraph', 'Paragraph', 'Paragraph', 'Paragraph', 'Paragraph'],
  );
});

test("a shortcode a site left unrendered ([button link=\"...\"]...[/button]) is taken out of the text, its words kept; brackets of prose and code stay", () => {
  const blocks = articleBlocks(
    `${LEAD}<p>[button link=\u201dhttp://bikes.test/submit/\u201d type=\u201dbig\u201d newwindow=\u201dyes\u201d] Send us YOUR kit review[/button]</p>` +
      '<p>[caption id="attachment_1" align="alignleft" width="300"]The bike on the road.[/caption]</p>' +
      '<p>He said [sic] that the note [1] read [Ni\u2019matul Ukhuwah hal. 41].</p><pre><code>[button link="x"]</code></pre>',
  );
  assert.deepEqual(blocks.slice(1), ['Send us YOUR kit review', 'The bike on the road.', 'He said [sic] that the note [1] read [Ni\u2019matul Ukhuwah hal. 41].', '```\n[button link="x"]\n```']);
});

test('a "Click To Tweet" box is the quote it shows, without its button and its link to share (Social Warfare\'s in a link, Better Click To Tweet\'s around one)', () => {
  const blocks = articleBlocks(
    `${LEAD}<a href="https://twitter.com/share?text=Every+online+business" rel="nofollow"><span class="sw-click-to-tweet"><span class="sw-ctt-text">Every online business exists in the 'space-time continuum.'</span><span class="sw-ctt-btn">Click To Tweet<i class="sw swp_twitter_icon"></i></span></span></a>` +
      `<p>Think about it: you build your website, then your audience, one day at a time.</p>` +
      `<span class="bctt-click-to-tweet"><span class="bctt-ctt-text"><a href="https://twitter.com/intent/tweet?text=Visibility" rel="noopener">Increasing your visibility gradually lets you grow.</a></span><a href="https://twitter.com/intent/tweet?text=Visibility" class="bctt-ctt-btn">Click To Tweet</a></span>`,
  );
  assert.deepEqual(blocks.slice(1), [
    "> Every online business exists in the 'space-time continuum.'",
    'Think about it: you build your website, then your audience, one day at a time.',
    '> Increasing your visibility gradually lets you grow.',
  ]);
});

test('a paragraph of headlines with a few words between them ("DON\'T MISS") is left out, and a "More:" heading over a list of links that goes; a sentence with links, a list of names and a heading of its own are kept', () => {
  const p = (s: string) => `<p>${s} The outbreak was confirmed by the regional health authority after tests on Monday, officials said.</p>`;
  const story = (path: string, title: string) => `<a href="/news/${path}">${title}</a>`;
  const { content } = extractHtml(
    `<html><body><article>${p('First.')}` +
      `<p><strong>DON'T MISS</strong><br><strong>${story('1', 'Plague and influenza warning: CDC names eight deadly diseases')} [WARNING]</strong><br><strong>${story('2', 'Black Death fears: holidaymakers die after eating marmot')} [INSIGHT]</strong><br><strong>${story('3', 'Plane passengers quarantined after plague outbreak')} [NEWS]</strong></p>` +
      `${p('Second.')}<h4>More:</h4><ul><li><h4>${story('4', 'The New Space Race')}</h4></li></ul><ul><li><h4>${story('5', "Spacewalking into 'her-story'")}</h4></li></ul>` +
      `${p('Third.')}<p>A man pleaded guilty to charges he threatened to kill ${story('6', 'Rep. Ilhan Omar')} ${story('7', 'Ilhan Omar Hillicon Valley: Progressives oppose funding bill')} ${story('8', 'Ilhan Omar Trump attacks on Omar spark frustration')}, prosecutors said.</p>` +
      `<p><strong>Accounts: <a href="https://instagram.com/a">@marjori</a>, <a href="https://instagram.com/b">@recipe</a>, <a href="https://instagram.com/c">@cooking</a></strong></p>` +
      `<h3>Apple AirPods Pro for $235</h3><ul><li><strong>See it now:</strong> ${story('9', 'Amazon')}</li></ul>${p('Fourth.')}</article></body></html>`,
    'https://news.test/a',
  );
  const blocks = content.split('\n\n');
  assert.deepEqual(
    blocks.map((b) => b.slice(0, 20)),
    ['First. The outbreak ', 'Second. The outbreak', 'Third. The outbreak ', 'A man pleaded guilty', '**Accounts: [@marjor', '### Apple AirPods Pr', 'Fourth. The outbreak'],
  );
});

test("a photo's credit beside its caption (a <cite> in a figure of a picture) is left out, as the caption; a quote's source and a cited title stay", () => {
  const p = (s: string) => `<p>${s} The council met on Tuesday to discuss the budget, which has grown by ten percent this year.</p>`;
  const { content } = extractHtml(
    `<html><body><article>${p('First.')}<figure><picture><img src="/gate.jpg" alt="India Gate in smog"></picture><span class="e-image__meta"><figcaption>Air pollution is surging.</figcaption><cite>Sanjeev Verma/Hindustan Times/Getty Images</cite></span></figure>${p('Second.')}<figure><blockquote><p>Smog is a choice.</p></blockquote><cite>A mayor</cite></figure>${p('Third, as <cite>The Air We Breathe</cite> says.')}${p('Last.')}</article></body></html>`,
    'https://news.test/a',
  );
  assert.ok(content.includes('![India Gate in smog](https://news.test/gate.jpg)'), content);
  assert.ok(!content.includes('Getty Images'), content);
  assert.ok(content.includes('A mayor'), content);
  assert.ok(content.includes('The Air We Breathe'), content);
});

test("a counter (a gallery's count over its photo, a share count) is left out, whatever else its class says; a number of the text or of a table is not", () => {
  const p = (s: string) => `<p>${s} The council met on Tuesday to discuss the budget, which has grown by ten percent this year.</p>`;
  const { content } = extractHtml(
    `<html><body><article>${p('First.')}<figure class="article__media"><div class="article__media-img-container open-gallery"><img src="/a.jpg" alt="The hall"><div class="article__gallery-count"><span class="article__gallery-count-value">6</span></div></div></figure>${p('Second.')}<div class="share-count">1.2k</div><span class="slide-counter">2 / 10</span>${p('Third.')}<p class="account">7</p><div class="country">42</div><p class="count-intro">Count the votes twice.</p><table><tr><th>Party</th><th class="count">Seats</th></tr><tr><td>Greens</td><td class="count">17</td></tr></table>${p('Last.')}</article></body></html>`,
    'https://news.test/a',
  );
  const blocks = content.split('\n\n');
  assert.ok(blocks.includes('![The hall](https://news.test/a.jpg)'), content);
  for (const gone of ['6', '1.2k', '2 / 10']) assert.ok(!blocks.includes(gone), content);
  for (const kept of ['7', '42', 'Count the votes twice.']) assert.ok(blocks.includes(kept), content);
  assert.match(content, /\| Greens \| 17 \|/, 'a table\'s column of counts is data');
});

test("a hover card in a sentence (a span of a photo and links, shown under the pointer) is left out, the name the sentence reads kept; a span of an emoji and a link is not one", () => {
  const card = (nid: string, name: string) =>
    `<span class="rollover-people"><a class="rollover-people-link" href="/people/${nid}">${name}</a><span class="rollover-people-block"><span class="rollover-block"><span><img src="/${nid}.jpg" alt=""><a class="name" href="/people/${nid}">${name} Lynn</a><a class="people-articles" href="/news/1">Governor doubles down on anti-drug campaign</a> <a class="people-articles" href="/news/2">State drops pipeline protest laws</a> <a class="more" href="/people/${nid}">MORE<span></span></a></span></span></span></span>`;
  const blocks = articleBlocks(
    `${LEAD}<p>South Dakota Gov. ${card('kristi-noem', 'Kristi Noem')} (R) is defending the campaign.</p>` +
      '<p>The reviews were kind <span class="smile"><img class="emoji" src="/e.png" alt="🙂"> and <a href="/r">here they are</a></span> for all to read.</p>',
  );
  assert.deepEqual(blocks.slice(1), [
    'South Dakota Gov. [Kristi Noem](https://a.test/people/kristi-noem) (R) is defending the campaign.',
    'The reviews were kind 🙂 and [here they are](https://a.test/r) for all to read.',
  ]);
});

test('a link in a span inside a sentence is kept; a span that is only a link, standing alone, is not', () => {
  const blocks = articleBlocks(
    `${LEAD}<p>The figures, as <span class="ref"><a href="/paper">the paper</a></span> says, agree with the model.</p><div><span class="share"><a href="/share">Share this</a></span></div><p>The end of the story, long enough.</p>`,
  );
  assert.deepEqual(blocks.slice(1), ['The figures, as [the paper](https://a.test/paper) says, agree with the model.', 'The end of the story, long enough.']);
});

test("an article written as text and <br>s in a div beside its title paragraph is found, not the page's footer", () => {
  const sidebar = `<div class="col-md-3"><ul>${Array.from({ length: 30 }, (_, i) => `<li><a href="/archive?m=${i}">Month ${i} <span>(${i})</span></a></li>`).join('')}</ul></div>`;
  const story =
    'A equipe do Serviço de Atendimento Domiciliar registrou nesta manhã o arrombamento de dois dos cinco automóveis da unidade. Os veículos estavam sem as baterias, com marcas de depredação.<br><br>Foi feito boletim de ocorrência, e a polícia foi até o local para verificar os danos nos veículos.';
  const { content } = extractHtml(
    `<html><body><div class="container"><div class="row">${sidebar}<div class="col-md-9"><p class="titulo">Arrombamento</p><small><b>05/10/2018</b> - Publicado por: Clarissa</small><br><br>${story}</div></div></div><div class="footer"><div class="container"><p>Jaraguá do Sul - SC - Rua Walter Marquardt, 1111 - Barra do Rio Molha - Caixa Postal 421 - Fone: (047) 2106-8000</p></div></div></body></html>`,
    'https://city.test/news/1',
  );
  assert.match(content, /registrou nesta manhã o arrombamento[^]*a polícia foi até o local/);
  assert.doesNotMatch(content, /Caixa Postal/);
});

test('a heading that can only open what follows an article ("You may also like") cuts it after a fifth of the text; a widget\'s ("Most read") only after most of it', () => {
  const long = (s: string) => `<p>${s} ${'This sentence is part of a long teaser for another story on the site, written to draw readers on. '.repeat(4)}</p>`;
  const article = '<p>Living a true love is one of the great pleasures of life, and expressing it depends on what each of us thinks of it, which is why it matters.</p>'.repeat(2);
  const body = (marker: string) =>
    extractHtml(`<html><body><article>${article}<h3>${marker}</h3>${long('One.')}${long('Two.')}</article></body></html>`, 'https://a.test/p').content.split('\n\n');
  assert.equal(body('Você pode gostar...').length, 2);
  assert.equal(body('You may also like').length, 2);
  assert.equal(body('Most read in world news').length, 5, 'a widget in the middle of an article is no end of it');
});

test("a post embedded from a social network is kept as the quote it is, in its wrapper of a chrome-like class; share buttons are not", () => {
  const p = (s: string) => `<p>${s} The governor's campaign was the talk of the state on Monday, and many people said so online.</p>`;
  const tweet =
    '<div class="social-media-embed"><blockquote class="twitter-tweet"><p lang="en">Yes this is real and the state spent half a million dollars on it: <a href="https://t.co/x">https://t.co/x</a></p>— Dianna (@dianna) <a href="https://twitter.com/dianna/status/1">November 18, 2019</a></blockquote><script src="https://platform.twitter.com/widgets.js"></script></div>';
  const { content } = extractHtml(
    `<html><body><article>${p('First.')}${tweet}${p('Second.')}<div class="social-share"><a href="https://facebook.com/share">Facebook</a> <a href="https://twitter.com/share">Twitter</a></div>${p('Third.')}</article></body></html>`,
    'https://news.test/a',
  );
  assert.match(content, /\n\n> Yes this is real and the state spent half a million dollars on it: \[https:\/\/t\.co\/x\]\(https:\/\/t\.co\/x\)\n>\n> — Dianna \(@dianna\) \[November 18, 2019\]\(https:\/\/twitter\.com\/dianna\/status\/1\)\n\n/);
  assert.doesNotMatch(content, /Facebook/);
});

test("an icon font's word (<i class=\"material-icons\">chevron_left</i>) is no text", () => {
  const blocks = articleBlocks(`${LEAD}<p>Swipe <i class="material-icons">chevron_left</i> to go back, or <span class="material-symbols-outlined">arrow_forward</span> on.</p>`);
  assert.match(blocks[1]!, /^Swipe\s+to go back, or\s+on\.$/);
});

test('a question and its answers are all content, each post apart; a layout class repeated in the footer is not a post', () => {
  // The accepted answer, long, is the best candidate; each post's wrapper holds its votes and author.
  const post = (paragraphs: string[], votes: number, who: string) =>
    `<div class="votecell"><div class="vote-count">${votes}</div></div><div class="postcell"><div class="s-prose js-post-body">${paragraphs.map((p) => `<p>${p}</p>`).join('')}</div><div class="user-info">answered Oct 15, 2010 by <a href="/u/${who}">${who}</a></div></div>`;
  const accepted = [
    'Use the built-in reversed() function, which returns an iterator over the list, from its last item to its first, without a copy.',
    'It works on any sequence, such as a tuple, a string or a range, and on any object that defines its own reversal, such as a deque.',
    'To get a new list, in reverse, pass the iterator to list(), which reads it, item by item, into a list of its own.',
  ];
  const html =
    '<html><head><title>How do I reverse a list in Python?</title></head><body><div id="content">' +
    `<div id="question">${post(['How do I iterate over a list in reverse in Python?'], 12, 'leo')}</div>` +
    '<div id="answers"><h2>2 Answers</h2>' +
    `<div class="answer">${post(accepted, 1650, 'cod')}</div>` +
    `<div class="answer">${post(['Use slicing with a step of -1: a[::-1].'], 1500, 'ghost')}</div>` +
    '</div></div></body></html>';
  const { content } = extractHtml(html, 'https://qa.test/q/1');
  assert.equal(
    content,
    // Each post after its author's name (the wrapper's `user-info`).
    ['**leo**:', 'How do I iterate over a list in reverse in Python?', '---', '**cod**:', ...accepted, '---', '**ghost**:', 'Use slicing with a step of -1: a[::-1].'].join('\n\n'),
  );

  // A story laid out in grids: the footer's grid of the same class holds the author's bio, no post.
  const grid = (inner: string) => `<div class="grid grid-items-2 narrow">${inner}</div>`;
  const story = extractHtml(
    `<html><body><main><article><p>What the neo-banks are, and what they are not.</p>${grid(`<div class="article-body">${'<p>The neo-banks promised to ease the pain of overdraft fees, and many of them did so, for a while.</p>'.repeat(4)}</div>`)}</article>` +
      `<div class="content-footer">${grid('<div class="bio">Molly Wood is a contributor, and the host of a daily radio show about the business of technology.</div>')}</div></main></body></html>`,
    'https://news.test/a',
  );
  assert.doesNotMatch(story.content, /Molly Wood/);
  assert.match(story.content, /neo-banks/);
});

test("a formula reads as its TeX (Wikipedia's hidden MathML beside its image, KaTeX) or, without TeX, as its MathML read out (MathJax)", () => {
  const wikipedia =
    '<span class="mwe-math-element"><span class="mwe-math-mathml-inline mwe-math-mathml-a11y" style="display: none;"><math xmlns="http://www.w3.org/1998/Math/MathML" alttext="{\\displaystyle E=mc^{2}}"><semantics><mrow><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></mrow><annotation encoding="application/x-tex">{\\displaystyle E=mc^{2}}</annotation></semantics></math></span><img src="https://wikimedia.org/math/render/svg/1" class="mwe-math-fallback-image-inline" aria-hidden="true" alt="{\\displaystyle E=mc^{2}}"></span>';
  const katex =
    '<span class="katex"><span class="katex-mathml"><math><semantics><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><annotation encoding="application/x-tex">a+b</annotation></semantics></math></span><span class="katex-html" aria-hidden="true"><span class="mord">a</span><span class="mbin">+</span><span class="mord">b</span></span></span>';
  const mathjax =
    '<mjx-container class="MathJax CtxtMenu_Attached_0" jax="CHTML"><mjx-math aria-hidden="true"><mjx-mi><mjx-c></mjx-c></mjx-mi></mjx-math><mjx-assistive-mml display="inline"><math><msup><mi>x</mi><mrow><mi>n</mi><mo>+</mo><mn>1</mn></mrow></msup><mo>+</mo><mfrac><mn>1</mn><mn>2</mn></mfrac></math></mjx-assistive-mml></mjx-container>';
  const display = '<math display="block" alttext="\\sum_{i=1}^n i"><mo>∑</mo></math>';
  const blocks = articleBlocks(`${LEAD}<p>The energy is ${wikipedia} at rest.</p><p>Then ${katex} holds, and ${mathjax} grows.</p><p>The sum ${display} follows.</p>${LEAD}`);
  assert.deepEqual(blocks.slice(1, 4), [
    'The energy is $E=mc^{2}$ at rest.',
    'Then $a+b$ holds, and x^(n+1)+1/2 grows.',
    'The sum $$\\sum_{i=1}^n i$$ follows.',
  ]);
});

test("a page drawn by its scripts gives its article from its JSON-LD articleBody; a page whose HTML shows the article keeps the HTML's", () => {
  const sentences = ['The council approved the budget on Tuesday, after a debate of six hours.', 'The vote was seven to two, with the mayor in favour.'];
  const body = `${sentences[0]} ${'It grew by ten percent over last year, mostly for schools and roads. '.repeat(8)}\n${sentences[1]}`;
  const ld = (articleBody: string) =>
    `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Budget passes', articleBody })}</script>`;
  const spa = extractHtml(`<html><head>${ld(body)}</head><body><div id="root"></div><noscript>Enable JavaScript.</noscript></body></html>`, 'https://news.test/a');
  const blocks = spa.content.split('\n\n');
  assert.equal(blocks.length, 2);
  assert.ok(blocks[0]!.startsWith(sentences[0]!));
  assert.equal(blocks[1], sentences[1]);
  assert.equal(spa.title, 'Budget passes');
  // HTML in articleBody is read as a page's.
  const html = extractHtml(`<html><head>${ld(`<p>${body}</p><p>See <a href="/vote">the vote</a>.</p>`)}</head><body></body></html>`, 'https://news.test/a');
  assert.match(html.content, /\n\nSee \[the vote\]\(https:\/\/news\.test\/vote\)\.$/);
  // A page that shows its article: its HTML, links and all.
  const shown = extractHtml(
    `<html><head>${ld(body)}</head><body><article><p>${body.replace('\n', '</p><p>')}</p><p>See <a href="/vote">the vote</a>.</p></article></body></html>`,
    'https://news.test/a',
  );
  assert.match(shown.content, /\[the vote\]/);
  // A teaser in the structured data is no article.
  assert.equal(extractHtml(`<html><head>${ld('A short summary.')}</head><body><div id="root"></div></body></html>`, 'https://news.test/a').content, '');
});

test("a tab set's panels are all shown, each under its tab's name, by aria-controls or by order; a player's fallback text is no text", () => {
  const byOrder =
    '<div class="tabs-container"><ul role="tablist"><li role="tab" aria-selected="true">npm</li><li role="tab">Yarn</li></ul>' +
    '<div><div role="tabpanel"><pre><code class="language-bash">npm install widget</code></pre></div><div role="tabpanel" hidden><pre><code class="language-bash">yarn add widget</code></pre></div></div></div>';
  const byId =
    '<ul class="nav nav-tabs" role="tablist"><li><a role="tab" href="#py" aria-controls="py">Python</a></li><li><a role="tab" href="#js" aria-controls="js">JavaScript</a></li></ul>' +
    '<div class="tab-content"><div role="tabpanel" id="js" style="display: none"><p>Call widget() from JavaScript.</p></div><div role="tabpanel" id="py"><p>Call widget() from Python.</p></div></div>';
  // Material for MkDocs: radio inputs, labels, a block per tab (and, before its version 8, a content after each label).
  const mkdocs =
    '<div class="tabbed-set tabbed-alternate"><input checked id="t1" name="t" type="radio"><input id="t2" name="t" type="radio"><div class="tabbed-labels"><label for="t1">Python 3.10+</label><label for="t2">Python 3.8+</label></div>' +
    '<div class="tabbed-content"><div class="tabbed-block"><p>x: int | None</p></div><div class="tabbed-block"><p>x: Optional[int]</p></div></div></div>' +
    '<div class="tabbed-set"><input checked id="u1" name="u" type="radio"><label for="u1">pip</label><div class="tabbed-content"><p>pip install widget</p></div><input id="u2" name="u" type="radio"><label for="u2">conda</label><div class="tabbed-content"><p>conda install widget</p></div></div>';
  const player = '<video src="/intro.mp4" controls>Your browser does not support the video tag.</video><audio src="/a.mp3">No audio here.</audio>';
  const blocks = articleBlocks(`${LEAD}${byOrder}${byId}${mkdocs}${player}${LEAD}`);
  assert.deepEqual(blocks.slice(1, -1), [
    '**npm**',
    '```bash\nnpm install widget\n```',
    '**Yarn**',
    '```bash\nyarn add widget\n```',
    // The panels as the page orders them, each named by its own tab.
    '**JavaScript**',
    'Call widget() from JavaScript.',
    '**Python**',
    'Call widget() from Python.',
    '**Python 3.10+**',
    'x: int | None',
    '**Python 3.8+**',
    'x: Optional[int]',
    '**pip**',
    'pip install widget',
    '**conda**',
    'conda install widget',
  ]);
});

test("a discussion's page (a story, its comments) keeps its comments, each apart; a short post in an <article> keeps its article alone", () => {
  const comment = (i: number) =>
    `<tr class="athing comtr"><td><table><tr><td class="ind"><img src="s.gif" width="${40 * (i % 2)}"></td><td class="votelinks"><a href="vote?id=${i}"><div class="votearrow"></div></a></td>` +
    `<td class="default"><div><span class="comhead"><a href="user?id=u${i}" class="hnuser">u${i}</a> <a href="item?id=${i}">3 hours ago</a> | <a href="#p">prev</a> | <a href="#n">next</a></span></div>` +
    `<div class="comment"><div class="commtext">Comment ${i} says something about the story, with commas, and some detail of its own.</div><div class="reply"><p><a href="reply?id=${i}">reply</a></p></div></div></td></tr></table></td></tr>`;
  const hn =
    '<html><head><title>Ask HN: Which search engine do you run?</title></head><body><center><table id="hnmain">' +
    '<tr><td><table><tr><td><span class="pagetop"><b><a href="news">Hacker News</a></b> <a href="newest">new</a> | <a href="front">past</a></span></td></tr></table></td></tr>' +
    '<tr><td><table class="fatitem"><tr class="athing submission"><td class="title"><span class="titleline"><a href="item?id=1">Ask HN: Which search engine do you run?</a></span></td></tr>' +
    '<tr><td class="subtext"><span class="score">120 points</span> by <a href="user?id=op">op</a> | <a href="item?id=1">45 comments</a></td></tr>' +
    '<tr><td><div class="toptext">We run our own search over a million pages. What do you run, on what machine, and how fast is it?</div></td></tr></table>' +
    `<table class="comment-tree">${[0, 1, 2].map(comment).join('')}</table></td></tr></table></center></body></html>`;
  const blocks = extractHtml(hn, 'https://news.test/item?id=1').content.split('\n\n');
  assert.deepEqual(blocks.slice(1), [
    'We run our own search over a million pages. What do you run, on what machine, and how fast is it?',
    '---',
    '**u0**:',
    'Comment 0 says something about the story, with commas, and some detail of its own.',
    '---',
    '**u1**:',
    'Comment 1 says something about the story, with commas, and some detail of its own.',
    '---',
    '**u2**:',
    'Comment 2 says something about the story, with commas, and some detail of its own.',
  ]);
  assert.match(blocks[0]!, /^120 points by \[op\]/);

  // A blog's short post with a long thread under it: the post is the article.
  const thread = Array.from({ length: 12 }, (_, i) => `<li class="comment"><div class="comment-body"><p>Comment ${i} on the open thread, a question about the charity's report, with detail.</p></div></li>`).join('');
  const blog = extractHtml(
    `<html><body><main><article class="post"><h1>September open thread</h1><div class="entry-content"><p>Our open thread is a place for questions about our work and our research, asked and answered by our staff.</p><p>You can view our June open thread here, as before.</p></div></article><div class="comments-area" id="comments"><ul class="comment-list">${thread}</ul></div></main></body></html>`,
    'https://blog.test/open-thread',
  );
  assert.doesNotMatch(blog.content, /Comment \d/);
  assert.match(blog.content, /Our open thread is a place/);
});

test('a table whose text is all in one column (spacers, icons, arrows beside it) is layout: its cells read as blocks', () => {
  const blocks = articleBlocks(
    `${LEAD}<table><tr><td><img src="s.gif"></td><td></td><td><p>The first row's text, a paragraph of it.</p></td></tr><tr><td></td><td><img src="up.gif"></td><td><p>The second row's text.</p></td></tr></table>`,
  );
  assert.deepEqual(blocks.slice(1), ["The first row's text, a paragraph of it.", "The second row's text."]);
});

test("a declarative shadow root's <template> is what its element shows; another <template> is not shown", () => {
  const blocks = articleBlocks(
    `${LEAD}<blog-card><template shadowrootmode="open"><p>Rendered by the server inside a shadow root.</p><slot></slot></template></blog-card><template id="row"><p>A row's template, never shown.</p></template>`,
  );
  assert.deepEqual(blocks.slice(1), ['Rendered by the server inside a shadow root.']);
});

test("a figure of no image keeps its caption (a quote's attribution, a listing's title), a photo's is left out; an emoji drawn as an image is its character", () => {
  const blocks = articleBlocks(
    `${LEAD}<figure><blockquote><p>Simplicity is prerequisite for reliability.</p></blockquote><figcaption>— Edsger W. Dijkstra</figcaption></figure>` +
      '<figure><img src="/stage.jpg" alt="The stage"><figcaption>Photo: Getty Images</figcaption></figure>' +
      '<figure><pre><code>print("hi")</code></pre><figcaption>Listing 1: hello</figcaption></figure>' +
      '<p>Great talk <img class="emoji" alt=":+1:" src="/e/1f44d.png"> and <img draggable="false" alt="👍🏽" src="https://s.w.org/images/core/emoji/1f44d.svg">, and a <img alt="chart" src="/c.png"> of it.</p>',
  );
  assert.deepEqual(blocks.slice(1), [
    '> Simplicity is prerequisite for reliability.',
    '— Edsger W. Dijkstra',
    '![The stage](https://a.test/stage.jpg)',
    '```\nprint("hi")\n```',
    'Listing 1: hello',
    'Great talk :+1: and 👍🏽, and a ![chart](https://a.test/c.png) of it.',
  ]);
});

test("a task list's boxes are its items' marks, as GitHub writes them; a form's box is dropped", () => {
  const blocks = articleBlocks(
    `${LEAD}<ul class="contains-task-list"><li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" checked disabled> Write the parser</li>` +
      '<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled> Ship it</li><li><p><input type="CHECKBOX" checked> Tested</p></li></ul>' +
      '<ul><li>Accept the terms <input type="checkbox" name="terms"></li></ul>',
  );
  assert.deepEqual(blocks.slice(1), ['- [x] Write the parser\n- [ ] Ship it\n- [x] Tested', '- Accept the terms']);
});

test('the spaces an element and its neighbour hold between them are one space, as a browser shows them', () => {
  const blocks = articleBlocks(
    `${LEAD}<p>Read <a href="/a"> the guide </a> and <strong> then </strong> the <em>rest </em> of it.</p><ul><li>One <b> two </b> three</li></ul>` +
      '<table><tr><th>A</th><th>B</th></tr><tr><td>x <i> y </i> z</td><td>w</td></tr></table>',
  );
  assert.deepEqual(blocks.slice(1), ['Read [the guide](https://a.test/a) and **then** the *rest* of it.', '- One **two** three', '| A | B |\n| --- | --- |\n| x *y* z | w |']);
});

test("a thread's posts are parted by one break each: none before the first, none doubled where two ways of parting them meet", () => {
  // A code host's issue: each comment in a container of a comment's class, its text in a block of a content class.
  const comment = (who: string, text: string) =>
    `<div class="TimelineItem js-comment-container"><div class="timeline-comment"><div class="timeline-comment-header"><h3><a class="author" href="/${who}">${who}</a> commented <a href="#c">May 1</a></h3></div>` +
    `<table class="d-block"><tbody><tr><td class="d-block comment-body markdown-body">${text}</td></tr></tbody></table></div></div>`;
  const html =
    '<html><head><title>Crash when parsing an empty file · Issue #42</title></head><body><main><h1>Crash on an empty file #42</h1><div class="js-discussion">' +
    comment('alice', '<p>When I run the parser on an empty file, it crashes with a stack trace instead of saying that the file is empty.</p>') +
    comment('bob', '<p>I can reproduce this on another system too, with an older version, so it is not new; the parser assumes a line.</p>') +
    comment('carol', '<p>Fixed in the next release: the parser now returns an empty document for an empty file, and says so.</p>') +
    '</div></main></body></html>';
  assert.deepEqual(extractHtml(html, 'https://code.test/acme/widget/issues/42').content.split('\n\n'), [
    '# Crash on an empty file #42',
    '**alice**:',
    'When I run the parser on an empty file, it crashes with a stack trace instead of saying that the file is empty.',
    '---',
    '**bob**:',
    'I can reproduce this on another system too, with an older version, so it is not new; the parser assumes a line.',
    '---',
    '**carol**:',
    'Fixed in the next release: the parser now returns an empty document for an empty file, and says so.',
  ]);
  // Breaks the page draws itself: after a heading, twice in a row, at the end.
  const blocks = articleBlocks(`${LEAD}<h2>Part two</h2><hr><p>The second part of the story, a paragraph long enough to keep.</p><hr><hr><p>The third part.</p><hr>`);
  assert.deepEqual(blocks.slice(1), ['## Part two', 'The second part of the story, a paragraph long enough to keep.', '---', 'The third part.']);
});

test('two line breaks in a row part paragraphs, as a browser shows them; one is a line break; in a link, neither', () => {
  const content = (inner: string) => extractHtml(`<html><body><article>${inner}</article></body></html>`, 'https://a.test/p').content;
  // A post written with <br>s (a tweet, a forum post, an old page), a no-break space between two of them.
  assert.equal(
    content(`<div>A title line<br><br>The first paragraph of the post, long enough to be the article's text here.<br>\n&nbsp;<br>A second one,<br>its second line.<br><br><br>A third.</div>`),
    "A title line\n\nThe first paragraph of the post, long enough to be the article's text here.\n\nA second one,\nits second line.\n\nA third.",
  );
  assert.equal(
    content(`${LEAD}<p>Text and <a href="/x">a link<br><br>of two lines</a>, <!-- a comment --> then<br><!-- c --><br>more.</p>`).split('\n\n').slice(1).join('\n\n'),
    'Text and [a link\nof two lines](https://a.test/x), then\n\nmore.',
  );
});

test("a thread's post is named by its own author: a sure name (itemprop) before an editor's, none where two are nearest, none taken from another post, none on an article", () => {
  const body = (text: string) => `<div class="s-prose js-post-body"><p>${text}</p></div>`;
  const signature = (inner: string) => `<div class="post-signature">${inner}</div>`;
  const user = (who: string, sure = false) => `<div class="user-info"><div class="user-details"${sure ? ' itemprop="author"' : ''}><a href="/u/${who}">${who}</a><span>1,234</span></div></div>`;
  const html =
    '<html><body><div id="content">' +
    // The question: no name at all (a deleted user); its answers' names are not its own.
    `<div class="question"><div class="postcell">${body('How do I read a file line by line in Rust, without reading all of it into memory first?')}</div></div>` +
    // Edited by another user: the author is the sure one.
    `<div class="answer"><div class="postcell">${body('Use BufReader and its lines() method, which yields each line as it reads, with a small buffer.</p><p>Each line is a Result, since reading may fail, so handle the error or use ? in a function that returns one.</p><p>The buffer is 8 KiB by default, and with_capacity() sets another size, for long lines or a slow disk.')}${signature(user('editor') + user('ada', true))}</div></div>` +
    // A post that quotes another user's: two names nearest it, none is given.
    `<div class="answer"><div class="postcell">${body('As the other answer says, lines() is the way; it allocates a String for each line, though.')}<blockquote class="quote"><span class="username">ada</span> wrote</blockquote>${user('bo')}</div></div>` +
    `<div class="answer"><div class="postcell">${body('For bytes, read_until() into one Vec you clear each time avoids an allocation per line.')}${signature(user('cy'))}</div></div>` +
    '</div></body></html>';
  const blocks = extractHtml(html, 'https://qa.test/q/2').content.split('\n\n');
  assert.deepEqual(
    blocks.filter((b) => b.startsWith('**')),
    ['**ada**:', '**cy**:'],
    blocks.join('\n\n'),
  );
  assert.match(blocks[0]!, /^How do I read a file/);
  assert.equal(blocks[blocks.indexOf('**ada**:') + 1], 'Use BufReader and its lines() method, which yields each line as it reads, with a small buffer.');

  // An article (no thread) with a byline: no author line.
  const article = extractHtml(
    `<html><body><article><div class="author"><a href="/a/jo">Jo Writer</a></div><div class="post-body">${'<p>A long paragraph of the article, long enough to be its text, with commas, and more words.</p>'.repeat(3)}</div></article></body></html>`,
    'https://news.test/a',
  );
  assert.doesNotMatch(article.content, /\*\*Jo Writer\*\*/);
});

test("a page's footnotes and references are kept under its text, their marks in brackets and their links back left out", () => {
  const para = (i: number, mark: string) => `<p>Paragraph ${i} of the post about herons, with a claim${mark} and more words, commas, and detail to be long enough for it.</p>`;
  const read = (html: string) => extractHtml(html, 'https://b.test/p').content.split('\n\n');
  // kramdown (Jekyll): a <div class="footnotes">, each note's link back a ↩.
  const kramdown = read(
    `<html><body><article class="post"><div class="post-content">${para(1, '<sup id="fnref:1" role="doc-noteref"><a href="#fn:1" class="footnote" rel="footnote">1</a></sup>')}${para(2, '<sup id="fnref:2"><a href="#fn:2" class="footnote">2</a></sup>')}` +
      `<div class="footnotes" role="doc-endnotes"><ol><li id="fn:1" role="doc-endnote"><p>The first note, in the author's own words, with a <a href="https://x.test/src">source</a>. <a href="#fnref:1" class="reversefootnote" role="doc-backlink">&#8617;</a></p></li>` +
      '<li id="fn:2"><p>The second note. <a href="#fnref:2">&#8617;&#xfe0e;</a></p></li></ol></div></div></article></body></html>',
  );
  assert.match(kramdown[0]!, /a claim\[1\] and/);
  assert.equal(kramdown.at(-1), "1. The first note, in the author's own words, with a [source](https://x.test/src).\n2. The second note.");
  // Pandoc: the mark a link around a <sup>, the notes a <section role="doc-endnotes">.
  const pandoc = read(
    `<html><body><main>${para(1, '<a href="#fn1" class="footnote-ref" id="fnref1" role="doc-noteref"><sup>1</sup></a>')}${para(2, '')}` +
      '<section id="footnotes" class="footnotes footnotes-end-of-document" role="doc-endnotes"><hr /><ol><li id="fn1"><p>Pandoc\'s note.<a href="#fnref1" class="footnote-back" role="doc-backlink">↩︎</a></p></li></ol></section></main></body></html>',
  );
  assert.match(pandoc[0]!, /a claim\[1\] and/);
  assert.equal(pandoc.at(-1), "1. Pandoc's note.");
  // MediaWiki: its references as link-dense as chrome, each with a ^ back to its mark.
  const note = (i: number) =>
    `<li id="cite_note-${i}"><span class="mw-cite-backlink"><b><a href="#cite_ref-${i}">^</a></b></span> <span class="reference-text"><cite class="citation journal">Smith, J. (202${i}). <a class="external text" href="https://doi.org/10.1/${i}">"Herons of the world"</a>. <i>Journal of Birds</i>. <b>12</b>: 1–10.</cite></span></li>`;
  const cite = (i: number) => `<sup id="cite_ref-${i}" class="reference"><a href="#cite_note-${i}"><span class="cite-bracket">[</span>${i + 1}<span class="cite-bracket">]</span></a></sup>`;
  const wiki = read(
    `<html><head><title>Heron - Wikipedia</title></head><body><div id="content" class="mw-body"><h1>Heron</h1><div id="bodyContent"><div class="mw-parser-output">` +
      `${[0, 1, 2, 3].map((i) => para(i, cite(i))).join('')}<h2 id="References">References</h2><div class="reflist"><div class="mw-references-wrap"><ol class="references">${[0, 1, 2, 3].map(note).join('')}</ol></div></div>` +
      '</div></div></div></body></html>',
  );
  assert.match(wiki[0]!, /a claim\[1\] and/);
  assert.deepEqual(wiki.slice(-2), ['## References', [0, 1, 2, 3].map((i) => `${i + 1}. Smith, J. (202${i}). ["Herons of the world"](https://doi.org/10.1/${i}). *Journal of Birds*. **12**: 1–10.`).join('\n')]);
});

test("Substack's footnotes: each a <div class=\"footnote\"> of its number and its text, the marks links without a <sup>", () => {
  const mark = (i: number) => `<a class="footnote-anchor" data-component-name="FootnoteAnchorToDOM" id="footnote-anchor-${i}" href="#footnote-${i}" target="_self">${i}</a>`;
  const note = (i: number, text: string) =>
    `<div class="footnote" data-component-name="FootnoteToDOM"><a id="footnote-${i}" href="#footnote-anchor-${i}" class="footnote-number" contenteditable="false" target="_self">${i}</a><div class="footnote-content"><p>${text}</p></div></div>`;
  const html =
    '<html><body><article><div class="available-content"><div class="body markup">' +
    `<p>The first paragraph of the post, long enough to be its text, with a claim${mark(1)} and more words, commas, and detail.</p>` +
    `<p>The second paragraph of the post, long enough to be its text too, with another claim${mark(2)} and more words.</p>` +
    `${note(1, 'The first note, in the author\'s words.')}${note(2, 'The second note.')}</div></div></article></body></html>`;
  const blocks = extractHtml(html, 'https://x.substack.com/p/herons').content.split('\n\n');
  assert.match(blocks[0]!, /with a claim\[1\] and/);
  assert.match(blocks[1]!, /another claim\[2\] and/);
  assert.deepEqual(blocks.slice(2), ['[1]', "The first note, in the author's words.", '[2]', 'The second note.']);
});

test("an API documentation's signature line (Sphinx's dt.sig, or its name's descname before Sphinx 4) is one code span, its permalink left out", () => {
  const sphinx = articleBlocks(
    `${LEAD}<dl class="py function"><dt class="sig sig-object py" id="asyncio.gather"><em class="property"><span class="pre">awaitable</span><span class="w"> </span></em>` +
      '<span class="sig-prename descclassname"><span class="pre">asyncio.</span></span><span class="sig-name descname"><span class="pre">gather</span></span><span class="sig-paren">(</span>' +
      '<em class="sig-param"><span class="o"><span class="pre">*</span></span><span class="n"><span class="pre">aws</span></span></em>, <em class="sig-param"><span class="n"><span class="pre">return_exceptions</span></span>' +
      '<span class="o"><span class="pre">=</span></span><span class="default_value"><span class="pre">False</span></span></em><span class="sig-paren">)</span><a class="headerlink" href="#asyncio.gather" title="Link to this definition">¶</a></dt>' +
      '<dd><p>Run awaitable objects in the <em>aws</em> sequence concurrently.</p></dd></dl>',
  );
  assert.deepEqual(sphinx.slice(1), ['`awaitable asyncio.gather(*aws, return_exceptions=False)`', 'Run awaitable objects in the *aws* sequence concurrently.']);
  const older = articleBlocks(`${LEAD}<dl class="function"><dt id="os.getcwd"><code class="descclassname">os.</code><code class="descname">getcwd</code><span class="sig-paren">(</span><span class="sig-paren">)</span><a class="headerlink" href="#os.getcwd">¶</a></dt><dd><p>Return the current directory.</p></dd></dl>`);
  assert.equal(older[1], '`os.getcwd()`');
  // A term of a definition list stays bold, its emphasis kept.
  assert.equal(articleBlocks(`${LEAD}<dl><dt>Heron <em>(grey)</em></dt><dd>A bird.</dd></dl>`)[1], '**Heron *(grey)***');
});
