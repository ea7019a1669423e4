/**
 * Date and time filter values (SPEC 2.4). All instants are integer milliseconds since the epoch, UTC.
 */
import { invalidParameter } from './errors.js';

export type Side = 'after' | 'before';

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/;
const RELATIVE_RE = /^([1-9]\d{0,8})(min|h|d|mo|y)$/;

const MINUTE = 60_000;
const UNIT_MS = { min: MINUTE, h: 60 * MINUTE, d: 24 * 60 * MINUTE } as const;

/**
 * `Date.UTC` without its rule that years 0-99 mean 1900-1999 (`0050-01-01` would be 1950):
 * `setUTCFullYear` takes the year as given. Months from 0, as in `Date.UTC`; NaN out of range.
 */
function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo, d);
  return t.setUTCHours(h, mi, s, ms);
}

/** Days in month `m` (1-12) of year `y`. */
const daysInMonth = (y: number, m: number) => new Date(utc(y, m, 0)).getUTCDate();

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= daysInMonth(y, m);
}

/** `YYYY-MM-DD` to the UTC midnight that starts it, or undefined if it is not a real date. */
export function parseDate(value: string): number | undefined {
  const m = DATE_RE.exec(value);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!validDate(y, mo, d)) return undefined;
  return utc(y, mo - 1, d);
}

/** ISO 8601 timestamp (offset optional, UTC assumed; `Z` accepted) to its instant, or undefined. */
export function parseTimestamp(value: string): number | undefined {
  const m = TIMESTAMP_RE.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i])) as [number, number, number, number, number, number];
  if (!validDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return undefined;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  let offsetMin = 0;
  const off = m[8];
  if (off && off !== 'Z') {
    const oh = Number(off.slice(1, 3));
    const om = Number(off.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (off[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return utc(y, mo - 1, d, h, mi, s, ms) - offsetMin * MINUTE;
}

/** Calendar subtraction for `mo` and `y`: the day of month is clamped (31 Mar - 1mo = 28/29 Feb). */
function subtractMonths(instant: number, months: number): number {
  const t = new Date(instant);
  const targetMonth = t.getUTCMonth() - months;
  const y = t.getUTCFullYear() + Math.floor(targetMonth / 12);
  const mo = ((targetMonth % 12) + 12) % 12;
  const day = Math.min(t.getUTCDate(), daysInMonth(y, mo + 1));
  return utc(y, mo, day, t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds(), t.getUTCMilliseconds());
}

/** `<n><unit>` subtracted from `base`, truncated to the minute (SPEC 2.4 rule 3). */
export function parseRelative(value: string, base: number): number | undefined {
  const m = RELATIVE_RE.exec(value);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] as 'min' | 'h' | 'd' | 'mo' | 'y';
  const instant = unit === 'mo' ? subtractMonths(base, n) : unit === 'y' ? subtractMonths(base, 12 * n) : base - n * UNIT_MS[unit];
  if (!Number.isFinite(instant) || Number.isNaN(new Date(instant).getTime())) return undefined;
  return Math.floor(instant / MINUTE) * MINUTE;
}

const DAY_END = 24 * 60 * MINUTE - 1;

/**
 * Resolves one filter bound. A date covers the whole UTC day (start on `_after`, 23:59:59.999 on
 * `_before`); a timestamp is exact; a relative delta counts back from `base` (request time or query_time).
 */
export function resolveBound(param: string, value: string, side: Side, base: number): number {
  const date = parseDate(value);
  if (date !== undefined) return side === 'after' ? date : date + DAY_END;
  const ts = parseTimestamp(value);
  if (ts !== undefined) return ts;
  const rel = parseRelative(value, base);
  if (rel !== undefined) return rel;
  throw invalidParameter(
    param,
    `${param} must be a date (YYYY-MM-DD), a timestamp (YYYY-MM-DDTHH:MM:SS[.sss][±HH:MM]) or a relative delta such as 2h, 7d, 1mo (units min, h, d, mo, y)`,
  );
}

const YEAR_RE = /^(\d{4})$/;
const MONTH_RE = /^(\d{4})-(\d{2})$/;

/**
 * Where the time a query's `after:` or `before:` names starts: a year (`2020`), a month (`2020-05`)
 * or a day (`2020-05-01`) at its first UTC midnight; a timestamp or a relative delta counted back
 * from `base` at its instant. Undefined for anything else.
 */
export function periodStart(value: string, base: number): number | undefined {
  const year = YEAR_RE.exec(value);
  if (year) return utc(Number(year[1]), 0, 1);
  const month = MONTH_RE.exec(value);
  if (month) {
    const m = Number(month[2]);
    return m >= 1 && m <= 12 ? utc(Number(month[1]), m - 1, 1) : undefined;
  }
  return parseDate(value) ?? parseTimestamp(value) ?? parseRelative(value, base);
}

/** `query_time`: a timestamp, or a date meaning 00:00:00 UTC of that day (not its end). */
export function resolveQueryTime(value: string): number {
  const date = parseDate(value);
  if (date !== undefined) return date;
  const ts = parseTimestamp(value);
  if (ts !== undefined) return ts;
  throw invalidParameter('query_time', 'query_time must be a date (YYYY-MM-DD) or a timestamp (YYYY-MM-DDTHH:MM:SS[.sss][±HH:MM])');
}

const YEAR_0 = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const YEAR_10000 = 253_402_300_800_000; // 10000-01-01T00:00:00.000Z

/** Whether an instant is a whole millisecond in years 0000-9999: the times a page may store. */
export const isStorableTime = (ms: number): boolean => Number.isInteger(ms) && ms >= YEAR_0 && ms < YEAR_10000;

/** A clock a little ahead of ours: a day. */
const SLACK_MS = 24 * 60 * 60 * 1000;

/**
 * Whether an import's time of acquisition is more than a day after now: a clock a little ahead is
 * allowed, a date to come is not. A version acquired "in 2030" would stay its URL's latest over
 * every capture until then.
 */
export const acquiredTooLate = (acquiredAt: number, now: number): boolean => acquiredAt > now + SLACK_MS;

/**
 * Whether the publication time a page gives itself is more than a day after the page was acquired:
 * a date to come (an event's, a mistyped year) is no publication time, and a page "published in
 * 2099" would be in every `published_after` window until then.
 */
export const publishedTooLate = (publishedAt: number, acquiredAt: number): boolean => publishedAt > acquiredAt + SLACK_MS;

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `Date.prototype.toISOString` of an instant: in arithmetic for whole milliseconds in years
 * 0000-9999 (a search formats two per result, and the built-in's call into the runtime cost about
 * four times as much), by the built-in otherwise (six-digit years, RangeError for what is not a time).
 */
export function toIso(ms: number): string {
  if (!isStorableTime(ms)) return new Date(ms).toISOString();
  // Days since 1970-01-01 to a civil date (H. Hinnant's days_from_civil, inverted), years from March.
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const y = year < 1000 ? `${year}`.padStart(4, '0') : `${year}`;
  return `${y}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(rest - seconds * 1000)}Z`;
}
