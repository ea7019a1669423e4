import { isStorableTime, parseDate, parseTimestamp } from '../core/time.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
/** The zones RFC 2822 names (and `UTC`, `Z`): a zone named otherwise (`IST` is India's or Ireland's) is no time. */
const ZONES: Record<string, number> = { gmt: 0, ut: 0, utc: 0, z: 0, est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420 };
/**
 * A date written in words, and its time: `19 Nov 2019 07:09 GMT` (RFC 2822's, a weekday before it
 * or not), `Tue Nov 19 2019 05:44:06 GMT+0000 (Coordinated Universal Time)` (JavaScript's
 * `Date.toString`), `November 20, 2019 12:32`, `Nov. 18, 2019, 4:06 p.m.`.
 */
const TEXTUAL_TIME =
  /^(?:[a-z]{3,9}\.?,?\s+)?(?:(\d{1,2})\s+([a-z]{3,9})\.?|([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?)\s+(\d{4})(?:,?\s+(?:at\s+)?(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]\.?m\.?)?)?(?:\s*([a-z]{1,4}))?(?:\s*([+-])(\d{2}):?(\d{2}))?(?:\s*\([^()]*\))?$/i;

/** A time that ends with its zone: `Z`, an offset, one of `ZONES` (a comment after it, as `Date.toString` writes one). */
const ZONE_AT_END = new RegExp(`(?:z|[+-]\\d\\d:?\\d\\d|\\b(?:${Object.keys(ZONES).join('|')}))\\s*(?:\\([^()]*\\))?$`, 'i');

/** Whether a time of day says its zone: without one it is read as UTC, hours off in most of the world; a date alone tells no hour. */
export const saysZone = (value: string) => ZONE_AT_END.test(value.trim()) && /\d:\d\d/.test(value);

/** A month's name as a pattern: its first three letters, or more of it, and a dot. */
export const MONTH_PATTERN = `(?:${MONTHS.map((m) => m.slice(0, 3)).join('|')})[a-z]*\\.?`;

/** A month's number (1-12) from its name or its first three letters or more, or 0. */
function monthOf(name: string): number {
  const n = name.toLowerCase();
  return n.length < 3 ? 0 : MONTHS.findIndex((m) => m.startsWith(n)) + 1;
}

/** `TEXTUAL_TIME` to its instant; without a zone, UTC, as for a timestamp. */
function parseTextualTime(v: string): number | undefined {
  const m = TEXTUAL_TIME.exec(v);
  if (!m) return undefined;
  const month = monthOf(m[2] ?? m[3]!);
  const day = Number(m[1] ?? m[4]);
  const date = parseDate(`${m[5]}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`);
  if (month === 0 || date === undefined) return undefined;
  let hours = m[6] === undefined ? 0 : Number(m[6]);
  const minutes = m[7] === undefined ? 0 : Number(m[7]);
  const seconds = m[8] === undefined ? 0 : Number(m[8]);
  if (m[9]) {
    if (hours < 1 || hours > 12) return undefined;
    hours = (hours % 12) + (m[9][0]!.toLowerCase() === 'p' ? 12 : 0);
  }
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  let offset = 0;
  if (m[10] !== undefined) {
    const zone = ZONES[m[10].toLowerCase()];
    if (zone === undefined) return undefined;
    offset = zone;
  }
  if (m[11] !== undefined) {
    const oh = Number(m[12]);
    const om = Number(m[13]);
    if (oh > 23 || om > 59) return undefined;
    offset += (m[11] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return date + ((hours * 60 + minutes - offset) * 60 + seconds) * 1000;
}

/** A date or timestamp in any of the usual shapes (ISO, or a date in words: `parseTextualTime`) to epoch ms, if it falls in years 0000-9999. */
export function parseLooseTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  let t = parseTimestamp(v) ?? parseDate(v);
  // Other forms (`2024-05-01 10:00`) as Date.parse reads them, once their day is one of the calendar's: it rolls 2024-02-30 over to March 1.
  if (t === undefined && /^\d{4}-\d{2}-\d{2}/.test(v) && parseDate(v.slice(0, 10)) !== undefined) t = Date.parse(v);
  if (t === undefined && v.length <= 80) t = parseTextualTime(v);
  return t !== undefined && isStorableTime(t) ? t : undefined;
}
