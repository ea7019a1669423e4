import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compoundTerms, fold, indexTerms, markdownToText, queryTerms, scanWords, STOP_WORDS, stem, unicodeWords, words } from '../../src/core/text.js';
import { benchQuerySets, loadCorpus, picker, rng } from '../../bench/scifact.js';
import { sentenceBounds } from '../../src/core/passages.js';
import { bestSentence, buildSnippet, fallbackDescription, SnippetQuery } from '../../src/ops/snippet.js';

const reference = (text: string) => words(text).filter((w) => !STOP_WORDS.has(w)).map(stem);

/**
 * The joined words of the hyphenated compounds of `text`, found by a pattern: an independent
 * statement of text.ts `compoundWord`'s rule (two to four runs of ASCII letters and digits joined
 * by single hyphens, with a letter among them; on either side no word character, no word joined
 * by a hyphen, no number's point or comma; not starting with a possessive's s; not ending in a
 * letter that is a word with the signs after it, as `F#` in `Wi-F#`, nor joined to such a word,
 * as in `C++-Wi-Fi`).
 */
const COMPOUND_RE = /(?<![\p{L}\p{N}\p{M}]|[\p{L}\p{N}\p{M}]-|[0-9][.,](?=[0-9])|(?<![\p{L}\p{N}\p{M}])[A-Za-z](?:\+\+|#)-)(?!(?<=[\p{L}\p{N}\p{M}]['’])[sS]-)[A-Za-z0-9]+(?:-[A-Za-z0-9]+){1,3}(?![\p{L}\p{N}\p{M}]|-[\p{L}\p{N}\p{M}]|(?<=[0-9])[.,][0-9]|(?<=-[A-Za-z])(?:\+\+|#)(?!\p{L}))/gu;
const referenceCompounds = (text: string) =>
  [...text.matchAll(COMPOUND_RE)].map((m) => m[0]).filter((m) => /[A-Za-z]/.test(m)).map((m) => m.toLowerCase().replaceAll('-', ''));
const referenceCompoundTerms = (text: string) => referenceCompounds(text).filter((w) => !STOP_WORDS.has(w)).map(stem);
const sorted = (a: string[]) => [...a].sort();

/** The words `scanWords` finds in `text` up to `to`, as it scans a sentence that ends there. */
function scannedWords(text: string, to: number): string[] {
  const out: string[] = [];
  scanWords(text, (i, j) => out.push(text.slice(i, j)), 0, to);
  return out;
}

/**
 * The snippet scan's choice made the slow way: each sentence's words and compounds stemmed, ten
 * points per distinct stem wanted plus one per occurrence up to five, the first best.
 */
function referenceBestSentence(text: string, bounds: readonly number[], wanted: ReadonlySet<string>): number {
  let best = 0;
  let bestScore = -1;
  for (let b = 0; b < bounds.length; b += 2) {
    const sentence = text.slice(bounds[b], bounds[b + 1]);
    const found = [...words(sentence), ...referenceCompounds(sentence)].map(stem).filter((w) => wanted.has(w));
    const score = new Set(found).size * 10 + Math.min(found.length, 5);
    if (score > bestScore) [best, bestScore] = [b, score];
  }
  return best;
}

/** The sentence (its index in the bounds) whose words the snippet scan finds best for `query`. */
const bestFor = (text: string, query: string) => bestSentence(text, sentenceBounds(text), new SnippetQuery(queryTerms(query).map(stem)));

describe('indexTerms (the engine analysis)', () => {
  test('the same terms as words() + stop words + Porter, on hand-picked text', () => {
    for (const text of [
      'The Quick brown foxes were JUMPING over 3 lazy dogs.',
      'Café au lait, naïve résumé — Ångström’s “quoted” words…',
      'e-mail, C++ and x86_64; URL https://example.com/a-b?c=d#e',
      '東京 is in 日本; emoji 🎉 between words; Straße ß',
      '東京の天気。iPhone用ケース 𠮷野家 ภาษาไทยง่าย किताब पढ़ो re\u0301sume\u0301 كِتَابٌ 서울 날씨 ＲＵＮＮＩＮＧ ｶﾀｶﾅ',
      'tab\tseparated\nlines\r\nand\u00a0nbsp',
      "John's café's JOHN'S 1990's 's s x 's o'clock 𠮷’s 東京's नगर's",
      "cell's\u00a0cell’s, Alzheimer's—disease, John'S é, x's\u00a0s, 's\u00a0a",
      '1000—C++ é—C# éC++ —C++é —C+ —c++11 β—F#. —C#',
      'C++ and C# and F#; c++11, C++é C++— C++٣ C++\u0301 i++ 1++ ab++ C+ C+++ x#y A#, é#, \u0301c++ John\'s# (C++) c#',
      'Python 3.12, 192.168.0.1, 1,000,000; v8.1a é3.12 a.1 1.a 1..2 .5 5. 1,2, 3.12. 東京3.5 ３.５ ٣.٤ 1.5C++ 1.5\u0301 2.\u03015 1990.s 1.e',
      '',
      '!!!',
    ]) {
      assert.deepEqual(indexTerms(text, false), reference(text), text);
      assert.deepEqual(compoundTerms(text), referenceCompoundTerms(text), text);
      assert.deepEqual(sorted(indexTerms(text)), sorted([...reference(text), ...referenceCompoundTerms(text)]), text);
    }
  });

  test('the same terms and compounds on made-up text of what the analysis treats apart', () => {
    const random = rng(37);
    const pick = picker(random);
    const vocabulary = [
      'cell', "cell's", 'cell\u2019s', "Cell'S", 's', "'s", 'it', 'The', 'C++', 'c', 'C#', 'F#', 'x#y', '1,000', '12,500.75', '3.12', '1.5',
      'e-mail', 'Wi-Fi', 'state-of-the-art', 'café', 'cafe\u0301', 'Åland', '\u212Aelvin', 'İnsulin', 'ﬁle', 'ｆｉｌｅ', 'ｶﬁle', 'β',
      'βcell', 'cellβ', '東京', '細胞s', 'ภาษาไทย', 'ภาษาcell', '서울의', 'ß', 'Straße', '𝐜ell', '🎉', 'किताब', 'نَص',
      'infor\u00admation', 'ce\u2060ll', 'cell\u200d', 'ﬂow',
    ];
    const separators = [' ', ' ', ' ', ', ', '. ', '-', ' - ', '\u2014', '\u2010', '\u00a0', "'", '\u2019', '+', '#', '.', ',', '_', '/', '\n', '\u200b', '\u00ad', '\ufeff'];
    for (let t = 0; t < 3000; t++) {
      let text = pick(vocabulary);
      for (let k = 1 + Math.floor(random() * 8); k > 0; k--) text += pick(separators) + pick(vocabulary);
      assert.deepEqual(indexTerms(text, false), reference(text), JSON.stringify(text));
      assert.deepEqual(compoundTerms(text), referenceCompoundTerms(text), JSON.stringify(text));
    }
  });

  test('the same terms on the first 500 SciFact abstracts, and the same compounds on all of them', () => {
    const corpus = loadCorpus();
    for (const d of corpus.slice(0, 500)) assert.deepEqual(indexTerms(`${d.title} ${d.text}`, false), reference(`${d.title} ${d.text}`), d.id);
    let compounds = 0;
    for (const d of corpus) {
      const text = `${d.title} ${d.text}`;
      const found = compoundTerms(text);
      assert.deepEqual(found, referenceCompoundTerms(text), d.id);
      compounds += found.length;
    }
    assert.ok(compounds > 30_000, `the abstracts exercise compounds (${compounds})`);
  });
});

describe('hyphenated compounds', () => {
  test('a page\'s compound is also its words joined; a longer chain, one without a letter or one holding another word is none', () => {
    const joined = (text: string) => compoundTerms(text);
    assert.deepEqual(joined('Send an e-mail over Wi-Fi.'), ['email', 'wifi']);
    assert.deepEqual(joined('e-mails, state-of-the-art, X-ray'), ['email', 'stateoftheart', 'xrai']);
    assert.deepEqual(joined('how-to-set-up-wi-fi'), []); // six words: a slug, not a compound
    assert.deepEqual(joined('1990-2000 and 3.5-inch and 2,4-dinitro'), []); // no letter; a number's point or comma
    assert.deepEqual(joined('naïve-bayes, NF-κB, C++-based, x-C++'), []); // a word outside plain ASCII in the chain
    assert.deepEqual(joined("Kaposi's-sarcoma and ‘real-world’ data"), ['realworld']); // a possessive's s spoils; quotes do not
    assert.deepEqual(joined('in-to'), []); // joined to a stop word
    assert.deepEqual(joined('e - mail, e--mail, e-\nmail'), []); // one hyphen between two words, nothing else
    // The words themselves are terms as before; the joined one comes after them.
    assert.deepEqual(indexTerms('e-mail me'), ['e', 'mail', 'me', 'email']);
    assert.deepEqual(indexTerms('e-mail - me-too'), ['e', 'mail', 'email', 'me', 'too', 'metoo']);
  });

  test('a query\'s compound asks for its words, not the joined word', () => {
    assert.deepEqual(queryTerms('e-mail setup'), ['e', 'mail', 'setup']);
    assert.deepEqual(queryTerms('email'), ['email']);
  });

  test('the snippet scan and the passage index count a compound\'s joined word in its sentence', () => {
    const text = 'Our office has mail trays. You can e-mail the team. The desk is here.';
    assert.equal(bestFor(text, 'email'), 2);
    assert.equal(bestFor(text, 'wifi'), 0);
  });
});

describe('languages named by a letter and a sign', () => {
  test('C++, C# and F# are words of their own, not the letter; with a letter after the signs they are not', () => {
    assert.deepEqual(words('C++ and C#, F# (c++)'), ['c++', 'and', 'c#', 'f#', 'c++']);
    assert.deepEqual(queryTerms('C++ templates'), ['c++', 'templates']);
    assert.deepEqual(queryTerms('c'), ['c']);
    assert.deepEqual(words('C++20 C#7 C++é ab++ 1++ C+ x#y'), ['c++', '20', 'c#', '7', 'c', 'e', 'ab', '1', 'c', 'x', 'y']);
    // Within the part scanned (a sentence's bounds), as the words of that part alone.
    assert.deepEqual(scannedWords('Use C++ here', 7), ['Use', 'C++']);
    assert.deepEqual(scannedWords('Use C++ here', 6), ['Use', 'C']);
    assert.deepEqual(scannedWords('Use C++ here', 5), ['Use', 'C']);
  });

  test('the snippet scan counts them as the index does', () => {
    const text = 'A c compiler. Then C++ templates. Then C.';
    assert.equal(bestFor(text, 'C++'), 2);
    assert.equal(bestFor(text, 'c compiler'), 0);
  });
});

describe('numbers with a point or comma', () => {
  test('a . or , between ASCII digits is inside the word, as Unicode\'s word boundaries keep it; anywhere else it parts words', () => {
    assert.deepEqual(words('Python 3.12 on 192.168.0.1 costs 1,000 (v8.1a)'), ['python', '3.12', 'on', '192.168.0.1', 'costs', '1,000', 'v8.1a']);
    assert.deepEqual(queryTerms('python 3.12'), ['python', '3.12']);
    // Not between two digits: a sentence's end, a list, a letter on either side, two points.
    assert.deepEqual(words('It was 3. Then 1, 2 and 3.5. node.js a.1 1.a 1..2 .5'), [
      'it', 'was', '3', 'then', '1', '2', 'and', '3.5', 'node', 'js', 'a', '1', '1', 'a', '1', '2', '5',
    ]);
    // Only ASCII digits join, so a folded form does not depend on it.
    assert.deepEqual(words('٣.٤'), ['٣', '٤']);
    // Within the part scanned, a point at its end joins nothing.
    assert.deepEqual(scannedWords('In 3.12 now', 7), ['In', '3.12']);
    assert.deepEqual(scannedWords('In 3.12 now', 5), ['In', '3']);
  });

  test('the snippet scan counts them as the index does', () => {
    const text = 'Python 3.11 brought 12 new modules. Python 3.12 improves error messages.';
    assert.equal(bestFor(text, '3.12'), 2);
    assert.equal(bestFor(text, '12 modules'), 0);
  });

  test('a number grouped by thousands is its digits: 1000 finds 1,000 and 1,000 finds 1000', () => {
    assert.deepEqual(indexTerms('It costs $1,000, or 12,500.75 and 1,000,000 in all'), ['cost', '1000', '12500.75', '1000000', 'all']);
    assert.deepEqual(queryTerms('1000 laptop').map(stem), ['1000', 'laptop']);
    assert.deepEqual(queryTerms('1,000 laptop').map(stem), ['1000', 'laptop']);
    // Not a grouping by thousands: a decimal comma, Indian grouping, a list without spaces, a chemical name.
    assert.deepEqual(indexTerms('1,2 and 1,23,456 and 10,00 and 1,0000 and 1234,567 and 3,4-dicarboxylate'), ['1,2', '1,23,456', '10,00', '1,0000', '1234,567', '3,4', 'dicarboxyl']);
    // The snippet scan finds the sentence either way.
    assert.equal(bestFor('Cheap ones cost 500 dollars. The best costs $1,000 today.', '1000'), 2);
    assert.equal(bestFor('Cheap ones cost 500 dollars. The best costs 1000 euros.', '1,000'), 2);
    assert.equal(bestFor('It was 0,5 then. It is 0,0005 now.', '0,0005'), 2, 'a number with other commas is found as written');
  });
});

describe('words of scripts other than Latin', () => {
  test('Han and kana runs become their characters and overlapping pairs, as Lucene\'s CJKAnalyzer cuts them with unigrams', () => {
    assert.deepEqual(words('東京の天気'), ['東', '東京', '京', '京の', 'の', 'の天', '天', '天気', '気']);
    assert.deepEqual(words('雨'), ['雨']);
    // Cut where the script changes; characters outside the BMP are one character.
    assert.deepEqual(words('iPhone用ケース'), ['iphone', '用', '用ケ', 'ケ', 'ケー', 'ー', 'ース', 'ス']);
    assert.deepEqual(words('𠮷野'), ['𠮷', '𠮷野', '野']);
    // The same words whichever way the page wrote a voiced kana.
    assert.deepEqual(words('か\u3099ん'), words('がん'));
    // Punctuation ends a run: no pair across 。
    assert.deepEqual(words('晴れ。雨'), ['晴', '晴れ', 'れ', '雨']);
    // Fullwidth Latin and digits and halfwidth katakana are read as their usual forms (Lucene's CJKWidthFilter).
    assert.deepEqual(words('ＡＢＣ１２３ Ｔｏｋｙｏタワー'), ['abc123', 'tokyo', 'タ', 'タワ', 'ワ', 'ワー', 'ー']);
    assert.deepEqual(words('ｶﾀｶﾅ ﾊﾟｿｺﾝ'), words('カタカナ パソコン'));
    assert.deepEqual(queryTerms('ＲＵＮＮＩＮＧ'), queryTerms('running'));
    // Hangul is written with spaces, but a word carries its particles: each word is cut as Han is.
    assert.deepEqual(words('서울의 날씨'), ['서', '서울', '울', '울의', '의', '날', '날씨', '씨']);
    assert.deepEqual(queryTerms('서울 날씨'), ['서울', '날씨']);
    // Whichever way the page wrote a syllable: its letters (jamo) or the composed syllable.
    assert.deepEqual(words('\u1109\u1165\u110b\u116e\u11af'), words('서울'));
  });

  test('Thai, Khmer and Myanmar runs are cut into dictionary words', () => {
    assert.deepEqual(words('ภาษาไทยง่ายนิดเดียว'), ['ภาษา', 'ไทย', 'ง่าย', 'นิด', 'เดียว']);
    assert.deepEqual(words('ខ្ញុំស្រលាញ់អ្នក'), ['ខ្ញុំ', 'ស្រលាញ់', 'អ្នក']);
    assert.deepEqual(words('မြန်မာစာ'), ['မြန်မာ', 'စာ']);
  });

  test('a word keeps the combining marks of its script; Latin, Greek and Cyrillic accents, Hebrew points and Arabic harakat are folded away', () => {
    assert.deepEqual(words('किताब पढ़ो'), ['किताब', 'पढ़ो']);
    assert.deepEqual(words('re\u0301sume\u0301 re\u0301sume\u0301'), words('résumé resume'));
    assert.deepEqual(words('Ångström İstanbul ΆΈ Йогурт'), ['angstrom', 'istanbul', 'αε', 'иогурт']);
    assert.deepEqual(words('كِتَابٌ'), words('كتاب'));
    // Latin letters no accent can be taken off are folded as Lucene's ASCIIFoldingFilter folds them.
    assert.deepEqual(words('Łódź København Straße STRASSE Æsir Œuvre Þórsmörk Đakovo Iğdır'), ['lodz', 'kobenhavn', 'strasse', 'strasse', 'aesir', 'oeuvre', 'thorsmork', 'dakovo', 'igdir']);
    assert.deepEqual(queryTerms('lodz kobenhavn'), queryTerms('Łódź København'));
  });

  test('a word of ASCII and Latin letters folds as the whole word folds, a character at a time', () => {
    // Every letter and digit below U+0250 (the soft hyphen is invisible, left out of words), alone,
    // after each ASCII letter and with each other at random, in words of one to twelve.
    const latin = Array.from({ length: 0x250 }, (_, c) => String.fromCharCode(c)).filter((c) => /[\p{L}\p{N}]/u.test(c));
    assert.ok(latin.length > 450, `${latin.length}`);
    const random = rng(3);
    const pick = picker(random);
    const cases = [...latin, ...latin.flatMap((c) => ['a', 'Z', 'i', 's'].map((a) => a + c + a))];
    for (let t = 0; t < 20_000; t++) cases.push(Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick(latin)).join(''));
    for (const w of cases) assert.deepEqual(words(w), [fold(w)], JSON.stringify(w));
    // The scan's words of a run outside ASCII (unicodeWords: one made alone when the run is Latin
    // letters and digits only) are words()'s, in texts of them between what parts words or not:
    // Latin-1's signs, a no-break space, a soft hyphen, an apostrophe, a point between digits.
    const separators = [' ', ' ', '\u00a0', '\u00d7', '\u00f7', '\u00ab', '\u00bb', '\u00bf', '\u00b7', '\u00ad', '\u2019', "'", '-', '.', ',', ''];
    for (let t = 0; t < 5_000; t++) {
      let text = pick(cases);
      for (let k = Math.floor(random() * 6); k > 0; k--) text += pick(separators) + pick(cases);
      assert.deepEqual(indexTerms(text, false), reference(text), JSON.stringify(text));
    }
    // A run of ASCII alone is read by the pattern, as words() reads it: a possessive's s is none.
    assert.deepEqual(unicodeWords("cell's", 5, 6), []);
    assert.deepEqual(unicodeWords('Straße', 0, 6), ['strasse']);
  });

  test('an invisible character inside a word keeps it whole and is left out of it; a zero-width space parts words', () => {
    // A soft hyphen (German pages break long words so), a word joiner, the joiners, a direction mark, a byte-order mark.
    assert.deepEqual(words('Bundes\u00adregierung infor\u2060mation co\u200dop\u200cer\u200eate \ufeffcell'), ['bundesregierung', 'information', 'cooperate', 'cell']);
    assert.deepEqual(indexTerms('infor\u00admation retrieval'), indexTerms('information retrieval'));
    assert.deepEqual(queryTerms('Bundes\u00adregierung'), queryTerms('Bundesregierung'));
    // Persian writes a zero-width non-joiner inside a word (می‌خواهم): one word, as Unicode's word boundaries read it.
    assert.deepEqual(words('می\u200cخواهم'), ['میخواهم']);
    assert.deepEqual(words('cell\u200bwall'), ['cell', 'wall']);
  });

  test('the Latin ligatures are read as their letters, as a PDF\'s text writes them', () => {
    assert.deepEqual(words('ﬁnance ﬂow eﬀect oﬃce baﬄe ﬅ ﬆ'), ['finance', 'flow', 'effect', 'office', 'baffle', 'st', 'st']);
    assert.deepEqual(indexTerms('the ﬁnancial oﬃce'), indexTerms('the financial office'));
  });

  test('a query of stop words alone asks for them as a title\'s terms, marked apart from any stem', () => {
    assert.deepEqual(queryTerms('To be, or not to be'), ['~to', '~be', '~or', '~not']);
    assert.deepEqual(queryTerms('to be happy'), ['happy']);
  });

  test('a possessive\'s s is no word, as Lucene\'s EnglishPossessiveFilter drops it', () => {
    assert.deepEqual(words("John's book, Alzheimer’s disease, the 1990's, café's menu, JOHN'S"), ['john', 'book', 'alzheimer', 'disease', 'the', '1990', 'cafe', 'menu', 'john']);
    assert.deepEqual(queryTerms("alzheimer's disease"), queryTerms('alzheimer disease'));
    // An s that is not a possessive's stays: alone, after a space, or the first word.
    assert.deepEqual(words("s 's x 's vitamin s"), ['s', 's', 'x', 's', 'vitamin', 's']);
    assert.deepEqual(words("o'clock rock'n'roll"), ['o', 'clock', 'rock', 'n', 'roll']);
    assert.deepEqual(words('שָׁלוֹם'), words('שלום'));
  });

  test('a query asks for the pairs of a run of two or more, and for a character alone', () => {
    assert.deepEqual(queryTerms('東京 天気'), ['東京', '天気']);
    assert.deepEqual(queryTerms('東京の天気'), ['東京', '京の', 'の天', '天気']);
    assert.deepEqual(queryTerms('猫 ภาษาไทย'), ['猫', 'ภาษา', 'ไทย']);
    // Every term of a query is a word of the same text in a page.
    const page = new Set(words('東京の天気 猫 ภาษาไทย'));
    for (const q of ['東京の天気', '猫', '京の天', 'ภาษาไทย']) for (const t of queryTerms(q)) assert.ok(page.has(t), `${q}: ${t}`);
  });
});

describe('snippet word filter', () => {
  // Snippets stem a word only when it starts with all but the last character of a query stem (its
  // first character for a one-character stem); that is exact only if every Porter stem is so.
  test('a stem keeps its word\'s first character and, but for its last, is a prefix of it, over the whole SciFact vocabulary', () => {
    const vocabulary = new Set<string>();
    for (const d of loadCorpus()) for (const w of words(`${d.title} ${d.text}`)) vocabulary.add(w);
    assert.ok(vocabulary.size > 20_000);
    let changed = 0;
    let grouped = 0;
    for (const w of vocabulary) {
      const s = stem(w);
      if (s !== w) changed++;
      if (w.includes(',') && s !== w) grouped++;
      // A number's commas are skipped on both sides (`1,000` is `1000`), as the snippet scan skips them.
      const bare = s.replaceAll(',', '');
      assert.ok(w.replaceAll(',', '').startsWith(bare.slice(0, Math.max(1, bare.length - 1))), `${w} -> ${s}`);
      assert.equal(w[0], s[0], `${w} -> ${s}`);
    }
    assert.ok(changed > 10_000, 'the vocabulary exercises the stemmer');
    assert.ok(grouped > 50, `the vocabulary exercises grouped numbers (${grouped})`);
  });

  test('the filtered scan picks the same sentence as stemming every word, on SciFact abstracts and claims', () => {
    const corpus = loadCorpus().slice(0, 400);
    const claims = benchQuerySets(300).flatMap(([, qs]) => qs);
    const stemsOf = (q: string) => queryTerms(q).map(stem);
    let compared = 0;
    let differing = 0;
    corpus.forEach((d, i) => {
      const text = markdownToText(d.text);
      const bounds = sentenceBounds(text);
      if (bounds.length < 4) return;
      // A claim, its short form, and the document's own title: queries that do and do not match.
      for (const q of [claims[i % claims.length]!, claims[(i * 7) % claims.length]!, d.title]) {
        const wanted = new Set(stemsOf(q));
        const best = referenceBestSentence(text, bounds, wanted);
        const got = bestSentence(text, bounds, new SnippetQuery([...wanted]));
        compared++;
        if (got !== best) differing++;
        assert.equal(got, best, `${d.id}: ${q}`);
      }
    });
    assert.ok(compared > 1000 && differing === 0);
  });

  test('the filtered scan picks the same sentence on made-up text of possessives, signs, numbers, accents and other scripts', () => {
    const random = rng(31);
    const pick = picker(random);
    const vocabulary = [
      'insulin', 'cell', 'cells', "cell's", 'cell\u2019s', 's', "'s", 'it', 'C++', 'c', 'C#', '1,000', '1000', '3.12', 'e-mail',
      'email', 'mail', 'café', 'cafe', 'Åland', 'β', 'βcell', 'cellβ', '細胞', 'ß', 'ss', 'ｆｉｌｅ', 'file', 'wi-fi',
      'in\u00adsulin', 'ce\u200dll', 'ﬁle',
    ];
    const separators = [' ', ' ', ' ', ', ', ' - ', '-', '\u2014', '\u00a0', "'", '\u2019', '\u200b', '\u00ad'];
    let compared = 0;
    for (let t = 0; t < 1500; t++) {
      const sentences = Array.from({ length: 2 + Math.floor(random() * 4) }, () => {
        let sentence = pick(vocabulary);
        for (let k = 1 + Math.floor(random() * 6); k > 0; k--) sentence += pick(separators) + pick(vocabulary);
        return sentence;
      });
      const text = `${sentences.join('. ')}.`;
      const bounds = sentenceBounds(text);
      const wanted = new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => queryTerms(pick(vocabulary)).map(stem)).flat());
      if (wanted.size === 0) continue;
      const best = referenceBestSentence(text, bounds, wanted);
      assert.equal(bestSentence(text, bounds, new SnippetQuery([...wanted])), best, `${JSON.stringify(text)}: ${[...wanted].join(' ')}`);
      compared++;
    }
    assert.ok(compared > 1000, `${compared}`);
  });

  test('the scan counts no possessive\'s s, as words() finds none', () => {
    const text = "Mary's lamb is white. Take vitamin s daily.";
    assert.equal(bestSentence(text, sentenceBounds(text), new SnippetQuery(['s'])), 2);
  });
});

