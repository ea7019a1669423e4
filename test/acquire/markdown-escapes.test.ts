/**
 * What a page shows as text stays text in its markdown: a CommonMark renderer (markdown-it, with
 * raw HTML allowed, as many are) shows the page's words and makes no tag, link, heading or list of
 * them; and search reads the characters as the page shows them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import MarkdownIt from 'markdown-it';
import type { Element } from 'domhandler';
import { findFirst, isElement, parseHtml, textOf, walk } from '../../src/acquire/extract/dom.js';
import { escapeLineStart, escapeText } from '../../src/core/escapes.js';
import { extractHtml } from '../../src/acquire/extract/index.js';
import { feedToMarkdown } from '../../src/acquire/extract/feed.js';
import { pdfToText } from '../../src/acquire/pdf.js';
import { withoutControls } from '../../src/core/controls.js';
import { lineText, segment } from '../../src/core/passages.js';
import { markdownToText } from '../../src/core/text.js';
import { makePdf } from '../fixtures/pdf.js';
import { rng } from '../../bench/scifact.js';
import { formatFetch, formatSearch } from '../../src/mcp/server.js';
import type { FetchResponse, SearchResponse } from '../../src/core/requests.js';

const renderer = new MarkdownIt({ html: true });
const rendered = (markdown: string) => parseHtml(renderer.render(markdown));

/** The element names of rendered HTML, in order. */
function elementNames(markdown: string): string[] {
  const names: string[] = [];
  walk(rendered(markdown), (n) => {
    if (isElement(n)) names.push(n.name);
  });
  return names;
}

/** Paragraphs that show what markdown would read as markup; each long enough to be the article's. */
const TEXTS = [
  'To run a script, a page may write <script>alert(document.cookie)</script> or <img src=x onerror=alert(1)> in its HTML.',
  '# of users grew in 2024, the report says, and the number of pages grew with them, as it does each year.',
  '1984. That was the year the story begins, and this paragraph is long enough to be read as part of it.',
  '2) The second reason, numbered as some writers number reasons, with a parenthesis after the number.',
  '- Bob said hello, as dialogue is written in some novels, with a dash at the start of each line of speech.',
  '+ One more point, made with a plus sign at the start of the line, as notes are written at times.',
  '> Quoted with a sign, as plain-text mail quotes, though the page shows the sign as it is written here.',
  'Then the __init__ method of a*b*c ran, and [click me](javascript:alert(1)) was printed, and [1]: http://a.test too.',
  'Use &amp; to write an ampersand in HTML, `code` for code in markdown, ~~old~~ for a strike, C:\\*.txt for files.',
  'Text that needs no escape: 5 * 3 = 15, snake_case names, a note [1] and a [sic], C:\\Users\\ada, and ~ alone.',
];
/** The HTML of a paragraph showing `text` (its `&`, `<` and `>` as entities). */
const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

test("text that reads as markup is escaped: a renderer shows the page's words, as paragraphs, and makes no tag, link, heading or list of them", () => {
  const page = `<html><head><title>T</title></head><body><article>${TEXTS.map((t) => `<p>${html(t)}</p>`).join('')}</article></body></html>`;
  const { content } = extractHtml(page, 'https://a.test/p');
  assert.deepEqual(elementNames(content), TEXTS.map(() => 'p'), content);
  const shown = [...rendered(content).children].filter(isElement).map((p) => textOf(p));
  assert.deepEqual(shown, TEXTS);
  // What needs no escape is written as it is.
  assert.ok(content.includes(TEXTS.at(-1)!), content);
  // Search and snippets read what the page shows (a `*` or `_` left as it is reads as a mark, as before).
  const escaped = TEXTS.slice(0, -1);
  assert.equal(markdownToText(content.split('\n\n').slice(0, -1).join('\n\n')), escaped.join(' '));
  assert.deepEqual(content.split('\n\n').slice(0, -1).map((l) => lineText(l)), escaped);
});

