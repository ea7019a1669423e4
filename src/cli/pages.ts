/**
 * `websearch pages remove|allow|removed`: pages taken out of the index on request (a takedown, an
 * erasure, a page published by mistake) and kept out (README, the `websearch pages remove` command).
 */
import { createServices } from '../config/services.js';
import { normalizeUrl, parseSiteFilter, urlTwins } from '../core/url.js';
import type { Removal } from '../ports/page-store.js';
import { parse, settingsFrom, UsageError } from './args.js';

const USAGE = 'usage: websearch pages remove <url>... [--site <host>] [--reason <text>] | pages allow <url>... [--site <host>] | pages removed';
const REASON_MAX = 500;

/**
 * The URLs of a removal, each with its other spellings (`urlTwins`: the other scheme, `www.`, a
 * trailing slash), which are one page to a reader: a takedown of one must not leave another to a
 * later crawl, nor to fetch's lookup of twins.
 */
function removalOf(urls: readonly string[], site: unknown): Removal {
  const normal = urls.flatMap((u) => {
    const n = normalizeUrl(u);
    if (!n) throw new UsageError(`${u}: not an http(s) URL`);
    return [n, ...urlTwins(n)];
  });
  let host: string | undefined;
  if (site !== undefined) {
    host = parseSiteFilter(String(site));
    if (!host) throw new UsageError(`--site ${String(site)}: a bare host name, as search's site takes (its subdomains go with it)`);
  }
  if (normal.length === 0 && host === undefined) throw new UsageError(USAGE);
  return { urls: [...new Set(normal)], ...(host === undefined ? {} : { site: host }) };
}

function reasonOf(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const reason = String(v).trim();
  // Printed back by `pages removed`: a terminal's escape sequences are not stored.
  if ([...reason].length > REASON_MAX || /\p{Cc}/u.test(reason)) throw new UsageError(`--reason is at most ${REASON_MAX} characters, none of them control characters`);
  return reason || undefined;
}

export async function pagesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { site: { type: 'string' }, reason: { type: 'string' } });
  const [action, ...rest] = positionals;
  if (action === 'removed' ? rest.length > 0 || values.site !== undefined : action !== 'remove' && action !== 'allow') throw new UsageError(USAGE);
  const removal = action === 'removed' ? undefined : removalOf(rest, values.site);
  const reason = reasonOf(values.reason);
  const services = await createServices(settingsFrom(values));
  const out = (human: string, json: unknown) => process.stdout.write(`${values.json ? JSON.stringify(json) : human}\n`);
  try {
    const { pages } = services;
    // Shared through PostgreSQL, the command acts on every machine through the page log.
    const everywhere = services.sharedPages ? '; the other machines sharing the page log do the same as they sync' : '';
    if (action === 'remove') {
      const gone = await pages.removePages(removal!, Date.now(), reason);
      const what = `${gone.pages} page${gone.pages === 1 ? '' : 's'} (${gone.versions} version${gone.versions === 1 ? '' : 's'})`;
      const erased = gone.erased === undefined ? '' : `; the text of ${gone.erased} version${gone.erased === 1 ? '' : 's'} erased from the page log`;
      out(`removed ${what} from the index${erased}; not stored again until \`websearch pages allow\`${everywhere}`, gone);
    } else if (action === 'allow') {
      const lifted = await pages.allowPages(removal!);
      out(`${lifted} removal${lifted === 1 ? '' : 's'} lifted: those pages may be stored again${everywhere}`, { lifted });
    } else {
      const list = await pages.removals();
      if (values.json) out('', list);
      else for (const r of list) out(`${r.kind}\t${r.value}\t${new Date(r.removedAt).toISOString()}${r.reason ? `\t${r.reason}` : ''}`, r);
    }
    return 0;
  } finally {
    await services.close();
  }
}
