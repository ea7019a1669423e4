import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCorpus, picker, rng } from '../../bench/scifact.js';
import { detectLanguage, normalizeLangTag, pageLanguage, sampleWords } from '../../src/core/language.js';
import { words } from '../../src/core/text.js';

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

  test('Japanese, Chinese, Korean and Thai by the script most of the words are written in', () => {
    assert.equal(detectLanguage('東京は今日晴れです。明日は雨が降るでしょう。'), 'ja');
    assert.equal(detectLanguage('北京是中国的首都。今天北京的天气很好。'), 'zh');
    assert.equal(detectLanguage('서울은 한국의 수도입니다. 오늘 서울의 날씨는 맑습니다. 내일은 비가 올 것입니다.'), 'ko');
    assert.equal(detectLanguage('ภาษาไทยง่ายนิดเดียว วันนี้อากาศดีมาก พรุ่งนี้ฝนจะตก'), 'th');
    // An English page quoting a little Japanese stays English; a Japanese page naming a few English words stays Japanese.
    const english = 'The quick brown fox jumps over the lazy dog, and it was the best thing that they have seen from there.';
    assert.equal(detectLanguage(`${english} ${english} 東京の天気`), 'en');
    assert.equal(detectLanguage('新しいiPhoneとMacBookの発表は明日の午前十時から東京で行われる予定です。'), 'ja');
    // Kanji alone, as in a Japanese headline, could be either: no tag. Chinese has its function characters.
    assert.equal(detectLanguage('東京都知事選挙結果発表。東京都知事選挙結果発表。'), undefined);
    assert.equal(detectLanguage('這是台北的天氣預報。他們說明天會下雨。'), 'zh');
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

  test("the sample read is the first 2,000 words of the first 20,000 characters, as words() reads them", () => {
    const sample = (t: string) => words(t.slice(0, 20_000)).slice(0, 2_000);
    for (const d of loadCorpus().slice(0, 1000)) assert.deepEqual(sampleWords(d.text), sample(d.text), d.id);
    // Made-up texts of what the analysis reads apart, long enough for either bound to end the sample.
    const random = rng(5);
    const pick = picker(random);
    const vocabulary = ['Insulin', "cell's", 'C++', 'C#', '1,000', '3.12', 'e-mail', 'café', 'cafe\u0301', 'ﬁle', 'ｆｉｌｅ', 'ｶﬁle', 'İnsulin', 'ß', 'β', '東京の天気', '北京', '서울의', 'ภาษาไทย', '𝐜ell', 'ce\u00adll', 'x'.repeat(300)];
    const separators = [' ', ', ', '. ', '\n', '-', '\u2014', '\u00a0', '\u3000', ''];
    const ended = { chars: 0, words: 0 };
    for (let t = 0; t < 300; t++) {
      let text = '';
      const length = Math.floor(random() * 6000);
      for (let k = 0; k < length; k++) text += pick(vocabulary) + pick(separators);
      assert.deepEqual(sampleWords(text), sample(text), `text ${t}: ${JSON.stringify(text.slice(0, 200))}`);
      if (text.length > 20_000 && sample(text).length < 2_000) ended.chars++;
      if (sample(text).length === 2_000) ended.words++;
    }
    assert.ok(ended.chars > 10 && ended.words > 10, JSON.stringify(ended));
  });
});
