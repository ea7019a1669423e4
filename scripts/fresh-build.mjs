// `npm start`'s prestart and the `websearch` command's first step in a checkout (bin/websearch.mjs):
// builds dist/ again when src/ or a tsconfig is newer than the last build, so a checkout changed
// without `npm ci` (a `git pull`, an edit) does not run the build before. Quiet when dist/ is
// current; it costs a walk of src/ (a few ms).
// Usage: node scripts/fresh-build.mjs [checkout]   (default: this script's checkout)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The newest change under `path`: files and folders (a folder's time moves when a file is added, renamed or removed). */
function newest(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Builds the checkout at `root` when its dist/ is missing or stale (saying so on stderr); returns the exit status (0: dist/ is current). */
export function freshBuild(root) {
  const built = join(root, 'dist', 'cli', 'main.js');
  const sources = ['src', 'tsconfig.json', 'tsconfig.build.json'].map((p) => join(root, p)).filter((p) => existsSync(p));
  const exists = existsSync(built);
  if (Math.max(...sources.map(newest)) <= (exists ? statSync(built).mtimeMs : -Infinity)) return 0;

  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    console.error(`${exists ? 'dist/ is older than src/' : 'dist/ is missing'} and TypeScript is not installed: run npm ci`);
    return 1;
  }
  console.error(exists ? 'dist/ is older than src/: building it again (npm run build)' : 'dist/ is missing: building it (npm run build)');
  // The compiler's own output goes to stderr too: a command's stdout stays its own.
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: ['ignore', 2, 2] });
  return r.status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exit(freshBuild(process.argv[2] ?? join(import.meta.dirname, '..')));
}
