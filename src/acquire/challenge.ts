/** Recognises a bot challenge or a login wall, which is not the page's content and is never stored. */

const CHALLENGE =
  /cf-browser-verification|cf_chl_|challenge-platform|<title>\s*just a moment\.\.\.|attention required! \| cloudflare|checking your browser before accessing|ddos protection by|captcha-delivery\.com|px-captcha|_incapsula_resource|verify you are (a )?human|are you a robot\?|please enable (javascript|cookies) (and|to) (continue|proceed)/i;

export function looksBlocked(status: number, html: string, contentChars: number): boolean {
  const head = html.slice(0, 200_000);
  if (CHALLENGE.test(head) && (status >= 400 || contentChars < 2000)) return true;
  // A login wall: a password field and hardly anything else to read.
  return contentChars < 600 && /<input[^<>]+type\s*=\s*["']?password/i.test(head) && /(sign|log) ?in/i.test(head);
}

/** A host that only asks a visitor to accept cookies (Google's, YouTube's, Yahoo's, AOL's): `consent.*`, Yahoo's `guce.*`. */
const CONSENT_HOST = /^(consent|guce)\./i;

/**
 * Whether a request was redirected to a consent page (`www.youtube.com/...` to
 * `consent.youtube.com/...`, as sites do for visitors from the EU): its text is the cookie
 * banner's, not the page's. A consent page asked for by its own URL is read as any page.
 */
export function redirectedToConsent(requestedUrl: string, url: string): boolean {
  try {
    return CONSENT_HOST.test(new URL(url).hostname) && !CONSENT_HOST.test(new URL(requestedUrl).hostname);
  } catch {
    return false;
  }
}
