import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { benchQuerySets, loadCorpus, picker, rng, sentencesOf } from '../../bench/scifact.js';
import { CODE_LINE, codeLines, FENCE_LINE, holdEscapes, releaseEscapes } from '../../src/core/escapes.js';
import { buildPassages, lineText, PASSAGE_INDEX_MIN, PassageIndex, SCAN_LIMIT, segment } from '../../src/core/passages.js';
import { compoundWord, cutAtWord, markdownToText, queryTerms, scanWords, stem, withoutClosingHashes, withoutMarks, withoutRuleLines } from '../../src/core/text.js';
import { fallbackDescription, pageSnippet, SnippetQuery } from '../../src/ops/snippet.js';

const corpus = loadCorpus();
const sentences = sentencesOf(corpus);

/** A markdown page of SciFact sentences: headings, paragraphs, lists, links, emphasis, code fences, words outside ASCII. */
function page(seed: number, blocks: number): string {
  const r = rng(seed);
  const s = () => sentences[Math.floor(r() * sentences.length)]!;
  const out: string[] = [];
  for (let k = 0; k < blocks; k++) {
    const kind = Math.floor(r() * 8);
    if (kind === 0) out.push(`## ${s().slice(0, 50)}`);
    else if (kind === 1) out.push(`- ${s()}\n- **${s()}**`);
    else if (kind === 2) out.push(`See [${s().slice(0, 30)}](https://example.com/${k}) and ![img](x.png) ${s()}`);
    else if (kind === 3) out.push('```ts\nconst straße = "Café ÄPFEL";\n```\nJohn\'s café’s menu, vitamin s.');
    else out.push([s(), s(), s()].join(' '));
  }
  return out.join(r() < 0.5 ? '\n\n' : '\n');
}

/** The joined words of the hyphenated compounds of `text` (text.ts `compoundWord`), in order. */
function joinedWords(text: string): string[] {
  const out: string[] = [];
  scanWords(text, () => {}, 0, text.length, (i, j) => out.push(compoundWord(text, i, j)));
  return out;
}

