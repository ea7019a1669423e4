/** URL normal form used as the identity of a page: the same page always gets the same key. */
import { domainToASCII } from 'node:url';

/** Parses and normalises an absolute http(s) URL; undefined for anything else. */
export function normalizeUrl(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (!u.hostname) return undefined;
  u.hash = '';
  u.username = '';
  u.password = '';
  // WHATWG URL already lowercases the host, removes default ports and resolves dot segments.
  if (u.hostname.endsWith('.')) u.hostname = u.hostname.slice(0, -1);
  // A host with an empty label (`a..b`, `a..`) names nothing DNS can answer for.
  if (u.hostname.split('.').includes('')) return undefined;
  if (u.pathname.includes('%')) u.pathname = normalEscapes(u.pathname);
  if (u.pathname.includes(';')) u.pathname = u.pathname.replace(SESSION_PATH_PARAM, '');
  if (u.search.includes('%')) u.search = normalEscapes(u.search);
  if (u.search === '' || TRACKING.test(u.search)) u.search = withoutTracking(u.search);
  return u.toString();
}

/**
 * Percent-escapes in their normal form (RFC 3986 6.2.2): an escaped unreserved character (a
 * letter, a digit, `-`, `.`, `_`, `~`) as the character, any other escape in upper case. URLs
 * that differ only there name the same resource, and links write them every way (`/%7Euser/`
 * and `/~user/`; `%c3%a9` and `%C3%A9`), where WHATWG URL leaves escapes as they were written.
 * A query's `url:` prefix and `inurl:` text are read so too, as the URLs they are compared with.
 */
export function normalEscapes(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (escape: string, hex: string) => {
    const c = Number.parseInt(hex, 16);
    return isUnreserved(c) ? String.fromCharCode(c) : escape.toUpperCase();
  });
}

/**
 * A `url:` prefix as stored URLs write theirs: the scheme and the host in lower case, a host the
 * path follows in its ASCII form (`bücher.example/` is `xn--bcher-kva.example/`; a host cut short
 * is left, its ASCII form being no prefix of the whole's), and the escapes in their normal form.
 * Only what a prefix holds is read: the rest of a URL's normal form needs the whole URL.
 */
export function normalUrlPrefix(prefix: string): string {
  const [, scheme = '', authority = '', rest = ''] = /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#]*)([\s\S]*)$/i.exec(prefix)!;
  let host = authority.toLowerCase();
  if (rest !== '' && /[\u0080-\uffff]/.test(host)) {
    const [, name = '', port = ''] = /^(.*?)((?::\d*)?)$/.exec(host)!;
    const ascii = domainToASCII(name);
    if (ascii !== '') host = ascii + port;
  }
  return scheme.toLowerCase() + host + normalEscapes(rest);
}

/** Whether a character code is RFC 3986's `unreserved`: ALPHA, DIGIT, `-`, `.`, `_`, `~`. */
function isUnreserved(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}

/**
 * A Java servlet's session id as a path parameter (`/cart;jsessionid=0A1B2C?x=1`): a session's,
 * never the page's. A site that puts it in its links would have each visit's pages as other pages.
 */
const SESSION_PATH_PARAM = /;jsessionid=[^/;]*/gi;

/**
 * Query parameters that say where a visitor came from, or which session they are in, never what
 * the page holds: campaign tags (`utm_*`), ad click ids (Google, Microsoft, Meta, Yandex, TikTok,
 * X, LinkedIn), Mailchimp's and HubSpot's mail ids, Google Analytics' linker, and the session ids
 * of Java servlets, PHP and ColdFusion (`jsessionid`, `phpsessid`, `cfid` and `cftoken`). A link
 * shared from a newsletter carries them, a crawl of a site that keeps sessions in its links meets
 * them on every page, and the page they name is the one without them: one page, one key.
 */
const TRACKING_PARAMS =
  'utm_[a-z0-9_]*|fbclid|gclid|gclsrc|dclid|gbraid|wbraid|msclkid|yclid|ttclid|twclid|li_fat_id|igshid|mc_cid|mc_eid|_hsenc|_hsmi|_ga|_gl|mkt_tok|jsessionid|phpsessid|cfid|cftoken';
const TRACKING_NAMES = new RegExp(`^(?:${TRACKING_PARAMS})$`, 'i');
/** Whether a query may hold one of them (the query is then rewritten). */
const TRACKING = new RegExp(`[?&](?:${TRACKING_PARAMS})`, 'i');

/**
 * A query (`?a=1&b=2`, as URL's `search` gives it) without its tracking parameters, the others left
 * as they were written (URLSearchParams would encode them anew: `a%20b` as `a+b`, `?a` as `?a=`);
 * empty, so that no `?` is left, when nothing else remains.
 */
