/**
 * Query-biased snippets: the passage of the page that best matches the query, cut at a word
 * boundary. Sentences are scored by how many distinct query stems they hold (rarer coverage wins
 * over repetition); the best one is widened with its neighbours until the length is used.
 */
import { cachedStem, cutAtWord, markdownToText, words } from '../core/text.js';

/** Pages can be large; a snippet is looked for in the first part only. */
const SCAN_LIMIT = 200_000;
const SENTENCE_RE = /[^.!?\n]+(?:[.!?]+(?=\s|$)|$)/g;

function sentences(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SENTENCE_RE)) {
    const s = m[0].trim();
    if (s) out.push(s);
  }
  return out;
}

export function buildSnippet(markdown: string, queryStems: readonly string[], maxLength: number): string {
  const text = markdownToText(markdown.length > SCAN_LIMIT ? markdown.slice(0, SCAN_LIMIT) : markdown);
  if (text.length <= maxLength) return text;
  const parts = sentences(text);
  if (parts.length === 0) return cutAtWord(text, maxLength);

  const wanted = new Set(queryStems);
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < parts.length; i++) {
    const seen = new Set<string>();
    let hits = 0;
    for (const w of words(parts[i]!)) {
      const s = cachedStem(w);
      if (wanted.has(s)) {
        hits++;
        seen.add(s);
      }
    }
    const score = seen.size * 10 + Math.min(hits, 5);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }

  // Widen around the best sentence: forward first (reads naturally), then backward.
  let from = best;
  let to = best;
  let length = parts[best]!.length;
  while (to + 1 < parts.length && length + 1 + parts[to + 1]!.length <= maxLength) {
    to++;
    length += 1 + parts[to]!.length;
  }
  while (from > 0 && length + 1 + parts[from - 1]!.length <= maxLength) {
    from--;
    length += 1 + parts[from]!.length;
  }
  return cutAtWord(parts.slice(from, to + 1).join(' '), maxLength);
}

/** A short summary when the page has no description: its opening text. */
export function fallbackDescription(markdown: string, maxLength = 300): string {
  // A leading heading usually repeats the title; the description starts after it.
  const body = markdown.slice(0, maxLength * 8).replace(/^\s*#{1,6}[^\n]*\n+/, '');
  return cutAtWord(markdownToText(body), maxLength);
}
