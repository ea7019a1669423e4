/**
 * Test vectors for the storefront signature. Ours, cross-checked with Python's hmac module; when the
 * storefront publishes its own, they replace these (and canonicalString, if they differ).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  canonicalString,
  legacySignature,
  parseSignatureHeader,
  sign,
  verifyForward,
  verifyLegacy,
} from '../../src/access/storefront/signature.js';

const parts = {
  timestamp: '1795000000',
  method: 'post',
  pathAndQuery: '/v1/zeroclick/search?x=1',
  rawBody: '{"query":"rust"}',
  requestId: 'zcreq_123',
  agentId: 'agt_42',
};
const SECRET = 'vector-secret-0123456789';

test('canonical string: six newline-joined fields, method upper-cased', () => {
  assert.equal(canonicalString(parts).toString('utf8'), '1795000000\nPOST\n/v1/zeroclick/search?x=1\n{"query":"rust"}\nzcreq_123\nagt_42');
});

test('HMAC-SHA256 vectors (agent present; anonymous probe with an empty agent id)', () => {
  assert.equal(sign(SECRET, parts), 'eaf929a004def9e203db6267f368703dc45ac0b78bb4fef8c615f6533928da51');
  assert.equal(sign(SECRET, { ...parts, agentId: '' }), 'f6023bcd81766c8564aee7102eba2315fda2ef47e3ccd60a3ae58db907876578');
});

test('the body is signed as the bytes it came in: one that is not UTF-8 (Latin-1 é) keeps its own signature', () => {
  const latin1 = Buffer.from('{"query":"caf\u00e9"}', 'latin1');
  const vector = 'df6cb1246d2704b67c440535c76bfbab20a5c832f64037aa6075623c0c2ae95e'; // Python's hmac over the same bytes
  assert.equal(sign(SECRET, { ...parts, rawBody: latin1 }), vector);
  // Read as text, the byte 0xE9 becomes U+FFFD, and so would any other stray byte: another signature.
  assert.notEqual(sign(SECRET, { ...parts, rawBody: latin1.toString('utf8') }), vector);
  const legacy = legacySignature(SECRET, '1795000000', Buffer.from('{"a":"\u00ff"}', 'latin1'));
  assert.equal(legacy, 'sha256=28acc19d992427feaef62f1704fa7f497793f46b5c711e6f67c14db69cf80937');
});

test('header parsing is strict', () => {
  const v1 = 'eaf929a004def9e203db6267f368703dc45ac0b78bb4fef8c615f6533928da51';
  assert.deepEqual(parseSignatureHeader(`t=1795000000,kid=k1,v1=${v1}`), { t: '1795000000', kid: 'k1', v1 });
  for (const bad of [
    undefined,
    '',
    `t=abc,kid=k1,v1=${v1}`,
    `t=1,kid=k1,v1=${v1.toUpperCase()}`,
    `t=1,kid=k1,v1=${v1.slice(1)}`,
    `kid=k1,t=1,v1=${v1}`,
    `t=123456789012345678901,kid=k1,v1=${v1}`,
  ]) {
    assert.equal(parseSignatureHeader(bad), undefined, String(bad));
  }
});

test('verifyForward: reasons for refusal', () => {
  const secrets = new Map([['k1', SECRET]]);
  const header = `t=1795000000,kid=k1,v1=${sign(SECRET, parts)}`;
  const { timestamp: _t, ...rest } = parts;
  assert.deepEqual(verifyForward(header, rest, secrets, 1795000000), { ok: true, kid: 'k1' });
  assert.deepEqual(verifyForward(header, rest, secrets, 1795000301), { ok: false, reason: 'stale' });
  assert.deepEqual(verifyForward(header, rest, secrets, 1794999699), { ok: false, reason: 'stale' });
  assert.deepEqual(verifyForward(header, { ...rest, rawBody: '{}' }, secrets, 1795000000), { ok: false, reason: 'mismatch' });
  assert.deepEqual(verifyForward(header, rest, new Map([['k2', SECRET]]), 1795000000), { ok: false, reason: 'unknown_kid' });
  assert.deepEqual(verifyForward('garbage', rest, secrets, 1795000000), { ok: false, reason: 'malformed' });
});

test('older contract: sha256=<hex HMAC of "{timestamp}.{rawBody}">', () => {
  const sig = legacySignature('legacy-secret-0123456789', '1795000000', '{"userId":"u1"}');
  assert.equal(sig, 'sha256=1c9fb260c2189eee48ac30902e066b9ce956de66a5e2953e14eff61373cd6cab');
  assert.equal(verifyLegacy(sig, '1795000000', '{"userId":"u1"}', 'legacy-secret-0123456789', 1795000100), true);
  assert.equal(verifyLegacy(sig, '1795000000', '{"userId":"u2"}', 'legacy-secret-0123456789', 1795000100), false);
  assert.equal(verifyLegacy(sig, '1795000000', '{"userId":"u1"}', 'legacy-secret-0123456789', 1795000301), false);
  assert.equal(verifyLegacy(sig, undefined, '{"userId":"u1"}', 'legacy-secret-0123456789', 1795000000), false);
});
