/**
 * Bytes to text: the charset from the Content-Type header, else a byte-order mark, else a
 * `<meta charset>` / `http-equiv` in the first 4 KB, else UTF-8 when the bytes are valid UTF-8 and
 * windows-1252 when they are not (what browsers do for unlabelled legacy pages).
 */

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const m = contentType ? /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType) : null;
  return m?.[1]?.toLowerCase();
}

function bomCharset(b: Buffer): string | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** Labels the Encoding Standard maps to UTF-16 (LE or BE). */
const UTF16_LABELS = new Set(['utf-16', 'utf-16le', 'utf-16be', 'unicode', 'unicodefeff', 'unicodefffe', 'csunicode', 'iso-10646-ucs-2', 'ucs-2']);

/** The encoding an XML declaration names (`<?xml version="1.0" encoding="Shift_JIS"?>`: a feed's), at the text's start. */
function xmlCharset(b: Buffer): string | undefined {
  const label = /^\s*<\?xml[^>]{0,200}?\sencoding\s*=\s*["']([\w.:-]+)["']/.exec(b.subarray(0, 512).toString('latin1'))?.[1]?.toLowerCase();
  return label && UTF16_LABELS.has(label) ? 'utf-8' : label;
}

/**
 * A `<meta>`'s charset, as the HTML standard's prescan takes it: a meta that names UTF-16 was read
 * as ASCII, so the page is not UTF-16 (UTF-8 is meant), and x-user-defined means windows-1252.
 */
function metaCharset(b: Buffer): string | undefined {
  const head = b.subarray(0, 4096).toString('latin1');
  const m =
    /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head) ??
    /<meta[^>]+http-equiv\s*=\s*["']?content-type["']?[^>]*content\s*=\s*["'][^"']*charset=([\w.:-]+)/i.exec(head);
  const label = m?.[1]?.toLowerCase();
  if (label && UTF16_LABELS.has(label)) return 'utf-8';
  return label === 'x-user-defined' ? 'windows-1252' : label;
}

/** WHATWG windows-1252 for 0x80-0x9F (the rest is Latin-1). Node's TextDecoder decodes this label as Latin-1. */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d, 0x017d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x9d, 0x017e, 0x0178,
];
/** Labels the Encoding Standard maps to windows-1252. */
const CP1252_LABELS = new Set(['windows-1252', 'cp1252', 'x-cp1252', 'latin1', 'iso-8859-1', 'iso8859-1', 'iso_8859-1', 'l1', 'ascii', 'us-ascii', 'cp819', 'ibm819', 'iso-ir-100']);

function decodeCp1252(body: Buffer): string {
  let out = '';
  for (let i = 0; i < body.length; i += 8192) {
    const chunk = body.subarray(i, i + 8192);
    out += String.fromCharCode(...Array.from(chunk, (b) => (b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80]! : b)));
  }
  return out;
}

function decoder(label: string): InstanceType<typeof TextDecoder> | undefined {
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

export function decodeText(body: Buffer, contentType: string | undefined, isHtml: boolean): string {
  const bom = bomCharset(body);
  if (bom) return new TextDecoder(bom).decode(body); // the decoder drops the BOM
  const label = charsetFromContentType(contentType) ?? (isHtml ? metaCharset(body) : xmlCharset(body));
  if (label && CP1252_LABELS.has(label)) return decodeCp1252(body);
  const chosen = label ? decoder(label) : undefined;
  if (chosen) return chosen.decode(body);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return decodeCp1252(body);
  }
}
