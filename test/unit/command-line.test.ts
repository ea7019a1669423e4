import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandLine } from '../../src/cli/args.js';

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
