/**
 * A news feed (RSS 0.9x-2.0, RSS 1.0, Atom) as markdown: one section per entry, its title linked to
 * its page, its date and author, and its summary read from its HTML. A feed's XML in a code block
 * is mostly markup and escaped HTML; an agent that fetches a feed wants what is new on a site.
 */
import type { AnyNode, Element } from 'domhandler';
import { LIMITS } from '../../core/requests.js';
import { normalizeUrl } from '../../core/url.js';
import { attr, children, isElement, parseHtml, textOf } from './dom.js';
import { escapeHeading, escapeLine, escapeText } from '../../core/escapes.js';
import { absoluteUrl, LinkGrowth, toMarkdown } from './markdown.js';

export interface Feed {
  title?: string;
  description?: string;
  lang?: string;
  content: string;
  /** The entries' pages, normalised, each once, in the feed's order. */
  links: string[];
}

/** How much of the start of an XML text is looked at for its root element: a declaration, comments and a stylesheet come first. */
const SNIFF_CHARS = 4096;

/** Whether an XML text is a feed: its root element is `<rss>`, `<feed>` (Atom) or `<rdf:RDF>` (RSS 1.0). */
export function isFeedXml(text: string): boolean {
  const head = text.slice(0, SNIFF_CHARS).replace(/<\?[^]*?\?>|<!--[^]*?-->|<!DOCTYPE[^>]*>/gi, '');
  return /^\s*<(rss|feed|rdf:rdf)[\s>/]/i.test(head);
}

const ENTRY_NAMES = new Set(['item', 'entry']);

/** The first child element of `el` of one of `names` (lowercased by the parser, a prefix as the feed writes it). */
const child = (el: Element, ...names: string[]) => children(el).find((c): c is Element => isElement(c) && names.includes(c.name));

/** An element's text as plain text: a title may hold markup or HTML's entities (`&nbsp;` in a feed's XML stays written). */
function plain(el: Element | undefined): string | undefined {
  if (!el) return undefined;
  const raw = textOf(el);
  const text = (/[<&]/.test(raw) ? textOf(parseHtml(raw)) : raw).replace(/\s+/g, ' ').trim();
  return text || undefined;
}

/** An http(s) URL against `base` (`absoluteUrl`, images' schemes), within the feed's budget of link growth. */
const linkUrl = (href: string | undefined, base: string, growth: LinkGrowth) => absoluteUrl(href, base, growth, true);

/**
 * The base the links inside `el` resolve against: its `xml:base` (Atom's, XML's) against `around`,
 * the base of the element holding it (at the top, the feed's own URL), when that gives an http(s)
 * URL; `around` otherwise.
 */
function baseOf(el: Element, around: string): string {
  const written = attr(el, 'xml:base');
  if (written === undefined) return around;
  try {
    const url = new URL(written.trim(), around);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : around;
  } catch {
    return around;
  }
}

/** An entry's link: RSS's `<link>` text, Atom's `<link href>` that is its page (`alternate`, or no `rel`), RSS's permalink `<guid>`. */
function entryLink(entry: Element, base: string, growth: LinkGrowth): string | undefined {
  for (const c of children(entry)) {
    if (!isElement(c) || c.name !== 'link') continue;
    const href = attr(c, 'href');
    if (href !== undefined) {
      const rel = attr(c, 'rel') ?? 'alternate';
      if (rel === 'alternate') return linkUrl(href, baseOf(c, base), growth);
    } else {
      const url = linkUrl(textOf(c), baseOf(c, base), growth);
      if (url) return url;
    }
  }
  const guid = child(entry, 'guid');
  return guid && attr(guid, 'ispermalink') !== 'false' ? linkUrl(textOf(guid), baseOf(guid, base), growth) : undefined;
}

/** An entry's time as an ISO 8601 UTC timestamp, or as written when it does not parse (`pubDate` is RFC 822, Atom's RFC 3339). */
function entryTime(entry: Element): string | undefined {
  const written = plain(child(entry, 'pubdate', 'published', 'dc:date', 'updated'));
  if (!written) return undefined;
  const t = Date.parse(written);
  return Number.isNaN(t) ? written : new Date(t).toISOString().replace('.000Z', 'Z');
}

/** An entry's author: Atom's `<author><name>`, Dublin Core's creator, RSS's `<author>` (an address, often with a name). */
function entryAuthor(entry: Element): string | undefined {
  const author = child(entry, 'author');
  const name = author && child(author, 'name');
  return plain(name ?? child(entry, 'dc:creator') ?? author);
}

/** An entry's summary (or, without one, its content) read from its HTML to markdown. */
function entryText(entry: Element, base: string, growth: LinkGrowth): string {
  const body = child(entry, 'description', 'summary') ?? child(entry, 'content:encoded', 'content');
  if (!body) return '';
  // Atom's `type="xhtml"` content is markup in the feed itself; the others are escaped HTML or text.
  const nodes: AnyNode[] = attr(body, 'type') === 'xhtml' ? children(body) : children(parseHtml(textOf(body)));
  return toMarkdown(nodes, baseOf(body, base), growth);
}

/** A feed's XML text as markdown and metadata, or undefined when it is no feed. */
export function feedToMarkdown(xml: string, url: string): Feed | undefined {
  const doc = parseHtml(xml, true);
  const root = children(doc).find((c): c is Element => isElement(c) && (c.name === 'rss' || c.name === 'feed' || c.name === 'rdf:rdf'));
  if (!root) return undefined;
  // RSS's channel holds its items (RSS 1.0's are the channel's siblings); Atom's feed is its own channel.
  const channel = root.name === 'feed' ? root : (child(root, 'channel') ?? root);
  const rootBase = baseOf(root, url);
  const entries: [Element, string][] = [];
  for (const holder of new Set([channel, root])) {
    const base = holder === root ? rootBase : baseOf(channel, rootBase);
    for (const c of children(holder)) if (isElement(c) && ENTRY_NAMES.has(c.name)) entries.push([c, baseOf(c, base)]);
  }
  const growth = new LinkGrowth();
  const links = new Set<string>();
  const sections = entries.map(([entry, base]) => {
    const title = plain(child(entry, 'title'));
    const link = entryLink(entry, base, growth);
    const page = link && normalizeUrl(link);
    if (page && page.length <= LIMITS.urlMaxChars) links.add(page);
    // The title and byline are text: escaped as markdown.ts escapes a page's (`escapeText`).
    const heading = title && link ? `## [${escapeText(title, true)}](${link})` : title ? `## ${escapeHeading(title)}` : link ? `## ${link}` : undefined;
    const byline = escapeLine([entryTime(entry), entryAuthor(entry)].filter(Boolean).join(' · '));
    return [heading, byline, entryText(entry, base, growth)].filter(Boolean).join('\n\n');
  });
  const feed: Feed = { content: sections.filter(Boolean).join('\n\n'), links: [...links] };
  const title = plain(child(channel, 'title'));
  if (title) feed.title = title;
  const description = plain(child(channel, 'description', 'subtitle'));
  if (description) feed.description = description;
  const lang = plain(child(channel, 'language', 'dc:language')) ?? attr(root, 'xml:lang') ?? attr(channel, 'xml:lang');
  if (lang) feed.lang = lang;
  return feed;
}
