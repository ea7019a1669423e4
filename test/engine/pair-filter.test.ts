import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fieldsOf } from '../../src/adapters/engine/engine-index-store.js';
import { mayHoldPair, phrasePairs } from '../../src/adapters/engine/pair-filter.js';
import { readSegment, writeSegment } from '../../src/adapters/engine/segment-files.js';
import { compacted, concatSegments, SegmentBuilder, type SegmentData } from '../../src/adapters/engine/segment.js';
import { hasPhrase, wordKey } from '../../src/core/phrase.js';
import { words } from '../../src/core/text.js';
import { picker, rng } from '../../bench/scifact.js';
import { tempDir } from '../helpers.js';

// Words that stem alike, stop words, a possessive, letters folded (é, the ﬁ ligature, İ), a soft
// hyphen, numbers with points and commas, compounds, Han and kana, and words of one character.
const VOCABULARY = [
  'cell', 'cells', "cell's", 'Cell', 'CELLS', 'wall', 'walls', 'the', 'The', 'of', 'to', 'be', 'or', 'not', 'and', 'it', 'its', "it's",
  'connect', 'connected', 'connection', 'con\u00adnect', 'café', 'CAFÉ', 'cafe', 'ﬁle', 'file', 'Straße', 'strasse', 'İnsulin', 'insulin',
  '1,000', '1000', '3.12', 'e-mail', 'email', 'Wi-Fi', '東京', '日本語', 'カタカナ', 'x86_64', 'C++', 'a', 's', 'naïve',
];
const SEPARATORS = [' ', ' ', ' ', ', ', '. ', '\n', ' — ', '-', '  ', "'", '/', '', '\u3000'];

/** A version's row as the build reads it. */
type Row = Parameters<typeof fieldsOf>[0];

function randomRows(n: number, seed: number): Row[] {
  const random = rng(seed);
  const pick = picker(random);
  const text = (most: number) => {
    let out = '';
    const count = Math.floor(random() * most);
    for (let k = 0; k < count; k++) out += (k > 0 ? pick(SEPARATORS) : '') + pick(VOCABULARY);
    return out;
  };
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    url: `https://h${i % 3}.test/cell-wall/${i}`,
    rev_host: `test.h${i % 3}.`,
    title: random() < 0.1 ? null : text(8),
    description: random() < 0.3 ? null : text(20),
    content: text(80),
    acquired_at: i,
    superseded_at: null,
    published_at: null,
    searchable: 1,
  }));
}

/** The segment `addFields` builds of these rows (the build's path), with these weights. */
function built(rows: readonly Row[], weights = { title: 3, description: 1, content: 1, url: 1 }): SegmentData {
  const b = new SegmentBuilder();
  for (const r of rows) b.addFields({ versionId: r.id, acquiredAt: r.acquired_at, supersededAt: Infinity, publishedAt: Number.NaN, revHost: r.rev_host, urlMask: [0, 0] }, fieldsOf(r, weights));
  return b.finish();
}

/** Whether document `doc`'s filter may hold every pair of the phrase (its keys). */
function mayHold(seg: SegmentData, doc: number, keys: readonly string[]): boolean {
  const at = seg.pairStart[doc]!;
  return phrasePairs(keys).every((pair) => mayHoldPair(seg.pairBits, at, seg.pairStart[doc + 1]! - at, pair));
}

/** Document `doc`'s filter, as its words. */
const filterOf = (seg: SegmentData, doc: number) => [...seg.pairBits.subarray(seg.pairStart[doc], seg.pairStart[doc + 1])];

const texts = (r: Row) => [r.title, r.description, r.content].filter((t): t is string => t !== null);

