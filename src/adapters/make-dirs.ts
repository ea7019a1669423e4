/**
 * `mkdir -p` that fails instead of spinning. Node's recursive mkdir loops forever, at 100% CPU in
 * native code, when a folder exists but answers ENOENT for a child it cannot hold (procfs and sysfs:
 * `--data-dir /proc/x` froze every command). Here each missing folder is made in turn, from the
 * nearest one that exists, and the first error is thrown as it is.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDirs(path: string): void {
  const missing: string[] = [];
  for (let p = resolve(path); !existsSync(p); p = dirname(p)) {
    missing.push(p);
    if (dirname(p) === p) break;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i]!);
    } catch (e) {
      // Made meanwhile by another process (or a dangling link, whose child then fails): go on.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}
