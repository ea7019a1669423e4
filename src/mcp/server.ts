/**
 * The MCP server: our search and fetch as two tools for an agent, over a running service through
 * client/ (keyed with an API key, keyless otherwise). `handle` answers one JSON-RPC message; the
 * stdio loop (stdio.ts) frames them. A tool-only server needs four methods (initialize, ping,
 * tools/list, tools/call); a failure of a tool is a result with `isError` (the model reads it and can
 * correct its call), a failure of the protocol a JSON-RPC error. A `notifications/cancelled` for a
 * tool call in progress abandons its HTTP request (the service stops the work and charges nothing)
 * and the call is never answered, as the protocol asks.
 */
import { ApiError, type FetchParams, notReached, type SearchParams } from '../client/client.js';
import { escapeHeading, escapeLine, escapeText } from '../core/escapes.js';
import type { FetchResponse, SearchResponse } from '../core/requests.js';

/** Newest first; an unknown version asked for is answered with the newest (the client decides). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export interface ToolClient {
  search(params: SearchParams, signal?: AbortSignal): Promise<SearchResponse>;
  fetch(params: FetchParams, signal?: AbortSignal): Promise<FetchResponse>;
}

type Id = string | number | null;
export type JsonRpcResponse = { jsonrpc: '2.0'; id: Id } & ({ result: unknown } | { error: { code: number; message: string } });

const ERR = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602 } as const;

const WINDOW = 'A date (YYYY-MM-DD, the whole UTC day), a timestamp (ISO 8601, UTC unless an offset is given) or a relative delta such as 30d, 6mo, 1y, 2h, 15min.';

/** What each tool answers as structured content (protocol 2025-06-18 on): the service's own response. */
const OUTPUT_SCHEMAS = {
  search: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            title: { type: 'string' },
            url: { type: 'string' },
            description: { type: 'string' },
            snippet: { type: 'string' },
            published_at: { type: 'string', description: 'ISO 8601' },
            acquired_at: { type: 'string', description: 'ISO 8601' },
          },
          required: ['title', 'url', 'description'],
        },
      },
    },
    required: ['query', 'results'],
  },
  fetch: {
    type: 'object',
    properties: {
      url: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      author: { type: 'string' },
      published_at: { type: 'integer', description: 'Unix seconds' },
      content: { type: 'string', description: 'Markdown, or the model\'s answer to prompt' },
    },
    required: ['url', 'content'],
  },
} as const;

/** The first protocol version with structured tool output (outputSchema, structuredContent). */
const STRUCTURED_SINCE = '2025-06-18';

const TOOLS = [
  {
    name: 'search',
    title: 'Web search',
    description:
      'Searches the pages of this service\'s own web index (crawled and imported) and returns the best matches, each with title, URL, a snippet of the passage that matches, and publication and acquisition times. A page copied on several sites (a wire story) is one result. Filter by site and by when pages were published or acquired.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to search for: words or a question. site:example.com in it keeps to one site, -site:example.com leaves one out, -word leaves out the pages holding the word, and -"two words" those holding the phrase; "two words" keeps only the pages holding the phrase; intitle:word (or intitle:"two words") only those whose title holds it, inurl:text those whose URL holds the text, filetype:pdf the PDFs (by their URL or the type they were served as), and -intitle:, -inurl:, -filetype: leave them out; after:2024 (or 2024-05, 2024-05-01, 7d) keeps the pages published from then on, before:2024 those published before 2024. A misspelt word that no page holds is searched as the word it most likely misspells.' },
        site: { type: 'string', description: 'Only pages of this host and its subdomains, e.g. example.com.' },
        max_results: { type: 'integer', minimum: 1, maximum: 50, description: 'How many results (default 10).' },
        snippet_max_length: { type: 'integer', minimum: 180, maximum: 10000, description: 'Longest snippet, in characters.' },
        published_after: { type: 'string', description: `Only pages published at or after this. ${WINDOW}` },
        published_before: { type: 'string', description: `Only pages published at or before this. ${WINDOW}` },
        acquired_after: { type: 'string', description: `Only pages acquired at or after this. ${WINDOW}` },
        acquired_before: { type: 'string', description: `Only pages acquired at or before this. ${WINDOW}` },
        query_time: { type: 'string', description: 'Search the index as it stood then (a date or a timestamp); relative deltas count back from it.' },
        mode: {
          type: 'string',
          enum: ['standard', 'webql', 'realtime_content'],
          description: 'standard (default); webql: a query language with fields and operators; realtime_content: each result fetched again now. The last two need an API key.',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'fetch',
    title: 'Fetch a page',
    description:
      'Returns the main content of a web page as clean markdown, with its title, description, author and publication time: from the index, or live from the page\'s origin with live=true. With prompt, a language model reads the page and returns only what the instruction asks for.',
    inputSchema: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'The page\'s http(s) URL.' },
        max_chars: { type: 'integer', minimum: 1, description: 'Longest content, in characters (default 50000).' },
        live: { type: 'boolean', description: 'Fetch the page from its origin now, not from the index.' },
        prompt: { type: 'string', maxLength: 2000, description: 'An instruction: return only what it asks for from the page.' },
      },
      required: ['url'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
] as const;

