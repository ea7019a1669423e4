import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rng } from '../../bench/scifact.js';
import { ServiceError } from '../../src/core/errors.js';
import { parseRelative, resolveBound, resolveQueryTime, toIso } from '../../src/core/time.js';

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
