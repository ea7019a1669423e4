/** What bench:webql and bench:webql-tiers make their queries of: a SciFact claim's words, pair and compound. */
import { scanWords, STOP_WORDS, words } from '../src/core/text.js';

/** The claim's words that stand for themselves: letters only, three or more, no stop word. */
export const contentWords = (claim: string) => words(claim).filter((w) => /^\p{L}{3,}$/u.test(w) && !STOP_WORDS.has(w));

/** The claim's first two adjacent content words, quoted. */
export function firstPair(claim: string): string | undefined {
  const all = words(claim);
  for (let i = 0; i + 1 < all.length; i++) {
    const [x, y] = [all[i]!, all[i + 1]!];
    if ([x, y].every((w) => /^\p{L}{3,}$/u.test(w) && !STOP_WORDS.has(w))) return `"${x} ${y}"`;
  }
  return undefined;
}

/** The claim's first hyphenated compound (`T-cell`, as the analysis finds them), which a bare word reads both ways: `"t cell" OR tcell`. */
export function firstCompound(claim: string): string | undefined {
  let first: string | undefined;
  scanWords(claim, () => {}, 0, claim.length, (i, j) => (first ??= claim.slice(i, j)));
  return first;
}
