/** URL normal form used as the identity of a page: the same page always gets the same key. */

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
  return u.toString();
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

/** The host reversed label by label (`www.example.com` -> `com.example.www.`), so subdomains share a prefix. */
export function reverseHost(host: string): string {
  return `${host.split('.').reverse().join('.')}.`;
}