describe('sentenceBounds', () => {
  /** The sentences of `text`, as `sentenceBounds` cuts it. */
  const parts = (text: string) => {
    const b = sentenceBounds(text);
    const out: string[] = [];
    for (let i = 0; i < b.length; i += 2) out.push(text.slice(b[i], b[i + 1]));
    return out;
  };

  test('a sentence ends after . ! or ? followed by a space or the end; decimals and initials inside a word stay', () => {
    assert.deepEqual(parts('A 3.5 mg dose (p<0.001) worked. Why?! It did... E.g.the rest'), ['A 3.5 mg dose (p<0.001) worked.', 'Why?!', 'It did...', 'E.g.the rest']);
    assert.deepEqual(sentenceBounds('  '), []);
  });

  test('a dot before a lowercase letter, after an initial, a title or a dotted initialism ends no sentence; a company or etc. end one before a capital', () => {
    assert.deepEqual(parts('SAN FRANCISCO (AP) — Pacific Gas & Electric Co. was set to begin. It did.'), ['SAN FRANCISCO (AP) — Pacific Gas & Electric Co. was set to begin.', 'It did.']);
    assert.deepEqual(parts('Talks with Mr. Trump and Dr. Khaldun of Gov. Noem’s staff. On Nov. 18 at No. 5 Main St. the rest.'), [
      'Talks with Mr. Trump and Dr. Khaldun of Gov. Noem’s staff.',
      'On Nov. 18 at No. 5 Main St. the rest.',
    ]);
    assert.deepEqual(parts('John F. Kennedy spoke. So did J. K. Rowling, e.g. at home... and élan. Then U.S. officials left. Long-dated U.S. Treasury yields rose in Washington, D.C. Police said so.'), [
      'John F. Kennedy spoke.',
      'So did J. K. Rowling, e.g. at home... and élan.',
      'Then U.S. officials left.',
      'Long-dated U.S. Treasury yields rose in Washington, D.C. Police said so.',
    ]);
    // Dotted lowercase letters or a word's last capital: a capital after them starts a sentence.
    assert.deepEqual(parts('At 5 p.m. Then a Ph.D. Then ABC.D. Then.'), ['At 5 p.m.', 'Then a Ph.D.', 'Then ABC.D.', 'Then.']);
    // A company, a title not on the list, a word's last letter or a lone lowercase letter: a capital after them starts a sentence.
    assert.deepEqual(parts('He sold Apple Inc. The deal closed. It was 5 p.m. Then we ate. Plan a. Plan B. Ok.'), ['He sold Apple Inc.', 'The deal closed.', 'It was 5 p.m.', 'Then we ate.', 'Plan a.', 'Plan B. Ok.']);
    // Mr. and Dr. inside another word, and ! or ? before a lowercase letter, end one as before.
    assert.deepEqual(parts('It was Mr. Big. ItsDr. Who. Wow! and then? no.'), ['It was Mr. Big.', 'ItsDr.', 'Who.', 'Wow!', 'and then?', 'no.']);
  });

  test('。！？ end a sentence without a space after them, with the closing brackets that follow, unless the sentence goes on after the quote', () => {
    assert.deepEqual(parts('東京は晴れです。明日は雨！「本当？」と聞いた。 Then English. 最後'), ['東京は晴れです。', '明日は雨！', '「本当？」と聞いた。', 'Then English.', '最後']);
    // A quote that is a sentence of its own: followed by another quote, kanji, katakana, a space or the end.
    assert.deepEqual(parts('「はい。」「いいえ。」田中さんは笑った。『ノー！』カナ。「終わり。」'), ['「はい。」', '「いいえ。」', '田中さんは笑った。', '『ノー！』', 'カナ。', '「終わり。」']);
    // Without a closing bracket, a terminator before hiragana still ends the sentence.
    assert.deepEqual(parts('雨です。それから晴れ。'), ['雨です。', 'それから晴れ。']);
  });
});

