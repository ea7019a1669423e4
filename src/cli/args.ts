/** Shared flag handling: settings flags every command accepts, and small parsers. */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadSettings, type RawSettings, readEnv, type Settings } from '../config/settings.js';

export const SETTINGS_FLAGS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  config: { type: 'string' },
  'log-level': { type: 'string' },
  'trust-proxy': { type: 'string' },
  workers: { type: 'string' },
  'search-threads': { type: 'string' },
  server: { type: 'string' },
  key: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command that could not do its work, for a reason its user can act on: said in one line, exit code 1. */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...SETTINGS_FLAGS, ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function settingsFrom(values: Record<string, unknown>): Settings {
  const flags: RawSettings = {};
  const map: Record<string, keyof RawSettings> = {
    host: 'host',
    port: 'port',
    'data-dir': 'dataDir',
    'database-url': 'databaseUrl',
    config: 'configFile',
    'log-level': 'logLevel',
    'trust-proxy': 'trustProxy',
    workers: 'workers',
    'search-threads': 'searchThreads',
    server: 'serverUrl',
    key: 'apiKey',
  };
  for (const [flag, name] of Object.entries(map)) {
    const v = values[flag];
    if (typeof v === 'string') flags[name] = v;
  }
  return loadSettings({ env: readEnv(), flags });
}

/** A USD amount as exact integer micro-USD ("12.5" -> 12_500_000); no floating point. */
export function parseUsd(value: string | undefined): number {
  const m = value === undefined ? null : /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(value.trim());
  const micro = m ? Number(m[1]) * 1_000_000 + Number((m[2] ?? '').padEnd(6, '0')) : 0;
  if (micro <= 0) throw new UsageError('--usd must be an amount from 0.000001 to 999999999.999999, e.g. 10 or 2.50');
  return micro;
}

export function formatUsd(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  return `${sign}${Math.floor(abs / 1e6)}.${String(abs % 1e6).padStart(6, '0')}`;
}

/** This release's version, as package.json names it. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** A flag's whole number, undefined when it is not given; anything else is a UsageError. */
export function wholeNumberFlag(v: unknown, flag: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || n < min || n > max) {
    throw new UsageError(`--${flag} must be a whole number${max === Number.MAX_SAFE_INTEGER ? '' : ` from ${min} to ${max}`}`);
  }
  return n;
}

export function requireString(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v.trim();
}

/**
 * The command and its arguments. Settings flags written before the command (`websearch --data-dir
 * /srv/ws import pages.jsonl`, as `git -C` is) are read as the command's own: they are moved after
 * it, before a `--` that ends its flags. A flag without its value there is left where it is (and then
 * read as an unknown command).
 */
export function commandLine(argv: readonly string[]): { command: string | undefined; args: string[] } {
  const leading: string[] = [];
  let i = 0;
  for (;;) {
    const m = /^--([a-z-]+)(=.*)?$/s.exec(argv[i] ?? '');
    if (!m || !Object.hasOwn(SETTINGS_FLAGS, m[1]!)) break;
    const take = m[2] === undefined ? 2 : 1;
    if (i + take > argv.length) break;
    leading.push(...argv.slice(i, i + take));
    i += take;
  }
  const [command, ...args] = argv.slice(i);
  const end = args.indexOf('--');
  args.splice(end === -1 ? args.length : end, 0, ...leading);
  return { command, args };
}
