import { parseDate, parseTimestamp } from '../core/time.js';

/** A date or ISO timestamp in any of the usual shapes to epoch ms. */
export function parseLooseTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  const exact = parseTimestamp(v) ?? parseDate(v);
  if (exact !== undefined) return exact;
  if (!/^\d{4}-\d{2}-\d{2}/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}