test("the page's own markup stays markup around escaped text: emphasis, links, images, code, headings, lists", () => {
  const page =
    '<html><body><article><h2>Setup_ for *all*</h2><p>Call <code>a*b</code> from <em>main_</em> with <a href="/doc">the [docs] here</a> and ' +
    '<img alt="a ] b" src="/i.png"> once, as the long paragraph of this article says in its words.</p><ul><li># not a heading</li><li>1. not a list</li></ul></article></body></html>';
  const { content } = extractHtml(page, 'https://a.test/p');
  assert.deepEqual(elementNames(content), ['h2', 'p', 'code', 'em', 'a', 'img', 'ul', 'li', 'li'], content);
  const out = rendered(content);
  const el = (name: string) => findFirst(out, (e) => e.name === name) as Element;
  assert.equal(textOf(el('h2')), 'Setup_ for *all*');
  assert.equal(textOf(el('code')), 'a*b');
  assert.equal(textOf(el('em')), 'main_');
  assert.equal(textOf(el('a')), 'the [docs] here');
  assert.equal(el('a').attribs.href, 'https://a.test/doc');
  assert.equal(el('img').attribs.alt, 'a ] b');
  const items = [...el('ul').children].filter(isElement).map((li) => textOf(li));
  assert.deepEqual(items, ['# not a heading', '1. not a list']);
});

test('a line break inside a paragraph: each line is escaped at its start (a heading underline, a list)', () => {
  const { content } = extractHtml(
    '<html><body><article><p>A first line, long enough for the paragraph to be the article of the page, as it is here.<br>===<br>- then a dash<br>3. and a number</p></article></body></html>',
    'https://a.test/p',
  );
  assert.deepEqual(elementNames(content), ['p'], content);
  assert.deepEqual(textOf(rendered(content)).split('\n').slice(1, 4), ['===', '- then a dash', '3. and a number']);
  // Two lines of text that were a table's header and delimiter row.
  const table = extractHtml('<html><body><article><p>A line long enough for the paragraph to be the article | with a pipe in it, as here.<br>--- | ---</p></article></body></html>', 'https://a.test/p');
  assert.deepEqual(elementNames(table.content), ['p'], table.content);
});

test('a break drawn in text (***, * * *, ---, a heading of underscores) is a thematic break', () => {
  const lead = '<p>A paragraph long enough to be the article that the extractor keeps, with what comes next.</p>';
  for (const mark of ['***', '* * *', '---', '___', '- - -']) {
    const { content } = extractHtml(`<html><body><article>${lead}<p>${mark}</p>${lead}</article></body></html>`, 'https://a.test/p');
    assert.deepEqual(content.split('\n\n')[1], '---', mark);
  }
  // A heading drawn as a line is one too.
  const { content } = extractHtml(`<html><body><article>${lead}<h2>______________</h2>${lead}</article></body></html>`, 'https://a.test/p');
  assert.deepEqual(content.split('\n\n')[1], '---');
});

test('escapeText and escapeLineStart: what each escapes, and what each leaves', () => {
  const cases: [string, string][] = [
    ['a <b> c', 'a \\<b> c'],
    ['a < b and c > d', 'a < b and c > d'],
    ['x &amp; y & z', 'x \\&amp; y & z'],
    ['_lead and trail_ and in_word', '\\_lead and trail\\_ and in_word'],
    ['*em* and 2 * 3', '\\*em\\* and 2 * 3'],
    ['[a](b) [c][d] [e]: f [g]', '[a\\](b) [c\\][d] [e\\]: f [g]'],
    ['\\ and \\a and \\*', '\\\\ and \\a and \\\\\\*'],
    ['~5 km, ~~no~~, 1 ~ 2', '\\~5 km, \\~\\~no\\~\\~, 1 ~ 2'],
  ];
  for (const [text, want] of cases) assert.equal(escapeText(text), want, text);
  assert.equal(escapeText('[a] b', true), '\\[a\\] b');
  const starts: [string, string][] = [
    ['# a', '\\# a'],
    ['#hashtag', '#hashtag'],
    ['####### seven', '####### seven'],
    ['12. a', '12\\. a'],
    ['3.14 is pi', '3.14 is pi'],
    ['1234567890. ten digits', '1234567890. ten digits'],
    ['- a', '\\- a'],
    ['-5 degrees', '-5 degrees'],
    ['===', '\\==='],
    ['> a', '\\> a'],
    ['--- | ---', '\\--- | ---'],
    ['|:-:|', '\\|:-:|'],
    ['a | b', 'a | b'],
    ['plain', 'plain'],
  ];
  for (const [line, want] of starts) assert.equal(escapeLineStart(line), want, line);
});

