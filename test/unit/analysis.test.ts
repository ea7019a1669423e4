import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { indexTerms, STOP_WORDS, stem, words } from '../../src/core/text.js';
import { loadCorpus } from '../../bench/scifact.js';
import { buildSnippet } from '../../src/ops/snippet.js';

const reference = (text: string) => words(text).filter((w) => !STOP_WORDS.has(w)).map(stem);

describe('indexTerms (the engine analysis)', () => {
  test('the same terms as words() + stop words + Porter, on hand-picked text', () => {
    for (const text of [
      'The Quick brown foxes were JUMPING over 3 lazy dogs.',
      'Café au lait, naïve résumé — Ångström’s “quoted” words…',
      'e-mail, C++ and x86_64; URL https://example.com/a-b?c=d#e',
      '東京 is in 日本; emoji 🎉 between words; Straße ß',
      'tab\tseparated\nlines\r\nand\u00a0nbsp',
      '',
      '!!!',
    ]) {
      assert.deepEqual(indexTerms(text), reference(text), text);
    }
  });

  test('the same terms on the first 500 SciFact abstracts', () => {
    for (const d of loadCorpus().slice(0, 500)) assert.deepEqual(indexTerms(`${d.title} ${d.text}`), reference(`${d.title} ${d.text}`), d.id);
  });
});

describe('snippet word filter', () => {
  // Snippets skip stemming a word whose first two characters begin no query stem; that is exact
  // only if every stem of three or more characters starts with the first two characters of its word.
  test('a stem of three or more characters starts as its word does, over the whole SciFact vocabulary', () => {
    const vocabulary = new Set<string>();
    for (const d of loadCorpus()) for (const w of words(`${d.title} ${d.text}`)) vocabulary.add(w);
    assert.ok(vocabulary.size > 20_000);
    let checked = 0;
    for (const w of vocabulary) {
      const s = stem(w);
      if (s.length < 3) continue;
      checked++;
      assert.equal(s.slice(0, 2), w.slice(0, 2), `${w} -> ${s}`);
    }
    assert.ok(checked > 20_000);
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

  test('words outside ASCII and stems too short to filter on are still matched', () => {
    assert.match(buildSnippet(page('Ein Café in Straße hat ÄPFEL.'), stems('straße äpfel'), 45), /Straße hat ÄPFEL/);
    assert.match(buildSnippet(page('The ox and ax went by.'), stems('ox ax'), 45), /The ox and ax went by\./);
  });
});
