/**
 * Media types, as a page's answer gives them (`Content-Type`) and as a version keeps them: what
 * `filetype:` reads besides the URL (core/webql.ts `pageMatches`).
 */

/** A media type as kept: `type/subtype`, lower case, each of the characters RFC 6838 allows, 64 at most on either side. */
const MEDIA_TYPE_RE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/;

/**
 * The media type a `Content-Type` value (or a JSONL line's `media_type`) names, lowercased and
 * without its parameters (`Text/HTML; charset=utf-8` is `text/html`), or undefined when it names
 * none in the form above.
 */
export function normalizeMediaType(value: string): string | undefined {
  const type = value.split(';')[0]!.trim().toLowerCase();
  return MEDIA_TYPE_RE.test(type) ? type : undefined;
}

/**
 * The file types a page answers `filetype:` to for the media type it was served as, besides the
 * one its URL names: a PDF at `/pdf/2101.00001` is `filetype:pdf`, a page served as HTML
 * `filetype:html` (or `htm`), an RSS feed `filetype:rss` and `filetype:xml`.
 */
const SERVED_FILE_TYPES: ReadonlyMap<string, readonly string[]> = new Map([
  ['text/html', ['html', 'htm']],
  ['application/xhtml+xml', ['xhtml', 'html', 'htm']],
  ['text/plain', ['txt']],
  ['text/markdown', ['md', 'markdown']],
  ['application/pdf', ['pdf']],
  ['application/json', ['json']],
  ['text/csv', ['csv']],
  ['application/xml', ['xml']],
  ['text/xml', ['xml']],
  ['application/rss+xml', ['rss', 'xml']],
  ['application/atom+xml', ['atom', 'xml']],
  ['application/rdf+xml', ['rdf', 'xml']],
]);

/** The media types of the pages that answer `filetype:` to a type for being served so (`pdf`: `application/pdf`). */
export function mediaTypesOf(ext: string): string[] {
  return [...SERVED_FILE_TYPES].flatMap(([type, exts]) => (exts.includes(ext) ? [type] : []));
}

/** The file types a page served as a media type answers `filetype:` to (none for a type not in the table). */
export function fileTypesServedAs(mediaType: string): readonly string[] {
  return SERVED_FILE_TYPES.get(mediaType) ?? [];
}
