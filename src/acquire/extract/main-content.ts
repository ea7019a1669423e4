/**
 * Finds the main content of a page: boilerplate removed by tag, role and class/id; paragraphs scored
 * (length and commas; a div's own text beside its blocks is one), scores passed up to parent and grandparent, weighted by class/id hints and cut
 * by link density; the best container is taken with the siblings that score close to it; then the
 * container is cleaned of link lists, forms and short fragments. Text statistics are computed once,
 * bottom-up, so the whole pass is linear in the page.
 */
import { type AnyNode, type Document, Element, Text } from 'domhandler';
import { ancestor, attr, children, findAll, findFirst, insertBefore, isElement, isSpace, isText, prepend, remove, removeAll, textOf, walk } from './dom.js';

const DROP_TAGS = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed', 'button', 'input',
  'select', 'textarea', 'nav', 'aside', 'footer', 'dialog', 'menu', 'link', 'meta', 'head', 'label', 'title', 'figcaption',
  // A ruby's reading (furigana, shown above its characters) ran into the text: 漢(かん)字じ for 漢字.
  'rt', 'rp',
  // What a player holds is for browsers that cannot play it ("Your browser does not support video").
  'video', 'audio',
]);
/** What a figure shows that its caption credits (a photo's "Getty Images") or describes: no text of the page's. */
const PICTURES = new Set(['img', 'picture', 'video', 'audio', 'svg', 'iframe', 'canvas', 'object', 'embed']);
/** An icon drawn by a font from a word (`<i class="material-icons">chevron_left</i>`): the word is no text. */
const ICON_FONT = /(?:^|\s)material-(?:icons|symbols)[\w-]*(?:\s|$)/;
const DROP_ROLES = /^(navigation|banner|contentinfo|complementary|search|dialog|alertdialog|menu|menubar|toolbar|doc-backlink)$/i;
/**
 * A footnote's link back to its mark (`↩`, Wikipedia's `^ a b`): Pandoc's, kramdown's, markdown-it's
 * and MediaWiki's classes (their role, `doc-backlink`, is one of DROP_ROLES).
 */
const BACKLINK_CLASS = /(?:^|\s)(?:mw-cite-backlink|footnote-backref|footnote-back|reversefootnote)(?:\s|$)/;
/**
 * A page's footnotes or references, which its text's marks (`claim[1]`) point to: a footnote's own
 * words, a claim's source. Their role (`doc-endnotes`, `doc-footnote`), `footnotes` (Pandoc,
 * kramdown, markdown-it), `footnote` (Substack's, one each), MediaWiki's `reflist` and
 * `ol.references`. They are link-dense and their class reads as chrome (`footnote` is NEGATIVE's),
 * so the content's cleaning kept none.
 */
const FOOTNOTES_CLASS = /(?:^|\s)(?:footnotes?|reflist)(?:\s|$)/;
const isFootnotes = (el: Element) =>
  /^doc-(?:endnotes|footnote)$/.test(el.attribs.role ?? '') ||
  FOOTNOTES_CLASS.test(el.attribs.class ?? '') ||
  (el.name === 'ol' && /(?:^|\s)references(?:\s|$)/.test(el.attribs.class ?? ''));
/**
 * The blocks that common site plugins add to every post, chrome whatever else their class or id
 * says: what a page marks as no content for robots (`robots-nocontent`), WordPress's Jetpack
 * (`sharedaddy` sharing and like buttons, whose `like-post-wrapper` id reads as a post's,
 * `jp-relatedposts`, a slideshow's "This slideshow requires JavaScript."), WordAds' ad slots
 * (`wpcnt`, labelled `Iklan`, `Advertisements`), and the sharing and related-posts plugins Social
 * Pug (`dpsp-`, whose `dpsp-share-text` reads as text: "Sharing is caring!"), AddToAny,
 * Shareaholic, Social Warfare, Sassy Social Share, Monarch, YARPP and Contextual Related Posts.
 */
const PLUGIN_CHROME =
  /(?:^|\s)(?:robots-nocontent|jetpack-slideshow-noscript|sharedaddy|jp-relatedposts|jetpack-likes-widget-wrapper|wpcnt|dpsp-share-text|dpsp-content-wrapper|addtoany_share_save_container|a2a_kit|shareaholic-canvas|swp_social_panel|heateor_sss_sharing_container|et_social_inline|yarpp-related|crp_related)(?:\s|$)/;
const UNLIKELY =
  /-ad-|ai2html|banner|breadcrumb|byline|dateline|editsection|gallery|slideshow|carousel|swiper|trending|caption|credit|combx|comment|community|cookie|consent|cover-wrap|disqus|extra|footer|gdpr|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|share|sharing|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|newsletter|subscribe|outbrain|taboola|yom-remote/i;
/** A class word that names a counter (`article__gallery-count`, `share-count`, `counter`), not `account` or `country`. */
const COUNTER_CLASS = /(?:^|[\s_-])count(?:er)?(?:$|[\s_-])/i;
/** What a counter shows: a number, or one of another ("1 / 6", "2 of 10"), "1.2k". */
const COUNTER_TEXT = /^\s*\d[\d,.]*\s*[km]?\s*(?:(?:\/|of)\s*\d[\d,.]*\s*[km]?\s*)?$/i;
/** Whether an element is a counter, whatever else its class says, but in no table (a table's column of counts is data). */
const isCounter = (el: Element) =>
  el.attribs.class !== undefined && COUNTER_CLASS.test(el.attribs.class) && COUNTER_TEXT.test(textOf(el)) && el.name !== 'table' && !ancestor(el, (p) => p.name === 'table');