function withoutTracking(search: string): string {
  const kept = search
    .slice(1)
    .split('&')
    .filter((pair) => !TRACKING_NAMES.test(pair.split('=', 1)[0]!)); // names as written: no page escapes these
  return kept.length === 0 || (kept.length === 1 && kept[0] === '') ? '' : `?${kept.join('&')}`;
}

const LABEL_RE = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A `site` filter value: a bare host name (no scheme, path, port or credentials). Returns the
 * lowercase ASCII (punycode) form, or undefined when the value is not a host name.
 */
export function parseSiteFilter(raw: string): string | undefined {
  const value = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!value || value.length > 253 || /[/:@?#\s\\]/.test(value)) return undefined;
  let host: string;
  try {
    host = new URL(`http://${value}`).hostname;
  } catch {
    return undefined;
  }
  if (host.startsWith('[')) return undefined;
  const labels = host.split('.');
  if (!labels.every((l) => LABEL_RE.test(l))) return undefined;
  return host;
}

/** Whether `host` is `site` or one of its subdomains, as the site filter and a site's removal match. */
export function hostInSite(host: string, site: string): boolean {
  return host === site || host.endsWith(`.${site}`);
}

/** The host reversed label by label (`www.example.com` -> `com.example.www.`), so subdomains share a prefix. */
export function reverseHost(host: string): string {
  return `${host.split('.').reverse().join('.')}.`;
}

/** The host `reverseHost` reversed (`com.example.www.` -> `www.example.com`). */
export function hostOfReversed(reversed: string): string {
  return reversed.slice(0, -1).split('.').reverse().join('.');
}

/** The reversed hosts of a site and its subdomains, as a range: [`com.example.`, `com.example/`) ('/' follows '.'). */
export function reversedSiteRange(host: string): [from: string, to: string] {
  const rev = reverseHost(host);
  return [rev, `${rev.slice(0, -1)}/`];
}

/**
 * Other spellings of a normal URL that sites redirect to one another, nearest first: the other
 * scheme (http and https), the path with or without its trailing slash, the host with or without
 * `www.`, and their combinations. A site answers at one of them; a link or a person may write any.
 * Fetch looks them up when the URL itself is not in the index.
 */
export function urlTwins(url: string): string[] {
  const u = new URL(url);
  const flips: ((v: URL) => boolean)[] = [
    (v) => {
      v.protocol = v.protocol === 'https:' ? 'http:' : 'https:';
      return true;
    },
    (v) => {
      if (v.pathname === '/') return false;
      v.pathname = v.pathname.endsWith('/') ? v.pathname.slice(0, -1) : `${v.pathname}/`;
      return true;
    },
    (v) => {
      if (/^[\d.]+$|^\[/.test(v.hostname)) return false; // an address has no www
      v.hostname = v.hostname.startsWith('www.') ? v.hostname.slice(4) : `www.${v.hostname}`;
      return true;
    },
  ];
  const twins: string[] = [];
  // Each subset of the flips, by how many it makes: one change before two, two before three.
  const subsets = [1, 2, 4, 3, 5, 6, 7];
  for (const mask of subsets) {
    const v = new URL(u);
    if (!flips.every((flip, i) => !(mask & (1 << i)) || flip(v))) continue;
    const twin = normalizeUrl(v.toString());
    if (twin && twin !== url && !twins.includes(twin)) twins.push(twin);
  }
  return twins;
}

/** Where the first of `stops` is in `url` from `start` on, or the URL's length. */
function firstOf(url: string, stops: readonly string[], start: number): number {
  let end = url.length;
  for (const stop of stops) {
    const at = url.indexOf(stop, start);
    if (at >= 0 && at < end) end = at;
  }
  return end;
}

/** A normalized URL's host and port as written in it (`https://a.org:8443/x` is `a.org:8443`). */
export function urlAuthority(url: string): string {
  const start = url.indexOf('//') + 2;
  return url.slice(start, firstOf(url, ['/', '?', '#'], start));
}

/**
 * The type a URL names its file by: what follows the last `.` of its path's last segment, in lower
 * case (`https://a.org/docs/Report.PDF?dl=1` is `pdf`), or undefined (no dot there, or no path:
 * `https://a.org/dir.d/`, `https://report.pdf/`). `filetype:` compares it.
 */
export function urlFileType(url: string): string | undefined {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return undefined;
  const end = firstOf(url, ['?', '#'], start);
  const segment = url.slice(url.lastIndexOf('/', end - 1) + 1, end);
  const dot = segment.lastIndexOf('.');
  return dot < 0 || dot === segment.length - 1 ? undefined : segment.slice(dot + 1).toLowerCase();
}
