import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERRORS } from '../../src/core/errors.js';

test('docs/errors.md lists exactly the codes, statuses and texts of src/core/errors.ts', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| (\d{3}) \| `([a-z0-9_]+)` \| ([^|]+) \|/gm)].map((m) => ({
    status: Number(m[1]),
    code: m[2],
    text: m[3]!.trim(),
  }));
  const table = Object.entries(ERRORS).map(([code, e]) => ({ status: e.status, code, text: e.text }));
  assert.deepEqual(rows, table);
});

test('the README names every error code', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const code of Object.keys(ERRORS)) assert.ok(readme.includes(`\`${code}\``), `README lacks ${code}`);
});