/** Whether a `<cite>` is a figure's credit: in a figure that shows a picture, not in a quote of it. */
function creditsPicture(cite: Element): boolean {
  const holder = ancestor(cite, (p) => p.name === 'figure' || p.name === 'blockquote' || p.name === 'q');
  return holder?.name === 'figure' && findFirst(holder, (d) => PICTURES.has(d.name)) !== undefined;
}

// A formula's (MathJax's `CtxtMenu_Attached_0` reads as a menu).
const MAYBE = /(article|body|content|entry|main|page|post|text|blog|story|column|hentry|math)/i;
const POSITIVE = /(article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story)/i;
const NEGATIVE =
  /(-ad-|hidden|^hid$|\bhid\b|banner|combx|comment|com-|contact|foot|footer|footnote|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|tool|widget|subscribe|newsletter)/i;
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'dd', 'div', 'dl', 'dt', 'fieldset', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'ul',
]);

/** What is scored as a paragraph (with a div or section that holds no block). */
const SCORED = new Set(['p', 'pre', 'td', 'blockquote']);
/** What the content is cleaned of when its statistics say chrome. */
const CLEANED = new Set(['div', 'section', 'ul', 'ol', 'table', 'figure', 'p', 'dl', 'header', 'span']);

interface Stats {
  chars: number;
  linkChars: number;
  /** The links (`<a>`) in it. */
  links: number;
  commas: number;
  paragraphs: number;
  images: number;
  listItems: number;
}

function hint(el: Element): string {
  return `${attr(el, 'class') ?? ''} ${attr(el, 'id') ?? ''}`;
}

/** A class's weight: -25 for chrome's words, +25 for content's; on a discussion's page (`talk`) its words (`comment`) say nothing. */
function classWeight(el: Element, talk = false): number {
  const h = talk ? hint(el).replace(DISCUSSION_WORDS, ' ') : hint(el);
  if (!h.trim()) return 0;
  let w = 0;
  if (NEGATIVE.test(h)) w -= 25;
  if (POSITIVE.test(h)) w += 25;
  return w;
}

/** The class of a post embedded from a social network: a quote the article makes (the post's text, its author, its date). */
const EMBEDDED_POST = /\b(twitter-tweet|instagram-media|tiktok-embed|bluesky-embed|mastodon-embed|reddit-embed-bq|threads-post)\b/;

/** The elements that hold an embedded post (`EMBEDDED_POST` on a blockquote), found in one walk. */
function embedHolders(root: AnyNode): Set<AnyNode> {
  const holders = new Set<AnyNode>();
  walk(root, (n) => {
    if (!isElement(n) || n.name !== 'blockquote' || !EMBEDDED_POST.test(n.attribs.class ?? '')) return;
    for (let p: AnyNode | null = n; p && !holders.has(p); p = p.parent) holders.add(p);
    return false;
  });
  return holders;
}

/** The most tab sets a page's tabs are unfolded for (each looks through its container once). */
const MAX_TAB_SETS = 50;

/** A "Click To Tweet" box (Social Warfare's, Better Click To Tweet's), and its sentence in it. */
const CLICK_TO_TWEET = /(?:^|\s)(?:sw|bctt)-click-to-tweet(?:\s|$)/;
const TWEET_TEXT = /(?:^|\s)(?:sw|bctt)-ctt-text(?:\s|$)/;

/**
 * A "Click To Tweet" box as the quote it shows: the article's sentence it sets off, without its
 * button's words and without the link to share it that wraps it all (which read
 * `[Every online business exists in ...Click To Tweet](https://twitter.com/share?...)`).
 */
function quoteTweetBoxes(boxes: readonly Element[]): void {
  for (const box of boxes) {
    const text = findFirst(box, (el) => TWEET_TEXT.test(el.attribs.class ?? ''));
    const words = text && textOf(text).trim();
    if (!words) continue;
    const holder = ancestor(box, (p) => p.name === 'a', 2) ?? box;
    insertBefore(holder, new Element('blockquote', {}, [new Element('p', {}, [new Text(words)])]));
    remove(holder);
  }
}

/**
 * Shows what a page's markup draws or hides in ways the cleaning would lose: a task list's boxes
 * (`markTaskBoxes`), a "Click To Tweet" box's quote (`quoteTweetBoxes`) and its tab sets. A tab
 * set (`role="tablist"` of `role="tab"`s, and their `role="tabpanel"`s) is unfolded: each panel is shown, under its tab's name in bold, and the list
 * of names goes (Material for MkDocs' `tabbed-set`s too). A docs page's install
 * commands for npm, Yarn and pnpm were a list of the three names and npm's panel alone: the others
 * are `hidden` until chosen. A tab finds its panel by `aria-controls`, else by order among the
 * panels of the tab list's container.
 */