const STRINGS = {
  search: ['query', 'site', 'published_after', 'published_before', 'acquired_after', 'acquired_before', 'query_time', 'mode'],
  fetch: ['url', 'prompt'],
} as const;
const INTEGERS = { search: ['max_results', 'snippet_max_length'], fetch: ['max_chars'] } as const;

/**
 * The arguments with a whole number or a boolean written as a string taken for what it says
 * (`"max_results": "5"`, `"live": "true"`): models write them so at times, and a refusal cost the
 * agent a turn for a call it meant plainly.
 */
function leniently(tool: 'search' | 'fetch', args: Record<string, unknown>): Record<string, unknown> {
  const out = { ...args };
  for (const [k, v] of Object.entries(out)) {
    if (typeof v !== 'string') continue;
    if ((INTEGERS[tool] as readonly string[]).includes(k) && /^\d{1,9}$/.test(v.trim())) out[k] = Number(v.trim());
    if (k === 'live' && (v === 'true' || v === 'false')) out[k] = v === 'true';
  }
  return out;
}

/** The arguments' types as the schema says, or what is wrong (the service checks ranges and formats). */
function checkArguments(tool: 'search' | 'fetch', args: Record<string, unknown>): string | undefined {
  const known = new Set<string>([...STRINGS[tool], ...INTEGERS[tool], ...(tool === 'fetch' ? ['live'] : [])]);
  for (const [k, v] of Object.entries(args)) {
    if (!known.has(k)) return `Unknown argument: ${k}`;
    if ((STRINGS[tool] as readonly string[]).includes(k) && typeof v !== 'string') return `${k} must be a string`;
    if ((INTEGERS[tool] as readonly string[]).includes(k) && !Number.isInteger(v)) return `${k} must be an integer`;
    if (k === 'live' && typeof v !== 'boolean') return 'live must be true or false';
  }
  const required = tool === 'search' ? 'query' : 'url';
  if (args[required] === undefined) return `${required} is required`;
  return undefined;
}

export function formatSearch(res: SearchResponse): string {
  if (res.results.length === 0) return `No results for "${res.query}".`;
  return res.results
    .map((r, i) => {
      const dates = [r.published_at && `published ${r.published_at}`, r.acquired_at && `acquired ${r.acquired_at}`].filter(Boolean).join(', ');
      const text = r.snippet ?? r.description;
      // A page's title and text are text: escaped as a page's text is in its markdown (a host renders the answer).
      return `${i + 1}. ${escapeLine(r.title)}\n${r.url}${dates ? `\n(${dates})` : ''}${text ? `\n${escapeLine(text)}` : ''}`;
    })
    .join('\n\n');
}

export function formatFetch(res: FetchResponse): string {
  const head = [`# ${escapeHeading(res.title ?? res.url)}`, `URL: ${res.url}`];
  if (res.author) head.push(`Author: ${escapeText(res.author)}`);
  if (res.published_at !== undefined) head.push(`Published: ${new Date(res.published_at * 1000).toISOString()}`);
  if (res.description) head.push(`Description: ${escapeText(res.description)}`);
  return `${head.join('\n')}\n\n${res.content}`;
}

/** A failed call, said so that a model can act on it: the service's code and text, or why it was not reached. */
function failure(e: unknown, server: string): string {
  if (e instanceof ApiError) return e.body?.code ? `${e.body.code} (HTTP ${e.status}): ${e.body.error}` : e.message;
  const why = notReached(e);
  if (!why) throw e;
  return why.timeout ? `The search service at ${server} did not answer in time` : `The search service at ${server} cannot be reached`;
}

