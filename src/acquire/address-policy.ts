/**
 * Which addresses outbound fetches may reach: public unicast only. Loopback, private, link-local
 * (cloud metadata at 169.254.169.254 included), CGNAT, multicast, reserved and documentation ranges
 * are refused, in IPv4 and IPv6, including IPv4 addresses embedded in IPv6 (mapped, compatible,
 * NAT64, 6to4).
 */
import { BlockList, isIP } from 'node:net';

const v4 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  v4.addSubnet(net, bits, 'ipv4');
}

const v6 = new BlockList();
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  v6.addSubnet(net, bits, 'ipv6');
}

/** Expands an IPv6 address to its eight 16-bit groups. */
function groups(address: string): number[] | undefined {
  let a = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const p = dotted[1]!.split('.').map(Number);
    a = `${a.slice(0, -dotted[1]!.length)}${((p[0]! << 8) | p[1]!).toString(16)}:${((p[2]! << 8) | p[3]!).toString(16)}`;
  }
  const [head, tail] = a.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = 8 - h.length - t.length;
  if (tail === undefined ? h.length !== 8 : missing < 0) return undefined;
  const all = [...h, ...Array(tail === undefined ? 0 : missing).fill('0'), ...t].map((x) => Number.parseInt(x, 16));
  return all.length === 8 && all.every((n) => n >= 0 && n <= 0xffff) ? all : undefined;
}

function embeddedV4(address: string): string | undefined {
  const g = groups(address);
  if (!g) return undefined;
  const v4From = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4From(g[6]!, g[7]!); // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 6)) return v4From(g[6]!, g[7]!); // ::a.b.c.d (compatible)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4From(g[6]!, g[7]!); // 64:ff9b::/96 (NAT64)
  if (g[0] === 0x2002) return v4From(g[1]!, g[2]!); // 2002::/16 (6to4)
  return undefined;
}

/** True when an outbound connection to this literal address must be refused. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return v4.check(bare, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedV4(bare);
  // An IPv4 address inside IPv6 is judged as that IPv4 address (`::1` is 0.0.0.1: refused too).
  if (inner !== undefined) return v4.check(inner, 'ipv4');
  return v6.check(bare, 'ipv6');
}