function unfold(doc: Document): void {
  const lists: Element[] = [];
  const byId = new Map<string, Element>();
  const tabbedSets: Element[] = [];
  const boxes: Element[] = [];
  const tweetBoxes: Element[] = [];
  walk(doc, (n) => {
    if (!isElement(n)) return;
    if (n.name === 'input' && n.attribs.type?.toLowerCase() === 'checkbox') boxes.push(n);
    if (n.attribs.class !== undefined && CLICK_TO_TWEET.test(n.attribs.class)) {
      tweetBoxes.push(n);
      return false;
    }
    if (n.attribs.role === 'tablist' && lists.length < MAX_TAB_SETS) lists.push(n);
    if (n.attribs.class?.includes('tabbed-set') && hasClass(n, 'tabbed-set') && tabbedSets.length < MAX_TAB_SETS) tabbedSets.push(n);
    if (n.attribs.role === 'tabpanel' && n.attribs.id !== undefined) byId.set(n.attribs.id, n);
  });
  // A container's outermost panels (not those of a tab set inside a panel), found once for all its tab lists.
  const panelsIn = new Map<AnyNode, Element[]>();
  for (const list of lists) {
    const tabs = findAll(list, (el) => el.attribs.role === 'tab');
    const container = list.parent;
    if (tabs.length < 2 || !container) continue;
    let panels = tabs.map((t) => byId.get(t.attribs['aria-controls'] ?? ''));
    if (panels.some((p) => p === undefined)) {
      let outer = panelsIn.get(container);
      if (!outer) {
        const found = findAll(container, (el) => el.attribs.role === 'tabpanel');
        const set = new Set(found);
        outer = found.filter((p) => !hasAncestorIn(p, set));
        panelsIn.set(container, outer);
      }
      if (outer.length !== tabs.length) continue;
      panels = outer;
    }
    tabs.forEach((tab, i) => showPanel(panels[i]!, tab));
    remove(list);
  }
  // Material for MkDocs' content tabs: a radio input and a label per tab (labels are dropped as a
  // form's), a block per tab (`tabbed-block`s in a `tabbed-content`; before its version 8, a
  // `tabbed-content` after each label).
  for (const set of tabbedSets) {
    const labels = findAll(set, (el) => el.name === 'label' && closestTabbedSet(el) === set);
    const content = children(set).filter((c): c is Element => isElement(c) && hasClass(c, 'tabbed-content'));
    const blocks = content.length === 1 ? children(content[0]!).filter((c): c is Element => isElement(c) && hasClass(c, 'tabbed-block')) : content;
    if (labels.length >= 2 && blocks.length === labels.length) labels.forEach((label, i) => showPanel(blocks[i]!, label));
  }
  markTaskBoxes(boxes);
  quoteTweetBoxes(tweetBoxes);
}

/**
 * A task list's boxes as GitHub's markdown writes them (`- [x] done`, `- [ ] to do`): a checkbox
 * that opens a list item (GitHub's, GitLab's, a docs page's checklist) is its mark, where inputs
 * are dropped as a form's and the item read as a plain one. A box elsewhere stays a form's.
 */
function markTaskBoxes(boxes: readonly Element[]): void {
  for (const box of boxes) {
    if (!opensListItem(box)) continue;
    insertBefore(box, new Text(box.attribs.checked !== undefined ? '[x] ' : '[ ] '));
    remove(box);
  }
}

/** Whether nothing but space comes before `el` in the list item that holds it, at most two levels up (`<li><p><input>`; a label is dropped, box and all, as a form's). */
function opensListItem(el: Element): boolean {
  let n: AnyNode = el;
  for (let level = 0; level < 3; level++) {
    for (let b = n.prev; b; b = b.prev) if (!isText(b) || /\S/.test(b.data)) return false;
    const parent: AnyNode | null = n.parent;
    if (!parent || !isElement(parent)) return false;
    if (parent.name === 'li') return true;
    n = parent;
  }
  return false;
}

/** Shows a tab's panel (whatever hid it) under the tab's name in bold. */
function showPanel(panel: Element, tab: Element): void {
  delete panel.attribs.hidden;
  delete panel.attribs['aria-hidden'];
  delete panel.attribs.style;
  const name = textOf(tab).replace(/\s+/g, ' ').trim();
  if (!name) return;
  const label = new Element('p', {});
  const strong = new Element('strong', {});
  prepend(strong, new Text(name));
  prepend(label, strong);
  prepend(panel, label);
}

const hasClass = (el: Element, name: string) => (el.attribs.class ?? '').split(/\s+/).includes(name);

/** The nearest `tabbed-set` holding an element. */
function closestTabbedSet(el: Element): Element | undefined {
  for (let p = el.parent; p; p = p.parent) if (isElement(p) && hasClass(p, 'tabbed-set')) return p;
  return undefined;
}

/** Whether one of `n`'s ancestors is in `set`. */
function hasAncestorIn(n: AnyNode, set: Set<AnyNode>): boolean {
  for (let p = n.parent; p; p = p.parent) if (set.has(p)) return true;
  return false;
}

/**
 * The most text a page may hold besides its comments for its comments to be its content: a
 * discussion's page (Hacker News, a forum) is a title, a line or two and its comments, while an
 * article with comments under it holds its article.
 */
const DISCUSSION_REST_MAX = 1000;

/** The least text of a page's comments that makes it a discussion (not "3 comments" beside a short page). */
const DISCUSSION_MIN = 200;

/** A class or id of a discussion's parts (`comment-tree`, `commtext`, `replies`). */
const DISCUSSION = /comment|repl(y|ies)/i;
/** The class names and ids of a discussion's parts, whole. */
const DISCUSSION_WORDS = /\S*(comment|repl(y|ies))\S*/gi;

/**
 * Removes what is never content. Keeps the body even when its class looks unlikely, and an
 * embedded post's wrapper (`social-media-embed`). Comments are chrome too, except on a page that is
 * a discussion: when everything else kept is little (`DISCUSSION_REST_MAX`), and no `<article>`,
 * they are its content, each apart by a thematic break.
 */
