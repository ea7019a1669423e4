/**
 * A page's language: the one it declares (`<html lang>`, Content-Language, an import's `lang`),
 * else a guess: from the script most of its words are written in for Japanese, Chinese, Korean
 * and Thai, else from its most common function words for a few European languages written in
 * Latin script. It answers nothing when unsure; a wrong tag is worse than none, since `lang:` in
 * webql filters on it.
 */
import { scanWords, unicodeWords, words } from './text.js';

/** A lowercase language tag: primary subtag, then subtags (`en`, `pt-br`, `zh-hant-tw`). */
export const LANG_TAG_RE = /^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/;

/** `en_US`, ` EN-us ` -> `en-us`; anything that is not a language tag -> undefined. */
export function normalizeLangTag(tag: string | undefined): string | undefined {
  if (tag === undefined) return undefined;
  const t = tag.split(',')[0]!.trim().toLowerCase().replaceAll('_', '-');
  return LANG_TAG_RE.test(t) && t !== 'und' ? t : undefined;
}

/** Function words that are frequent in each language and rare in the others (no word is in two lists once folded). */
const PROFILES: [string, ReadonlySet<string>][] = Object.entries({
  en: 'the and of to is that was for with are this have from which were been has their would there what',
  de: 'der die und das ist nicht mit sich auf dem den ein eine auch wird sind werden noch nach bei',
  fr: 'le les des est une dans pour qui sur pas par avec sont mais nous cette ont aux leur',
  es: 'el los las del con sus esta fue muy cuando tiene pero ella hay sobre todo fueron estos',
  it: 'il della che sono non gli delle nel anche alla questo dei essere stato sulla degli',
  nl: 'het een van niet zijn voor wordt ook maar bij aan deze naar worden dat werd hebben',
  pt: 'os não uma com foi pelo pela são seu sua também ele ao muito já seus nos',
  sv: 'och att det som inte har till av ett om var kan sig från eller också efter',
}).map(([lang, list]) => [lang, new Set(list.split(' ').flatMap((w) => words(w)))]);

/** Each function word's language, as its place in PROFILES: a word of the sample is looked up once, not once per language. */
const FUNCTION_WORDS = new Map(PROFILES.flatMap(([, set], k) => [...set].map((w) => [w, k] as const)));
if (FUNCTION_WORDS.size !== PROFILES.reduce((n, [, set]) => n + set.size, 0)) throw new Error('a function word is in two languages');

type Script = 'kana' | 'han' | 'hangul' | 'thai' | 'other';

const SCRIPTS: readonly [Script, RegExp][] = [
  ['kana', /^[\p{sc=Hiragana}\p{sc=Katakana}\u30fc]/u],
  ['han', /^\p{sc=Han}/u],
  ['hangul', /^\p{sc=Hangul}/u],
  ['thai', /^\p{sc=Thai}/u],
];

/**
 * The script of a word by its first character. A word of these scripts is one character or a
 * pair of them (text.ts `pushWords`; a pair may cross from one script to the next), told apart by
 * its length.
 */
function scriptOf(word: string): Script {
  return word.charCodeAt(0) < 0x0e00 ? 'other' : (SCRIPTS.find(([, re]) => re.test(word))?.[0] ?? 'other');
}

/** Chinese function characters (simplified and traditional) that Japanese writes in kana instead. */
const CHINESE_FUNCTION = new Set('的是了这這们們个個说說也就吗嗎没沒很他她它'.split(''));

/**
 * The language two thirds of the words' script names (a Han, kana or Hangul character counts as a
 * word; its pairs are not counted): Japanese when they are Han and kana and a tenth of them kana
 * (Japanese prose writes its particles in kana, Chinese has none), Chinese when they are Han,
 * kana almost none and Chinese function characters at least one in fifty (kanji alone, as in a
 * Japanese headline, is no tag), Korean or Thai when they are in its script.
 */