describe('passage index', () => {
  test('a snippet and description by the index are those by scanning the page, for claims, short queries and titles, at several lengths', () => {
    const claims = benchQuerySets(300).flatMap(([, qs]) => qs);
    let compared = 0;
    let notFirst = 0;
    let withCompounds = 0;
    let titled = 0;
    for (let p = 0; p < 60; p++) {
      // Two pages in three open with a heading: the result's title (left out of the snippet), or another.
      const body = page(p + 1, 10 + p * 3);
      const heading = p % 3 === 2 ? undefined : `# ${p % 3 === 0 ? corpus[p]!.title : 'Another title'}`;
      const md = heading ? `${heading}\n\n${body}` : body;
      const title = corpus[p]!.title;
      const passages = buildPassages(md, 0);
      assert.ok(passages);
      // The joined words of two of the page's hyphenated compounds (`e-mail` asked for as `email`).
      const joined = joinedWords(md).slice(-2).join(' ');
      if (joined) withCompounds++;
      for (const q of [claims[p % claims.length]!, claims[(p * 7) % claims.length]!, corpus[p]!.title, 'straße äpfel café', 'the of', "s john's", joined || 'x']) {
        const query = new SnippetQuery(queryTerms(q).map(stem));
        for (const max of [60, 200, 500, 2_000]) {
          const scanned = pageSnippet(md, undefined, query, max, { describe: true, title });
          assert.deepEqual(pageSnippet(md, passages, query, max, { describe: true, title }), scanned, `page ${p}, ${max}: ${q}`);
          assert.equal(scanned.description, fallbackDescription(md));
          assert.ok(scanned.snippet.length > 0 && scanned.snippet.length <= max);
          if (p % 3 === 0) {
            // The page's snippet is the one of its text under the title.
            assert.equal(scanned.snippet, pageSnippet(body, undefined, query, max).snippet, `page ${p}, ${max}: ${q}`);
            titled++;
          } else if (heading && max >= 2_000 && md.length <= max) {
            assert.ok(scanned.snippet.startsWith(lineText(heading)), 'a heading that is not the title stays');
          }
          if (!segment(md).text.startsWith(scanned.snippet.slice(0, 20))) notFirst++;
          compared++;
        }
      }
    }
    assert.ok(compared >= 1_000 && notFirst > compared / 4, `${notFirst} of ${compared} snippets are not the page's opening`);
    assert.ok(withCompounds > 30, `${withCompounds} pages were asked for their compounds' joined words`);
    assert.ok(titled >= 500, `${titled}`);
  });

  test('a snippet by the index is the scan\'s on made-up pages of possessives, signs, numbers, compounds, accents and other scripts', () => {
    const r = rng(17);
    const pick = picker(r);
    const vocabulary = [
      'insulin', 'cell', "cell's", 'cell\u2019s', 's', "'s", 'it', 'C++', 'c', 'C#', '1,000', '1000', '3.12', 'e-mail', 'email',
      'wi-fi', 'state-of-the-art', 'café', 'cafe\u0301', 'Åland', 'β', 'βcell', '細胞', 'ß', 'ss', 'ｆｉｌｅ', 'file', 'ภาษาไทย',
    ];
    const separators = [' ', ' ', ' ', ', ', ' - ', '-', '\u2014', '\u00a0', "'", '\u2019'];
    const sentence = () => {
      let out = pick(vocabulary);
      for (let k = 2 + Math.floor(r() * 8); k > 0; k--) out += pick(separators) + pick(vocabulary);
      return `${out}.`;
    };
    let compared = 0;
    for (let p = 0; p < 40; p++) {
      const md = Array.from({ length: 5 + Math.floor(r() * 30) }, () => Array.from({ length: 1 + Math.floor(r() * 4) }, sentence).join(' ')).join(r() < 0.5 ? '\n\n' : '\n');
      const passages = buildPassages(md, 0)!;
      for (let t = 0; t < 10; t++) {
        const query = new SnippetQuery(Array.from({ length: 1 + Math.floor(r() * 3) }, () => queryTerms(pick(vocabulary)).map(stem)).flat());
        if (query.size === 0) continue;
        const scanned = pageSnippet(md, undefined, query, 200, { describe: true });
        assert.deepEqual(pageSnippet(md, passages, query, 200, { describe: true }), scanned, `page ${p}: ${[...query.index.keys()].join(' ')}`);
        compared++;
      }
    }
    assert.ok(compared > 300, `${compared}`);
  });

  test('a page in Japanese (no space after 。): the index gives the scan\'s snippet, the sentences joined as the page has them', () => {
    const r = rng(11);
    const bits = ['東京の天気は晴れ', '大阪では雨が降る', '京都の寺を訪ねた', '新しい研究が発表された', '猫が庭で寝ている', 'データベースの索引'];
    const sentence = () => `${bits[Math.floor(r() * bits.length)]}${r() < 0.5 ? 'です' : 'ました'}${r() < 0.8 ? '。' : '！'}`;
    const lines = Array.from({ length: 60 }, () => Array.from({ length: 5 + Math.floor(r() * 5) }, sentence).join(''));
    lines[23] = `それから富士山の頂上で日の出を見ました。${lines[23]}`;
    const md = lines.join('\n\n');
    assert.ok(md.length >= PASSAGE_INDEX_MIN);
    const passages = buildPassages(md)!;
    for (const q of ['富士山 日の出', '東京の天気', '猫', 'データベース']) {
      const query = new SnippetQuery(queryTerms(q).map(stem));
      for (const max of [30, 60, 200]) {
        const scanned = pageSnippet(md, undefined, query, max);
        assert.deepEqual(pageSnippet(md, passages, query, max), scanned, `${q} ${max}`);
        assert.ok(scanned.snippet.length <= max);
      }
    }
    // The best sentence opens its line; widened forward, the line's next sentences follow with no space.
    const top = pageSnippet(md, passages, new SnippetQuery(queryTerms('富士山 日の出')), 40).snippet;
    assert.equal(top, `それから富士山の頂上で日の出を見ました。${lines[23]!.slice(20)}`.slice(0, top.length));
    assert.ok(top.length > 25 && !top.includes(' '), top);
  });

  test('a quote the sentence goes on from is inside the sentence, by the index as by the scan', () => {
    const filler = Array.from({ length: 300 }, (_, i) => `文${i}です。`).join('');
    const md = `${filler}

${filler}「本当？」と田中さんは聞いた。「はい。」${filler}`;
    assert.ok(md.length >= PASSAGE_INDEX_MIN);
    const query = new SnippetQuery(queryTerms('田中').map(stem));
    const scanned = pageSnippet(md, undefined, query, 15);
    assert.deepEqual(pageSnippet(md, buildPassages(md)!, query, 15), scanned);
    assert.equal(scanned.snippet, '「本当？」と田中さんは聞いた。');
  });

  test('a snippet joins lines by a newline where a block starts (paragraph, heading, list item, table row), by a space within a paragraph', () => {
    const md = [
      '# København',
      '',
      'København er Danmarks hovedstad og',
      'landets største by.',
      '## Havnen',
      'Havnen ligger ved Øresund.',
      '- Nyhavn med sine',
      '  gamle huse',
      '- Christianshavn',
      '',
      '```',
      'kode',
      '```',
      'Til sidst.',
    ].join('\n');
    const whole = 'København\nKøbenhavn er Danmarks hovedstad og landets største by.\nHavnen\nHavnen ligger ved Øresund.\nNyhavn med sine gamle huse\nChristianshavn\nkode\nTil sidst.';
    const query = new SnippetQuery(queryTerms('havnen øresund'));
    // The whole page fits; then a passage around the best sentence; a cut may fall at a newline.
    assert.equal(pageSnippet(md, undefined, query, 500).snippet, whole);
    assert.equal(pageSnippet(md, undefined, query, 60).snippet, 'Havnen\nHavnen ligger ved Øresund.\nNyhavn med sine gamle huse');
    assert.equal(cutAtWord('Havnen ligger\nNyhavnmedsine', 20), 'Havnen ligger…');
    // A long page has a passage index; its snippets are the same.
    const long = `${md}\n\n${'Et afsnit om noget andet. '.repeat(200).trim()}`;
    const passages = buildPassages(long);
    assert.ok(passages && PassageIndex.open(passages));
    for (const max of [60, 80, 200]) assert.deepEqual(pageSnippet(long, passages, query, max), pageSnippet(long, undefined, query, max), `${max}`);
    assert.match(pageSnippet(long, passages, query, 200).snippet, /^Havnen\nHavnen ligger ved Øresund\.\nNyhavn med sine gamle huse\nChristianshavn\nkode\nTil sidst\.\nEt afsnit om noget andet\. Et afsnit/);
     // A table's rows stay a row a line.
    const table = 'Havne:\n\n| Havn | Både |\n| --- | --- |\n| Nyhavn | 40 |\n| Øresund | 300 |\nTil sidst.';
    assert.equal(pageSnippet(table, undefined, query, 500).snippet, 'Havne:\nHavn Både\nNyhavn 40\nØresund 300\nTil sidst.');
    assert.equal(pageSnippet(table, buildPassages(table, 0), query, 500).snippet, 'Havne:\nHavn Både\nNyhavn 40\nØresund 300\nTil sidst.');
  });

  test('sentences never span two lines; the text is the lines\' texts joined; code fence lines have none', () => {
    const md = '# A heading\nA first line. Second\n\n```js\ncode here\n```\n- item one';
    const seg = segment(md);
    assert.equal(seg.text, 'A heading A first line. Second code here item one');
    const parts: string[] = [];
    for (let k = 0; k < seg.bounds.length; k += 2) parts.push(seg.text.slice(seg.bounds[k], seg.bounds[k + 1]));
    assert.deepEqual(parts, ['A heading', 'A first line.', 'Second', 'code here', 'item one']);
    assert.equal(lineText('```'), '');
    assert.equal(md.slice(seg.lineStart[2], md.indexOf('\n', seg.lineStart[2]!)), 'A first line. Second');
    for (const fence of ['````', '   ```js', '~~~', '~~~ python `x`']) assert.equal(lineText(fence), '', fence);
  });

  test('marks are taken off and text that only looks like them kept: a word\'s underscores, a spaced star, a pipe outside a table, a code span as written', () => {
    const cases: [string, string][] = [
      ['Use snake_case, my__var and Straße_Weg; __init__ is strong.', 'Use snake_case, my__var and Straße_Weg; init is strong.'],
      ['*em*, **strong**, _em_, ***both*** and snake_', 'em, strong, em, both and snake'],
      ['5 * 3 = 15, 2 ** 8 and a _ b', '5 * 3 = 15, 2 ** 8 and a _ b'],
      ['Home | About | Contact', 'Home | About | Contact'],
      ['| a | b_c | 2 * 3 |', 'a b_c 2 * 3'],
      ['- | cell | in a list |', 'cell in a list'],
      ['|**bold**| x |', 'bold x'],
      ['|**x**|y|', 'x y'],
      ['Call `my_func(a*b)` or `x | y` or ``a`b`` now.', 'Call my_func(a*b) or x | y or a`b now.'],
      ['An `open span, *em* and snake_case', 'An open span, em and snake_case'],
      ['a\\_b and \\*x\\*', 'a_b and *x*'],
    ];
    for (const [line, want] of cases) {
      assert.equal(lineText(line), want, line);
      assert.equal(markdownToText(line), want, line);
    }
    // The page's lines are read alone: a table row's pipes are marks, the next line's are text.
    assert.equal(segment('| a | b |\nx | y').text, 'a b x | y');
    assert.equal(markdownToText('| a | b |\nx | y'), 'a b x | y');
  });

  test('a code block\'s lines read as written, by the index as by the scan; a fence that does not close it is code', () => {
    const code = ['# set up the class', 'def __init__(self, *args, **kwargs):', '    self.x = a*b  # a|b, [x](y), \\*', '```js', '- not an item'];
    const md = `Intro: the constructor.\n\n\`\`\`\`python\n${code.join('\n')}\n\`\`\`\`\n\nAfter **the** block.`;
    assert.deepEqual(Array.from(codeLines(md)!), [0, 0, FENCE_LINE, ...code.map(() => CODE_LINE), FENCE_LINE, 0, 0]);
    const written = code.map((l) => l.trim().replace(/ {2,}/g, ' '));
    assert.equal(segment(md).text, ['Intro: the constructor.', ...written, 'After the block.'].join(' '));
    assert.equal(markdownToText(md), ['Intro: the constructor.', ...written, 'After the block.'].join(' '));
    // A long page: its passage index says which lines are code, and the snippet is the scan's.
    const long = `${md}\n\n${'Filler text about other things. '.repeat(200).trim()}`;
    const passages = buildPassages(long)!;
    assert.deepEqual(Array.from(PassageIndex.open(passages)!.sentenceTable().code.slice(0, 8)), [0, 1, 1, 1, 1, 1, 0, 0]);
    const query = new SnippetQuery(queryTerms('init kwargs').map(stem));
    const scanned = pageSnippet(long, undefined, query, 120, { describe: true });
    assert.deepEqual(pageSnippet(long, passages, query, 120, { describe: true }), scanned);
    // A line of code a line.
    assert.equal(scanned.snippet, 'def __init__(self, *args, **kwargs):\nself.x = a*b # a|b, [x](y), \\*\n```js\n- not an item\nAfter the block.');
    // A description leaves code out, as it does headings, unless the page holds nothing else; a code line is no heading.
    assert.equal(fallbackDescription(`\`\`\`\n# a comment\n\`\`\`\n\nThe text.`), 'The text.');
    assert.equal(fallbackDescription(`## Usage\n\n\`\`\`\n# a comment\n\`\`\``), 'Usage # a comment');
    assert.equal(pageSnippet(`## Usage\n\n\`\`\`\n# a comment\n\`\`\``, undefined, query, 100, { describe: true }).description, 'Usage # a comment');
  });

  test('breaks of stars or underscores, a setext underline and a heading\'s closing #s hold no text', () => {
    const md = 'Rust ownership\n==============\n\nBody.\n\n***\n\n* * *\n\n___\n\n# Closed heading ##\n\n## C#\n\n# #\n\nA **bold** end.';
    assert.equal(segment(md).text, 'Rust ownership Body. Closed heading C# A bold end.');
    assert.equal(markdownToText(md), 'Rust ownership Body. Closed heading C# A bold end.');
    // Text that only looks so: fewer than three stars, a word after them, an escaped run.
    assert.deepEqual(['**', '*** x', '\\*\\*\\*', '#hashtag #', '# a#'].map((l) => lineText(l)), ['**', '*** x', '***', '#hashtag #', 'a#']);
    assert.equal(pageSnippet('# Rust ownership #\n\nBody text.', undefined, new SnippetQuery(['rust']), 300, { title: 'Rust ownership' }).snippet, 'Body text.');
  });

  test("a strikethrough's marks hold no text; a lone tilde is text", () => {
    assert.equal(lineText('Now ~~50 USD~~ 30 USD, about ~5 km away.'), 'Now 50 USD 30 USD, about ~5 km away.');
  });

  test('a line opening with a code span is text, not a code fence line (no backtick follows a fence\'s backticks)', () => {
    assert.equal(lineText('```a``b``` is how the span is written.'), 'a``b is how the span is written.');
    const md = 'Intro line.\n\n```x``y``` marks code that holds two backticks.\n\n```js\nlet river = 1;\n```';
    const query = new SnippetQuery(queryTerms('backticks river').map(stem));
    assert.equal(pageSnippet(md, undefined, query, 500).snippet, 'Intro line.\nx``y marks code that holds two backticks.\nlet river = 1;');
  });

  test('the lines converted at once are each line converted alone, on markdown with odd whitespace and constructs', () => {
    const r = rng(11);
    const pieces = ['# ', '#\n', '  - ', '> ', '1. ', '```', '```js', '[a](b)', '[a\n](b)', '![i](\nx)', '**', '_', '|', '`', ' ', '  ', '\t', '\r', '\u00a0', '\u2028', '\u1680', '\u202f', '\v', '\n', '\n\n', 'word', 'Straße.', 'end. ', '?! ', 'İ', 'é'];
    for (let k = 0; k < 2_000; k++) {
      const md = Array.from({ length: 1 + Math.floor(r() * 30) }, () => pieces[Math.floor(r() * pieces.length)]).join('');
      // A code block's lines are read as code, its fences as none (codeLines).
      const kinds = codeLines(md);
      const alone = md
        .split('\n')
        .map((l, i) => (kinds?.[i] === FENCE_LINE ? '' : lineText(l, kinds?.[i] === CODE_LINE)))
        .filter((t) => t.length > 0)
        .join(' ');
      assert.equal(segment(md).text, alone, JSON.stringify(md));
    }
  });

  test("a line's text has all its markers taken off: a list in a quote, a quote in a quote, a heading in a list item", () => {
    assert.deepEqual(
      ['> - one', '> > two', '- ### Three', '1. > four', '   - five', '#six', '5 - 7 = -2'].map((l) => lineText(l)),
      ['one', 'two', 'Three', 'four', 'five', '#six', '5 - 7 = -2'],
    );
    // A quote's marker needs no space after it: `>` alone is a quote's blank line, `>>x` a quote in a quote.
    assert.deepEqual(['>', '> ', '>>x', '>- one', '> >'].map((l) => lineText(l)), ['', '', 'x', 'one', '']);
    // A quoted tweet's paragraphs, as the extractor writes them: each a line of the snippet, no `>` shown.
    const tweet = 'He had two INTs, allowing a rating of just 22.4\n>\n> \\*min. 25 snaps\n>\n> — PFF (@PFF) [November 15](https://x.test/)';
    assert.equal(pageSnippet(`Intro.\n\n> ${tweet}\n\nAfter.`, undefined, new SnippetQuery(['rate']), 500).snippet, 'Intro.\nHe had two INTs, allowing a rating of just 22.4\n*min. 25 snaps\n— PFF (@PFF) November 15\nAfter.');
    assert.equal(markdownToText(`> ${tweet}`), 'He had two INTs, allowing a rating of just 22.4 *min. 25 snaps — PFF (@PFF) November 15');
  });

  test("a table's delimiter row and a thematic break hold no text: a page opening with a table is described by its cells", () => {
    assert.deepEqual(['| --- | :-: |', '|-|-|', '---', ' - - -', 'a --- b', '-x-', '|  |'].map((l) => lineText(l)), ['', '', '', '', 'a --- b', '-x-', '']);
    assert.equal(
      fallbackDescription('| Name | Age |\n| --- | --- |\n| Ada | 36 |\n\nAda wrote the first program.\n\n---\n\nMore.'),
      'Name Age Ada 36 Ada wrote the first program. More.',
    );
  });

  test('a line\'s text is that of every conversion pass run, though a pass runs only when its characters are there', () => {
    // The passes as they ran before each was made to wait for its characters (indexOf).
    // A backslash escape is held as a noncharacter through the passes (outside code spans) and given back after them.
    const everyPass = (line: string) =>
      holdEscapes(line)
        .replace(/(?<![^\n])[^\S\n]{0,3}(?:`{3,}[^`\n]*(?![^\n])|~{3,}[^\n]*)/g, '')
        .replace(/!\[[^\]\n]*\]\([^)\n]*\)/g, '')
        .replace(/\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
        .replace(/[^\n]+/g, (line) => withoutClosingHashes(withoutRuleLines(line)))
        .replace(/^[^\S\n]{0,3}(?:(?:>|[-*+]|\d+\.)[^\S\n]+)*(?:#{1,6}[^\S\n]+)?/gm, '')
        .replace(/[^\n]+/g, withoutMarks)
        .replace(/~~+/g, ' ')
        .replace(/[^\S\n]{2,}|[^\S \n]/g, ' ')
        .trim()
        .replace(/[\ufdd0-\ufdef]/g, (c) => releaseEscapes(c, true));
    const r = rng(12);
    const pieces = ['# ', '## x', '- ', '* ', '+ ', '> ', '12. ', '3.', '-', '```', '~~~', '~~', '~', '[a](b)', '![i](x)', '**', '_', '|', '`', ' ', '  ', '\t', '\v', '\f', '\r', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u2028', '\u2029', '\u1680', '\u200a', '\u202f', '\u205f', '\u0085', '\n', 'word', 'Straße', 'K', 'é', 'end. ', '\\#', '\\*', '\\_', '\\\\', '\\[', '\\', '1\\. '];
    let changed = 0;
    for (let k = 0; k < 5_000; k++) {
      const line = Array.from({ length: 1 + Math.floor(r() * 12) }, () => pieces[Math.floor(r() * pieces.length)]).join('').replaceAll('\n', ' ');
      const want = everyPass(line);
      if (want !== line.trim()) changed++;
      assert.equal(lineText(line), want, JSON.stringify(line));
    }
    for (const line of ['plain words only.', 'no markers 1 here', '1990 was a year', 'x\u2028# y', 'a\r- b', ' # lead', '\u3000# wide', '\\# of users', '\\\\\\*x\\*']) {
      assert.equal(lineText(line), everyPass(line), JSON.stringify(line));
    }
    assert.ok(changed > 2_500, `${changed} lines the passes change`);
  });

  test('a first heading the result\'s title holds is no part of the snippet, by the index as by the scan', () => {
    const body = Array.from({ length: 40 }, (_, i) =>
      i === 25 ? 'Rust checks ownership at compile time, so memory is freed when its owner goes out of scope.' : `Paragraph ${i} is about tools and compilers, and about other matters of interest to those who write programs.`,
    ).join('\n\n');
    const md = `# Rust ownership explained\n\n${body}`;
    assert.ok(md.length >= PASSAGE_INDEX_MIN);
    const query = new SnippetQuery(queryTerms('rust ownership').map(stem));
    const both = (title: string | undefined, markdown = md, max = 300) => {
      const scanned = pageSnippet(markdown, undefined, query, max, { title }).snippet;
      assert.equal(pageSnippet(markdown, buildPassages(markdown, 0), query, max, { title }).snippet, scanned, String(title));
      return scanned;
    };
    // The heading holds both words and came first of equals; the body's sentence that holds them is the snippet now.
    assert.match(both(undefined), /^Rust ownership explained\nParagraph 0 /);
    assert.match(both('Other'), /^Rust ownership explained\n/);
    for (const title of ['Rust ownership explained', 'RUST  Ownership explained | The Blog']) {
      assert.match(both(title), /^Rust checks ownership at compile time/, title);
    }
    // Widened backward, a snippet stops under the heading (a long paragraph after the best sentence sends it backward).
    const opened = `# Rust ownership explained\n\nAn opener.\n\nRust checks ownership at compile time.\n\n${body.replaceAll('\n\n', ' ')}`;
    assert.equal(both(undefined, opened, 100), 'Rust ownership explained\nAn opener.\nRust checks ownership at compile time.');
    assert.equal(both('Rust ownership explained', opened, 100), 'An opener.\nRust checks ownership at compile time.');
    // A short page is its text under the heading; a page of the heading alone has no snippet.
    assert.equal(both('Rust ownership', '# Rust ownership\n\nOwnership keeps memory safe.'), 'Ownership keeps memory safe.');
    assert.equal(both('Rust ownership', '# Rust ownership'), '');
    // The title holds the heading as whole words, or it stays.
    assert.equal(both('Rust Ownership: a guide', '# Rust ownership\n\nMore text.'), 'More text.');
    assert.equal(both('Trust ownership', '# Rust ownership\n\nMore text.'), 'Rust ownership\nMore text.');
    // Its words, in a row, whatever stands between them: a dash for a hyphen, a curly quote for a straight one.
    assert.equal(both('Rust ownership explained', '# Rust ownership, explained\n\nMore text.'), 'More text.');
    assert.equal(both('Fallen Order review - shoots for the moon - VG247', '# Fallen Order review – shoots for the moon\n\nMore text.'), 'More text.');
    assert.equal(both("It's ownership | Blog", '# It’s ownership!\n\nMore text.'), 'More text.');
    assert.equal(both('Ownership rust', '# Rust ownership\n\nMore text.'), 'Rust ownership\nMore text.');
    assert.equal(both('Rust and ownership', '# Rust ownership\n\nMore text.'), 'Rust ownership\nMore text.');
    // Only a heading, and only on the first line of text.
    assert.match(both('Rust ownership', 'Rust ownership\n\nMore text.'), /^Rust ownership\nMore text/);
    assert.match(both('Rust ownership', 'Intro.\n\n# Rust ownership\n\nMore text.'), /^Intro\.\nRust ownership\nMore/);
  });

  test("a sentence's query words count by their weights, by the index as by the scan: a rare word's sentence before a common word's", () => {
    const filler = Array.from({ length: 90 }, (_, i) => `Paragraph ${i} is about tools and compilers, and about other matters of interest to readers.`);
    const md = [filler.slice(0, 10).join(' '), 'The harbour has many boats in summer.', filler.slice(10, 25).join(' '), 'A lighthouse keeper lives alone on the point.', filler.slice(25).join(' ')].join('\n\n');
    assert.ok(md.length >= PASSAGE_INDEX_MIN);
    const stems = queryTerms('boats lighthouse').map(stem);
    const both = (query: SnippetQuery) => {
      const scanned = pageSnippet(md, undefined, query, 120).snippet;
      assert.equal(pageSnippet(md, buildPassages(md), query, 120).snippet, scanned);
      return scanned;
    };
    // Equal weights: the first of equals, the boats.
    assert.match(both(new SnippetQuery(stems)), /^The harbour has many boats/);
    assert.match(both(new SnippetQuery(stems, [1, 1])), /^The harbour has many boats/);
    // `boats` common, `lighthouse` rare: the lighthouse.
    assert.match(both(new SnippetQuery(stems, [0.2, 1])), /^A lighthouse keeper/);
    // A sentence holding both still beats either, and a repeated stem keeps its first weight.
    assert.match(both(new SnippetQuery([...stems, stems[0]!], [1, 0.2, 0.01])), /^The harbour has many boats/);
  });

  test('a description reads headings in the part scanned, as fallbackDescription does', () => {
    // A heading line that starts one character before SCAN_LIMIT: only its `#` is read.
    const md = `ab\n${'# h\n'.repeat((SCAN_LIMIT + 4) / 4)}`;
    assert.equal(md.lastIndexOf('\n# h', SCAN_LIMIT - 1), SCAN_LIMIT - 2);
    assert.equal(fallbackDescription(md), 'ab #');
    assert.equal(pageSnippet(md, undefined, new SnippetQuery(['h']), 500, { describe: true }).description, 'ab #');
  });

  test('only the first SCAN_LIMIT characters are indexed, the same part the scan reads', () => {
    const tail = 'Unreachable zebra sentence.';
    const md = `${'Plain words here. '.repeat(Math.ceil(SCAN_LIMIT / 18))}\n${tail}`;
    const query = new SnippetQuery(['zebra']);
    const passages = buildPassages(md)!;
    assert.equal(PassageIndex.open(passages)!.textLength, segment(md).text.length);
    assert.ok(!segment(md).text.includes('zebra'));
    assert.deepEqual(pageSnippet(md, passages, query, 100), pageSnippet(md, undefined, query, 100));
    assert.ok(!pageSnippet(md, passages, query, 100).snippet.includes('zebra'));
  });

  test('short pages store no index; an index of another format or a cut one is not trusted to hang or throw', () => {
    assert.equal(buildPassages('x'.repeat(PASSAGE_INDEX_MIN - 1)), undefined);
    const md = page(7, 40);
    const passages = buildPassages(md)!;
    const query = new SnippetQuery(queryTerms(sentences[3]!).map(stem));
    const other = passages.slice();
    other[0] = 99;
    assert.equal(PassageIndex.open(other), undefined);
    assert.deepEqual(pageSnippet(md, other, query, 200), pageSnippet(md, undefined, query, 200));
    assert.equal(PassageIndex.open(passages.subarray(0, 10)), undefined);
    // Cut inside the postings: read, but each varint ends at the cut instead of running on.
    const cut = PassageIndex.open(passages.subarray(0, passages.byteLength - 7));
    assert.ok(cut);
    assert.ok(cut.best(query.hashes) >= 0);
  });
});
