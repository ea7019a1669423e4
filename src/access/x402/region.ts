/**
 * Where pay-per-request is not offered (SPEC 7, 451): Cuba, Iran, North Korea, Syria, and the
 * Crimea, Sevastopol, Donetsk and Luhansk regions of Ukraine. The place comes from a header set by
 * a trusted proxy when one is configured, else from the geoip-lite database (loaded on first use:
 * it is large).
 */
import { createRequire } from 'node:module';

const BLOCKED_COUNTRIES = new Set(['CU', 'IR', 'KP', 'SY']);
/** ISO 3166-2:UA codes (as geoip-lite reports them, and with the UA- prefix as proxies often send them). */
const BLOCKED_UA_REGIONS = new Set(['43', '40', '14', '09']);

export interface Place {
  country?: string;
  region?: string;
}

export function isBlockedPlace(p: Place): boolean {
  const country = p.country?.trim().toUpperCase();
  if (!country) return false;
  if (BLOCKED_COUNTRIES.has(country)) return true;
  if (country !== 'UA' || !p.region) return false;
  const region = p.region.trim().toUpperCase().replace(/^UA-/, '');
  return BLOCKED_UA_REGIONS.has(region);
}

type Lookup = (ip: string) => { country: string; region: string } | null;
let lookup: Lookup | undefined;

/** geoip-lite's country and region of an IP address; undefined for private or unknown addresses. */
export function placeOfIp(ip: string): Place | undefined {
  if (!lookup) {
    const require = createRequire(import.meta.url);
    lookup = (require('geoip-lite') as { lookup: Lookup }).lookup;
  }
  const found = lookup(ip.replace(/^::ffff:/, ''));
  return found ? { country: found.country, region: found.region } : undefined;
}