export function prune(doc: Document): { talk: boolean; authors: Authors } {
  unfold(doc);
  // The author names in what is removed, before it is: a post's author is often in a header that
  // reads as chrome. What stays is read only on a thread's page (`findMainContent`).
  const authors: Authors = new Map();
  const embeds = embedHolders(doc);
  // Class names lie sometimes: never prune, by class alone, something holding much of the page's text.
  let pageChars: number | undefined;
  const bigShare = (n: Element) => foldedLength(n) > (pageChars ??= foldedLength(doc)) * 0.3;
  const found = chrome(doc, embeds, bigShare, true);
  let doomed = found.doomed;
  const headers = found.headers;
  let discussion = false;
  if (found.talk.length > 0) {
    const talk = found.talk.reduce((sum, n) => sum + foldedLength(n), 0);
    const rest = (pageChars ??= foldedLength(doc)) - doomed.reduce((sum, n) => sum + foldedLength(n), 0);
    if (rest <= DISCUSSION_REST_MAX && talk >= DISCUSSION_MIN && !hasArticle(doc, found.talk)) {
      discussion = true;
      const kept = new Set<AnyNode>(found.talk);
      doomed = doomed.filter((n) => !kept.has(n));
      addAuthors(doc, authors); // a discussion: its comments' authors, removed or kept
      const names = authorsOf(found.talk, authors);
      found.talk.forEach((n, k) => {
        const inner = chrome(n, embeds, bigShare, false);
        doomed.push(...inner.doomed);
        headers.push(...inner.headers);
        insertBefore(n, new Element('hr', {})); // each comment apart
        const name = names[k];
        if (name) insertBefore(n, authorLine(name));
      });
    }
  }
  for (const n of doomed) addAuthors(n, authors);
  removeAll(doomed);
  // A page header outside the article is chrome; one inside it often holds the headline only.
  const chromeHeaders = headers.filter((h) => {
    for (let p = h.parent; p; p = p.parent) if (isElement(p) && (p.name === 'article' || p.name === 'main')) return false;
    return true;
  });
  for (const n of chromeHeaders) addAuthors(n, authors);
  removeAll(chromeHeaders);
  return { talk: discussion, authors };
}

/**
 * What names a post's author: schema.org's `itemprop="author"` or `rel="author"` (sure), else a
 * class of an author's name (GitHub's and Reddit's `author`, Hacker News' `hnuser`, forums'
 * `username`, Stack Overflow's `user-details`).
 */
const AUTHOR_CLASS = /(?:^|\s)(?:author|username|user-name|hnuser|user-details|user-info|post-author|comment-author|poster)(?:\s|$)/i;
const AUTHOR_NAME_MAX = 60;
/** How many levels above a name an element may be the post it names the author of (a post's wrapper holds its header a few levels up). */
const AUTHOR_LEVELS = 6;

/** The author names under an element, as far as `AUTHOR_LEVELS` up from each, sure ones apart; null where two differ (a thread's whole list). */
interface Names {
  sure?: string | null;
  likely?: string | null;
}
export type Authors = Map<AnyNode, Names>;

/** The most nodes an author element may hold: a name and a link or two (a wrapper of the page's whole text, one of a hostile page's hundreds nested, is none). */
const AUTHOR_NODES_MAX = 64;

