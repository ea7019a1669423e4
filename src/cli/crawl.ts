/** `websearch crawl <seed>...`: a polite, resumable crawl into the index, with progress on stderr. */
import { crawl, urlPattern, type UrlPattern } from '../acquire/crawler.js';
import { createServices } from '../config/services.js';
import { parse, settingsFrom, UsageError, wholeNumberFlag } from './args.js';

const DURATION_RE = /^(\d+)(ms|s|min|h|d)$/;
const UNIT = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function parseDuration(v: string, flag: string): number {
  const m = DURATION_RE.exec(v.trim());
  if (!m) throw new UsageError(`${flag} must be a duration such as 30min, 12h or 7d`);
  return Number(m[1]) * UNIT[m[2] as keyof typeof UNIT];
}

function patternFlag(v: unknown, flag: string): UrlPattern | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    return urlPattern(v);
  } catch (e) {
    throw new UsageError(`--${flag}: ${(e as Error).message}`);
  }
}

export async function crawlCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    'max-pages': { type: 'string' },
    'max-depth': { type: 'string' },
    'same-site': { type: 'boolean' },
    'any-site': { type: 'boolean' },
    include: { type: 'string' },
    exclude: { type: 'string' },
    concurrency: { type: 'string' },
    'delay-ms': { type: 'string' },
    'refresh-older-than': { type: 'string' },
    'no-sitemaps': { type: 'boolean' },
  });
  if (positionals.length === 0) throw new UsageError('usage: websearch crawl <seed-url>... [--max-pages N] [--max-depth N] ...');
  if (values['same-site'] && values['any-site']) throw new UsageError('--same-site and --any-site exclude each other');
  for (const s of positionals) {
    if (!/^https?:\/\//i.test(s)) throw new UsageError(`${s}: seeds are absolute http(s) URLs`);
  }
  const include = patternFlag(values.include, 'include');
  const exclude = patternFlag(values.exclude, 'exclude');
  const services = await createServices(settingsFrom(values));
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const tty = process.stderr.isTTY;
  const started = Date.now();
  try {
    const result = await crawl(
      { client: services.http, robots: services.robots, frontier: services.frontier, pages: services.pages, read: services.reader?.readQueued },
      {
        seeds: positionals,
        maxPages: wholeNumberFlag(values['max-pages'], 'max-pages', 1, 100_000_000) ?? 1000,
        maxDepth: wholeNumberFlag(values['max-depth'], 'max-depth', 0, 1000) ?? 3,
        scope: values['any-site'] ? 'any-site' : 'same-site',
        include,
        exclude,
        concurrency: wholeNumberFlag(values.concurrency, 'concurrency', 1, 256) ?? 8,
        delayMs: wholeNumberFlag(values['delay-ms'], 'delay-ms', 0, 3_600_000) ?? 1000,
        refreshOlderThanMs:
          typeof values['refresh-older-than'] === 'string' ? parseDuration(values['refresh-older-than'], '--refresh-older-than') : undefined,
        sitemaps: !values['no-sitemaps'],
        signal: controller.signal,
        onProgress: (p) => {
          const line = `crawl: ${p.done} done, ${p.queued} queued, ${p.failed} failed, ${p.skipped} skipped, ${p.pagesPerSecond} pages/s`;
          process.stderr.write(tty ? `\r${line}   ` : `${line}\n`);
        },
      },
    );
    if (tty) process.stderr.write('\n');
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `crawl ${result.crawlId}: ${result.done} done (${result.stored} stored, ${result.unchanged} unchanged, ${result.notModified} not modified), ${result.failed} failed, ${result.skipped} skipped, ${result.queued} still queued, ${secs} s${controller.signal.aborted ? ' (stopped; run the same command to resume)' : ''}\n`,
    );
    // Why pages were not stored, so that a crawl that stored nothing says what stopped it.
    for (const r of await services.frontier.reasons(result.crawlId, 5)) {
      process.stderr.write(`  ${r.state} ${r.pages} page${r.pages === 1 ? '' : 's'}: ${r.reason}\n`);
    }
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await services.close();
  }
}
