/**
 * Spelling corrections for the words of a query that no page holds: the indexed terms near in
 * spelling, found two ways. The stems of the word's spellings one edit away (`oneEditAway`): a
 * misspelling can change how the word stems (`tradtiional` stems to `tradtiion`, three edits from
 * `tradit`). And the dictionaries' terms near the word's own stem (`nearestTerms`), compared byte by
 * byte (their UTF-8), so the words corrected are those of ASCII letters, where a byte is a letter.
 */
import { type TermDictionary, termCount } from './segment.js';

/** The fewest letters a stem needs to be corrected at all (one edit from its correction). */
export const ONE_EDIT_FROM = 5;
/** The fewest letters a stem needs to be two edits from its correction. */
export const TWO_EDITS_FROM = 6;

/** How many edits a term of `length` letters may be from its correction: none below ONE_EDIT_FROM. */
export function editsAllowed(length: number): number {
  return length >= TWO_EDITS_FROM ? 2 : length >= ONE_EDIT_FROM ? 1 : 0;
}

/**
 * The optimal string alignment distance (insertions, deletions, substitutions, and transpositions
 * of adjacent letters, each one edit) between `a` and b[from, to), or `max + 1` when it is more
 * than `max`. `rows` holds three rows of at least `a.length + 1` cells, reused between calls.
 */
export function editDistance(a: Uint8Array, b: Uint8Array, from: number, to: number, max: number, rows: [Int32Array, Int32Array, Int32Array]): number {
  const n = a.length;
  const m = to - from;
  if (Math.abs(n - m) > max) return max + 1;
  let [before, prev, cur] = rows;
  for (let i = 0; i <= n; i++) prev[i] = i;
  for (let j = 1; j <= m; j++) {
    const bj = b[from + j - 1]!;
    cur[0] = j;
    let least = j;
    for (let i = 1; i <= n; i++) {
      const ai = a[i - 1]!;
      let d = Math.min(prev[i]! + 1, cur[i - 1]! + 1, prev[i - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b[from + j - 2] && a[i - 2] === bj) d = Math.min(d, before[i - 2]! + 1);
      cur[i] = d;
      if (d < least) least = d;
    }
    if (least > max) return max + 1;
    [before, prev, cur] = [prev, cur, before];
  }
  return Math.min(prev[n]!, max + 1);
}

/** Whether b[from, to) is `squashed` once each run of a letter is one letter (`tarrif` and `tariff` are both `tarif`). */
function sameSquashed(squashed: Uint8Array, b: Uint8Array, from: number, to: number): boolean {
  let k = 0;
  for (let j = from; j < to; j++) {
    if (j > from && b[j] === b[j - 1]) continue;
    if (k >= squashed.length || b[j] !== squashed[k]) return false;
    k++;
  }
  return k === squashed.length;
}

/**
 * The terms of the dictionaries near `term` (ASCII letters) that start with its letter (a word is
 * seldom misspelt at its start, and this reads a twentieth of the terms), with their distance:
 * within `max` edits, or 0 for a term that differs from it only in letters written once or
 * doubled (`tarrif` and `tariff`: two edits, one slip). `term` itself is left out.
 */
export function nearestTerms(dictionaries: readonly TermDictionary[], term: string, max: number): Map<string, number> {
  const a = Buffer.from(term, 'latin1');
  const squashed = Buffer.from(term.replace(/(.)\1+/g, '$1'), 'latin1');
  const width = a.length + 1;
  const rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(width), new Int32Array(width), new Int32Array(width)];
  const found = new Map<string, number>();
  const first = a[0];
  for (const d of dictionaries) {
    const { termBytes: bytes, termStarts: starts } = d;
    for (let t = 0, count = termCount(d); t < count; t++) {
      const at = starts[t]!;
      const end = starts[t + 1]!;
      if (bytes[at] !== first || Math.abs(end - at - a.length) > max) continue;
      let distance = editDistance(a, bytes, at, end, max, rows);
      if (distance === 0) continue;
      if (sameSquashed(squashed, bytes, at, end)) distance = 0;
      else if (distance > max) continue;
      const other = Buffer.from(bytes.buffer, bytes.byteOffset + at, end - at).toString('utf8');
      found.set(other, Math.min(distance, found.get(other) ?? distance));
    }
  }
  return found;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The words one edit from `word` (of ASCII letters): a letter left out, two adjacent swapped, one replaced or put in. */
export function oneEditAway(word: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    const [head, tail] = [word.slice(0, i), word.slice(i)];
    if (tail) out.add(head + tail.slice(1));
    if (tail.length > 1) out.add(head + tail[1] + tail[0] + tail.slice(2));
    for (const c of LETTERS) {
      if (tail) out.add(head + c + tail.slice(1));
      out.add(head + c + tail);
    }
  }
  out.delete(word);
  return out;
}