/** The name an author element shows: its `itemprop="name"`, its link's text (a profile's), else its text; none past `AUTHOR_NODES_MAX` or `AUTHOR_NAME_MAX`. */
function authorName(el: Element): string | undefined {
  // Its nodes in document order, without reading further than a name's few.
  const nodes: AnyNode[] = [];
  const stack: AnyNode[] = [el];
  while (stack.length > 0) {
    if (nodes.length > AUTHOR_NODES_MAX) return undefined;
    const n = stack.pop()!;
    nodes.push(n);
    if (isElement(n)) for (let i = Math.min(n.children.length, AUTHOR_NODES_MAX + 1) - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  const elements = nodes.filter(isElement);
  const named =
    elements.find((d) => d.attribs.itemprop === 'name') ?? (el.name === 'a' ? el : elements.find((d) => d.name === 'a' && textOf(d).trim() !== '')) ?? el;
  const name = textOf(named).replace(/\s+/g, ' ').trim();
  return name.length > 0 && name.length <= AUTHOR_NAME_MAX ? name : undefined;
}

/**
 * Adds the names of the author elements under `root` to the elements above each (`Names`). A walk of
 * an element read before is harmless: the same name again changes nothing. A walk of the whole page
 * for every page cost prune 10-40% (bench:extract --stages), for the few that are threads.
 */
function addAuthors(root: AnyNode, authors: Authors): void {
  walk(root, (n) => {
    if (!isElement(n)) return;
    const a = n.attribs;
    const sure = a.itemprop === 'author' || (a.rel !== undefined && /(?:^|\s)author(?:\s|$)/i.test(a.rel));
    if (!sure && !(a.class !== undefined && AUTHOR_CLASS.test(a.class))) return;
    const name = authorName(n);
    if (!name) return;
    const key = sure ? 'sure' : 'likely';
    let p = n.parent;
    for (let level = 0; p && level < AUTHOR_LEVELS; level++, p = p.parent) {
      let names = authors.get(p);
      if (!names) authors.set(p, (names = {}));
      const seen = names[key];
      if (seen === undefined) names[key] = name;
      else if (seen !== name) names[key] = null;
    }
    // Its inside is looked into too: a sure name in a likely one (Stack Overflow's `user-details` in its `user-info`).
  });
}

/**
 * Each post's author: the nearest name around it (`AUTHOR_LEVELS` up at most), a sure one before a
 * likely one. None when the nearest holds two (a quote's author in a post), or once an element
 * holds another of the `posts` too: a question without a name is not given its answer's.
 */
function authorsOf(posts: readonly Element[], authors: Authors): (string | undefined)[] {
  // How many posts each element holds, as far as AUTHOR_LEVELS up from each.
  const holds = new Map<AnyNode, number>();
  for (const post of posts) {
    let p = post.parent;
    for (let level = 0; p && level < AUTHOR_LEVELS; level++, p = p.parent) holds.set(p, (holds.get(p) ?? 0) + 1);
  }
  return posts.map((post) => {
    let p: AnyNode | null = post;
    for (let level = 0; p && level <= AUTHOR_LEVELS; level++, p = p.parent) {
      if ((holds.get(p) ?? 0) > (level > 0 ? 1 : 0)) return undefined; // it holds another post
      const names = authors.get(p);
      if (!names) continue;
      if (names.sure) return names.sure;
      return names.likely && names.sure !== null ? names.likely : undefined;
    }
    return undefined;
  });
}

/** A post's author as a line before it: `**alice**:`. */
const authorLine = (name: string) => new Element('p', {}, [new Element('strong', {}, [new Text(name)]), new Text(':')]);

/** The least text of an `<article>` that makes a page an article with comments under it, however short. */
const ARTICLE_MIN = 200;

/** Whether a page has an `<article>` of text besides the comments (`talk`) in it: a blog's short post, its comments under it. */
function hasArticle(doc: Document, talk: Element[]): boolean {
  // The comments' text in each article that holds them, from each comment up once.
  const talkIn = new Map<AnyNode, number>();
  for (const t of talk) {
    const chars = foldedLength(t);
    for (let p = t.parent; p; p = p.parent) if (isElement(p) && p.name === 'article') talkIn.set(p, (talkIn.get(p) ?? 0) + chars);
  }
  return findAll(doc, (el) => el.name === 'article').some((a) => foldedLength(a) - (talkIn.get(a) ?? 0) >= ARTICLE_MIN);
}

/**
 * What under `root` (not `root` itself) is never content, outermost first, and the page headers;
 * `talk` gets what is chrome by a discussion's class alone (when `comments` says comments are chrome).
 */
function chrome(root: AnyNode, embeds: Set<AnyNode>, bigShare: (n: Element) => boolean, comments: boolean): { doomed: AnyNode[]; headers: Element[]; talk: Element[] } {
  const doomed: AnyNode[] = [];
  const headers: Element[] = [];
  const talk: Element[] = [];
  walk(root, (n) => {
    if (n === root) return;
    if (n.type === 'comment' || n.type === 'directive') {
      doomed.push(n);
      return false;
    }
    if (!isElement(n)) return;
    const name = n.name;
    if (name === 'html' || name === 'body') return;
    const a = n.attribs;
    const role = a.role;
    const style = a.style;
    if (
      // A quote's <footer> is its attribution (`— <cite>Hamlet</cite>`), not the page's; a
      // declarative shadow root's <template> is what a browser shows of its element; the caption of
      // a figure of no image (a quote's attribution, a listing's or a table's title) is its text.
      (DROP_TAGS.has(name) &&
        !(name === 'footer' && n.parent !== null && isElement(n.parent) && n.parent.name === 'blockquote') &&
        !(name === 'template' && (a.shadowrootmode !== undefined || a.shadowroot !== undefined)) &&
        !(name === 'figcaption' && n.parent !== null && isElement(n.parent) && n.parent.name === 'figure' && !findFirst(n.parent, (d) => PICTURES.has(d.name)))) ||
      (role !== undefined && DROP_ROLES.test(role)) ||
      (a.class !== undefined && BACKLINK_CLASS.test(a.class)) ||
      a.hidden !== undefined ||
      a['aria-hidden'] === 'true' ||
      (a.class !== undefined && ICON_FONT.test(a.class)) ||
      (style !== undefined && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style) && !holdsHiddenMath(n))
    ) {
      doomed.push(n);
      return false;
    }
    // A counter, whatever else its class says (but a table's): a gallery's "6" over its first photo, a share count;
    // a photo's credit beside its caption (`<cite>Sanjeev Verma/Getty Images</cite>`), as the caption.
    if (isCounter(n) || (name === 'cite' && creditsPicture(n))) {
      doomed.push(n);
      return false;
    }
    // (Without a class or an id there is nothing for the class patterns to match.)
    if (name !== 'article' && name !== 'main' && (a.class !== undefined || a.id !== undefined) && !embeds.has(n)) {
      const h = hint(n);
      const discussion = DISCUSSION.test(h);
      if ((comments || !discussion) && (unlikely(h) || (a.class !== undefined && PLUGIN_CHROME.test(a.class))) && !bigShare(n)) {
        doomed.push(n);
        if (comments && discussion && UNLIKELY.exec(h)?.[0].match(DISCUSSION)) talk.push(n);
        return false;
      }
    }
    if (name === 'header') headers.push(n);
  });
  return { doomed, headers, talk };
}

/**
 * A formula's MathML hidden by its style for its image to show (Wikipedia's `mwe-math-mathml-a11y`,
 * beside an `aria-hidden` image): the one copy of it with its TeX. Only a wrapper of a class naming
 * math is looked into.
 */
const holdsHiddenMath = (el: Element) => /math/i.test(el.attribs.class ?? '') && findFirst(el, (d) => d.name === 'math') !== undefined;

const unlikely = (h: string) => UNLIKELY.test(h) && !MAYBE.test(h);

/** Adds a text's characters (its whitespace runs folded to one space, its ends trimmed) and commas to `s`, without copying it. */
function addText(data: string, s: Stats): void {
  let chars = 0;
  let gap = false; // whitespace since the last character counted
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (isSpace(c)) {
      gap = true;
      continue;
    }
    if (gap && chars > 0) chars++;
    gap = false;
    chars++;
    if (c === 0x2c || c === 0xff0c || c === 0x3001) s.commas++; // , ， 、
  }
  s.chars += chars;
}

/** The length of `textOf(n)` with each run of whitespace folded to one space, counted without making the text. */
function foldedLength(n: AnyNode): number {
  let length = 0;
  let space = false; // the last character counted was a space
  const visit = (m: AnyNode) => {
    if (isText(m)) {
      const data = m.data;
      for (let i = 0; i < data.length; i++) {
        if (!isSpace(data.charCodeAt(i))) {
          length++;
          space = false;
        } else if (!space) {
          length++;
          space = true;
        }
      }
    } else if (m.type === 'tag' || m.type === 'root' || m.type === 'cdata') {
      const kids = children(m);
      for (let i = 0; i < kids.length; i++) visit(kids[i]!);
    }
  };
  visit(n);
  return length;
}

