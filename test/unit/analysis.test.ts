import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { indexTerms, STOP_WORDS, stem, words } from '../../src/core/text.js';
import { loadCorpus } from '../../bench/scifact.js';

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
