/**
 * MCP's stdio transport: one JSON-RPC message per line on stdin, one answer per line on stdout
 * (nothing else may be written there; logs go to stderr). Requests are answered as they finish, so
 * a slow live fetch does not hold up a search. A line over 1 MiB is refused with a parse error.
 */
import type { Readable, Writable } from 'node:stream';
import { type JsonRpcResponse, PARSE_ERROR } from './server.js';

export const MAX_LINE_BYTES = 2 ** 20;
const tooLong = () => PARSE_ERROR(`A message over ${MAX_LINE_BYTES} bytes`);

export async function serveStdio(handle: (message: unknown) => Promise<JsonRpcResponse | undefined>, input: Readable, output: Writable): Promise<void> {
  const pending = new Set<Promise<void>>();
  const send = (r: JsonRpcResponse | undefined) => {
    if (r) output.write(`${JSON.stringify(r)}\n`);
  };
  const onLine = (line: string) => {
    if (!line.trim()) return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return send(PARSE_ERROR('Not JSON'));
    }
    const job = handle(message).then(send, (e: unknown) => {
      process.stderr.write(`websearch mcp: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      const id = (message as { id?: unknown }).id;
      if (typeof id === 'string' || typeof id === 'number') send({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error' } });
    });
    const done = job.finally(() => pending.delete(done));
    pending.add(done);
  };

  input.setEncoding('utf8'); // a character split between two chunks stays whole
  let buffered = '';
  let skipping = false; // the rest of a line that was too long
  for await (const chunk of input) {
    let text = buffered + (chunk as string);
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
      const line = text.slice(0, nl);
      text = text.slice(nl + 1);
      if (skipping) skipping = false;
      else if (Buffer.byteLength(line) > MAX_LINE_BYTES) send(tooLong());
      else onLine(line);
    }
    if (!skipping && Buffer.byteLength(text) > MAX_LINE_BYTES) {
      send(tooLong());
      skipping = true;
    }
    buffered = skipping ? '' : text;
  }
  if (!skipping) onLine(buffered);
  await Promise.all(pending);
}
