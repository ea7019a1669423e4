import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { picker, rng } from '../../bench/scifact.js';
import { ServiceError } from '../../src/core/errors.js';
import { parseLooseTime } from '../../src/acquire/html-time.js';
import { parseDate, parseRelative, parseTimestamp, resolveBound, resolveQueryTime, toIso } from '../../src/core/time.js';

const ms = (iso: string) => Date.parse(iso);
const NOW = ms('2026-11-22T14:23:45.678Z');

describe('date form', () => {
  test('_after resolves to the start of the UTC day, _before to 23:59:59.999', () => {
    assert.equal(resolveBound('p', '2026-03-04', 'after', NOW), ms('2026-03-04T00:00:00.000Z'));
    assert.equal(resolveBound('p', '2026-03-04', 'before', NOW), ms('2026-03-04T23:59:59.999Z'));
  });
  test('leap day is a date; 30 February is not', () => {
    assert.equal(resolveBound('p', '2024-02-29', 'after', NOW), ms('2024-02-29T00:00:00Z'));
    assert.throws(() => resolveBound('p', '2023-02-29', 'after', NOW), ServiceError);
    assert.throws(() => resolveBound('p', '2026-02-30', 'after', NOW), ServiceError);
    assert.throws(() => resolveBound('p', '2026-13-01', 'after', NOW), ServiceError);
  });
});

describe('timestamp form', () => {
  test('without offset is UTC', () => {
    assert.equal(resolveBound('p', '2026-03-04T05:06:07', 'after', NOW), ms('2026-03-04T05:06:07Z'));
  });
  test('offsets convert to UTC; Z is accepted', () => {
    assert.equal(resolveBound('p', '2026-03-04T05:06:07+02:00', 'after', NOW), ms('2026-03-04T03:06:07Z'));
    assert.equal(resolveBound('p', '2026-03-04T05:06:07-05:30', 'before', NOW), ms('2026-03-04T10:36:07Z'));
    assert.equal(resolveBound('p', '2026-03-04T05:06:07Z', 'after', NOW), ms('2026-03-04T05:06:07Z'));
  });
  test('fractional seconds are kept to the millisecond', () => {
    assert.equal(resolveBound('p', '2026-03-04T05:06:07.5', 'after', NOW), ms('2026-03-04T05:06:07.500Z'));
    assert.equal(resolveBound('p', '2026-03-04T05:06:07.123456', 'after', NOW), ms('2026-03-04T05:06:07.123Z'));
  });
  test('a timestamp is exact on a _before field (rule 4: midnight drops the rest of the day)', () => {
    assert.equal(resolveBound('p', '2026-03-04T00:00:00', 'before', NOW), ms('2026-03-04T00:00:00Z'));
  });
  test('malformed timestamps are refused', () => {
    for (const bad of ['2026-03-04T24:00:00', '2026-03-04T05:60:00', '2026-03-04 05:06:07', '2026-03-04T05:06', '2026-03-04T05:06:07+2:00', '2026-03-04T05:06:07+24:00']) {
      assert.throws(() => resolveBound('published_after', bad, 'after', NOW), (e: ServiceError) => e.param === 'published_after', bad);
    }
  });
});

describe('relative form', () => {
  test('rule 3: 2h at 14:23:45 resolves to 12:23:00', () => {
    assert.equal(resolveBound('p', '2h', 'after', ms('2026-11-22T14:23:45Z')), ms('2026-11-22T12:23:00Z'));
  });
  test('each unit', () => {
    assert.equal(parseRelative('30min', NOW), ms('2026-11-22T13:53:00Z'));
    assert.equal(parseRelative('1d', NOW), ms('2026-11-21T14:23:00Z'));
    assert.equal(parseRelative('2mo', NOW), ms('2026-09-22T14:23:00Z'));
    assert.equal(parseRelative('1y', NOW), ms('2025-11-22T14:23:00Z'));
  });
  test('months are calendar months, the day clamped to the month', () => {
    assert.equal(parseRelative('1mo', ms('2026-03-31T10:00:00Z')), ms('2026-02-28T10:00:00Z'));
    assert.equal(parseRelative('1y', ms('2024-02-29T10:00:00Z')), ms('2023-02-28T10:00:00Z'));
    assert.equal(parseRelative('13mo', ms('2026-01-15T00:00:00Z')), ms('2024-12-15T00:00:00Z'));
  });
  test('the base may be query_time instead of the request time', () => {
    assert.equal(resolveBound('p', '1d', 'after', ms('2025-06-10T08:30:59Z')), ms('2025-06-09T08:30:00Z'));
  });
  test('zero, negative, spaced, fractional and unknown units are refused', () => {
    for (const bad of ['0h', '-2h', '2 h', '1.5h', '2w', 'h', '2H', '2hours']) {
      assert.throws(() => resolveBound('p', bad, 'after', NOW), ServiceError, bad);
    }
  });
});

