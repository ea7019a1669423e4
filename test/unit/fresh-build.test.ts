/**
 * scripts/fresh-build.mjs (`npm start`'s prestart) on a small checkout of its own: it builds when
 * dist/ is missing or older than src/ or a tsconfig, and does nothing otherwise. The `websearch`
 * command (bin/websearch.mjs, `npx websearch` in a checkout) runs it before the build's main.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { tempDir } from '../helpers.js';

const CHECKOUT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(CHECKOUT, 'scripts', 'fresh-build.mjs');
const dir = tempDir();
after(() => dir.remove());

const root = dir.path;
const main = join(root, 'src', 'cli', 'main.ts');
const built = join(root, 'dist', 'cli', 'main.js');
mkdirSync(join(root, 'src', 'cli'), { recursive: true });
symlinkSync(join(import.meta.dirname, '..', '..', 'node_modules'), join(root, 'node_modules'));
writeFileSync(
  join(root, 'tsconfig.json'),
  JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, types: [] } }),
);
writeFileSync(join(root, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { rootDir: 'src', outDir: 'dist' }, include: ['src'] }));

const run = () => spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
/** Sets a file's times `seconds` from now (the file systems here keep fractions of a second, but a build may land in the same one). */
const age = (path: string, seconds: number) => {
  const t = new Date(Date.now() + seconds * 1000);
  utimesSync(path, t, t);
};

test('builds a missing dist/, leaves a current one alone, and builds again after src/ or a tsconfig changes', () => {
  writeFileSync(main, 'export const version: number = 1;\n');
  writeFileSync(join(root, 'src', 'extra.ts'), 'export const extra = 3;\n');
  let r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /dist\/ is missing: building it/);
  assert.match(readFileSync(built, 'utf8'), /version = 1/);

  age(main, -60);
  age(join(root, 'src', 'extra.ts'), -60);
  age(join(root, 'src', 'cli'), -60);
  age(join(root, 'src'), -60);
  for (const f of ['tsconfig.json', 'tsconfig.build.json']) age(join(root, f), -60);
  writeFileSync(built, 'the build left as it is\n');
  age(built, -30);
  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(readFileSync(built, 'utf8'), 'the build left as it is\n');

  writeFileSync(main, 'export const version: number = 2;\n');
  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /dist\/ is older than src\/: building it again/);
  assert.match(readFileSync(built, 'utf8'), /version = 2/);

  // A file renamed keeps its time, but moves its folder's; a changed tsconfig counts too.
  age(main, -60);
  age(join(root, 'src', 'extra.ts'), -60);
  age(join(root, 'src'), -60);
  age(built, -30);
  renameSync(join(root, 'src', 'extra.ts'), join(root, 'src', 'renamed.ts'));
  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.ok(statSync(join(root, 'dist', 'renamed.js')).isFile());

  age(join(root, 'src'), -60);
  writeFileSync(built, 'stale\n');
  age(built, -30);
  age(join(root, 'tsconfig.build.json'), 0);
  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.match(readFileSync(built, 'utf8'), /version = 2/);
});

test('a build that fails fails the start', () => {
  age(built, -30);
  writeFileSync(main, 'export const version: number = "not a number";\n');
  const r = run();
  assert.notEqual(r.status, 0);
  assert.match(r.stdout + r.stderr, /not assignable/);
});

test('the websearch command builds a stale checkout first, then runs the build; a failed build runs nothing', () => {
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(join(CHECKOUT, 'bin', 'websearch.mjs'), join(root, 'bin', 'websearch.mjs'));
  copyFileSync(SCRIPT, join(root, 'scripts', 'fresh-build.mjs'));
  const command = () => spawnSync(process.execPath, [join(root, 'bin', 'websearch.mjs'), 'a', 'b'], { encoding: 'utf8' });
  age(built, -30);
  // (The small checkout has no Node types: `process` is declared.)
  const node = 'declare const process: { argv: string[]; stdout: { write(s: string): void } };\n';
  writeFileSync(main, `${node}process.stdout.write(\`version 3: \${process.argv.slice(2).join(' ')}\\n\`);\n`);
  let r = command();
  assert.equal(r.status, 0, r.stderr);
  // The build's words on stderr; stdout is the command's own.
  assert.match(r.stderr, /dist\/ is older than src\/: building it again/);
  assert.equal(r.stdout, 'version 3: a b\n');

  r = command();
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, 'version 3: a b\n');

  age(built, -30);
  writeFileSync(main, `${node}const n: number = 'not a number';\nprocess.stdout.write(\`version 4 \${n}\\n\`);\n`);
  r = command();
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /not assignable/);
  assert.equal(r.stdout, '');
});
