/** HTML -> main content as markdown, with metadata and outgoing links (RawPage -> ExtractedPage). */
import { withoutControls } from '../../core/controls.js';
import { LIMITS } from '../../core/requests.js';
import { normalizeUrl } from '../../core/url.js';
import type { Element } from 'domhandler';
import { attr, children, findFirst, isElement, parseHtml, remove, textOf, walk } from './dom.js';
import { findMainContent, prune, withoutShortcodes } from './main-content.js';
import { escapeLine } from '../../core/escapes.js';
import { LinkGrowth, toMarkdown } from './markdown.js';
import { extractMetadata, type PageMetadata } from './metadata.js';

export interface ExtractedPage extends PageMetadata {
  content: string;
  /** Absolute, normalised http(s) links of the whole page (for the crawler), nofollow ones left out. */
  links: string[];
}

/** The shortest JSON-LD `articleBody` taken for an article: a summary or a teaser is shorter. */
const ARTICLE_BODY_MIN = 500;

/** A JSON-LD `articleBody` as markdown: its HTML read as a page's is, or its text's lines as paragraphs. */
function bodyMarkdown(body: string, base: string): string {
  if (/<[a-z][^>]*>/i.test(body)) return toMarkdown(children(parseHtml(body)), base);
  return body
    .split(/\n/)
    .map((line) => escapeLine(line.replace(/\s+/g, ' ').trim()))
    .filter(Boolean)
    .join('\n\n');
}

export function extractHtml(html: string, pageUrl: string): ExtractedPage {
  const doc = parseHtml(html);
  const { articleBody, ...meta } = extractMetadata(doc, pageUrl);
  // One walk for the base and the links (each a walk of its own took long on a page of a million elements).
  let baseEl: Element | undefined;
  const anchors: Element[] = [];
  walk(doc, (n) => {
    if (!isElement(n)) return;
    if (n.name === 'a' && n.attribs.href !== undefined) anchors.push(n);
    else if (n.name === 'base' && n.attribs.href !== undefined) baseEl ??= n;
  });
  // A `<base>` longer than a URL the API takes is not used: each relative link is resolved against
  // it, and a page's thousands of links under a base of a megabyte took minutes to read.
  const base = (() => {
    try {
      const url = baseEl ? new URL(attr(baseEl, 'href')!, pageUrl).toString() : pageUrl;
      return url.length <= LIMITS.urlMaxChars ? url : pageUrl;
    } catch {
      return pageUrl;
    }
  })();
  const links: string[] = [];
  if (!meta.nofollow) {
    const seen = new Set<string>();
    // As in the markdown: what resolving adds to the links, in all, is bounded.
    const growth = new LinkGrowth();
    for (const a of anchors) {
      if (/\bnofollow\b/i.test(attr(a, 'rel') ?? '')) continue;
      const href = attr(a, 'href')!;
      let abs: string | undefined;
      try {
        abs = normalizeUrl(new URL(href, base).toString());
      } catch {
        abs = undefined;
      }
      if (!abs || abs.length > LIMITS.urlMaxChars || !growth.allows(href, abs)) continue; // one no API call could fetch, too
      if (!seen.has(abs)) {
        seen.add(abs);
        links.push(abs);
      }
    }
    // Where a refresh sends the reader is a link too: the crawler follows it as a browser would.
    if (meta.refreshUrl && meta.refreshUrl.length <= LIMITS.urlMaxChars && !seen.has(meta.refreshUrl)) links.push(meta.refreshUrl);
  }

  const { talk, authors } = prune(doc);
  const { nodes } = findMainContent(doc, talk, authors);
  for (const n of nodes) withoutShortcodes(n);
  // The headline is metadata; a first heading that repeats the title is not content.
  const first = nodes[0] && findFirst(nodes[0], (e) => /^h[12]$/.test(e.name));
  if (first && meta.title && textOf(first).replace(/\s+/g, ' ').trim().toLowerCase() === meta.title.toLowerCase()) remove(first);
  // Character references bring back what decoding took out (`&#x1b;`): the texts are cleaned as stored.
  let markdown = toMarkdown(nodes, base);
  // A page drawn by its scripts, or one showing a teaser, may give its whole article in its
  // structured data: that text, when what its HTML shows is less than half of it.
  if (articleBody && articleBody.length >= ARTICLE_BODY_MIN && markdown.length < articleBody.length / 2) markdown = bodyMarkdown(articleBody, base);
  const page: ExtractedPage = { ...meta, content: withoutControls(markdown), links };
  for (const k of ['title', 'description', 'author'] as const) {
    const text = page[k] === undefined ? undefined : withoutControls(page[k]).trim();
    if (text) page[k] = text;
    else delete page[k];
  }
  return page;
}
