import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codeLength, lengthCode, normsOfCodes } from '../../src/adapters/engine/engine.js';

describe('one-byte document lengths', () => {
  test("Lucene's SmallFloat byte4 values: 0-23 exactly, then four significant bits, increasing, past 2^30", () => {
    for (let c = 0; c < 24; c++) assert.equal(codeLength(c), c);
    assert.deepEqual([24, 31, 32, 39, 40, 41, 47].map(codeLength), [24, 31, 32, 39, 40, 42, 54]);
    for (let c = 1; c < 256; c++) assert.ok(codeLength(c) > codeLength(c - 1), `code ${c}`);
    assert.ok(codeLength(255) > 2 ** 30);
  });

  test('a length is rounded up to the nearest code (so scores never exceed bounds from exact lengths), at most 1/8 above', () => {
    const lengths = [0, 1, 23, 24, 25, 33, 40, 41, 100, 999, 1000, 65_537, 10_000_000];
    for (let i = 0; i < 5000; i++) lengths.push(Math.floor(Math.random() * 2 ** (1 + (i % 28))));
    for (const length of lengths) {
      const c = lengthCode(length);
      assert.ok(codeLength(c) >= length, `${length}`);
      assert.ok(c === 0 || codeLength(c - 1) < length, `${length}: not the nearest code`);
      assert.ok(codeLength(c) <= length * 1.125 + 1e-9 || length < 24, `${length} -> ${codeLength(c)}`);
    }
  });

  test('norms of codes: BM25 k1 (1 - b + b len / avg), longer is larger', () => {
    const n = normsOfCodes(100);
    for (const c of [0, 10, 60, 200]) assert.ok(Math.abs(n[c]! - 1.2 * (0.25 + (0.75 * codeLength(c)) / 100)) <= 1e-6 * n[c]!, `code ${c}`);
    for (let c = 1; c < 256; c++) assert.ok(n[c]! > n[c - 1]!);
  });
});