test("a feed's titles and authors, a PDF's lines and a JSON-LD articleBody's text are escaped as a page's text is", async () => {
  const feed = feedToMarkdown(
    '<rss version="2.0"><channel><title>F</title><item><title>Why [x](y) &amp;lt;b&amp;gt; #</title><link>https://f.test/a</link><author>*Ada*</author></item>' +
      '<item><title>Episode #</title></item></channel></rss>',
    'https://f.test/feed.xml',
  )!;
  assert.deepEqual(elementNames(feed.content), ['h2', 'a', 'p', 'h2'], feed.content);
  const out = rendered(feed.content);
  assert.equal(textOf(findFirst(out, (e) => e.name === 'a')!), 'Why [x](y) <b> #');
  assert.equal(textOf(findFirst(out, (e) => e.name === 'p')!), '*Ada*');
  assert.equal(textOf([...out.children].filter(isElement).at(-1)!), 'Episode #');

  const pdf = await pdfToText(new Uint8Array(makePdf([['1. Introduction', 'The <b> tag and a_b_c and _init_ here.', '---', '# 5 items']])));
  assert.deepEqual(elementNames(pdf.content), ['p'], pdf.content);
  assert.equal(textOf(rendered(pdf.content)), '1. Introduction\nThe <b> tag and a_b_c and _init_ here.\n---\n# 5 items\n');

  // Text alone (no tag in it): its lines are paragraphs.
  const body = Array.from({ length: 20 }, (_, k) => (k % 2 ? `# of readers rose by ${k}.` : `${k}. In [a](b), no link & no *emphasis*.`)).join('\n');
  const jsonLd = `<script type="application/ld+json">${JSON.stringify({ '@type': 'NewsArticle', articleBody: body })}</script>`;
  const { content } = extractHtml(`<html><head>${jsonLd}</head><body><div id="root"></div></body></html>`, 'https://a.test/p');
  assert.ok(elementNames(content).every((n) => n === 'p'), content);
  assert.equal(markdownToText(content), body.split('\n').join(' '));
});

test('emphasis around text that opens or ends with a star or a tilde between spaces shows them; nested emphasis stays emphasis', () => {
  const lead = '<p>A paragraph long enough to be the article that the extractor keeps, with what comes next.</p>';
  for (const [inner, shown, em] of [
    ['<em> * x</em>', '* x', 1],
    ['<strong>a ** </strong>', 'a **', 1],
    ['<del> ~ 5 km ~ </del>', '~ 5 km ~', 0],
    ['<b><i>both</i></b>', 'both', 1],
  ] as const) {
    const { content } = extractHtml(`<html><body><article>${lead}<p>x ${inner} y</p>${lead}</article></body></html>`, 'https://a.test/p');
    const out = rendered(content);
    assert.match(textOf(out).replace(/\s+/g, ' '), new RegExp(` x ${shown.replace(/[*~]/g, '\\$&')} y `), `${inner}: ${content}`);
    assert.equal(elementNames(content).filter((n) => n === 'em' || n === 'strong').length > 0, em === 1, `${inner}: ${content}`);
  }
});

test('stored text holds no noncharacter U+FDD0-U+FDEF (search holds escaped characters as them while reading markdown)', () => {
  assert.equal(withoutControls('a\ufdd0b\ufdefc\ufdcfd\ufdf0'), 'abc\ufdcfd\ufdf0');
  // Escapes held while the marks are taken off, given back after: an escaped mark is text.
  assert.equal(markdownToText('\\# a \\*b\\* **c** \\[d\\](e) \\\\ \\q'), '# a *b* c [d](e) \\ \\q');
  assert.equal(lineText('1984\\. The \\_\\_init\\_\\_ method'), '1984. The __init__ method');
  // A code span's backslashes are its own (a regex's `\.`); a backtick escaped or left open opens none.
  assert.equal(lineText('Match `a\\.b` or ``c`\\*`` in \\*text\\*.'), 'Match a\\.b or c`\\* in *text*.');
  assert.equal(lineText('\\`not code\\` and `open \\* here'), '`not code` and open * here');
});

