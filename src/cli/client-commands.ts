/** `websearch search`, `websearch fetch` and `websearch mcp`: clients of a running server. */
import { createClient, notReached, type SearchParams } from '../client/client.js';
import { escapeHeading } from '../core/escapes.js';
import { createMcpHandler } from '../mcp/server.js';
import { serveStdio } from '../mcp/stdio.js';
import { CommandFailed, packageVersion, parse, settingsFrom, UsageError, wholeNumberFlag } from './args.js';

/**
 * A call to the server, whose failure to get there at all (no server, a wrong address, no answer in
 * time) is said in one line: the server's own errors (ApiError) and the rest go on as they are.
 */
export async function atServer<T>(server: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    const why = notReached(e);
    if (!why) throw e;
    throw new CommandFailed(
      why.timeout ? `the server at ${server} did not answer in time` : `cannot reach the server at ${server} (${why.cause}); --server or WEBSEARCH_URL`,
      { cause: e },
    );
  }
}

export async function searchCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    site: { type: 'string' },
    'acquired-after': { type: 'string' },
    'acquired-before': { type: 'string' },
    'published-after': { type: 'string' },
    'published-before': { type: 'string' },
    'query-time': { type: 'string' },
    'snippet-max-length': { type: 'string' },
    'max-results': { type: 'string' },
    mode: { type: 'string' },
    'app-title': { type: 'string' },
  });
  const query = positionals.join(' ').trim();
  if (!query) throw new UsageError('usage: websearch search <query> [--site host] [--max-results N] ...');
  const settings = settingsFrom(values);
  const client = createClient({ baseUrl: settings.serverUrl, apiKey: settings.apiKey, appTitle: values['app-title'] });
  const params: SearchParams = { query };
  const str = (flag: string) => (typeof values[flag as keyof typeof values] === 'string' ? (values[flag as keyof typeof values] as string) : undefined);
  const set = <K extends keyof SearchParams>(k: K, v: SearchParams[K] | undefined) => {
    if (v !== undefined) params[k] = v;
  };
  set('site', str('site'));
  set('acquired_after', str('acquired-after'));
  set('acquired_before', str('acquired-before'));
  set('published_after', str('published-after'));
  set('published_before', str('published-before'));
  set('query_time', str('query-time'));
  set('mode', str('mode'));
  set('snippet_max_length', wholeNumberFlag(values['snippet-max-length'], 'snippet-max-length'));
  set('max_results', wholeNumberFlag(values['max-results'], 'max-results'));
  const res = await atServer(settings.serverUrl, () => client.search(params));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(res)}\n`);
    return;
  }
  res.results.forEach((r, i) => {
    process.stdout.write(`${i + 1}. ${r.title}\n   ${r.url}\n   ${(r.snippet ?? r.description).replaceAll('\n', '\n   ')}\n\n`);
  });
  if (res.results.length === 0) process.stdout.write('No results\n');
}

export async function fetchCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    'max-chars': { type: 'string' },
    live: { type: 'boolean' },
    prompt: { type: 'string' },
    'app-title': { type: 'string' },
  });
  const url = positionals[0];
  // One URL a call: a second was left unfetched without a word.
  if (!url || positionals.length > 1) throw new UsageError('usage: websearch fetch <url> [--max-chars N] [--live] [--prompt text] (one URL)');
  const settings = settingsFrom(values);
  const client = createClient({ baseUrl: settings.serverUrl, apiKey: settings.apiKey, appTitle: values['app-title'] });
  const params = { url, max_chars: wholeNumberFlag(values['max-chars'], 'max-chars'), live: values.live, prompt: values.prompt };
  const res = await atServer(settings.serverUrl, () => client.fetch(params));
  if (values.json) process.stdout.write(`${JSON.stringify(res)}\n`);
  else process.stdout.write(`# ${escapeHeading(res.title ?? res.url)}\n\n${res.content}\n`); // the title as text, as the content's
}

/** An MCP server on stdin/stdout whose tools call the server at --server (keyed with --key). */
export async function mcpCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, { 'app-title': { type: 'string' } });
  const settings = settingsFrom(values);
  const client = createClient({ baseUrl: settings.serverUrl, apiKey: settings.apiKey, appTitle: values['app-title'] ?? 'websearch-mcp' });
  await serveStdio(createMcpHandler(client, { server: settings.serverUrl, version: packageVersion() }), process.stdin, process.stdout);
}
