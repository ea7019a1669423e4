/**
 * Pages made up to be hostile: markup nested and left open, links that resolve to `javascript:`
 * (also as a fragment under `<base href="javascript:...">`), entities for no character, control
 * characters in the bytes. Read as a fetch reads them (bytes to page), none throws, and what is stored
 * holds no control character, no lone surrogate and no link of another scheme than http(s) or mailto.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { picker, rng } from '../../bench/scifact.js';
import { withoutControls } from '../../src/core/controls.js';
import { findAll, parseHtml, remove, removeAll, textOf, walk } from '../../src/acquire/extract/dom.js';
import { lineToVersion } from '../../src/acquire/import-jsonl.js';
import { LINK_GROWTH_LIMIT } from '../../src/acquire/extract/markdown.js';
import { pageFromResponse } from '../../src/acquire/live-fetch.js';
import { ServiceError } from '../../src/core/errors.js';
import { indexTerms } from '../../src/core/text.js';

const TAGS = ['div', 'p', 'span', 'a', 'a', 'a', 'table', 'tr', 'td', 'th', 'ul', 'ol', 'li', 'pre', 'code', 'blockquote', 'h1', 'h2', 'em', 'strong', 'img', 'br', 'hr', 'script', 'style', 'nav', 'header', 'footer', 'article', 'main', 'aside', 'section', 'figure', 'sup', 'dl', 'dt', 'dd', 'details', 'svg', 'math', 'template', 'noscript', 'iframe', 'form', 'button', 'select', 'textarea', 'title', 'meta', 'base', 'time', 'q'];
const HREFS = [
  'href="https://x.test/a b(c)"', 'href="javascript:alert(1)"', 'href=" JaVaScRiPt:alert(1)"', 'href="vbscript:x"', 'href="data:text/html,<b>x</b>"',
  'href="#frag"', 'href="/rel/../p?q=1&amp;r=2"', 'href="tel:123"', 'href="mailto:a@b.test"', 'href=""', 'href="other.html"',
];
const ATTRS = [
  ...HREFS, 'src="data:image/png;base64,AAAA"', 'src="javascript:x"', 'src="/i.png"', 'alt="a]b[c"', 'class="content main"', 'class="sidebar nav"', 'id="comments"', 'datetime="2026-01-01"', 'hidden', 'style="display:none"',
  'name="description" content="d\u0007e"', 'property="og:title" content="t\u001b[31m"', 'name="author" content="\u0000me"',
];
const TEXT = ['Hello world.', '**not bold**', '_x_', '# not heading', '|pipe|', '`tick`', '&amp;', '&lt;b&gt;', '&#0;', '&#xD800;', '&#x1b;', '&#x85;', '&nbsp;', '\u200b', 'a\r\nb', '1. item', '> quote', '<!-- c -->', '<![CDATA[x]]>', '\\', 'ü€😀', '\u0000', '\u0007', '\u001b[2J', '\u007f', '\f', '\v', 'x'.repeat(200)];
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('hostile pages', () => {
  test('made-up pages read as a fetch reads them: nothing thrown, no control character, no link of another scheme', async () => {
    const random = rng(17);
    const pick = picker(random);
    const node = (depth: number): string => {
      if (depth > 10 || random() < 0.3) return pick(TEXT);
      const tag = pick(TAGS);
      const attrs = [...(tag === 'a' ? [pick(HREFS)] : []), ...Array.from({ length: Math.floor(random() * 3) }, () => pick(ATTRS))].join(' ');
      const inner = Array.from({ length: Math.floor(random() * 5) }, () => node(depth + 1)).join(random() < 0.3 ? '\n' : '');
      return random() < 0.1 ? `<${tag} ${attrs}>${inner}` : `<${tag} ${attrs}>${inner}</${tag}>`;
    };
    let links = 0;
    for (let n = 0; n < 1500; n++) {
      const head = random() < 0.5 ? `<!doctype html><html><head><title>T\u0001</title>${random() < 0.3 ? `<base ${pick(HREFS)}>` : ''}</head><body>` : '';
      const html = head + Array.from({ length: 1 + Math.floor(random() * 6) }, () => node(0)).join('');
      const charset = pick(['utf-8', 'windows-1252']);
      let page;
      try {
        page = await pageFromResponse({ requestedUrl: 'https://site.test/dir/page.html', url: 'https://site.test/dir/page.html', status: 200, headers: { 'content-type': `text/html; charset=${charset}` }, body: Buffer.from(html, charset === 'utf-8' ? 'utf8' : 'latin1'), fetchedAt: 0 });
      } catch (e) {
        if (e instanceof ServiceError && e.code === 'origin_blocked') continue;
        throw new Error(`${(e as Error).message}: ${JSON.stringify(html).slice(0, 400)}`);
      }
      for (const field of [page.content, page.title, page.description, page.author]) {
        if (field !== undefined) assert.ok(!UNPRINTABLE.test(field), `${JSON.stringify(field).slice(0, 200)} from ${JSON.stringify(html).slice(0, 400)}`);
      }
      assert.ok(!/javascript:|vbscript:|data:|tel:/i.test(page.content), `${JSON.stringify(page.content).slice(0, 300)} from ${JSON.stringify(html).slice(0, 600)}`);
      links += (page.content.match(/\]\((?:https?|mailto):/g) ?? []).length;
    }
    assert.ok(links > 40, `${links} links made`);
  });

  test('a JSONL line\'s texts are stored without control characters; a lone surrogate is the replacement character', () => {
    const v = lineToVersion(JSON.stringify({ url: 'https://j.test/', title: 'T\u0000i\u001b[31mtle', markdown: '# Head\u0007\n\nBody \ud800 text\u0085.\fNext', author: '\u0001Ann' }), 0);
    // An escape sequence without its escape is text.
    assert.deepEqual([v.title, v.content, v.author], ['Ti[31mtle', '# Head\n\nBody \ufffd text. Next', 'Ann']);
    const html = lineToVersion(JSON.stringify({ url: 'https://j.test/h', html: '<title>A\u0000B</title><p>One\u001b[2J two <a href="javascript:x">three</a></p>' }), 0);
    assert.deepEqual([html.title, html.content], ['AB', 'One[2J two three']);
  });

  test('a soft hyphen, zero-width space, word joiner or byte-order mark is taken out of what a page holds, so the word it splits is one word for search', async () => {
    const v = lineToVersion(JSON.stringify({ url: 'https://j.test/s', title: 'Bundes\u00adregierung', markdown: 'Die Stra\u00adßenbahn fährt.' }), 0);
    assert.deepEqual([v.title, v.content], ['Bundesregierung', 'Die Straßenbahn fährt.']);
    const invisible = lineToVersion(JSON.stringify({ url: 'https://j.test/z', title: '\ufeffTitle', markdown: 'call long_\u200bidentifier with no\u2060break; a 👩\u200d💻 coder; می\u200cخواهم' }), 0);
    // The zero-width joiner and non-joiner stay: the emoji and the Persian word need them.
    assert.deepEqual([invisible.title, invisible.content], ['Title', 'call long_identifier with nobreak; a 👩\u200d💻 coder; می\u200cخواهم']);
    const htmlPage = (url: string, html: string) => pageFromResponse({ requestedUrl: url, url, status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(html), fetchedAt: 0 });
    const page = await htmlPage('https://s.test/', '<html><body><article><p>Die Bundes&shy;regierung hat heute be&shy;schlossen, dass die Bahn fährt.</p></article></body></html>');
    assert.equal(page.content, 'Die Bundesregierung hat heute beschlossen, dass die Bahn fährt.');
    assert.ok(indexTerms(page.content).includes('bundesregierung'));
    // A paragraph of a zero-width space (an editor's empty line) is no paragraph.
    const spaced = await htmlPage('https://s.test/z', '<html><body><article><p>The first paragraph of the story.</p><p>&#8203;</p><p>&#x2060;</p><p>The sec&#8203;ond one.</p></article></body></html>');
    assert.equal(spaced.content, 'The first paragraph of the story.\n\nThe second one.');
  });

  // Not a timing: with the patterns before (a run of spaces retried from each of its positions), this test does not end.
  test('a million spaces in code, in a list item, a table cell or on its own, are read as the code they are', async () => {
    const run = ' '.repeat(1_000_000);
    const read = (body: string) =>
      pageFromResponse({ requestedUrl: 'https://s.test/', url: 'https://s.test/', status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(`<html><body><article><p>A page about herons and the water they wade in.</p>${body}</article></body></html>`), fetchedAt: 0 });
    const bare = await read(`<pre>start${run}end${run}</pre>`);
    assert.ok(bare.content.endsWith(`\`\`\`\nstart${run}end\n\`\`\``), JSON.stringify(bare.content.slice(-40)));
    const item = await read(`<ul><li>one<pre>start${run}end\n</pre></li></ul>`);
    assert.match(item.content, /- one\n {2}```\n {2}start {1000000}end\n {2}```$/);
    const cell = await read(`<table><tr><td><pre>start${run}end</pre></td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>`);
    assert.match(cell.content, /\| start end \| b \|/);
  });

  test('a paragraph or heading of ten million of one markdown character is read whole, each escaped (a break\'s pattern overflowed the stack on it)', async () => {
    const read = (body: string) =>
      pageFromResponse({ requestedUrl: 'https://s.test/', url: 'https://s.test/', status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(`<html><body><article>${body}</article></body></html>`), fetchedAt: 0 });
    for (const c of ['_', '*', '\\']) {
      const page = await read(`<p>${c.repeat(10_000_000)}</p>`);
      assert.equal(page.content, `\\${c}`.repeat(10_000_000), c);
    }
    const text = '<p>A page about herons and the water they wade in, long enough to be its text.</p>';
    const heading = await read(`${text}<h2>${'_'.repeat(1_000_000)}</h2>${text}`);
    assert.ok(heading.content.includes(`\n\n## ${'\\_'.repeat(1_000_000)}\n\n`), heading.content.slice(0, 200));
  });

  // Not a timing: before, each row was padded to the widest (20,000 x 20,000 cells) and the read ran out of memory.
  test("a table's markdown grows with its page: rows are not padded to a wide row, and spans add a bounded number of cells", async () => {
    const read = (rows: string) =>
      pageFromResponse({ requestedUrl: 'https://s.test/', url: 'https://s.test/', status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(`<html><body><article><p>A page about herons and the water they wade in, and the fish they catch there.</p><table>${rows}</table></article></body></html>`), fetchedAt: 0 });
    for (const rows of [
      `<tr>${'<td>x</td>'.repeat(20_000)}</tr>${'<tr><td>a</td><td>b</td></tr>'.repeat(20_000)}`,
      `<tr>${'<td colspan="1000" rowspan="1000">x</td>'.repeat(2_000)}</tr>${'<tr><td>a</td><td>b</td></tr>'.repeat(20_000)}`,
      `<tr>${'<td rowspan="1000">x</td>'.repeat(50)}</tr>`.repeat(2_000),
    ]) {
      const page = await read(rows);
      assert.ok(page.content.length < 2 * rows.length, `${page.content.length} characters of markdown from ${rows.length} of table`);
      assert.match(page.content, /\| x \| x \|/);
    }
  });

  // Not a timing: before, every level prefixed every line under it (125 times the page's size, 19 s for the quotes).
  test('lists and quotes nested 250 deep add indentation and > for ten levels, not for each', async () => {
    const read = (body: string) =>
      pageFromResponse({ requestedUrl: 'https://s.test/', url: 'https://s.test/', status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(`<html><body><article><p>A page about herons and the water they wade in, and the fish they catch there.</p>${body}</article></body></html>`), fetchedAt: 0 });
    const quotes = await read(`${'<blockquote>'.repeat(250)}${'<p>deep</p>'.repeat(20_000)}`);
    assert.ok(quotes.content.includes(`\n${'> '.repeat(10)}deep\n`), JSON.stringify(quotes.content.slice(-100)));
    assert.ok(!quotes.content.includes('> '.repeat(11)));
    for (const tag of ['ul', 'ol']) {
      const items = await read(`${`<${tag}><li>`.repeat(250)}${'<li>deep</li>'.repeat(20_000)}`);
      const widest = Math.max(...items.content.split('\n').map((l) => l.length - l.trimStart().length));
      assert.ok(widest <= 10 * 4, `${tag}: a line indented ${widest} spaces`);
      assert.match(items.content, /deep$/);
    }
  });

  // Not a timing: before, 20,000 links under a base of 20 kB made 400 MB of markdown.
  test("resolving a page's links adds at most LINK_GROWTH_LIMIT characters to its markdown and to its links; a base longer than a URL the API takes is not used", async () => {
    const read = (base: string, body: string) =>
      pageFromResponse({ requestedUrl: 'https://s.test/', url: 'https://s.test/', status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(`<html><head><base href="${base}"></head><body><article><p>A page about herons and the water they wade in, and the fish they catch there.</p><p>${body}</p></article></body></html>`), fetchedAt: 0 });
    const links = Array.from({ length: 20_000 }, (_, i) => `<a href="b${i}">x</a> <img alt="i" src="c${i}.png"> `).join('');
    const under = await read(`https://s.test/${'a'.repeat(8_000)}/`, links);
    assert.ok(under.content.length < links.length + LINK_GROWTH_LIMIT, `${under.content.length} characters of markdown`);
    assert.ok(under.links.join('').length < links.length + LINK_GROWTH_LIMIT, `${under.links.join('').length} characters of links`);
    assert.match(under.content, /\[x\]\(https:\/\/s\.test\/a{8000}\/b0\) !\[i\]\(https:\/\/s\.test\/a{8000}\/c0\.png\)/, 'the first links resolve against the base');
    assert.match(under.content, / x$/, 'the last are their text');
    const over = await read(`https://s.test/${'a'.repeat(8_200)}/`, links);
    assert.match(over.content, /\[x\]\(https:\/\/s\.test\/b0\)/, 'resolved against the page');
    assert.ok(over.links.includes('https://s.test/b19999'));
  });

  test('removeAll takes nodes out of the tree as remove does one by one: order, parents and sibling links kept right', () => {
    const random = rng(79);
    for (let n = 0; n < 50; n++) {
      const html = `<div>${Array.from({ length: 30 }, (_, i) => (i % 3 ? `<p>${i}<b>${i}b</b></p>` : `<link rel="x" href="/${i}">`)).join('')}</div>`;
      const [one, batch] = [parseHtml(html), parseHtml(html)];
      const pick = (doc: ReturnType<typeof parseHtml>) => findAll(doc, () => true);
      const ones = pick(one);
      const chosen = ones.map((_, i) => i).filter(() => random() < 0.4);
      for (const i of chosen) remove(ones[i]!);
      const all = pick(batch);
      removeAll(chosen.map((i) => all[i]!));
      assert.equal(textOf(batch), textOf(one));
      walk(batch, (node) => {
        const list = node.parent?.children ?? [];
        const i = list.indexOf(node as never);
        assert.ok(node.parent === null || i >= 0, 'a node in the tree is in its parent\'s list');
        if (node.parent) assert.equal(node.prev, list[i - 1] ?? null);
        if (node.parent) assert.equal(node.next, list[i + 1] ?? null);
      });
      for (const i of chosen) assert.equal(all[i]!.parent, null);
    }
  });

  test('withoutControls keeps tab, line feed and carriage return, and text that has nothing to take out as it is', () => {
    const plain = 'tab\there\nline\r\nü€😀';
    assert.equal(withoutControls(plain), plain);
    assert.equal(withoutControls('a\u0000b\u009fc\u007fd\ve\ff'), 'abcd e f');
  });
});
