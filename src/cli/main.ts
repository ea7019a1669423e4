#!/usr/bin/env node
/** The `websearch` command line. */
import { ConfigError } from '../config/settings.js';
import { DiskLowError, isDiskFull, isStorageFault } from '../core/errors.js';
import { StoreUnreachable } from '../config/services.js';
import { ApiError } from '../client/client.js';
import { adminCommand } from './admin.js';
import { backupCommand } from './backup.js';
import { pagesCommand } from './pages.js';
import { crawlCommand } from './crawl.js';
import { CommandFailed, commandLine, packageVersion, UsageError } from './args.js';
import { fetchCommand, mcpCommand, searchCommand } from './client-commands.js';
import { shareCommand } from './share.js';
import { importCommand, indexCommand } from './import.js';
import { serveCommand } from './serve.js';

const HELP = `websearch: self-hostable web search and page fetch

Usage:
  websearch serve                               run the HTTP service
  websearch import <file.jsonl[.gz]|file.warc[.gz]>...   bring pages in
  websearch crawl <seed-url>... [--max-pages N] [--max-depth N] [--same-site|--any-site]
        [--include RE] [--exclude RE] [--concurrency N] [--delay-ms N]
        [--refresh-older-than 7d] [--no-sitemaps]   crawl into the index
  websearch index rebuild                       rebuild the full-text index from stored pages
  websearch backup <folder>                     a consistent copy of the data folder, taken while
                                                the server runs, into a new or empty folder
  websearch pages remove <url>... [--site host] [--reason text]
                                                take pages out of the index and keep them out
  websearch pages allow <url>... [--site host]  let them be stored again
  websearch pages removed                       the removals in force
  websearch org create <name> [--rate-limit N]  create an organization
  websearch org list [--limit N]                organizations, newest first: balance, active keys, rate
  websearch org set --org <id> --rate-limit N|default
  websearch key create --org <id>               create an API key (shown once)
  websearch key list --org <id>
  websearch key revoke <key-id>
  websearch credits add --org <id> --usd <amount>
  websearch credits show --org <id>
  websearch usage list [--org <id>] [--limit N]
  websearch payments list [--limit N]           x402 payments (payer, nonce, amount, tx, outcome)
  websearch search <query> [--site host] [--max-results N] [--published-after v] ...
  websearch fetch <url> [--max-chars N]
  websearch mcp [--app-title T]                 an MCP server on stdio: tools search and fetch
  websearch share                               copy this machine's SQLite file to DATABASE_URL's
                                                PostgreSQL (accounts, usage, payments; pages to its log)
  websearch share prune [--unseen-days N]       delete the page log rows that every machine seen in
                                                the last N days (7) has applied
  websearch version                             this release's version (also --version)

Every command takes --data-dir, --database-url, --config, --log-level (before or after the command);
serve takes --host, --port, --trust-proxy; search, fetch and mcp take --server and --key (or WEBSEARCH_URL, WEBSEARCH_API_KEY).
Admin commands print one JSON object with --json. See README.md for every variable.
`;

/**
 * A reader that stops reading (`websearch search x | head -1`) ends the command quietly: writing on
 * printed an EPIPE stack trace and exited 1. Not for `serve`, whose logs go to stdout: a server
 * does not stop because its log's reader did.
 */
function endQuietlyWhenStdoutCloses(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(0);
  });
}

async function main(argv: string[]): Promise<number> {
  const { command, args: rest } = commandLine(argv);
  if (command !== 'serve') endQuietlyWhenStdoutCloses();
  switch (command) {
    case 'serve':
      await serveCommand(rest);
      return 0;
    case 'import':
      return importCommand(rest);
    case 'crawl':
      return crawlCommand(rest);
    case 'index':
      await indexCommand(rest);
      return 0;
    case 'backup':
      return backupCommand(rest);
    case 'pages':
      return pagesCommand(rest);
    case 'org':
    case 'key':
    case 'credits':
    case 'usage':
    case 'payments':
      await adminCommand(command, rest);
      return 0;
    case 'search':
      await searchCommand(rest);
      return 0;
    case 'fetch':
      await fetchCommand(rest);
      return 0;
    case 'mcp':
      await mcpCommand(rest);
      return 0;
    case 'share':
      await shareCommand(rest);
      return 0;
    case 'version':
    case '--version':
    case '-v':
      process.stdout.write(`websearch ${packageVersion()}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`Unknown command: ${command}\n\n${HELP}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (e: unknown) => {
    // Said in one line: bad usage or configuration and the server's refusals (2), a command that could not do its work (1).
    if (e instanceof UsageError || e instanceof ConfigError || e instanceof ApiError || e instanceof CommandFailed || e instanceof StoreUnreachable) {
      process.stderr.write(`websearch: ${e.message}\n`);
      process.exitCode = e instanceof CommandFailed || e instanceof StoreUnreachable ? 1 : 2;
    } else if (isStorageFault(e)) {
      process.stderr.write(`websearch: the data folder cannot be written (${(e as Error).message}): is its file system read-only, or failing?\n`);
      process.exitCode = 1;
    } else if (isDiskFull(e)) {
      // Whatever the command was doing: what it wrote before is kept (an import's pages, a crawl's frontier), and running it again goes on from there.
      const why = e instanceof DiskLowError ? e.message : `the disk of the data folder is full (${(e as Error).message})`;
      process.stderr.write(`websearch: ${why}; what was written before is kept: make room and run the command again\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`websearch: ${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = 1;
    }
  },
);
