/**
 * `deadline` (src/core/deadline.ts): a time and a caller's signal together, the time kept though the
 * collector runs (Node 20's AbortSignal.any over AbortSignal.timeout loses it then).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { deadline } from '../../src/core/deadline.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Resolves when `signal` aborts, or after `ms`. */
const abortedWithin = (signal: AbortSignal, ms: number) => Promise.race([new Promise((r) => signal.addEventListener('abort', r, { once: true })), sleep(ms)]);

describe('deadline', () => {
  test('fires at its time with a TimeoutError, the caller\'s signal beside it, though the collector runs meanwhile', async () => {
    const caller = new AbortController();
    const limit = deadline(100, caller.signal);
    for (let i = 0; i < 4; i++) {
      gc();
      await sleep(20);
    }
    await abortedWithin(limit.signal, 1_000);
    assert.equal(limit.signal.aborted, true);
    assert.equal((limit.signal.reason as Error).name, 'TimeoutError');
    assert.equal(caller.signal.aborted, false);
    limit.clear();
  });

  test("aborts with the caller's reason when the caller's signal does, and at once when it already has", async () => {
    const caller = new AbortController();
    const limit = deadline(60_000, caller.signal);
    caller.abort(new Error('gone'));
    assert.equal(limit.signal.aborted, true);
    assert.equal((limit.signal.reason as Error).message, 'gone');
    limit.clear();
    const late = deadline(60_000, caller.signal);
    assert.equal((late.signal.reason as Error).message, 'gone');
    late.clear();
  });

  test('cleared, it aborts neither at its time nor with the caller', async () => {
    const caller = new AbortController();
    const limit = deadline(30, caller.signal);
    limit.clear();
    await sleep(80);
    caller.abort();
    assert.equal(limit.signal.aborted, false);
    // Without a caller's signal, the time alone.
    const alone = deadline(30);
    await abortedWithin(alone.signal, 1_000);
    assert.equal((alone.signal.reason as Error).name, 'TimeoutError');
  });
});
