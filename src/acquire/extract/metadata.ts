/**
 * Page metadata from the head and the structured data. Which source wins, in order:
 * - title: og:title, twitter:title, JSON-LD headline, <title> (site suffix cut), first <h1>; the
 *   site's name after it cut (`withoutSiteName`);
 * - description: meta description, og:description, twitter:description, JSON-LD description;
 * - author: meta author, article:author (when not a URL), JSON-LD author name, a byline element
 *   (not a comment's nor a form's; its marked name, else its first block; `authorText` cuts a
 *   label, a date or a handle from each);
 * - published: article:published_time, other common meta names (datePublished, pubdate, date,
 *   DC.date.issued, sailthru.date, parsely-pub-date), JSON-LD datePublished, a time that says its
 *   zone before one that does not (`publicationTime`); else the first <time datetime>; else the
 *   date an element of a publication date's class shows (`shownTime`);
 * - canonical: <link rel=canonical>; language: <html lang>; robots: meta robots / googlebot.
 */
import type { AnyNode, Document, Element } from 'domhandler';
import { AUTHOR_MAX, cutAtWord, TITLE_MAX } from '../../core/text.js';
import { normalizeUrl } from '../../core/url.js';
import { MONTH_PATTERN, parseLooseTime, saysZone } from '../html-time.js';
import { attr, findFirst, isElement, parseHtml, textOf, walk } from './dom.js';

export interface PageMetadata {
  title?: string;
  description?: string;
  author?: string;
  publishedAt?: number;
  canonicalUrl?: string;
  lang?: string;
  /** Where a `<meta http-equiv="refresh">` sends the reader at once (`refreshTarget`). */
  refreshUrl?: string;
  noindex: boolean;
  nofollow: boolean;
}

const bounded = (s: string | undefined, max: number) => (s === undefined ? undefined : cutAtWord(s, max));

const clean = (s: string | undefined) => {
  const t = s?.replace(/\s+/g, ' ').trim();
  return t ? t : undefined;
};

/** Tags a text of a `<meta>` or of JSON-LD holds when it is markup (`<p>An excerpt</p>`), by name: `<The Palace>` is text. */
const TAG_NAMES = 'a|abbr|article|b|blockquote|br|cite|code|del|div|em|figcaption|figure|font|footer|h[1-6]|header|hr|i|img|ins|li|mark|ol|p|q|s|section|small|span|strike|strong|sub|sup|table|td|th|tr|u|ul';
const TAG_RE = new RegExp(`</?(?:${TAG_NAMES})\\b[^<>]*>`, 'gi');
const HAS_TAG_RE = new RegExp(TAG_RE.source, 'i');
const BLOCK_TAG_RE = /^<\/?(?:article|blockquote|br|div|figcaption|figure|footer|h[1-6]|header|hr|li|ol|p|section|table|td|th|tr|ul)\b/i;
const ENTITY_RE = /&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z\d]{1,31});/i;

/**
 * A `<meta>` content or a JSON-LD string as the text it means. Sites put markup there (`<p>An
 * excerpt`), and escape it twice (`Trump&amp;#039;s` in the page, `Trump&#039;s` once read): known
 * tags go (a block's leaves a space), entities are read again, a `<` of anything else stays text.
 * U+FFFD, a character the site cut in two, goes too.
 */
function plainText(s: string): string {
  const markup = HAS_TAG_RE.test(s);
  if (!markup && !ENTITY_RE.test(s)) return s.replaceAll('\uFFFD', '');
  const tagless = markup ? s.replace(TAG_RE, (tag) => (BLOCK_TAG_RE.test(tag) ? ' ' : '')) : s;
  return textOf(parseHtml(tagless.replaceAll('<', '&lt;'))).replaceAll('\uFFFD', '');
}

/**
 * JSON as sites write it in their JSON-LD: when it is not JSON, read again with its control
 * characters as spaces (a description's line break written raw inside its string) and without a
 * comma before a closing bracket (`"Science", ]`). Throws when that is no JSON either.
 */
function parseLenientJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    // eslint-disable-next-line no-control-regex
    return JSON.parse(raw.replace(/[\u0000-\u001f]+/g, ' ').replace(/,(\s*[}\]])/g, '$1'));
  }
}