function scriptLanguage(sample: readonly string[]): string | undefined {
  const counts: Record<Script, number> = { kana: 0, han: 0, hangul: 0, thai: 0, other: 0 };
  let counted = 0;
  let chinese = 0;
  for (const w of sample) {
    const script = scriptOf(w);
    const paired = script === 'kana' || script === 'han' || script === 'hangul';
    if (paired && w.length > (w.codePointAt(0)! > 0xffff ? 2 : 1)) continue; // a pair
    counts[script]++;
    counted++;
    if (script === 'han' && CHINESE_FUNCTION.has(w)) chinese++;
  }
  const most = (counted * 2) / 3;
  const cjk = counts.kana + counts.han;
  if (cjk > most && counts.kana >= cjk * 0.1) return 'ja';
  if (counts.han > most && counts.kana <= counts.han * 0.01 && chinese >= 2 && chinese >= counts.han * 0.02) return 'zh';
  if (counts.hangul > most) return 'ko';
  if (counts.thai > most) return 'th';
  return undefined;
}

/** What `detectLanguage` reads: the first 2,000 words of a text's first 20,000 characters. */
const SAMPLE_CHARS = 20_000;
const SAMPLE_WORDS = 2_000;
/** `sampleWords` reads its part in stretches of about this many characters. */
const SAMPLE_STRETCH = 2_000;

/**
 * `words(text.slice(0, SAMPLE_CHARS)).slice(0, SAMPLE_WORDS)`, found by `scanWords` (an ASCII
 * word lowercased, others as `words()` reads them; the same words, a test holds it to that), as
 * `indexTerms` finds its words: two to three times faster than `words()` on pages of 20 kB (which
 * took 3-4 ms a page, a third of an import's time there, before `words()` folded Latin words a
 * character at a time); no word is made past the sample's last, and the part is read only until
 * the sample is full (about two thirds of a page of 20 kB of English).
 */
export function sampleWords(text: string): string[] {
  const part = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  const out: string[] = [];
  const visit = (i: number, j: number, ascii: boolean) => {
    if (out.length >= SAMPLE_WORDS) return;
    if (ascii) out.push(part.slice(i, j).toLowerCase());
    else for (const w of unicodeWords(part, i, j)) out.push(w);
  };
  // Read in stretches of about SAMPLE_STRETCH characters, each ending at a space (where no word
  // goes on), until the sample is full: the rest of the part is not read.
  for (let from = 0; from < part.length && out.length < SAMPLE_WORDS; ) {
    const space = from + SAMPLE_STRETCH < part.length ? part.indexOf(' ', from + SAMPLE_STRETCH) : -1;
    const to = space < 0 ? part.length : space;
    scanWords(part, visit, from, to);
    from = to;
  }
  return out.length > SAMPLE_WORDS ? out.slice(0, SAMPLE_WORDS) : out;
}

/** The language of `text` when its script or its function words say so clearly; at most the first 2,000 words are read (`sampleWords`). */
export function detectLanguage(text: string): string | undefined {
  const sample = sampleWords(text);
  if (sample.length < 8) return undefined;
  const byScript = scriptLanguage(sample);
  if (byScript) return byScript;
  const hits = PROFILES.map(() => 0);
  for (const w of sample) {
    const k = FUNCTION_WORDS.get(w);
    if (k !== undefined) hits[k]!++;
  }
  const scores = PROFILES.map(([lang], k) => ({ lang, hits: hits[k]! }));
  scores.sort((a, b) => b.hits - a.hits);
  const [best, second] = scores as [{ lang: string; hits: number }, { lang: string; hits: number }];
  // Clear winner: a tenth of the words are its function words, and well ahead of the runner-up.
  if (best.hits < sample.length * 0.1 || best.hits < second.hits * 2) return undefined;
  return best.lang;
}

/** The declared language if any, else the guess. */
export function pageLanguage(declared: string | undefined, text: string): string | undefined {
  return normalizeLangTag(declared) ?? detectLanguage(text);
}
