import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextDepth } from '../../src/ops/search.js';

test('nextDepth: as deep as the share that passed says the missing results lie, twice that; never less than twice as deep', () => {
  assert.equal(nextDepth(10, 0, 10), 80, 'none passed: eight times as deep');
  assert.equal(nextDepth(10, 1, 9), 10 + 180, 'one in ten passed: nine more lie some 90 further down, read to 180');
  assert.equal(nextDepth(100, 50, 5), 205, 'half passed: twice as deep and the missing, beyond the 20 the share says');
  assert.equal(nextDepth(10, 10, 3), 23, 'all passed (repeats left out): twice and the missing');
  for (const [limit, passed, missing] of [[10, 3, 7], [70, 2, 8], [300, 299, 1]] as const) {
    assert.ok(nextDepth(limit, passed, missing) >= 2 * limit + missing);
  }
});