function jsonLdNodes(scripts: readonly Element[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const script of scripts) {
    try {
      // textOf leaves script contents out on purpose; JSON-LD is exactly such content.
      const raw = script.children.map((c) => ('data' in c ? String(c.data) : '')).join('');
      const stack: unknown[] = [parseLenientJson(raw)];
      while (stack.length > 0) {
        const node = stack.pop();
        if (Array.isArray(node)) for (const item of node) stack.push(item);
        else if (node && typeof node === 'object') {
          out.push(node as Record<string, unknown>);
          const graph = (node as Record<string, unknown>)['@graph'];
          if (graph) stack.push(graph);
        }
      }
    } catch {
      // broken JSON-LD is common and simply gives nothing
    }
  }
  return out;
}

function ldString(nodes: Record<string, unknown>[], field: string): string | undefined {
  for (const n of nodes) {
    const v = n[field];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return undefined;
}

/** A JSON-LD field that is text to show (a headline, a description): as `plainText` reads it. */
function ldText(nodes: Record<string, unknown>[], field: string): string | undefined {
  const v = ldString(nodes, field);
  return v === undefined ? undefined : clean(plainText(v));
}

function ldAuthor(nodes: Record<string, unknown>[]): string | undefined {
  for (const n of nodes) {
    const a = n.author;
    const list = Array.isArray(a) ? a : a ? [a] : [];
    const names = list
      .map((x) => (typeof x === 'string' ? x : typeof x === 'object' && x ? (x as Record<string, unknown>).name : undefined))
      .filter((x): x is string => typeof x === 'string' && x.trim() !== '');
    if (names.length > 0) return names.map(plainText).join(', ');
  }
  return undefined;
}

/** The first instant of year 1000: a publication time before it is a program's zero, not a date. */
const YEAR_1000 = Date.UTC(1000, 0, 1);

/**
 * The first of a page's publication times (in the order its sources are trusted) that is a time:
 * read (`parseLooseTime`) and no placeholder. A CMS that has none writes its language's zero
 * (`0001-01-01T00:00:00Z`, Go's and .NET's; USA Today's JSON-LD) or the Unix epoch (0), which would
 * be in every `published_before` window.
 */
function publicationTime(values: readonly (string | undefined)[], timeElement: string | undefined, shownDate?: string): number | undefined {
  const isTime = (t: number | undefined): t is number => t !== undefined && t >= YEAR_1000 && t !== 0;
  let unsure: number | undefined;
  for (const v of values) {
    const t = parseLooseTime(v);
    if (!isTime(t)) continue;
    // A time of day that says its zone is sure (`saysZone`): a later source that is sure (the
    // JSON-LD's `+08:00` after a meta's `November 20, 2019 12:32`) is taken before an unsure one.
    if (saysZone(v!)) return t;
    unsure ??= t;
  }
  if (unsure !== undefined) return unsure;
  // The page's first <time>, then the date it shows: weaker sources, at times another story's.
  return [parseLooseTime(timeElement), shownTime(shownDate)].find(isTime);
}

/** The meta tags that give a publication time, in the order they are trusted. */
const PUBLISHED_METAS = ['article:published_time', 'og:published_time', 'datePublished', 'pubdate', 'publishdate', 'date', 'dc.date.issued', 'dc.date', 'sailthru.date', 'parsely-pub-date'];

/** The elements metadata comes from, each the first in document order but the lists. */
interface Sources {
  metas: Element[];
  /** The first `<meta http-equiv="refresh">` outside a `<noscript>` (one inside it sends browsers without scripts to a page saying so). */
  refresh?: Element;
  ldScripts: Element[];
  title?: Element;
  h1?: Element;
  byline?: Element;
  time?: Element;
  /** The first element whose class names a publication date (`publish-date`), outside comments: the date a reader sees. */
  shownDate?: Element;
  canonical?: Element;
  html?: Element;
}

function inNoscript(n: Element): boolean {
  for (let p = n.parent; p; p = p.parent) if (isElement(p) && p.name === 'noscript') return true;
  return false;
}

/** A refresh's longest delay that is taken for a redirect: a page of "you will be taken there in 5 seconds" is one; a page that reloads itself every few minutes is not. */
const REFRESH_MAX_SECONDS = 10;

/**
 * The page a `<meta http-equiv="refresh" content="0; url=/new">` sends a browser to, as HTML parses
 * its content (a delay, then `url=` or the URL alone, quoted or not), or undefined: no URL, a longer
 * delay, or the page itself.
 */
export function refreshTarget(content: string | undefined, pageUrl: string): string | undefined {
  const m = /^\s*(\d{1,9})(?:\.[\d.]*)?\s*[;,]?\s*(?:url\s*=\s*)?(.*)$/is.exec(content ?? '');
  if (!m || Number(m[1]) > REFRESH_MAX_SECONDS) return undefined;
  let raw = m[2]!.trim();
  if ((raw.startsWith('"') || raw.startsWith("'")) && raw.includes(raw[0]!, 1)) raw = raw.slice(1, raw.indexOf(raw[0]!, 1));
  if (!raw) return undefined;
  try {
    const target = normalizeUrl(new URL(raw, pageUrl).toString());
    return target && target !== normalizeUrl(pageUrl) ? target : undefined;
  } catch {
    return undefined;
  }
}

/** Elements that hold a page, never its byline (a post's `<article class="author-jane">`), and a form's, whose `author` is a field. */
const NO_BYLINE = new Set(['html', 'body', 'main', 'article', 'form', 'label', 'input', 'textarea', 'select', 'option', 'meta', 'link', 'script', 'style']);
/** A comment's byline (`comment-author`), a reply form's field (`comment-form-author`, `#respond`): not the page's author. */
const COMMENT_HINT = /comment|respond|reply/i;
/** How far up a byline is checked for a comment or a form around it. */
const BYLINE_LEVELS = 30;

/** Whether an element is the page's byline: a class, rel or itemprop that names one or an author, in no comment and no form. */
function isByline(n: Element): boolean {
  const a = n.attribs;
  if (NO_BYLINE.has(n.name) || !/\b(byline|author)\b/i.test(`${a.class ?? ''} ${a.rel ?? ''} ${a.itemprop ?? ''}`)) return false;
  return !inPartNotThePage(n);
}

/** Where a date is another post's: a comment's, a sidebar's or widget's list of recent or related posts, a footer's. */
const OTHER_POSTS_HINT = /comment|respond|reply|sidebar|widget|related|recent|footer/i;

/** Whether an element is in a form or in a part (`BYLINE_LEVELS` up at most) whose class or id `hint` names: a comment, by default, which says nothing of the page. */
function inPartNotThePage(n: Element, hint = COMMENT_HINT): boolean {
  let p: Element | null = n;
  for (let level = 0; p && level < BYLINE_LEVELS; level++, p = p.parent && isElement(p.parent) ? p.parent : null) {
    if (p.name === 'form' || hint.test(`${p.attribs.class ?? ''} ${p.attribs.id ?? ''}`)) return true;
  }
  return false;
}

/** A class that names a publication date a reader sees: `publish-date`, `article-publish-date`, `pubdate`, `post-date`, `entry-date`, `date-published`. */
const DATE_CLASS = /(?:^|\s)(?:[\w-]*[-_])?(?:publish(?:ed)?[-_]?date|pub[-_]?date|post[-_]?date|entry[-_]?date|date[-_]?published)(?:\s|$)/i;

/**
 * A date as a page shows it (`Published 11:11 PM EST Nov 19, 2019 | Updated ...`), as
 * `parseLooseTime` reads one: without its label and what follows an update, its time of day after
 * its date. Without a zone only its date is taken: a time of day read as UTC would be hours off.
 */
function shownTime(text: string | undefined): number | undefined {
  let t = clean(text)?.replace(/\s*[|•·]?\s*\b(?:updated|modified)\b.*$/i, '').replace(/^(?:published|posted)(?:\s+on)?\s*:?\s*/i, '');
  if (!t || t.length > 80) return undefined;
  const timeFirst = /^(\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?)\s+(?:([a-z]{1,4})\s+)?(.+)$/i.exec(t);
  if (timeFirst) t = `${timeFirst[3]} ${timeFirst[1]}${timeFirst[2] ? ` ${timeFirst[2]}` : ''}`;
  const at = parseLooseTime(t);
  if (at === undefined || saysZone(t)) return at;
  return Math.floor(at / 86_400_000) * 86_400_000;
}

/** A byline's part that names the author, by its markup: schema.org's `name`, a `rel="author"` link, an author-name class. */
const NAME_MARKS: ((el: Element) => boolean)[] = [
  (el) => /(?:^|\s)name(?:\s|$)/.test(el.attribs.itemprop ?? ''),
  (el) => /(?:^|\s)author(?:\s|$)/i.test(el.attribs.rel ?? ''),
  (el) => /author[-_]*name|byline[-_]+author|(?:^|\s)fn(?:\s|$)/i.test(el.attribs.class ?? ''),
  // A part of the byline of its own named `author`, beside the publication's (`<span class="author">`).
  (el) => /(?:^|\s)author(?:\s|$)/i.test(el.attribs.class ?? ''),
];

/** The author a byline names: its marked name, else its first block of text, else all of it (`authorText`). */
function bylineAuthor(byline: Element): string | undefined {
  for (const mark of NAME_MARKS) {
    const el = findFirst(byline, (d) => mark(d) && (clean(d.attribs.content) ?? clean(textOf(d))) !== undefined);
    if (el) return authorText(clean(el.attribs.content) ?? spacedText(el));
  }
  const first = findFirst(byline, (d) => d !== byline && BLOCKS.has(d.name) && clean(textOf(d)) !== undefined);
  return authorText(spacedText(first ?? byline));
}

const BLOCKS = new Set(['div', 'p', 'li', 'section', 'header', 'footer', 'address', 'dd', 'dt']);

/** An element's text with a space where a `<br>` or a block parts it (`by Jeff Foust<br><span>Monday...`). */
function spacedText(n: AnyNode): string {
  if (!isElement(n)) return textOf(n);
  if (n.name === 'br') return ' ';
  let s = '';
  for (const c of n.children) s += spacedText(c);
  return BLOCKS.has(n.name) ? ` ${s} ` : s;
}
/** What follows a byline's name in its text: a date (a weekday's, a month's), a time, "Published ...", a handle, a separator and what comes after. */
const AFTER_NAME = new RegExp(
  `\\s*(?:[|•·]|\\s@\\w|\\b(?:published|updated|posted)\\b|\\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\\b|(?:\\s|^)(?:on\\s+)?${MONTH_PATTERN}\\s+\\d{1,2}\\b|\\s\\d{1,2}\\s+${MONTH_PATTERN}\\s+\\d{4}|\\s\\d{1,4}[/.-]\\d{1,2}[/.-]\\d{1,4}).*$`,
  'is',
);

/**
 * An author's name as a byline or a meta tag writes it, without what is not the name: a label
 * before it ("By", "By:", "Text:", "Текст:"), and the date, time, handle or separator after it.
 */
export function authorText(text: string | undefined): string | undefined {
  let t = clean(text);
  if (!t) return undefined;
  t = t.replace(BYLINE_LABEL, '').replace(/^\p{L}{2,12}:\s+/u, '');
  return clean(t.replace(AFTER_NAME, ''));
}

/** A byline's label before the name: "By", and what a byline says the piece is ("Analysis by", "Story by"). */
const BYLINE_LABEL = /^(?:(?:written|posted|analysis|opinion|commentary|story|report|reported|words|text|compiled|edited|reviewed)\s+)?by\b\s*:?\s*/i;

/** A part of a byline after a comma that says what the author is: "AP Auto Writer", "Staff writer", "CNN Editor-at-large". */
const ROLE_RE = /\b(?:writer|reporter|correspondent|editor|columnist|contributor|producer|journalist|analyst|critic|photographer|staff|bureau)\b/i;
/** The news agencies whose name follows their writers' (`MEG KINNARD and ERRIN HAINES, Associated Press`). */
const AGENCY_RE = /^(?:the\s+)?(?:associated\s+press|ap|reuters|afp|agence\s+france-presse|upi|bloomberg(?:\s+news)?|press\s+association|pa\s+media|dpa)$/i;
/** What follows a name after a comma and belongs to it: a degree, a title (`Rachael Link, MS, RD`; `Jr.`). */
const CREDENTIAL_RE = /^(?:ms|ma|msc|mba|mph|md|do|dds|phd|ph\.d\.|rd|rdn|ld|ldn|rn|np|pa-c|jd|esq\.?|cpa|cfa|cfp|cscs|cpt|facs|jr\.?|sr\.?|ii|iii|iv)$/i;

/**
 * An author without what a byline says after the name, after a comma: the writer's role ("TOM
 * KRISHER, AP Auto Writer"), a news agency ("..., Associated Press"), the site's name or a part
 * starting with it ("Jill Disis, CNN Business" on CNN) or that it starts with, or one word that is no degree (a
 * publication: "Sandee LaMotte, CNN" on MSN, "Victor Tangermann, Futurism") after a name of
 * several words. The first part is always kept ("Staff Reports"), and so are names ("Lia
 * Eustachewich, Yaron Steinbuch"; "Doe, Jane") and degrees ("Rachael Link, MS, RD").
 */
export function withoutAffiliation(author: string, siteName: string | undefined): string {
  const parts = author.split(/\s*,\s+/);
  const site = siteName?.toLowerCase();
  // The site's name, or its first words (`Business Insider` on Business Insider Deutschland), or a part's first words (`CNN Business` on CNN).
  const startsWith = (a: string, b: string) => a.startsWith(b) && !/[\p{L}\p{N}]/u.test(a.charAt(b.length));
  const ofSite = (part: string) => site !== undefined && (startsWith(part.toLowerCase(), site) || startsWith(site, part.toLowerCase()));
  // One word after a name of several: `Doe, Jane` is a name written surname first.
  const named = /\s/.test(parts[0]!);
  const affiliation = (part: string) =>
    ROLE_RE.test(part) || AGENCY_RE.test(part) || ofSite(part) || (named && /^\p{Lu}[\p{L}'’.-]*$/u.test(part) && !CREDENTIAL_RE.test(part));
  while (parts.length > 1 && affiliation(parts[parts.length - 1]!)) parts.pop();
  return parts.join(', ');
}

/** A name as compared with another: its letters and digits, lowercased (`Sportsnet.ca`, `sportsnet.ca`). */
const nameKey = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
/** What parts a title from the site's name: ` - `, ` | `, ` – `, ` — `, ` · `. */
const TITLE_SEPARATOR = /\s[|\-\u2013\u2014\u00b7]\s/g;

/**
 * A title without the site's name after it (`Best tech gadgets of 2019 | ZDNet`), as a result shows
 * the site in its URL: the last part after a separator, when it is the site's name (its
 * `og:site_name`) or its host's (`- Digg` on digg.com, `- Sportsnet.ca`). A title of the site's name
 * alone, or of a short rest, stays.
 */
export function withoutSiteName(title: string, siteName: string | undefined, pageUrl: string): string {
  let last: RegExpExecArray | null = null;
  for (const m of title.matchAll(TITLE_SEPARATOR)) last = m as RegExpExecArray;
  if (!last) return title;
  const rest = title.slice(0, last.index).trim();
  const tail = nameKey(title.slice(last.index + last[0].length));
  if (rest.length < 10 || !tail) return title;
  const names = siteName ? [nameKey(siteName)] : [];
  try {
    const labels = new URL(pageUrl).hostname.replace(/^www\./, '').split('.');
    names.push(nameKey(labels.join('.')), nameKey(labels.slice(0, -1).join('.')), nameKey(labels[0]!));
  } catch {
    // no host to compare with
  }
  return names.includes(tail) ? rest : title;
}

/** One walk over the page for every source (a page of a million elements took a walk per source). */
function findSources(doc: Document): Sources {
  const s: Sources = { metas: [], ldScripts: [] };
  walk(doc, (n) => {
    if (!isElement(n)) return;
    const a = n.attribs;
    switch (n.name) {
      case 'meta':
        s.metas.push(n);
        if (!s.refresh && a['http-equiv']?.toLowerCase() === 'refresh' && !inNoscript(n)) s.refresh = n;
        break;
      case 'script':
        if (/ld\+json/i.test(a.type ?? '')) s.ldScripts.push(n);
        break;
      case 'title':
        s.title ??= n;
        break;
      case 'h1':
        s.h1 ??= n;
        break;
      case 'time':
        if (a.datetime !== undefined) s.time ??= n;
        break;
      case 'link':
        if (/\bcanonical\b/i.test(a.rel ?? '')) s.canonical ??= n;
        break;
      case 'html':
        s.html ??= n;
        break;
    }
    if (!s.byline && (a.class !== undefined || a.rel !== undefined || a.itemprop !== undefined) && isByline(n)) s.byline = n;
    if (!s.shownDate && a.class !== undefined && !NO_BYLINE.has(n.name) && DATE_CLASS.test(a.class) && !inPartNotThePage(n, OTHER_POSTS_HINT)) s.shownDate = n;
  });
  return s;
}

/** What `extractMetadata` finds: the metadata, and the article's text as its structured data gives it (JSON-LD `articleBody`). */
export type FoundMetadata = PageMetadata & { articleBody?: string };

export function extractMetadata(doc: Document, pageUrl: string): FoundMetadata {
  const found = findSources(doc);
  const metas = found.metas;
  const meta = (...keys: string[]): string | undefined => {
    for (const k of keys) {
      // An itemprop names one or more properties (`itemprop="datePublished dateCreated"`).
      const key = k.toLowerCase();
      const el = metas.find((m) => {
        if ((attr(m, 'property') ?? attr(m, 'name'))?.toLowerCase() === key) return true;
        return attr(m, 'itemprop')?.toLowerCase().split(/\s+/).includes(key) ?? false;
      });
      const content = el ? attr(el, 'content') : undefined;
      const v = clean(content === undefined ? undefined : plainText(content));
      if (v) return v;
    }
    return undefined;
  };
  const ld = jsonLdNodes(found.ldScripts);
  const titleEl = found.title;
  const h1 = found.h1;
  const docTitle = clean(titleEl ? textOf(titleEl) : undefined)?.replace(/\s+[|\-–—·:]\s+[^|\-–—·:]{2,40}$/, '');

  const metaAuthor = meta('author', 'article:author', 'parsely-author', 'sailthru.author', 'dc.creator');
  const byline = found.byline;
  const author = authorText(metaAuthor && !/^https?:/.test(metaAuthor) ? metaAuthor : undefined) ?? authorText(ldAuthor(ld)) ?? (byline && bylineAuthor(byline));

  const timeEl = found.time;
  const publishedAt = publicationTime(
    [...PUBLISHED_METAS.map((k) => meta(k)), ldString(ld, 'datePublished')],
    timeEl ? attr(timeEl, 'datetime') : undefined,
    found.shownDate && textOf(found.shownDate),
  );

  const canonicalEl = found.canonical;
  let canonicalUrl: string | undefined;
  try {
    const href = canonicalEl ? attr(canonicalEl, 'href') : undefined;
    if (href) canonicalUrl = new URL(href, pageUrl).toString();
  } catch {
    // an unusable canonical link is ignored
  }
  const htmlEl = found.html;
  const robots = `${meta('robots') ?? ''},${meta('googlebot') ?? ''}`.toLowerCase();

  const title = meta('og:title', 'twitter:title') ?? ldText(ld, 'headline') ?? docTitle ?? clean(h1 ? textOf(h1) : undefined);
  const siteName = meta('og:site_name', 'application-name');
  const out: FoundMetadata = {
    title: bounded(title && withoutSiteName(title, siteName, pageUrl), TITLE_MAX),
    description: meta('description', 'og:description', 'twitter:description') ?? ldText(ld, 'description'),
    author: bounded(clean(author && withoutAffiliation(author, siteName)), AUTHOR_MAX),
    publishedAt,
    canonicalUrl,
    lang: clean(htmlEl ? attr(htmlEl, 'lang') : undefined)?.toLowerCase(),
    refreshUrl: refreshTarget(found.refresh && attr(found.refresh, 'content'), pageUrl),
    noindex: /\b(noindex|none)\b/.test(robots),
    nofollow: /\b(nofollow|none)\b/.test(robots),
    articleBody: ldString(ld, 'articleBody'),
  };
  for (const k of Object.keys(out) as (keyof FoundMetadata)[]) if (out[k] === undefined) delete out[k];
  return out;
}
