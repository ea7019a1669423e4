import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EngineIndexStore, RARE_ODDS, RARE_PAGES_MAX, SPELLING_WORDS_MAX } from '../../src/adapters/engine/engine-index-store.js';
import { dictionaryOf } from '../../src/adapters/engine/segment.js';
import { editDistance, editsAllowed, nearestTerms, oneEditAway } from '../../src/adapters/engine/spelling.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { page, tempDir } from '../helpers.js';

/** The edit distance by the textbook's full table (optimal string alignment), to hold the banded one to. */
function reference(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

describe('spelling corrections', () => {
  test('the edit distance: insertions, deletions, substitutions and adjacent transpositions, cut at the most asked for', () => {
    const rows = (n: number): [Int32Array, Int32Array, Int32Array] => [new Int32Array(n + 1), new Int32Array(n + 1), new Int32Array(n + 1)];
    const distance = (a: string, b: string, max: number) => editDistance(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'), 0, b.length, max, rows(a.length));
    assert.equal(distance('tarrif', 'tariff', 2), 2);
    assert.equal(distance('reciev', 'receiv', 2), 1, 'ie for ei is one edit');
    assert.equal(distance('gekco', 'gecko', 1), 1);
    assert.equal(distance('gecko', 'gecko', 1), 0);
    assert.equal(distance('abc', 'abcde', 1), 2, 'more than the most: the most and one');
    assert.equal(distance('kitten', 'sitting', 2), 3);
    // Against the full table on random pairs of a small alphabet (many near ones).
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const word = () => Array.from({ length: 1 + Math.floor(random() * 7) }, () => 'abc'[Math.floor(random() * 3)]).join('');
    for (let k = 0; k < 3_000; k++) {
      const [a, b] = [word(), word()];
      for (const max of [1, 2, 3]) assert.equal(distance(a, b, max), Math.min(reference(a, b), max + 1), `${a} ${b} ${max}`);
    }
    // A term read from inside a dictionary's bytes.
    const bytes = Buffer.from('xxgeckoyy', 'latin1');
    assert.equal(editDistance(Buffer.from('gekco', 'latin1'), bytes, 2, 7, 1, rows(5)), 1);
  });

  test('how many edits a word may be from its correction: none below 5 letters, two from 6', () => {
    assert.deepEqual([3, 4, 5, 6, 12].map(editsAllowed), [0, 0, 1, 2, 2]);
  });

  test('the terms near a word start with its letter, from every dictionary, the word itself left out', () => {
    const near = nearestTerms([dictionaryOf(['gecko', 'gekko', 'recko', 'geck', 'geckos', 'lizard']), dictionaryOf(['gecko', 'gackos'])], 'gecko', 1);
    assert.deepEqual([...near].sort(), [['geck', 1], ['geckos', 1], ['gekko', 1]]);
    assert.deepEqual([...nearestTerms([dictionaryOf(['gackos', 'gecko'])], 'gecko', 2)], [['gackos', 2]]);
    // Letters doubled or written once are one slip, however many edits: 0.
    assert.deepEqual(new Map(nearestTerms([dictionaryOf(['tariff', 'terrif', 'tarif', 'taariff', 'tarifs'])], 'tarrif', 2)), new Map([['tariff', 0], ['terrif', 1], ['tarif', 0], ['taariff', 0], ['tarifs', 2]]));
  });

  test('the spellings one edit from a word: each letter left out, each pair swapped, each letter replaced, each put in', () => {
    const near = oneEditAway('abc');
    assert.equal(near.has('abc'), false);
    for (const w of ['bc', 'ac', 'ab', 'bac', 'acb', 'xbc', 'axc', 'abx', 'xabc', 'axbc', 'abxc', 'abcx']) assert.ok(near.has(w), w);
    // Exactly the words of letters at distance 1: every word of 2 to 4 letters compared.
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    let all: string[] = [''];
    let expected = 0;
    for (let length = 1; length <= 4; length++) {
      all = all.flatMap((w) => [...letters].map((c) => w + c));
      if (length >= 2) for (const w of all) if (reference(w, 'abc') === 1) expected++;
    }
    assert.equal(near.size, expected);
    assert.ok([...near].every((w) => reference(w, 'abc') === 1));
  });

  test('the engine corrects a word no page holds, or a few do, to the likeliest near term', async () => {
    const dir = tempDir();
    const db = openDatabase({ path: `${dir.path}/pages.db` });
    const pages = new SqlitePageStore(db);
    // "tariff" on 36 pages, doubled letters from "tarrif" (one edit); "terrif" on one, a letter
    // replaced in "tarrifs" (one edit): the commoner word wins.
    await pages.putVersions([
      ...Array.from({ length: 6 }, (_, i) => page(`https://a.test/t${i}`, { content: `tariff page ${i}` })),
      ...Array.from({ length: 30 }, (_, i) => page(`https://a.test/u${i}`, { content: `tariff trade ${i}` })),
      page('https://a.test/terrif', { content: 'terrif' }),
      page('https://a.test/gecko', { content: 'The gecko climbs.' }),
      page('https://a.test/receive', { content: 'We receive letters.' }),
      page('https://a.test/responsive', { content: 'A responsive design.' }),
      // "tradtiional" stems to "tradtiion", two edits from "traction" and three from "tradit"; the
      // word swapped back is "traditional", whose stem is "tradit".
      ...Array.from({ length: 2 }, (_, i) => page(`https://a.test/tradition${i}`, { content: 'A traditional song.' })),
      ...Array.from({ length: 5 }, (_, i) => page(`https://a.test/traction${i}`, { content: 'Traction control.' })),
    ]);
    const index = await new EngineIndexStore(db, { dir: `${dir.path}/engine` }).open();
    try {
      // A spelling one edit away is asked for as it is spelt (its stem is what pages hold); a term
      // near the stem, as itself.
      assert.deepEqual(index.corrections(['tarrifs', 'gekco', 'recieve', 'gecko', 'trade', 'gekc', 'zzzzzz']), ['tariff', 'gecko', 'receive', undefined, undefined, undefined, undefined]);
      // "responsive" stems to "respons", which stems to "respon": only the spelling finds it.
      assert.deepEqual(index.corrections(['respnosive']), ['responsive']);
      assert.deepEqual(index.corrections(['clinbs', 'clmbs']), ['climbs', undefined], 'a stem of four letters is not corrected');
      assert.deepEqual(index.corrections(['tradtiional']), ['traditional']);
      // The first SPELLING_WORDS_MAX words of a query that no page holds, no more.
      const seven = ['gekco', 'trade', 'clinbs', 'zzzzzz', 'recieve', 'respnosive', 'tradtiional'];
      assert.equal(SPELLING_WORDS_MAX, 4);
      assert.deepEqual(index.corrections(seven), ['gecko', undefined, 'climbs', undefined, 'receive', undefined, undefined]);
      // A page holding the misspelling: it is a word of the index now, asked for as it is while
      // its correction is not RARE_ODDS times likelier (one page of "gecko", at one edit: 1 / 20).
      await pages.putVersion(page('https://a.test/typo', { content: 'a gekco' }));
      assert.deepEqual(index.corrections(['gekco']), [undefined]);
      // "lizzard" on one page, "lizard" on 190 (190 / 20 against 10 x 1), then on 210.
      await pages.putVersions([page('https://a.test/lizzard', { content: 'a lizzard' }), ...Array.from({ length: 190 }, (_, i) => page(`https://a.test/lizard${i}`, { content: 'a lizard' }))]);
      assert.equal(RARE_ODDS, 10);
      assert.deepEqual(index.corrections(['lizzard']), [undefined]);
      await pages.putVersions(Array.from({ length: 20 }, (_, i) => page(`https://a.test/lizard-more${i}`, { content: 'a lizard' })));
      assert.deepEqual(index.corrections(['lizzard']), ['lizard']);
      // On more than RARE_PAGES_MAX pages, a word is a word.
      await pages.putVersions(Array.from({ length: RARE_PAGES_MAX }, (_, i) => page(`https://a.test/lizzard${i}`, { content: 'a lizzard' })));
      assert.deepEqual(index.corrections(['lizzard']), [undefined]);
    } finally {
      await index.close();
      db.close();
    }
  });
});
