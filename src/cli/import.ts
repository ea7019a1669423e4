/** `websearch import <file.jsonl[.gz]>...`: progress and a summary on stderr. */
import { importJsonl } from '../acquire/import-jsonl.js';
import { createServices } from '../config/services.js';
import { parse, settingsFrom, UsageError } from './args.js';

export async function importCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {});
  if (positionals.length === 0) throw new UsageError('usage: websearch import <file.jsonl[.gz]>...');
  const services = await createServices(settingsFrom(values));
  const tty = process.stderr.isTTY;
  let failedTotal = 0;
  try {
    for (const file of positionals) {
      if (!/\.jsonl(\.gz)?$/.test(file)) throw new UsageError(`${file}: only .jsonl and .jsonl.gz files can be imported in this version`);
      const started = Date.now();
      const summary = await importJsonl(services.pages, file, {
        onProgress: (s, lines) => {
          const line = `${file}: ${lines} lines, ${s.imported} imported, ${s.unchanged} unchanged, ${s.failed} failed`;
          process.stderr.write(tty ? `\r${line}` : `${line}\n`);
        },
      });
      if (tty) process.stderr.write('\n');
      for (const f of summary.failures) process.stderr.write(`${file}:${f.line}: skipped: ${f.reason}\n`);
      if (summary.failed > summary.failures.length) {
        process.stderr.write(`${file}: ${summary.failed - summary.failures.length} more failures not listed\n`);
      }
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      process.stderr.write(
        `${file}: imported ${summary.imported}, skipped ${summary.unchanged} unchanged, failed ${summary.failed} (${secs} s)\n`,
      );
      if (values.json) process.stdout.write(`${JSON.stringify({ file, ...summary })}\n`);
      failedTotal += summary.failed;
    }
  } finally {
    await services.close();
  }
  return failedTotal > 0 ? 1 : 0;
}

export async function indexCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {});
  if (positionals[0] !== 'rebuild') throw new UsageError('usage: websearch index rebuild');
  const services = await createServices(settingsFrom(values));
  try {
    const started = Date.now();
    await services.index.rebuild();
    const stats = await services.pages.stats();
    process.stderr.write(`index rebuilt: ${stats.versions} versions of ${stats.pages} pages in ${Date.now() - started} ms\n`);
  } finally {
    await services.close();
  }
}