describe('buildSnippet', () => {
  const filler = 'Nothing to see in this sentence at all.';
  const page = (middle: string) => [filler, filler, filler, middle, filler, filler, filler].join(' ');
  const stems = (q: string) => words(q).map(stem);

  test('picks the sentence holding the most distinct query stems, whatever their inflection or case', () => {
    const text = page('COLLECTORS and GARBAGE, generationally.');
    assert.match(buildSnippet(`${text} Some garbage generation here.`, stems('garbage collectors generational'), 60), /^COLLECTORS and GARBAGE, generationally\./);
  });

  test('words outside ASCII and one- and two-character stems are still matched', () => {
    assert.match(buildSnippet(page('Ein Café in Straße hat ÄPFEL.'), stems('straße äpfel'), 45), /Straße hat ÄPFEL/);
    assert.match(buildSnippet(page('The ox and ax went by.'), stems('ox ax'), 45), /The ox and ax went by\./);
    assert.match(buildSnippet(page('Vitamin D and type 2 diabetes.'), stems('d 2'), 45), /Vitamin D and type 2 diabetes\./);
  });

  test('a page in Japanese: the sentence holding the query\'s words', () => {
    const text = '今日は朝から曇っていました。午後になって東京の天気は急に変わりました。夜は静かでした。';
    assert.equal(buildSnippet(text, queryTerms('東京の天気'), 30), '午後になって東京の天気は急に変わりました。夜は静かでした。');
  });

  test('widens the best sentence forward, then backward, within the length', () => {
    const text = 'One two. Three four. Target words here. Five six. Seven eight.';
    assert.equal(buildSnippet(text, stems('target'), 35), 'Target words here. Five six.');
    assert.equal(buildSnippet(text, stems('target'), 40), 'Three four. Target words here. Five six.');
    assert.equal(buildSnippet(text, stems('target'), 50), 'Target words here. Five six. Seven eight.');
    assert.equal(buildSnippet(text, stems('eight'), 25), 'Five six. Seven eight.');
  });
});