export function createMcpHandler(client: ToolClient, o: { server: string; version: string }) {
  const ok = (id: Id, result: unknown): JsonRpcResponse => ({ jsonrpc: '2.0', id, result });
  const fail = (id: Id, code: number, message: string): JsonRpcResponse => ({ jsonrpc: '2.0', id, error: { code, message } });

  /** Tool calls in progress, by request id, for notifications/cancelled. */
  const inProgress = new Map<string | number, AbortController>();
  /** Whether the version agreed at initialize has structured tool output (a stdio server has one client). */
  let structured = true;

  async function callTool(id: string | number, params: Record<string, unknown>): Promise<JsonRpcResponse | undefined> {
    const name = params.name;
    if (name !== 'search' && name !== 'fetch') return fail(id, ERR.invalidParams, `Unknown tool: ${String(name)}`);
    const given = params.arguments ?? {};
    if (given === null || typeof given !== 'object' || Array.isArray(given)) return fail(id, ERR.invalidParams, 'arguments must be an object');
    const args = leniently(name, given as Record<string, unknown>);
    const wrong = checkArguments(name, args);
    if (wrong) return ok(id, { content: [{ type: 'text', text: wrong }], isError: true });
    const cancel = new AbortController();
    inProgress.set(id, cancel);
    try {
      const answer =
        name === 'search' ? await client.search(args as unknown as SearchParams, cancel.signal) : await client.fetch(args as unknown as FetchParams, cancel.signal);
      const text = name === 'search' ? formatSearch(answer as SearchResponse) : formatFetch(answer as FetchResponse);
      if (cancel.signal.aborted) return undefined;
      // The text for the model to read; the same answer as data for a host that uses it.
      return ok(id, { content: [{ type: 'text', text }], ...(structured ? { structuredContent: answer } : {}) });
    } catch (e) {
      return cancel.signal.aborted ? undefined : ok(id, { content: [{ type: 'text', text: failure(e, o.server) }], isError: true });
    } finally {
      if (inProgress.get(id) === cancel) inProgress.delete(id);
    }
  }

  /** notifications/cancelled: abandons the named tool call if it is still in progress (else nothing). */
  function cancelled(params: Record<string, unknown>): undefined {
    const id = params.requestId;
    if (typeof id === 'string' || typeof id === 'number') inProgress.get(id)?.abort();
    return undefined;
  }

  /** The answer to one message, or undefined for a notification (which is never answered). */
  return async function handle(message: unknown): Promise<JsonRpcResponse | undefined> {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return fail(null, ERR.invalidRequest, 'A message must be a JSON-RPC object');
    const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const isRequest = typeof m.id === 'string' || typeof m.id === 'number';
    // A notification has no id; one of another type (null, an object) is a request MCP does not allow, answered so.
    if (m.id !== undefined && !isRequest) return fail(null, ERR.invalidRequest, 'A request id must be a string or a number');
    if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') return isRequest ? fail(m.id as Id, ERR.invalidRequest, 'Not a JSON-RPC 2.0 request') : undefined;
    const params = (m.params !== null && typeof m.params === 'object' ? m.params : {}) as Record<string, unknown>;
    if (!isRequest) return m.method === 'notifications/cancelled' ? cancelled(params) : undefined; // notifications/initialized, ...
    const id = m.id as string | number;
    switch (m.method) {
      case 'initialize': {
        const asked = params.protocolVersion;
        const protocolVersion = (PROTOCOL_VERSIONS as readonly unknown[]).includes(asked) ? (asked as string) : PROTOCOL_VERSIONS[0];
        structured = protocolVersion >= STRUCTURED_SINCE;
        return ok(id, {
          protocolVersion,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'websearch', title: 'websearch: search and fetch over our own index', version: o.version },
          instructions: 'search finds pages in this service\'s own index; fetch reads one page as markdown (live=true fetches it from its origin now).',
        });
      }
      case 'ping':
        return ok(id, {});
      case 'tools/list':
        return ok(id, { tools: structured ? TOOLS.map((t) => ({ ...t, outputSchema: OUTPUT_SCHEMAS[t.name] })) : TOOLS });
      case 'tools/call':
        return callTool(id, params);
      default:
        return fail(id, ERR.methodNotFound, `Method not found: ${m.method}`);
    }
  };
}

export const PARSE_ERROR = (message: string): JsonRpcResponse => ({ jsonrpc: '2.0', id: null, error: { code: ERR.parse, message } });