/** Each element's text statistics, bottom-up; `explicit` gets the elements marked as the article's body, in document order. */
function computeStats(root: AnyNode, stats: Map<AnyNode, Stats>, explicit: Element[]): Stats {
  const s: Stats = { chars: 0, linkChars: 0, links: 0, commas: 0, paragraphs: 0, images: 0, listItems: 0 };
  if (isText(root)) {
    addText(root.data, s);
    return s;
  }
  const element = isElement(root);
  if (element && root.attribs.itemprop !== undefined && /articleBody/i.test(root.attribs.itemprop)) explicit.push(root);
  const kids = children(root);
  for (let i = 0; i < kids.length; i++) {
    const c = kids[i]!;
    // A text adds to its parent's counts directly: no statistics of its own are kept.
    if (isText(c)) {
      addText(c.data, s);
      continue;
    }
    const cs = computeStats(c, stats, explicit);
    s.chars += cs.chars;
    s.linkChars += cs.linkChars;
    s.links += cs.links;
    s.commas += cs.commas;
    s.paragraphs += cs.paragraphs;
    s.images += cs.images;
    s.listItems += cs.listItems;
  }
  if (element) {
    if (root.name === 'a') {
      s.linkChars = s.chars;
      s.links++;
    }
    else if (root.name === 'p') s.paragraphs++;
    else if (root.name === 'img') s.images++;
    else if (root.name === 'li') s.listItems++;
    stats.set(root, s);
  }
  return s;
}

const linkDensity = (s: Stats) => (s.chars === 0 ? 0 : s.linkChars / s.chars);

/** The text of an element's own children that are no blocks: its text nodes and inline elements. */
function looseText(el: Element, stats: Map<AnyNode, Stats>): Stats {
  const s: Stats = { chars: 0, linkChars: 0, links: 0, commas: 0, paragraphs: 0, images: 0, listItems: 0 };
  for (const c of children(el)) {
    if (isText(c)) addText(c.data, s);
    else if (isElement(c) && !BLOCK.has(c.name)) {
      const cs = stats.get(c);
      if (cs) {
        s.chars += cs.chars;
        s.commas += cs.commas;
      }
    }
  }
  return s;
}

function hasBlockChild(el: Element): boolean {
  return children(el).some((c) => isElement(c) && BLOCK.has(c.name));
}

function initialScore(el: Element, talk: boolean): number {
  switch (el.name) {
    case 'div':
    case 'article':
    case 'main':
    case 'section':
      return 5 + classWeight(el, talk);
    case 'pre':
    case 'td':
    case 'blockquote':
      return 3 + classWeight(el, talk);
    case 'address':
    case 'ol':
    case 'ul':
    case 'dl':
    case 'dd':
    case 'dt':
    case 'li':
      return -3 + classWeight(el, talk);
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
    case 'th':
      return -5 + classWeight(el, talk);
    default:
      return classWeight(el, talk);
  }
}

/**
 * What `cleanContent` learns of a parent once for all its children (a page of 20,000 links in one
 * element asked each link of its 40,000 siblings): whether it holds text and a block.
 */
type Parents = Map<AnyNode, { text: boolean; block: boolean }>;

function parentFacts(parent: AnyNode, parents: Parents): { text: boolean; block: boolean } {
  let facts = parents.get(parent);
  if (!facts) {
    facts = { text: children(parent).some((k) => isText(k) && /\S/.test(k.data)), block: isElement(parent) && hasBlockChild(parent) };
    parents.set(parent, facts);
  }
  return facts;
}

/** Whether an element stands in a sentence: text beside it, in its parent. */
function inRunningText(el: Element, parents: Parents): boolean {
  return el.parent !== null && parentFacts(el.parent, parents).text;
}

/** The shortest paragraph without links that shows a link-dense container holds text of its own. */
const OWN_PARAGRAPH_MIN = 80;

/** Whether an element holds a block of text without links, of `OWN_PARAGRAPH_MIN` characters or more. */
function ownParagraph(el: Element, stats: Map<AnyNode, Stats>): boolean {
  return (
    findFirst(el, (d) => {
      if (d === el || !BLOCK.has(d.name)) return false;
      const s = stats.get(d);
      return s !== undefined && s.chars >= OWN_PARAGRAPH_MIN && s.linkChars === 0;
    }) !== undefined
  );
}

/**
 * A paragraph of headlines, links with a few words between them (a "DON'T MISS" box of three other
 * stories): at least this much of its text in links...
 */
const LINK_PARAGRAPH_DENSITY = 0.7;
/** ...at most this many characters outside them... */
const LINK_PARAGRAPH_WORDS = 40;
/**
 * ...and at least this many links, of this many characters each on average: headlines or
 * addresses, not names ("Follow us on Facebook, Twitter and Instagram", a list of accounts).
 */
const LINK_PARAGRAPH_LINKS = 3;
const HEADLINE_CHARS = 20;

/** Whether a paragraph's links are headlines: `LINK_PARAGRAPH_LINKS` or more, of `HEADLINE_CHARS` each on average. */
const headlines = (s: Stats) => s.links >= LINK_PARAGRAPH_LINKS && s.linkChars / s.links >= HEADLINE_CHARS;

/** Whether a heading introduces what follows it: h2 to h6 of a few words ending in a colon ("More:"). */
const isShortHeading = (el: AnyNode, stats: Map<AnyNode, Stats>) =>
  isElement(el) && /^h[2-6]$/.test(el.name) && (stats.get(el)?.chars ?? 0) <= 60 && /:\s*$/.test(textOf(el));

/** The element before `n` among its siblings, past whitespace. */
function elementBefore(n: AnyNode): AnyNode | null {
  let p = n.prev;
  while (p && isText(p) && !/\S/.test(p.data)) p = p.prev;
  return p;
}

/** The fewest links a hover card holds (a span of an emoji and a link in a sentence is none). */
const HOVER_CARD_LINKS = 3;

