/** The limiter store contract: atomic all-or-nothing counting over fixed windows. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { picker, rng } from '../../bench/scifact.js';
import type { LimiterStore } from '../../src/ports/limiter-store.js';

export function limiterContract(name: string, make: () => Promise<LimiterStore>): void {
  describe(`LimiterStore contract: ${name}`, () => {
    /** Closed however the test ends: an open connection (Redis) would keep the test process alive. */
    async function withStore(fn: (s: LimiterStore) => Promise<void>) {
      const s = await make();
      try {
        await fn(s);
      } finally {
        await s.close?.();
      }
    }

    test('counts up to the limit, then refuses until the window resets', () =>
      withStore(async (s) => {
        const w = [{ key: 'k', windowMs: 1000, limit: 3 }];
        const t0 = 1_000_000;
        for (let i = 1; i <= 3; i++) {
          const r = await s.consume(w, t0 + i);
          assert.equal(r.allowed, true);
          assert.equal(r.windows[0]!.count, i);
          assert.equal(r.windows[0]!.resetAt, t0 + 1000);
        }
        const refused = await s.consume(w, t0 + 500);
        assert.equal(refused.allowed, false);
        assert.equal(refused.windows[0]!.count, 3);
        const later = await s.consume(w, t0 + 1000);
        assert.equal(later.allowed, true);
        assert.equal(later.windows[0]!.count, 1);
      }));

    test('several windows: a refusal in one counts in none', () =>
      withStore(async (s) => {
        const w = [
          { key: 'ip', windowMs: 1000, limit: 10 },
          { key: 'ip', windowMs: 3_600_000, limit: 2 },
        ];
        assert.equal((await s.consume(w, 0)).allowed, true);
        assert.equal((await s.consume(w, 1)).allowed, true);
        const r = await s.consume(w, 2);
        assert.equal(r.allowed, false);
        assert.deepEqual(
          r.windows.map((x) => x.count),
          [2, 2],
        );
      }));

    test('keys are independent', () =>
      withStore(async (s) => {
        assert.equal((await s.consume([{ key: 'a', windowMs: 1000, limit: 1 }], 0)).allowed, true);
        assert.equal((await s.consume([{ key: 'b', windowMs: 1000, limit: 1 }], 0)).allowed, true);
        assert.equal((await s.consume([{ key: 'a', windowMs: 1000, limit: 1 }], 0)).allowed, false);
      }));

    test('made-up runs of requests over keys, windows and limits as time goes on: every answer is a fixed-window count\'s', () =>
      withStore(async (s) => {
        const random = rng(5);
        const pick = picker(random);
        const counts = new Map<string, number>();
        let now = 1_700_000_000_123;
        for (let n = 0; n < 600; n++) {
          // Now and then exactly at the start of a window, or a millisecond before one.
          const edge = pick([1000, 5000, 60_000]);
          if (random() < 0.2) now = now - (now % edge) + edge - pick([0, 1]);
          else now += pick([0, 1, 7, 250, 999, 1000, 4000]);
          const keys = [...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(['org:a', 'org:b', 'ip:1'])))];
          const windows = keys.flatMap((key) => [...new Set([pick([1000, 5000]), pick([1000, 60_000])])].map((windowMs) => ({ key, windowMs, limit: pick([2, 3, 5]) })));
          const slots = windows.map((w) => {
            const start = now - (now % w.windowMs);
            return { id: `${w.key} ${w.windowMs} ${start}`, resetAt: start + w.windowMs };
          });
          const allowed = windows.every((w, j) => (counts.get(slots[j]!.id) ?? 0) < w.limit);
          if (allowed) for (const slot of slots) counts.set(slot.id, (counts.get(slot.id) ?? 0) + 1);
          const got = await s.consume(windows, now);
          const expected = windows.map((w, j) => ({ limit: w.limit, count: counts.get(slots[j]!.id) ?? 0, resetAt: slots[j]!.resetAt }));
          assert.deepEqual(got, { allowed, windows: expected }, `request ${n} at ${now}: ${JSON.stringify(windows)}`);
        }
      }));

    test('requests at once, their windows named in either order: exactly the limit are counted, in every window', () =>
      withStore(async (s) => {
        const x = { key: 'x', windowMs: 1000, limit: 15 };
        const y = { key: 'y', windowMs: 1000, limit: 100 };
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => s.consume(i % 2 ? [x, y] : [y, x], 10)));
        assert.equal(results.filter((r) => r.allowed).length, 15);
        const after = await s.consume([x, y], 20);
        assert.equal(after.allowed, false);
        assert.deepEqual(
          after.windows.map((w) => w.count),
          [15, 15],
        );
      }));
  });
}
