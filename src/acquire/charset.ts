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

function metaCharset(b: Buffer): string | undefined {
  const head = b.subarray(0, 4096).toString('latin1');
  const m =
    /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head) ??
    /<meta[^>]+http-equiv\s*=\s*["']?content-type["']?[^>]*content\s*=\s*["'][^"']*charset=([\w.:-]+)/i.exec(head);
  return m?.[1]?.toLowerCase();
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
  const label = charsetFromContentType(contentType) ?? (isHtml ? metaCharset(body) : undefined);
  const chosen = label ? decoder(label) : undefined;
  if (chosen) return chosen.decode(body);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return new TextDecoder('windows-1252').decode(body);
  }
}
