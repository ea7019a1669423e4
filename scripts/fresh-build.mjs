// `npm start`'s prestart: builds dist/ again when src/ or a tsconfig is newer than the last build,
// so a checkout changed without `npm ci` (a `git pull`, an edit) does not serve the build before.
// Quiet when dist/ is current; it costs a walk of src/ (a few ms).
// Usage: node scripts/fresh-build.mjs [checkout]   (default: this script's checkout)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2] ?? join(import.meta.dirname, '..');
const built = join(root, 'dist', 'cli', 'main.js');

/** The newest change under `path`: files and folders (a folder's time moves when a file is added, renamed or removed). */
function newest(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const sources = ['src', 'tsconfig.json', 'tsconfig.build.json'].map((p) => join(root, p)).filter((p) => existsSync(p));
const builtAt = existsSync(built) ? statSync(built).mtimeMs : -Infinity;
if (Math.max(...sources.map(newest)) <= builtAt) process.exit(0);

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!existsSync(tsc)) {
  console.error(`${existsSync(built) ? 'dist/ is older than src/' : 'dist/ is missing'} and TypeScript is not installed: run npm ci`);
  process.exit(1);
}
console.error(existsSync(built) ? 'dist/ is older than src/: building it again (npm run build)' : 'dist/ is missing: building it (npm run build)');
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
