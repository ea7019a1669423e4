/** Sitemaps (sitemaps.org): url sets and sitemap indexes, plain or gzip, read with a size bound. */
import { gunzipSync } from 'node:zlib';
import type { HttpClient } from './http-client.js';

const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML's five named entities and numeric references (`&#38;`, `&#x26;`); anything else is left as written. */
function decodeEntities(s: string): string {
  return s.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|(amp|lt|gt|quot|apos));/gi, (all, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name) return NAMED[name.toLowerCase()] ?? all;
    const code = dec ? Number(dec) : Number.parseInt(hex!, 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

const CDATA = /^<!\[CDATA\[([^\]]*)\]\]>$/;

/**
 * A sitemap's `<loc>`s, written as text or in a CDATA section (`<loc><![CDATA[...]]></loc>`). In
 * one pass over the tags: a single regular expression for a whole `<loc>` took time growing with
 * the square (the cube, in CDATA) of a run of spaces left unclosed, minutes for a few kilobytes.
 */
export function parseSitemap(xml: string): { sitemaps: string[]; urls: string[] } {
  const locs: string[] = [];
  let start = -1;
  for (const tag of xml.matchAll(/<(\/?)loc>/gi)) {
    if (!tag[1]) start = tag.index + tag[0].length;
    else if (start >= 0) {
      const text = xml.slice(start, tag.index).trim();
      const cdata = CDATA.exec(text);
      if (cdata) locs.push(cdata[1]!.trim());
      else if (text && !text.includes('<')) locs.push(decodeEntities(text));
      start = -1;
    }
  }
  return /<sitemapindex[\s>]/i.test(xml) ? { sitemaps: locs, urls: [] } : { sitemaps: [], urls: locs };
}

/** Page URLs listed by these sitemaps (following indexes `maxDepth` levels), at most `limit`. */
export async function readSitemaps(client: HttpClient, roots: string[], limit: number, maxDepth = 2): Promise<string[]> {
  const urls: string[] = [];
  const seen = new Set<string>();
  let level = roots;
  for (let depth = 0; depth <= maxDepth && level.length > 0 && urls.length < limit; depth++) {
    const next: string[] = [];
    for (const sitemap of level) {
      if (seen.has(sitemap) || urls.length >= limit) continue;
      seen.add(sitemap);
      try {
        const res = await client.get(sitemap, { maxBytes: MAX_SITEMAP_BYTES });
        if (res.status !== 200) continue;
        const bytes = res.body[0] === 0x1f && res.body[1] === 0x8b ? gunzipSync(res.body, { maxOutputLength: MAX_SITEMAP_BYTES }) : res.body;
        const parsed = parseSitemap(bytes.toString('utf8'));
        for (const s of parsed.sitemaps) next.push(s);
        for (const u of parsed.urls) if (urls.length < limit) urls.push(u);
      } catch {
        // An unreadable sitemap only means fewer seeds.
      }
    }
    level = next;
  }
  return urls;
}
