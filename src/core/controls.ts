/**
 * Text as the service stores it: without control characters (nor soft hyphens and zero-width spaces), which no page shows, which a
 * terminal printing a search result would obey (an escape sequence), and one of which (NUL)
 * PostgreSQL's text cannot hold. Used for what pages hold and for what callers name (an
 * application title).
 */

/**
 * A control character (C0 but tab, line feed and carriage return; DEL; C1), a soft hyphen (shown
 * only where a line breaks; German pages write Bundes&shy;regierung, and it split the word in two
 * for search), a zero-width space, word joiner or byte-order mark (none is shown: a break allowed
 * or forbidden inside what reads as one word, `long_\u200bidentifier`), a noncharacter U+FDD0-U+FDEF
 * (Unicode keeps them for a program's own use, as core/escapes.ts `holdEscapes` uses them), or a lone surrogate. The
 * zero-width joiner and non-joiner stay: an emoji's sequence and a Persian word's shaping need them.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u200b\u2060\ufdd0-\ufdef\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNPRINTABLES = new RegExp(UNPRINTABLE.source, 'g');

/**
 * The text without control characters: a vertical tab or form feed is a space, and a lone surrogate
 * (a JSON string or a PDF can hold one) the replacement character.
 */
export function withoutControls(text: string): string {
  if (!UNPRINTABLE.test(text)) return text;
  return text.replace(UNPRINTABLES, (c) => (c === '\v' || c === '\f' ? ' ' : c.length === 1 && c >= '\ud800' && c <= '\udfff' ? '\ufffd' : ''));
}