describe('query_time', () => {
  test('a date resolves to 00:00:00 UTC, not the end of the day', () => {
    assert.equal(resolveQueryTime('2026-05-01'), ms('2026-05-01T00:00:00Z'));
  });
  test('a timestamp is exact; a relative value is refused', () => {
    assert.equal(resolveQueryTime('2026-05-01T12:00:00+01:00'), ms('2026-05-01T11:00:00Z'));
    assert.throws(() => resolveQueryTime('2h'), (e: ServiceError) => e.param === 'query_time');
  });
});

describe('toIso', () => {
  test('equals Date.prototype.toISOString everywhere, edges included', () => {
    const instants = [0, -1, 1, 951_782_400_000 /* 2000-02-29 */, 4_107_542_400_000 /* 2100-03-01 */, -62_167_219_200_000, -62_167_219_200_001];
    instants.push(253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15, 1.5, -0.5);
    // A seeded spread over years 0000-9999 and beyond, whole and fractional milliseconds.
    const random = rng(11);
    for (let i = 0; i < 20_000; i++) instants.push(Math.floor((random() - 0.5) * 6e14));
    for (let i = 0; i < 1_000; i++) instants.push((random() - 0.5) * 1e12);
    for (const ms of instants) assert.equal(toIso(ms), new Date(ms).toISOString(), String(ms));
  });

  test('what is not a time throws as the built-in does', () => {
    for (const ms of [Number.NaN, Infinity, 8.64e15 + 1]) assert.throws(() => toIso(ms), RangeError);
  });
});

/**
 * Made-up values in every form over years 0000-9999, against a calendar of the test's own (the
 * Gregorian leap rule, month lengths, and toIso, itself checked against the built-in above).
 */
