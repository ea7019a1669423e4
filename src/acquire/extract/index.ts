/** HTML -> main content as markdown, with metadata and outgoing links (RawPage -> ExtractedPage). */
import { normalizeUrl } from '../../core/url.js';
import { attr, findAll, findFirst, parseHtml, remove, textOf } from './dom.js';
import { findMainContent, prune } from './main-content.js';
import { toMarkdown } from './markdown.js';
import { extractMetadata, type PageMetadata } from './metadata.js';

export interface ExtractedPage extends PageMetadata {
  content: string;
  /** Absolute, normalised http(s) links of the whole page (for the crawler), nofollow ones left out. */
  links: string[];
}

export function extractHtml(html: string, pageUrl: string): ExtractedPage {
  const doc = parseHtml(html);
  const meta = extractMetadata(doc, pageUrl);
  const base = (() => {
    const el = findFirst(doc, (e) => e.name === 'base' && attr(e, 'href') !== undefined);
    try {
      return el ? new URL(attr(el, 'href')!, pageUrl).toString() : pageUrl;
    } catch {
      return pageUrl;
    }
  })();
  const links: string[] = [];
  if (!meta.nofollow) {
    const seen = new Set<string>();
    for (const a of findAll(doc, (e) => e.name === 'a' && attr(e, 'href') !== undefined)) {
      if (/\bnofollow\b/i.test(attr(a, 'rel') ?? '')) continue;
      let abs: string | undefined;
      try {
        abs = normalizeUrl(new URL(attr(a, 'href')!, base).toString());
      } catch {
        abs = undefined;
      }
      if (abs && !seen.has(abs)) {
        seen.add(abs);
        links.push(abs);
      }
    }
  }

  prune(doc);
  const { nodes } = findMainContent(doc);
  // The headline is metadata; a first heading that repeats the title is not content.
  const first = nodes[0] && findFirst(nodes[0], (e) => /^h[12]$/.test(e.name));
  if (first && meta.title && textOf(first).replace(/\s+/g, ' ').trim().toLowerCase() === meta.title.toLowerCase()) remove(first);
  return { ...meta, content: toMarkdown(nodes, base), links };
}
