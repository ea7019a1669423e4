import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectLanguage, normalizeLangTag, pageLanguage } from '../../src/core/language.js';

describe('page language', () => {
  test('declared tags are normalised; junk is no tag', () => {
    assert.equal(normalizeLangTag(' EN_us '), 'en-us');
    assert.equal(normalizeLangTag('de-DE, en'), 'de-de');
    assert.equal(normalizeLangTag('und'), undefined);
    assert.equal(normalizeLangTag('english!'), undefined);
    assert.equal(normalizeLangTag(''), undefined);
  });

  test('function words tell a few languages apart', () => {
    assert.equal(detectLanguage('The quick brown fox jumps over the lazy dog, and it was the best thing that they have seen from there.'), 'en');
    assert.equal(detectLanguage('Der schnelle braune Fuchs springt über den faulen Hund, und das ist nicht so einfach, wie es auf dem Bild aussieht.'), 'de');
    assert.equal(detectLanguage("Le renard brun rapide saute par-dessus le chien paresseux, et ce n'est pas une chose simple dans les faits pour nous."), 'fr');
    assert.equal(detectLanguage('El zorro marrón salta sobre el perro perezoso y fue muy rápido cuando tiene hambre, pero hay otros en los campos.'), 'es');
    assert.equal(detectLanguage('De snelle bruine vos springt over de luie hond, maar dat is niet wat hij het liefst doet voor zijn baas.'), 'nl');
  });

  test('too short or unclear text gets no tag', () => {
    assert.equal(detectLanguage('Rust 1.80 release'), undefined);
    assert.equal(detectLanguage('x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12'), undefined);
  });

  test('a declared language wins over the guess', () => {
    const english = 'The quick brown fox jumps over the lazy dog, and it was the best thing that they have seen from there.';
    assert.equal(pageLanguage('fr-CA', english), 'fr-ca');
    assert.equal(pageLanguage('not a tag', english), 'en');
  });
});
