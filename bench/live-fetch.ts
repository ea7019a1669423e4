/**
 * npm run bench:live [-- --fetches 8 --gap-ms 5]
 *
 * What a live fetch of a large page costs the server's other requests. An origin in its own
 * process serves the largest page a live fetch reads (10 MB: the extraction benchmark's pages one
 * after another) and `websearch serve` runs on a database holding those 181 pages, once with the
 * pages read on the serving thread (`WEBSEARCH_READER_THREADS=0`) and once on a reader thread (the
 * default, 1). In each, one client asks for `--fetches` live fetches of the large page, one after
 * another, while another client searches (keyless, one request at a time, `--gap-ms` apart): the
 * searches' p50, p99 and slowest while the fetches run, and before them with the server idle.
 */
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { tempDir } from '../test/helpers.js';
import { percentile } from './scifact.js';
import { CLI, type ServeProcess, startServe } from './serve-process.js';
import { WireClient } from './wire-client.js';

const { values } = parseArgs({
  options: { fetches: { type: 'string', default: '8' }, 'gap-ms': { type: 'string', default: '5' }, child: { type: 'boolean', default: false } },
});
const DATA = join(import.meta.dirname, '..', '..', 'shared', 'data', 'article-extraction-benchmark');
const pages = readdirSync(join(DATA, 'html'))
  .filter((f) => f.endsWith('.html.gz'))
  .map((f) => ({ id: f.replace('.html.gz', ''), html: gunzipSync(readFileSync(join(DATA, 'html', f))).toString('utf8') }));

if (values.child) {
  // The origin, in its own process so that serving 10 MB does not share the server's core.
  const parts = ['<html><body>'];
  for (let i = 0, size = 0; size < 10e6; i++) {
    const body = pages[i % pages.length]!.html.replace(/<\/?(?:html|head|body)\b[^>]*>/gi, '');
    parts.push(body);
    size += body.length;
  }
  const big = Buffer.from(`${parts.join('')}</body></html>`);
  const paras = Buffer.from(`<html><body>${Array.from({ length: 700_000 }, (_, i) => `<p>p${i}</p>`).join('')}</body></html>`);
  const server = createServer((req, res) => {
    if (req.url!.startsWith('/big')) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(big);
    else if (req.url!.startsWith('/paras')) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(paras);
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1', () => process.send!({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, bytes: big.length }));
} else {
  const origin = fork(new URL(import.meta.url).pathname, ['--child'], { execArgv: ['--import', 'tsx'] });
  const { url: originUrl, bytes } = await new Promise<{ url: string; bytes: number }>((r) => origin.once('message', r));
  const dir = tempDir();
  const jsonl = join(dir.path, 'pages.jsonl');
  writeFileSync(jsonl, pages.map((p) => JSON.stringify({ url: `https://example.com/${p.id}`, html: p.html })).join('\n'));
  const env = {
    ...process.env,
    WEBSEARCH_DATA_DIR: dir.path,
    WEBSEARCH_ALLOW_PRIVATE_NETWORK: 'true',
    WEBSEARCH_KEYLESS_RATE_PER_SECOND: '1000000',
    WEBSEARCH_KEYLESS_RATE_PER_HOUR: '1000000000',
  };
  const imported = spawn(process.execPath, ['--import', 'tsx', CLI, 'import', jsonl], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const [code] = (await once(imported, 'exit')) as [number];
  if (code !== 0) throw new Error(`the import exited with ${code}`);

  const queries = ['election results', 'climate change', 'the president said', 'new study finds', 'police said', 'market shares'];
  const headers = { 'x-service-title': 'bench' };
  const fetches = Number(values.fetches);
  const gap = Number(values['gap-ms']);
  const f = (x: number) => x.toFixed(1);

  /** A process's resident memory in MiB (Linux). */
  const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

  async function startServer(readerThreads: string): Promise<ServeProcess> {
    const server = await startServe(['--log-level', 'error'], { ...env, WEBSEARCH_READER_THREADS: readerThreads });
    await new Promise((r) => setTimeout(r, 1000)); // the reader thread loads its modules
    return server;
  }

  /** Searches one at a time, `gap` ms apart, until `until` settles (or for `ms`): their latencies. */
  async function searches(base: URL, until: Promise<unknown>): Promise<number[]> {
    const client = new WireClient(base);
    let done = false;
    void until.finally(() => (done = true));
    const out: number[] = [];
    try {
      for (let i = 0; !done; i++) {
        const t = performance.now();
        const res = await client.post('/v1/search/public', JSON.stringify({ query: queries[i % queries.length] }), headers);
        if (res.status !== 200) throw new Error(`search: HTTP ${res.status}: ${res.body}`);
        out.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, gap));
      }
    } finally {
      client.close();
    }
    return out.sort((a, b) => a - b);
  }

  console.log(`A live fetch of a ${(bytes / 1e6).toFixed(1)} MB page, ${fetches} one after another, while one client searches ${gap} ms apart (keyless, 181 pages)`);
  console.log('| pages read on | searches, idle: p50 / p99 ms | searches during the fetches: p50 / p99 / slowest ms | live fetch p50 ms |');
  console.log('|---|---|---|---|');
  const memory: string[] = [];
  const liveFetch = async (base: URL, url: string) => {
    const t = performance.now();
    const target = new URL('/v1/fetch/public', base);
    target.search = new URLSearchParams({ url, live: 'true' }).toString();
    const res = await fetch(target, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`live fetch: HTTP ${res.status}: ${body.slice(0, 300)}`);
    return performance.now() - t;
  };
  for (const [name, threads] of [
    ['the serving thread (WEBSEARCH_READER_THREADS=0)', '0'],
    ['a reader thread (default, 1)', '1'],
  ] as const) {
    const server = await startServer(threads);
    try {
      const idle = await searches(server.base, new Promise((r) => setTimeout(r, 3000)));
      const fetchTimes: number[] = [];
      const start = rss(server.pid);
      const fetching = (async () => {
        for (let i = 0; i < fetches; i++) fetchTimes.push(await liveFetch(server.base, `${originUrl}/big?${i}`));
      })();
      const during = await searches(server.base, fetching);
      await fetching;
      fetchTimes.sort((a, b) => a - b);
      console.log(
        `| ${name} | ${f(percentile(idle, 50))} / ${f(percentile(idle, 99))} | ${f(percentile(during, 50))} / ${f(percentile(during, 99))} / ${f(during.at(-1)!)} | ${f(percentile(fetchTimes, 50))} |`,
      );
      const afterBig = rss(server.pid);
      const paraTimes: number[] = [];
      const afterParas: number[] = [];
      for (let i = 0; i < 2; i++) {
        paraTimes.push(await liveFetch(server.base, `${originUrl}/paras?${i}`));
        afterParas.push(rss(server.pid));
      }
      await new Promise((r) => setTimeout(r, 5000));
      const m = (x: number) => x.toFixed(0);
      memory.push(
        `| ${name} | ${m(start)} | ${m(afterBig)} | ${afterParas.map(m).join(' / ')} | ${m(rss(server.pid))} | ${paraTimes.map(m).join(' / ')} |`,
      );
    } finally {
      await server.stop();
    }
  }
  console.log('\nThe server\'s resident memory, MiB, and the 700,000-paragraph page\'s live fetches');
  console.log('| pages read on | start | after the 10 MB fetches | after each 700,000-paragraph fetch | 5 s later | those fetches, ms |');
  console.log('|---|---|---|---|---|---|');
  for (const line of memory) console.log(line);
  origin.kill();
  dir.remove();
}