describe('filters of pairs', () => {
  test('never rule out a phrase `hasPhrase` finds in a title, description or content, and rule out most pairs a page lacks', () => {
    const rows = randomRows(1_500, 11);
    // A description that weighs nothing is not indexed, but a phrase is still looked for in it.
    for (const weights of [undefined, { title: 3, description: 0, content: 1, url: 1 }]) {
      const seg = built(rows, weights);
      const random = rng(5);
      const pick = picker(random);
      let found = 0;
      let lacking = 0;
      let through = 0;
      rows.forEach((r, doc) => {
        // Runs of each text's own words (2 to 5 of them), and pairs of words from the vocabulary.
        for (const t of texts(r)) {
          const ws = words(t);
          for (let k = 0; k < 3 && ws.length >= 2; k++) {
            const length = 2 + Math.floor(random() * Math.min(4, ws.length - 1));
            const from = Math.floor(random() * (ws.length - length + 1));
            const keys = ws.slice(from, from + length).map(wordKey);
            if (!hasPhrase(t, keys)) continue;
            found++;
            assert.ok(mayHold(seg, doc, keys), `${JSON.stringify(keys)} in ${JSON.stringify(t)}`);
          }
        }
        for (let k = 0; k < 20; k++) {
          const keys = words(`${pick(VOCABULARY)} ${pick(VOCABULARY)}`).map(wordKey);
          if (keys.length !== 2) continue;
          const held = texts(r).some((t) => hasPhrase(t, keys));
          if (held) assert.ok(mayHold(seg, doc, keys), `${JSON.stringify(keys)} in ${JSON.stringify(texts(r))}`);
          else if (seg.pairStart[doc + 1]! > seg.pairStart[doc]!) {
            lacking++;
            if (mayHold(seg, doc, keys)) through++;
          }
        }
      });
      assert.ok(found > 5_000, `${found} phrases found`);
      // About 1 in 16 at 6 bits a pair and 3 probes (fewer: the pairs are counted with repeats).
      assert.ok(lacking > 10_000 && through / lacking < 0.1, `${through} of ${lacking} let through`);
      // A document with no pair (no text, or words of one field each) has no filter, and rules out nothing.
      const none = rows.findIndex((r) => texts(r).every((t) => words(t).length < 2));
      assert.ok(none >= 0);
      assert.equal(seg.pairStart[none + 1], seg.pairStart[none]);
      assert.ok(mayHold(seg, none, ['cell', 'wall']));
    }
  });

  test('are kept through joins, compactions and files, and a file whose filters do not add up is refused', () => {
    const rows = randomRows(900, 12);
    const whole = built(rows);
    const gone = (i: number) => i % 7 === 3;
    const kept = rows.filter((_, i) => !gone(i));
    const expected = built(kept);
    const thirds = [rows.slice(0, 300), rows.slice(300, 600), rows.slice(600)].map((part, k) => {
      const seg = built(part);
      part.forEach((_, i) => (seg.deleted[i] = gone(300 * k + i) ? 1 : 0));
      return seg;
    });
    const joined = concatSegments(thirds.map((s) => ({ ...s, deleted: new Uint8Array(s.docCount) })), true, true);
    assert.deepEqual([...joined.pairStart], [...whole.pairStart]);
    assert.deepEqual([...joined.pairBits], [...whole.pairBits]);
    for (const shared of [false, true]) {
      const made = compacted(thirds, shared)!;
      assert.equal(made.docCount, kept.length);
      assert.deepEqual([...made.pairStart], [...expected.pairStart]);
      assert.deepEqual([...made.pairBits], [...expected.pairBits]);
    }
    const temp = tempDir();
    const dir = temp.path;
    const name = writeSegment(dir, whole);
    const read = readSegment(dir, name, true);
    for (let doc = 0; doc < whole.docCount; doc += 50) assert.deepEqual(filterOf(read, doc), filterOf(whole, doc));
    // Starts that run backwards, or end short of the filters' words, would read past a document's filter.
    for (const damage of [(s: SegmentData) => (s.pairStart[5] = s.pairStart[4]! + 10_000), (s: SegmentData) => (s.pairStart[s.docCount] = s.pairStart[s.docCount]! - 1)]) {
      const bad = { ...whole, pairStart: whole.pairStart.slice() };
      damage(bad);
      const badName = writeSegment(dir, bad);
      assert.throws(() => readSegment(dir, badName), /inconsistent filters of pairs/);
    }
    temp.remove();
  });
});
