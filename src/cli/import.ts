/** `websearch import <file.jsonl[.gz]>...`: progress and a summary on stderr. */
import { accessSync, constants, statSync } from 'node:fs';
import { importJsonl } from '../acquire/import-jsonl.js';
import { importWarc } from '../acquire/import-warc.js';
import { createServices } from '../config/services.js';
import { parse, settingsFrom, UsageError } from './args.js';

/** Each file named is one import reads (by its name) and can open: else nothing is imported (a typo found before the hour-long import of the files before it). */
function checkFiles(files: string[]): void {
  for (const file of files) {
    if (!/\.(jsonl|warc)(\.gz)?$/.test(file)) throw new UsageError(`${file}: import reads .jsonl, .jsonl.gz, .warc and .warc.gz files`);
    try {
      if (!statSync(file).isFile()) throw new UsageError(`${file}: not a file`);
      accessSync(file, constants.R_OK);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`${file}: cannot be read (${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? String(e))})`);
    }
  }
}

export async function importCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {});
  if (positionals.length === 0) throw new UsageError('usage: websearch import <file.jsonl[.gz]|file.warc[.gz]>...');
  checkFiles(positionals);
  const services = await createServices(settingsFrom(values));
  const tty = process.stderr.isTTY;
  let failedTotal = 0;
  try {
    for (const file of positionals) {
      if (/\.warc(\.gz)?$/.test(file)) {
        const started = Date.now();
        const s = await importWarc(services.pages, file, {
          // Pages are read on the reader threads (WEBSEARCH_READER_THREADS), with their limits per page.
          ...(services.reader ? { read: services.reader.readQueued } : {}),
          onProgress: (p) => {
            const line = `${file}: ${p.records} records, ${p.imported} imported, ${p.unchanged} unchanged, ${p.skipped} skipped, ${p.broken} broken`;
            process.stderr.write(tty ? `\r${line}` : `${line}\n`);
          },
        });
        if (tty) process.stderr.write('\n');
        for (const r of s.brokenReasons) process.stderr.write(`${file}: broken: ${r}\n`);
        process.stderr.write(
          `${file}: ${s.records} records: imported ${s.imported}, unchanged ${s.unchanged},${s.removed > 0 ? ` removed by the operator ${s.removed},` : ''} skipped ${s.skipped} (not 200, not of an http(s) URL, not HTML/text, or not readable within the reader's limits), ${s.notResponses} not responses, ${s.broken} broken (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
        );
        if (values.json) process.stdout.write(`${JSON.stringify({ file, ...s })}\n`);
        failedTotal += s.broken;
        continue;
      }
      const started = Date.now();
      const summary = await importJsonl(services.pages, file, {
        ...(services.reader ? { read: services.reader.readQueued } : {}),
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
        `${file}: imported ${summary.imported}, skipped ${summary.unchanged} unchanged${summary.removed > 0 ? ` and ${summary.removed} removed by the operator` : ''}, failed ${summary.failed} (${secs} s)\n`,
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
    const filled = await services.pages.fillDerived();
    await services.index.rebuild();
    const stats = await services.pages.stats();
    process.stderr.write(
      `index rebuilt: ${stats.versions} versions of ${stats.pages} pages in ${Date.now() - started} ms (${filled.passages} passage indexes and ${filled.fingerprints} near-duplicate fingerprints made)\n`,
    );
  } finally {
    await services.close();
  }
}
