import { isStorableTime, parseDate, parseTimestamp } from '../core/time.js';

/** A date or ISO timestamp in any of the usual shapes to epoch ms, if it falls in years 0000-9999. */
export function parseLooseTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  let t = parseTimestamp(v) ?? parseDate(v);
  // Other forms (`2024-05-01 10:00`) as Date.parse reads them, once their day is one of the calendar's: it rolls 2024-02-30 over to March 1.
  if (t === undefined && /^\d{4}-\d{2}-\d{2}/.test(v) && parseDate(v.slice(0, 10)) !== undefined) t = Date.parse(v);
  return t !== undefined && isStorableTime(t) ? t : undefined;
}