describe('fallbackDescription', () => {
  test('the opening lines\' text without headings (a page of headings alone: theirs), cut at a word', () => {
    // A fence left open makes the rest code (CommonMark), which a description leaves out.
    const md = '# Title\n\nFirst **bold** line.\n\n```js\nSecond line.';
    assert.equal(fallbackDescription(md), 'First bold line.');
    assert.equal(fallbackDescription('# Havnen\nHavnen ligger ved Øresund.\n## Nyhavn\nNyhavn har gamle huse.\n#hashtag'), 'Havnen ligger ved Øresund. Nyhavn har gamle huse. #hashtag');
    assert.equal(fallbackDescription('\n## Only a heading'), 'Only a heading');
    assert.equal(fallbackDescription('# Only\n\n## headings\n'), 'Only headings');
    const plain = 'Opening *words* of a page, long enough to be cut somewhere in the middle.';
    assert.equal(fallbackDescription(plain, 30), 'Opening words of a page, long…');
    assert.equal(fallbackDescription(`${'word '.repeat(5_000)}\nlast`).length, 300);
  });
});

describe('markdownToText', () => {
  test('folds each run of whitespace into one space, as /\\s+/g would, and leaves lone spaces alone', () => {
    // Seeded random strings over letters, spaces and other whitespace (tab, newlines, no-break and ideographic spaces).
    const next = rng(7);
    const alphabet = ['a', 'b', ' ', ' ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\f', '\v'];
    for (let n = 0; n < 2000; n++) {
      let s = '';
      for (let i = Math.floor(next() * 40); i > 0; i--) s += alphabet[Math.floor(next() * alphabet.length)];
      assert.equal(markdownToText(s), s.replace(/\s+/g, ' ').trim(), JSON.stringify(s));
    }
    assert.equal(markdownToText('# Title\n\nOne  two\tthree\n- item'), 'Title One two three item');
  });
});
