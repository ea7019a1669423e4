/**
 * Query-biased snippets: the passage of the page that best matches the query, cut at a word
 * boundary. Sentences are scored by how many distinct query stems they hold (rarer coverage wins
 * over repetition); the best one is widened with its neighbours until the length is used.
 */
import { cachedStem, cutAtWord, markdownToText, scanWords, unicodeWords } from '../core/text.js';

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

/**
 * The first two characters of every query stem, as numbers (char << 16 | char). A Porter stem of three or more
 * characters begins with the same two characters as every word that stems to it (its rules only
 * rewrite suffixes after a part with a vowel), so a word whose first two characters are not in the
 * table is not stemmed at all. Undefined when a stem is shorter: then every word is stemmed.
 */
function headsOf(stems: readonly string[]): Set<number> | undefined {
  const heads = new Set<number>();
  for (const s of stems) {
    if (s.length < 3) return undefined;
    heads.add((s.charCodeAt(0) << 16) | s.charCodeAt(1));
  }
  return heads;
}

const lower = (c: number) => (c >= 65 && c <= 90 ? c | 0x20 : c);

/**
 * How well a sentence matches: ten points per distinct query stem it holds, plus one per
 * occurrence up to five. Its words are those of `words()` (ASCII runs cut by hand, others through
 * the Unicode pattern, as `indexTerms` does).
 */
function sentenceScore(text: string, wanted: ReadonlySet<string>, heads: ReadonlySet<number> | undefined): number {
  let seen: Set<string> | undefined;
  let hits = 0;
  const count = (stem: string) => {
    if (!wanted.has(stem)) return;
    hits++;
    (seen ??= new Set()).add(stem);
  };
  scanWords(text, (i, j, ascii) => {
    if (!ascii) {
      for (const w of unicodeWords(text.slice(i, j))) count(cachedStem(w));
    } else if (heads === undefined || (j - i >= 2 && heads.has((lower(text.charCodeAt(i)) << 16) | lower(text.charCodeAt(i + 1))))) {
      count(cachedStem(text.slice(i, j).toLowerCase()));
    }
  });
  return (seen?.size ?? 0) * 10 + Math.min(hits, 5);
}

export function buildSnippet(markdown: string, queryStems: readonly string[], maxLength: number): string {
  const text = markdownToText(markdown.length > SCAN_LIMIT ? markdown.slice(0, SCAN_LIMIT) : markdown);
  if (text.length <= maxLength) return text;
  const parts = sentences(text);
  if (parts.length === 0) return cutAtWord(text, maxLength);

  const wanted = new Set(queryStems);
  const heads = headsOf(queryStems);
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < parts.length; i++) {
    const score = sentenceScore(parts[i]!, wanted, heads);
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