describe('the three forms over made-up values', () => {
  const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const monthDays = (y: number, m: number) => [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  const day = (y: number, m: number, d: number) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
  const random = rng(29);
  const pick = picker(random);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));

  test('a date is a real day of its year, from its first to its last millisecond', () => {
    for (let i = 0; i < 20_000; i++) {
      const [y, m, d] = [pick([int(0, 99), int(100, 1999), int(0, 9999), pick([0, 100, 400, 1900, 2000, 2100])]), int(1, 12), pick([int(1, 31), 28, 29, 30, 31])];
      const value = day(y, m, d);
      if (d > monthDays(y, m)) {
        assert.equal(parseDate(value), undefined, value);
        assert.throws(() => resolveBound('published_after', value, 'after', NOW), ServiceError, value);
        continue;
      }
      assert.equal(toIso(resolveBound('p', value, 'after', NOW)), `${value}T00:00:00.000Z`);
      assert.equal(toIso(resolveBound('p', value, 'before', NOW)), `${value}T23:59:59.999Z`);
      assert.equal(toIso(resolveQueryTime(value)), `${value}T00:00:00.000Z`);
    }
  });

  test('a timestamp with any offset and fraction names its instant, to the millisecond', () => {
    const Y0 = -62_167_219_200_000; // 0000-01-01
    const Y10000 = 253_402_300_800_000;
    for (let i = 0; i < 20_000; i++) {
      const instant = Y0 + 86_400_000 + Math.floor(random() * (Y10000 - Y0 - 2 * 86_400_000));
      const offset = pick([0, int(-23 * 60 - 59, 23 * 60 + 59), 330, -570]); // minutes east of UTC
      const local = toIso(instant + offset * 60_000).slice(0, 19);
      const digits = int(0, 9);
      const fraction = digits === 0 ? '' : `.${(pad(((instant % 1000) + 1000) % 1000, 3) + pad(int(0, 999_999), 6)).slice(0, digits)}`;
      const zone = offset === 0 ? pick(['', 'Z', '+00:00', '-00:00']) : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60), 2)}:${pad(Math.abs(offset) % 60, 2)}`;
      const value = `${local}${fraction}${zone}`;
      const kept = digits === 0 ? 0 : Number(fraction.slice(1, 4).padEnd(3, '0'));
      const expected = instant - (((instant % 1000) + 1000) % 1000) + kept;
      assert.equal(parseTimestamp(value), expected, value);
      assert.equal(resolveBound('p', value, pick(['after', 'before']), NOW), expected, value);
      assert.equal(resolveQueryTime(value), expected, value);
    }
  });

  test('a relative delta counts back from its base in calendar months, clamped, truncated to the minute', () => {
    for (let i = 0; i < 20_000; i++) {
      const base = -62_167_219_200_000 + Math.floor(random() * 315_537_897_600_000); // years 0000-9999
      const unit = pick(['min', 'h', 'd', 'mo', 'y'] as const);
      const n = pick([int(1, 59), int(1, 1000), int(1, 120_000)]);
      const value = `${n}${unit}`;
      const iso = toIso(base);
      let expected: number | string;
      if (unit === 'mo' || unit === 'y') {
        const months = Number(iso.slice(0, 4)) * 12 + Number(iso.slice(5, 7)) - 1 - (unit === 'y' ? 12 * n : n);
        const [y, m] = [Math.floor(months / 12), (months % 12 + 12) % 12 + 1];
        if (y < 0) continue; // before year 0000, outside the test's calendar
        expected = `${day(y, m, Math.min(Number(iso.slice(8, 10)), monthDays(y, m)))}T${iso.slice(11, 16)}:00.000Z`;
        assert.equal(toIso(resolveBound('p', value, 'after', base)), expected, `${value} before ${iso}`);
      } else {
        expected = Math.floor((base - n * { min: 60_000, h: 3_600_000, d: 86_400_000 }[unit]) / 60_000) * 60_000;
        assert.equal(resolveBound('p', value, 'before', base), expected, `${value} before ${iso}`);
      }
    }
  });
});

describe("a page's own times (html-time.ts)", () => {
  test('the usual shapes are read; a day the calendar lacks is none, not the next month', () => {
    assert.equal(parseLooseTime('2024-05-01'), Date.UTC(2024, 4, 1));
    assert.equal(parseLooseTime('2024-05-01T10:00:00+02:00'), Date.UTC(2024, 4, 1, 8));
    assert.equal(parseLooseTime('2024-02-29 10:00Z'), Date.UTC(2024, 1, 29, 10));
    for (const v of ['2024-02-30', '2024-02-30 10:00', '2023-02-29T10:00:00Z', '2024-04-31 08:00', '2024-13-01', 'yesterday', '']) {
      assert.equal(parseLooseTime(v), undefined, v);
    }
  });

  test("a date in words is read with its time and zone (RFC 2822's, Date.toString's, a page's); without a zone it is UTC; a zone of no one meaning is none", () => {
    const cases: [string, number | undefined][] = [
      ['19 Nov 2019 07:09 GMT', Date.UTC(2019, 10, 19, 7, 9)],
      ['Mon, 18 Nov 2019 16:07:38 -0600', Date.UTC(2019, 10, 18, 22, 7, 38)],
      ['Tue Nov 19 2019 05:44:06 GMT+0000 (Coordinated Universal Time)', Date.UTC(2019, 10, 19, 5, 44, 6)],
      ['November 20, 2019 12:32', Date.UTC(2019, 10, 20, 12, 32)],
      ['Nov. 18, 2019, 4:06 p.m.', Date.UTC(2019, 10, 18, 16, 6)],
      ['Nov 19, 2019 at 9:24 pm EST', Date.UTC(2019, 10, 20, 2, 24)],
      ['Monday, 5 May 2025', Date.UTC(2025, 4, 5)],
      ['June 1st, 2021', Date.UTC(2021, 5, 1)],
      ['12 December 2019 12:00 am', Date.UTC(2019, 11, 12, 0)],
      // None: a day the calendar lacks, an hour past 12 with am/pm, a zone of several meanings, no month.
      ['Feb 30, 2020', undefined],
      ['May 5, 2020 13:00 pm', undefined],
      ['20 Nov 2019 10:00 IST', undefined],
      ['Ju 5, 2020', undefined],
      ['Smarch 5, 2020', undefined],
    ];
    for (const [v, t] of cases) assert.equal(parseLooseTime(v), t, v);
  });
});