/**
 * Whether a span inside a paragraph is a hover card, which a browser shows only under the pointer:
 * an image and links (The Hill's card of a person named in a sentence, her photo and her latest
 * stories, read as "Gov. Kristi NoemKristi Lynn NoemSouth Dakota governor doubles down...").
 * `cleanContent` removes the innermost such span, so the name the sentence reads stays.
 */
function hoverCard(span: Element, stats: Map<AnyNode, Stats>): boolean {
  const s = stats.get(span);
  return s !== undefined && s.images > 0 && s.links >= HOVER_CARD_LINKS && ancestor(span, (p) => p.name === 'p', 6) !== undefined;
}

/** Where a link is the content's own: a list's item, a table's cell, a heading. */
const LINK_HOLDERS = new Set(['li', 'td', 'th', 'dt', 'dd', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'figure', 'blockquote']);

/**
 * Whether a link of text stands as a block of its own among the content's blocks, in no sentence:
 * a teaser for another story (`<a class="read-more-big">` of its section and headline, between
 * paragraphs), which reads as one link, whole.
 */
function blockLink(a: Element, stats: Map<AnyNode, Stats>, parents: Parents): boolean {
  const parent = a.parent;
  if (!parent || !isElement(parent) || LINK_HOLDERS.has(parent.name) || (stats.get(a)?.chars ?? 0) === 0) return false;
  const facts = parentFacts(parent, parents);
  return !facts.text && facts.block;
}

/** Removes link lists, forms, image galleries and fragments that survived inside the content. */
function cleanContent(root: Element, stats: Map<AnyNode, Stats>, talk: boolean): void {
  const doomed: Element[] = [];
  // The link lists removed: a short heading right before one ("More:") introduced it, and goes too.
  const linkLists: Element[] = [];
  const parents: Parents = new Map();
  const embeds = embedHolders(root);
  walk(root, (n) => {
    if (n === root || !isElement(n)) return;
    if (n.name === 'a' && blockLink(n, stats, parents) && !embeds.has(n)) {
      doomed.push(n);
      return false;
    }
    if (!CLEANED.has(n.name) || embeds.has(n)) return; // an embedded post links to its author and date: no link list
    if (isFootnotes(n)) return false; // kept whole: its items are sources, as link-dense as chrome
    const s = stats.get(n);
    if (!s) return;
    if (n.name === 'span' && hoverCard(n, stats) && !findFirst(n, (d) => d !== n && d.name === 'span' && hoverCard(d, stats))) {
      doomed.push(n);
      return false;
    }
    const weight = classWeight(n, talk);
    const ld = linkDensity(s);
    if (n.name === 'p' || n.name === 'span') {
      // A paragraph that is only a link ("Read more", "Share on ...") is chrome; a span around a
      // link in a sentence ("as <span><a>the paper</a></span> says") is not. A paragraph of
      // links with a few words between them, headlines of other stories, is chrome too.
      if (s.chars > 0 && ld > 0.9 && (s.chars < 120 || (n.name === 'p' && s.links === 1)) && !(n.name === 'span' && inRunningText(n, parents))) {
        doomed.push(n);
        return false;
      }
      if (n.name === 'p' && ld >= LINK_PARAGRAPH_DENSITY && s.chars - s.linkChars <= LINK_PARAGRAPH_WORDS && headlines(s)) {
        doomed.push(n);
        linkLists.push(n);
        return false;
      }
      return;
    }
    if (s.commas >= 10) return;
    // A discussion's story (a title link, its points and links, its text) is as link-dense as
    // chrome; its own paragraph, without links, says it is not.
    if (talk && ownParagraph(n, stats)) return;
    const isList = n.name === 'ul' || n.name === 'ol';
    if (
      weight < 0 ||
      (s.images > 1 && s.paragraphs / s.images < 0.5 && s.chars < 200) ||
      (!isList && s.listItems > s.paragraphs + 5 && ld > 0.3) ||
      (weight < 25 && ld > 0.33 && s.chars < 1000) ||
      (weight >= 25 && ld > 0.5) ||
      (isList && ld > 0.6)
    ) {
      doomed.push(n);
      if (weight >= 0 && ld > 0.33) linkLists.push(n);
      return false;
    }
  });
  for (const list of linkLists) {
    const before = elementBefore(list);
    if (before && isShortHeading(before, stats)) doomed.push(before as Element);
  }
  removeAll(doomed);
}

