#!/usr/bin/env node
// The `websearch` command. In a checkout (src/ and scripts/ beside dist/: `npx websearch ...`),
// dist/ is first built again when it is older than src/, as `npm start` does
// (scripts/fresh-build.mjs); an installed package has neither, and runs dist/ as it is.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const check = join(root, 'scripts', 'fresh-build.mjs');
if (existsSync(join(root, 'src')) && existsSync(check)) {
  const { freshBuild } = await import('../scripts/fresh-build.mjs');
  const status = freshBuild(root);
  if (status !== 0) process.exit(status);
}
await import('../dist/cli/main.js');
