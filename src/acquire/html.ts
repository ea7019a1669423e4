/**
 * HTML -> markdown + metadata. A first, simple converter (node-html-markdown) over the page with
 * obvious chrome removed; the acquisition work replaces it with real main-content extraction.
 */
import { NodeHtmlMarkdown } from 'node-html-markdown';
import { type HTMLElement, parse } from 'node-html-parser';
import { parseDate, parseTimestamp } from '../core/time.js';

export interface ExtractedPage {
  title?: string;
  description?: string;
  author?: string;
  publishedAt?: number;
  content: string;
}

const CHROME = 'head, title, meta, link, script, style, noscript, template, svg, iframe, nav, header, footer, aside, form, [role=navigation], [aria-hidden=true]';

const converter = new NodeHtmlMarkdown({ bulletMarker: '-', codeBlockStyle: 'fenced', maxConsecutiveNewlines: 2 });

function meta(root: HTMLElement, ...names: string[]): string | undefined {
  for (const name of names) {
    const el = root.querySelector(`meta[property="${name}"]`) ?? root.querySelector(`meta[name="${name}"]`);
    const v = el?.getAttribute('content')?.trim();
    if (v) return v;
  }
  return undefined;
}

/** A date or ISO timestamp in any of the usual shapes to epoch ms. */
export function parseLooseTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  const exact = parseTimestamp(v) ?? parseDate(v);
  if (exact !== undefined) return exact;
  if (!/^\d{4}-\d{2}-\d{2}/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

function jsonLdField(root: HTMLElement, field: 'datePublished' | 'author'): string | undefined {
  for (const script of root.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      const stack: unknown[] = [JSON.parse(script.text)];
      while (stack.length > 0) {
        const node = stack.pop();
        if (Array.isArray(node)) stack.push(...node);
        else if (node && typeof node === 'object') {
          const value = (node as Record<string, unknown>)[field];
          if (typeof value === 'string' && value.trim()) return value.trim();
          if (field === 'author' && value && typeof value === 'object') {
            const first = Array.isArray(value) ? value[0] : value;
            const name = (first as Record<string, unknown> | undefined)?.name;
            if (typeof name === 'string' && name.trim()) return name.trim();
          }
          const graph = (node as Record<string, unknown>)['@graph'];
          if (graph) stack.push(graph);
        }
      }
    } catch {
      // Broken JSON-LD is common; it just gives nothing.
    }
  }
  return undefined;
}

export function htmlToPage(html: string): ExtractedPage {
  const root = parse(html, { comment: false, blockTextElements: { script: true, style: true, pre: true } });
  const title = meta(root, 'og:title') ?? (root.querySelector('title')?.text.trim() || undefined);
  const description = meta(root, 'description', 'og:description', 'twitter:description');
  const author = meta(root, 'author', 'article:author') ?? jsonLdField(root, 'author');
  const publishedAt = parseLooseTime(
    meta(root, 'article:published_time', 'datePublished', 'date', 'dc.date', 'DC.date.issued') ??
      jsonLdField(root, 'datePublished') ??
      root.querySelector('time[datetime]')?.getAttribute('datetime'),
  );
  for (const el of root.querySelectorAll(CHROME)) el.remove();
  const main = root.querySelector('main') ?? root.querySelector('article') ?? root.querySelector('body') ?? root;
  const content = converter.translate(main.innerHTML).trim();
  const page: ExtractedPage = { content };
  if (title) page.title = title;
  if (description) page.description = description;
  if (author) page.author = author;
  if (publishedAt !== undefined) page.publishedAt = publishedAt;
  return page;
}
