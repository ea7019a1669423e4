import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ipLimitKey } from '../../src/access/limits.js';

test('the subject of a per-IP limit: IPv4 as it is, IPv4-mapped as IPv4, IPv6 by its /64 in any spelling', () => {
  const cases: [string, string][] = [
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['::FFFF:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::a:b:c:d:192.0.2.7', '0:0:a:b::/64'],
  ];
  for (const [ip, key] of cases) assert.equal(ipLimitKey(ip), key, ip);
});
