import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SharedFetches } from '../../src/acquire/live-fetch.js';

/** A fetch that ends when told to, and says whether it was stopped. */
function heldFetch() {
  let finish: (value: string) => void = () => {};
  let fail: (e: Error) => void = () => {};
  const started: AbortSignal[] = [];
  const start = (signal: AbortSignal) => {
    started.push(signal);
    return new Promise<string>((resolve, reject) => {
      finish = resolve;
      fail = reject;
      signal.addEventListener('abort', () => reject(new Error('stopped')));
    });
  };
  return { start, started, finish: (v: string) => finish(v), fail: (e: Error) => fail(e) };
}

test('callers of one key share one fetch and its answer; the next fetch starts after it ends', async () => {
  const shared = new SharedFetches<string>();
  const f = heldFetch();
  const answers = [shared.run('a', undefined, f.start), shared.run('a', undefined, f.start), shared.run('a', new AbortController().signal, f.start)];
  assert.equal(f.started.length, 1);
  assert.equal(shared.waiting('a'), 3);
  f.finish('page');
  assert.deepEqual(await Promise.all(answers), ['page', 'page', 'page']);
  assert.equal(shared.size, 0);
  void shared.run('a', undefined, f.start);
  assert.equal(f.started.length, 2);
  f.finish('again');
});

test('a failure is every waiter\'s; other keys are fetched apart', async () => {
  const shared = new SharedFetches<string>();
  const f = heldFetch();
  const g = heldFetch();
  const [one, two] = [shared.run('a', undefined, f.start), shared.run('a', undefined, f.start)];
  const other = shared.run('b', undefined, g.start);
  f.fail(new Error('origin down'));
  await assert.rejects(one, /origin down/);
  await assert.rejects(two, /origin down/);
  g.finish('b page');
  assert.equal(await other, 'b page');
});

test('a caller that goes away leaves the others their answer; the fetch stops when the last one has gone', async () => {
  const shared = new SharedFetches<string>();
  const f = heldFetch();
  const [leaving, staying] = [new AbortController(), new AbortController()];
  const left = shared.run('a', leaving.signal, f.start);
  const stayed = shared.run('a', staying.signal, f.start);
  leaving.abort(new Error('caller gone'));
  await assert.rejects(left, /caller gone/);
  assert.equal(f.started[0]!.aborted, false, 'one caller is still waiting');
  f.finish('page');
  assert.equal(await stayed, 'page');

  const g = heldFetch();
  const both = [new AbortController(), new AbortController()];
  const runs = both.map((c) => shared.run('b', c.signal, g.start));
  both[0]!.abort(new Error('gone'));
  both[1]!.abort(new Error('gone'));
  await Promise.all(runs.map((r) => assert.rejects(r, /gone/)));
  assert.equal(g.started[0]!.aborted, true, 'nobody waits: the fetch is stopped');
  assert.equal(shared.size, 0);
  await assert.rejects(shared.run('c', AbortSignal.abort(new Error('already gone')), g.start), /already gone/);
  assert.equal(g.started.length, 1, 'a caller already gone starts nothing');
});
