import assert from 'node:assert/strict';
import { standardWords } from '../../src/ops/search.js';
import { describe, test } from 'node:test';
import { ServiceError } from '../../src/core/errors.js';
import { mediaTypesOf, normalizeMediaType } from '../../src/core/media-type.js';
import { pageMatches, parseWebql, positiveWords, type WebqlNode } from '../../src/core/webql.js';

const t = (...words: string[]): WebqlNode => ({ kind: 'text', words });

function syntaxError(query: string, offset = 0): { position: number; message: string } {
  try {
    parseWebql(query, offset);
  } catch (e) {
    assert.ok(e instanceof ServiceError, String(e));
    assert.equal(e.code, 'invalid_parameter');
    assert.equal(e.param, 'query');
    const body = e.toBody() as { position: number; error: string };
    assert.match(body.error, new RegExp(`at position ${body.position}$`));
    return { position: body.position, message: body.error };
  }
  assert.fail(`${query} parsed without error`);
}

describe('webql parser', () => {
  test('bare terms are ANDed; words are folded', () => {
    assert.deepEqual(parseWebql('Rust  Ownership'), { kind: 'and', children: [t('rust'), t('ownership')] });
    assert.deepEqual(parseWebql('café'), t('cafe'));
  });

  test('quoted phrases, and words that analyse into several words, are phrases; a bare word\'s compound is also read joined', () => {
    assert.deepEqual(parseWebql('"garbage collector" go'), { kind: 'and', children: [t('garbage', 'collector'), t('go')] });
    assert.deepEqual(parseWebql('"e-mail"'), t('e', 'mail'));
    assert.deepEqual(parseWebql('e-mail'), { kind: 'or', children: [t('e', 'mail'), t('email')] });
    assert.deepEqual(parseWebql('x86_64'), t('x86', '64'));
    assert.deepEqual(parseWebql('title:e-mail'), { kind: 'text', words: ['e', 'mail'], field: 'title' });
  });

  test('OR binds tighter than the implicit AND', () => {
    assert.deepEqual(parseWebql('a b OR c d'), {
      kind: 'and',
      children: [t('a'), { kind: 'or', children: [t('b'), t('c')] }, t('d')],
    });
    // Lowercase "or" is a word.
    assert.deepEqual(parseWebql('b or c'), { kind: 'and', children: [t('b'), t('or'), t('c')] });
  });

  test('parentheses group; "-" excludes terms, phrases, groups and fields', () => {
    assert.deepEqual(parseWebql('(a OR b) -c -"d e" -(f g) -site:x.com'), {
      kind: 'and',
      children: [
        { kind: 'or', children: [t('a'), t('b')] },
        { kind: 'not', child: t('c') },
        { kind: 'not', child: t('d', 'e') },
        { kind: 'not', child: { kind: 'and', children: [t('f'), t('g')] } },
        { kind: 'not', child: { kind: 'site', host: 'x.com' } },
      ],
    });
    // A hyphen inside a word is not an exclusion.
    assert.deepEqual(parseWebql('well-known'), { kind: 'or', children: [t('well', 'known'), t('wellknown')] });
    assert.deepEqual(parseWebql('a -well-known'), { kind: 'and', children: [t('a'), { kind: 'not', child: { kind: 'or', children: [t('well', 'known'), t('wellknown')] } }] });
  });

  test("a group's AND in an AND, and a group's OR in an OR, are their items", () => {
    // What the engine reads of the top level (a lang:, a site:, the words every match holds) is all there.
    assert.deepEqual(parseWebql('(rate lang:en) regulates'), { kind: 'and', children: [t('rate'), { kind: 'lang', tag: 'en' }, t('regulates')] });
    assert.deepEqual(parseWebql('((a b) (c (d e)))'), parseWebql('a b c d e'));
    assert.deepEqual(parseWebql('(a OR b) OR (c OR (d OR e))'), { kind: 'or', children: ['a', 'b', 'c', 'd', 'e'].map((w) => t(w)) });
    // A compound's OR in an OR too; a group of another kind stays one item.
    assert.deepEqual(parseWebql('a OR e-mail'), { kind: 'or', children: [t('a'), t('e', 'mail'), t('email')] });
    assert.deepEqual(parseWebql('(a OR b) (c d)'), { kind: 'and', children: [{ kind: 'or', children: [t('a'), t('b')] }, t('c'), t('d')] });
    assert.deepEqual(parseWebql('(a b) OR c'), { kind: 'or', children: [{ kind: 'and', children: [t('a'), t('b')] }, t('c')] });
    assert.deepEqual(parseWebql('a -(b c)'), { kind: 'and', children: [t('a'), { kind: 'not', child: { kind: 'and', children: [t('b'), t('c')] } }] });
  });

  test('fields: site, title (or intitle), url, inurl, filetype (or ext), lang; names are case-insensitive', () => {
    assert.deepEqual(parseWebql('Site:Docs.Example.com'), { kind: 'site', host: 'docs.example.com' });
    assert.deepEqual(parseWebql('title:"memory safety"'), { kind: 'text', words: ['memory', 'safety'], field: 'title' });
    assert.deepEqual(parseWebql('title:Rust'), { kind: 'text', words: ['rust'], field: 'title' });
    assert.deepEqual(parseWebql('InTitle:Rust -intitle:"go gc"'), parseWebql('title:Rust -title:"go gc"'));
    assert.match(syntaxError('intitle:...').message, /^webql: intitle: needs a word at position 8$/);
    assert.deepEqual(parseWebql('url:https://example.com/docs/'), { kind: 'url', prefix: 'https://example.com/docs/' });
    assert.deepEqual(parseWebql('inurl:Blog'), { kind: 'inurl', text: 'Blog' });
    // Escapes read as stored URLs write them (core/url.ts normalEscapes): /%7euser/ is stored as /~user/.
    assert.deepEqual(parseWebql('url:https://a.test/%7euser/caf%c3%a9'), { kind: 'url', prefix: 'https://a.test/~user/caf%C3%A9' });
    // And its scheme and host as stored URLs write theirs: in lower case, a whole host in its ASCII form.
    assert.deepEqual(parseWebql('url:HTTPS://Docs.Example.COM/Guide'), { kind: 'url', prefix: 'https://docs.example.com/Guide' });
    assert.deepEqual(parseWebql('url:Bücher.example:8080/Neu'), { kind: 'url', prefix: 'xn--bcher-kva.example:8080/Neu' });
    assert.deepEqual(parseWebql('url:Bü'), { kind: 'url', prefix: 'bü' }, 'a host cut short stays as it is');
    assert.deepEqual(parseWebql('inurl:%7Euser'), { kind: 'inurl', text: '~user' });
    assert.deepEqual(standardWords('notes inurl:%7Euser').requireFields, [{ kind: 'inurl', text: '~user' }], "a standard query's inurl: too");
    assert.deepEqual(parseWebql('filetype:PDF'), { kind: 'filetype', ext: 'pdf' });
    assert.deepEqual(parseWebql('ext:.pdf'), { kind: 'filetype', ext: 'pdf' });
    assert.match(syntaxError('filetype:p.df').message, /^webql: filetype: needs a file type such as pdf at position 9$/);
    assert.match(syntaxError('ext:*').message, /^webql: ext: needs a file type such as pdf at position 4$/);
    assert.deepEqual(parseWebql('lang:pt_BR'), { kind: 'lang', tag: 'pt-br' });
    // An unknown field name is text.
    assert.deepEqual(parseWebql('foo:bar'), t('foo', 'bar'));
  });

  test('syntax errors are 400 with the position', () => {
    assert.equal(syntaxError('rust "memory').position, 5);
    assert.equal(syntaxError('(rust OR go').position, 0);
    assert.equal(syntaxError('rust)').position, 4);
    assert.equal(syntaxError('rust OR').position, 5);
    assert.equal(syntaxError('OR rust').position, 0);
    assert.equal(syntaxError('rust OR OR go').position, 5);
    assert.equal(syntaxError('a - b').position, 2);
    assert.equal(syntaxError('a ()').position, 2);
    assert.equal(syntaxError('a site:').position, 2);
    assert.equal(syntaxError('a site: x.com').position, 2);
    assert.equal(syntaxError('a site:https://x.com/p').position, 7);
    assert.equal(syntaxError('a lang:english!').position, 7);
    assert.equal(syntaxError('-rust -go').position, 0);
    assert.equal(syntaxError('-rust OR go').position, 0);
    assert.match(syntaxError('"!!!" ???').message, /no term/);
    // Positions count from the query as sent, leading spaces included.
    assert.equal(syntaxError('rust)', 3).position, 7);
    assert.equal(syntaxError('"rust', 2).position, 2);
  });

  test('positiveWords: the words of text items not under an exclusion', () => {
    assert.deepEqual(positiveWords(parseWebql('a "b c" -d (e OR -f) title:g site:x.com')), ['a', 'b', 'c', 'e', 'g']);
  });

  test('pageMatches: filetype: is the type the URL names or one the page was served as; inurl: the URL alone', () => {
    const pdf = { kind: 'filetype', ext: 'pdf' } as const;
    const html = { kind: 'filetype', ext: 'html' } as const;
    assert.equal(pageMatches(pdf, 'https://a.test/Report.PDF?dl=1', undefined), true);
    assert.equal(pageMatches(pdf, 'https://a.test/pdf/2101.00001', undefined), false, 'of no known type: its URL alone');
    assert.equal(pageMatches(pdf, 'https://a.test/pdf/2101.00001', 'application/pdf'), true);
    assert.equal(pageMatches(pdf, 'https://a.test/report.pdf', 'text/html'), true, 'either says it');
    assert.equal(pageMatches(html, 'https://a.test/about', 'text/html'), true);
    assert.equal(pageMatches(html, 'https://a.test/about', 'application/xhtml+xml'), true);
    assert.equal(pageMatches(html, 'https://a.test/about', 'image/svg+xml'), false, 'a type not in the table answers to none');
    assert.equal(pageMatches({ kind: 'filetype', ext: 'xml' }, 'https://a.test/feed', 'application/rss+xml'), true);
    assert.equal(pageMatches({ kind: 'inurl', text: 'PDF' }, 'https://a.test/pdf/1', 'text/html'), true);
    assert.equal(pageMatches({ kind: 'inurl', text: 'html' }, 'https://a.test/about', 'text/html'), false, 'inurl: reads no type');
    assert.deepEqual(mediaTypesOf('pdf'), ['application/pdf']);
    assert.deepEqual(mediaTypesOf('html'), ['text/html', 'application/xhtml+xml']);
    assert.deepEqual(mediaTypesOf('doc'), []);
    assert.equal(normalizeMediaType(' Text/HTML ; charset=UTF-8'), 'text/html');
    assert.equal(normalizeMediaType('application/vnd.api+json'), 'application/vnd.api+json');
    for (const bad of ['', 'pdf', 'text/', '/html', 'text/html/x', 'text /html', `a/${'b'.repeat(65)}`]) assert.equal(normalizeMediaType(bad), undefined, bad);
  });
});
