import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandLine, formatUsd, parseUsd } from '../../src/cli/args.js';

test('settings flags before the command are the command\'s, after its own arguments and before a `--`', () => {
  assert.deepEqual(commandLine(['import', 'a.jsonl', '--data-dir', 'd']), { command: 'import', args: ['a.jsonl', '--data-dir', 'd'] });
  assert.deepEqual(commandLine(['--data-dir', 'd', 'import', 'a.jsonl']), { command: 'import', args: ['a.jsonl', '--data-dir', 'd'] });
  assert.deepEqual(commandLine(['--data-dir=d', '--log-level', 'warn', 'org', 'create', 'x']), {
    command: 'org',
    args: ['create', 'x', '--data-dir=d', '--log-level', 'warn'],
  });
  assert.deepEqual(commandLine(['--server', 'http://h', 'search', '--', '-site:x']), { command: 'search', args: ['--server', 'http://h', '--', '-site:x'] });
  // A value that looks like a command is the flag's.
  assert.deepEqual(commandLine(['--data-dir', 'serve', 'version']), { command: 'version', args: ['--data-dir', 'serve'] });
});

test('what is no settings flag, or one without its value, stays where it is', () => {
  assert.deepEqual(commandLine(['--json', 'org', 'list']), { command: '--json', args: ['org', 'list'] });
  assert.deepEqual(commandLine(['--data-dir']), { command: '--data-dir', args: [] });
  assert.deepEqual(commandLine(['--version']), { command: '--version', args: [] });
  assert.deepEqual(commandLine(['--constructor', 'x']), { command: '--constructor', args: ['x'] });
  assert.deepEqual(commandLine([]), { command: undefined, args: [] });
});

test('--usd: an amount of whole micro-dollars, from one to a billion dollars less one, read exactly', () => {
  assert.equal(parseUsd('10'), 10_000_000);
  assert.equal(parseUsd(' 2.5 '), 2_500_000);
  assert.equal(parseUsd('0.000001'), 1);
  assert.equal(parseUsd('999999999.999999'), 999_999_999_999_999);
  assert.equal(formatUsd(parseUsd('0.07')), '0.070000');
  assert.equal(formatUsd(-1_500_000), '-1.500000');
  for (const bad of [undefined, '', '0', '0.000000', '-1', '1e3', '0.0000001', '1000000000', '1,5', 'abc', '.5']) {
    assert.throws(() => parseUsd(bad), { message: '--usd must be an amount from 0.000001 to 999999999.999999, e.g. 10 or 2.50' }, String(bad));
  }
});