test("made-up texts of markdown's characters, in a paragraph, a link, emphasis, a list, a table, a heading, a quote and a code block: the renderer shows each as the page does, and search reads it so", () => {
  // Another seed's texts: MARKDOWN_TEST_SEED=N (docs/BENCHMARKS.md, the fortieth session, ran 1 to 40).
  const next = rng(Number(process.env.MARKDOWN_TEST_SEED ?? 39));
  const pieces = ['a', 'word', ' ', ' ', '\t', '    ', '*', '**', '***', '_', '__', '`', '```', '~', '~~', '~~~', '[', ']', '](', '(', ')', '<', '>', '&', '#', '!', '\\', '-', '---', '+', '=', '===', '|', '1.', '2)', 'x:', '"', '$', '^', '.', '&amp;', '&#65;', '<b>', '</i>', '<!--', '-->', '<http://x.y>', 'http://a.b', 'www.a.b', '[x]: /u', '![i](j)'];
  const made = () => {
    let t = '';
    for (let n = 1 + Math.floor(next() * 12); n > 0; n--) t += pieces[Math.floor(next() * pieces.length)];
    return t;
  };
  const shownAs = (t: string) => t.replace(/\s+/g, ' ').trim();
  const lead = '<p>A paragraph long enough to be the article that the extractor keeps, with what comes next.</p>';
  const contexts: [(t: string[]) => string, (t: string[]) => string][] = [
    [(t) => `<p>${t.map(html).join('<br>')}</p>`, (t) => t.join(' ')],
    [(t) => `<p>see <a href="/x">${html(t[0]!)}</a> here</p>`, (t) => `see ${t[0]} here`],
    [(t) => `<p>x <em>${html(t[0]!)}</em> y <strong>${html(t[1]!)}</strong> z</p>`, (t) => `x ${t[0]} y ${t[1]} z`],
    [(t) => `<ul><li>${html(t[0]!)}</li><li>${html(t[1]!)}</li></ul>`, (t) => `${t[0]} ${t[1]}`],
    [(t) => `<table><tr><th>h1</th><th>h2</th></tr><tr><td>${html(t[0]!)}</td><td>${html(t[1]!)}</td></tr></table>`, (t) => `h1 h2 ${t[0]} ${t[1]}`],
    [(t) => `<h2>${html(t[0]!)}</h2><p>${html(t[1]!)}</p>`, (t) => `${t[0]} ${t[1]}`],
    [(t) => `<blockquote><p>${html(t[0]!)}</p><p>${html(t[1]!)}</p></blockquote>`, (t) => `${t[0]} ${t[1]}`],
    [(t) => `<pre><code>${html(t[0]!)}\n${html(t[1]!)}</code></pre>`, (t) => `${t[0]} ${t[1]}`],
  ];
  let compared = 0;
  for (let k = 0; k < 1_600; k++) {
    const [make, shows] = contexts[k % contexts.length]!;
    const texts = [made(), made(), made()];
    // Text that is blank, or a break drawn in text (`---`: a thematic break), shows nothing.
    if (texts.some((t) => !shownAs(t) || /^[-_*\s]+$/.test(t))) continue;
    const page = `<html><body><article>${lead}${make(texts)}${lead}</article></body></html>`;
    const { content } = extractHtml(page, 'https://a.test/p');
    const want = shownAs(`${textOf(parseHtml(lead))} ${shows(texts)} ${textOf(parseHtml(lead))}`);
    assert.equal(shownAs(textOf(rendered(content))), want, `${JSON.stringify(texts)}\n${content}`);
    // Search reads the same text: a snippet's (a passage index's) and markdownToText's.
    assert.equal(shownAs(segment(content).text), want, `segment: ${JSON.stringify(texts)}\n${content}`);
    assert.equal(shownAs(markdownToText(content)), want, `markdownToText: ${JSON.stringify(texts)}\n${content}`);
    compared++;
  }
  assert.ok(compared > 1_000, `${compared} pages compared`);
});

test("the MCP tools' answers write a page's title, author, description and snippet as text", () => {
  const title = '<img src=x onerror=alert(1)> # 1. [a](javascript:b) #';
  const page = formatFetch({ url: 'https://a.test/p', title, author: '*Ada*', description: '<b>bold</b>', content: 'Body.' } as FetchResponse);
  assert.deepEqual(elementNames(page), ['h1', 'p', 'p'], page);
  const out = rendered(page);
  assert.equal(textOf(findFirst(out, (e) => e.name === 'h1')!), title);
  assert.match(textOf(out), /Author: \*Ada\*\nDescription: <b>bold<\/b>/);
  const found = formatSearch({ query: 'q', results: [{ url: 'https://a.test/p', title: '1984. <b>Year</b>', snippet: '# of <i>users</i>' }] } as unknown as SearchResponse);
  assert.deepEqual(elementNames(found), ['ol', 'li'], found);
  assert.equal(textOf(rendered(found)).trim(), '1984. <b>Year</b>\nhttps://a.test/p\n# of <i>users</i>');
});