/** A WordPress shortcode a site left unrendered in its text: `[button link="..." type="big"]` with one attribute or more, and `[/button]`. */
const SHORTCODE =
  /\[[a-z][\w-]*(?:\s+[\w-]+\s*=\s*(?:"[^"\]]*"|[\u201c\u201d\u2033][^\u201c\u201d\u2033\]]*[\u201c\u201d\u2033]|'[^'\]]*'|[\u2018\u2019][^\u2018\u2019\]]*[\u2018\u2019]|[^\s"'\]]+))+\s*\/?\]|\[\/[a-z][\w-]*\]/gi;

/** Takes a site's unrendered shortcodes (`SHORTCODE`) out of the text under `root`, not out of code. */
export function withoutShortcodes(root: AnyNode): void {
  walk(root, (n) => {
    if (isElement(n)) return n.name !== 'pre' && n.name !== 'code' && n.name !== 'script' && n.name !== 'style';
    if (isText(n) && n.data.includes('[')) n.data = n.data.replace(SHORTCODE, '');
  });
}

export interface MainContent {
  /** Container(s) in document order. */
  nodes: Element[];
}

/** `talk`: the page is a discussion (`prune`), its comments its content; `authors`: the page's author names (`prune`), for a thread's posts. */
export function findMainContent(doc: Document, talk = false, authors: Authors = new Map()): MainContent {
  const stats = new Map<AnyNode, Stats>();
  const explicit: Element[] = [];
  computeStats(doc, stats, explicit);
  const body = (findFirst(doc, (el) => el.name === 'body') ?? doc) as Element;

  const explicitChars = explicit.reduce((n, el) => n + (stats.get(el)?.chars ?? 0), 0);
  if (explicit.length > 0 && explicitChars >= 250) {
    for (const el of explicit) cleanContent(el, stats, talk);
    return { nodes: explicit };
  }

  const scores = new Map<Element, number>();
  const add = (el: Element | null | undefined, v: number) => {
    if (!el || !isElement(el) || el.name === 'html') return;
    scores.set(el, (scores.get(el) ?? initialScore(el, talk)) + v);
  };
  /** Scores a paragraph of `s` to `parent`, and less to the two above it. */
  const credit = (parent: Element, s: Stats) => {
    if (s.chars < 25) return;
    const score = 1 + s.commas + Math.min(Math.floor(s.chars / 100), 3);
    add(parent, score);
    add(parent?.parent as Element, score / 2);
    add(parent?.parent?.parent as Element, score / 3);
  };
  walk(body, (n) => {
    if (!isElement(n)) return;
    const division = n.name === 'div' || n.name === 'section';
    if (SCORED.has(n.name) || (division && !hasBlockChild(n))) {
      credit(n.parent as Element, stats.get(n)!);
    } else if (division) {
      // Its own text beside its blocks (an article written as text and <br>s under its heading
      // paragraph) is a paragraph of it.
      credit(n, looseText(n, stats));
    }
  });
  let top: Element | undefined;
  let best = -Infinity;
  for (const [el, raw] of scores) {
    const v = raw * (1 - linkDensity(stats.get(el)!));
    scores.set(el, v);
    if (v > best) {
      best = v;
      top = el;
    }
  }
  if (!top || (stats.get(top)?.chars ?? 0) < 140) {
    const fallback = findAll(body, (el) => el.name === 'article' || el.name === 'main')[0] ?? body;
    cleanContent(fallback, stats, talk);
    return { nodes: [fallback] };
  }
  // A top candidate that is nearly all of its parent's text (98%, tuned on the extraction benchmark):
  // the parent is the same content with its wrapper, and the better container.
  for (let parent = top.parent as Element | null; parent && isElement(parent) && parent.name !== 'body'; parent = parent.parent as Element | null) {
    const ps = stats.get(parent)!;
    const ts = stats.get(top)!;
    if (ts.chars / Math.max(1, ps.chars) < 0.98 || linkDensity(ps) > 0.3) break;
    top = parent;
  }

  const threshold = Math.max(10, best * 0.2);
  const nodes: Element[] = [];
  const siblings = top.parent ? children(top.parent) : [top];
  for (const sib of siblings) {
    if (!isElement(sib)) continue;
    if (sib === top) {
      nodes.push(sib);
      continue;
    }
    const s = stats.get(sib);
    if (!s || s.chars === 0) continue;
    const bonus = hint(sib).trim() && hint(sib) === hint(top) ? best * 0.2 : 0;
    const score = (scores.get(sib) ?? 0) + bonus;
    const ld = linkDensity(s);
    if (score >= threshold || (sib.name === 'p' && ((s.chars > 80 && ld < 0.25) || (s.chars > 0 && ld === 0)))) nodes.push(sib);
  }
  const { all, posts } = withRepeatedPosts(body, top, nodes, stats);
  if (posts.length > 0) addAuthors(body, authors); // a thread: the names pruning left, before cleaning takes any
  for (const n of all) cleanContent(n, stats, talk);
  if (posts.length === 0) return { nodes: all };
  // A thread's posts, each after its author's name.
  const found = authorsOf(posts, authors);
  const names = new Map(posts.map((post, k) => [post, found[k]]));
  return { nodes: all.flatMap((n) => (names.get(n) ? [authorLine(names.get(n)!), n] : [n])) };
}

/**
 * The chosen nodes with the other posts of a thread: elements elsewhere of the top candidate's own
 * class (a question and its answers, a forum topic's replies, each a `div.post-body` in a wrapper
 * that holds its votes and its author, so no sibling of another), in document order, a thematic
 * break between two posts. Only a class that reads as content (`classWeight`) is one of posts:
 * layout classes (`grid`, `row`) repeat over a whole page.
 */
function withRepeatedPosts(body: Element, top: Element, nodes: Element[], stats: Map<AnyNode, Stats>): { all: Element[]; posts: Element[] } {
  const cls = classList(top);
  if (!cls || classWeight(top) <= 0) return { all: nodes, posts: [] };
  const chosen = new Set<AnyNode>(nodes);
  const holders = new Set<AnyNode>();
  for (const n of nodes) for (let p = n.parent; p && !holders.has(p); p = p.parent) holders.add(p);
  const all: Element[] = [];
  const others: Element[] = [];
  let lastPost = false; // the last element taken was another post
  walk(body, (n) => {
    if (!isElement(n)) return;
    if (chosen.has(n)) {
      if (lastPost) all.push(new Element('hr', {}));
      all.push(n);
      lastPost = false;
      return false;
    }
    if (holders.has(n) || n.name !== top.name || classList(n) !== cls) return;
    const s = stats.get(n);
    if (s && s.chars > 0 && linkDensity(s) < 0.5) {
      if (all.length > 0) all.push(new Element('hr', {}));
      all.push(n);
      others.push(n);
      lastPost = true;
      return false;
    }
  });
  // The posts of a thread: the chosen container among them (by document order).
  const isPost = new Set<AnyNode>(others);
  return { all, posts: others.length === 0 ? [] : all.filter((n) => n === top || isPost.has(n)) };
}

/** An element's class names, each once space apart. */
const classList = (el: Element) => (el.attribs.class ?? '').trim().replace(/\s+/g, ' ');
