/**
 * The client side of the search benchmark's HTTP figure, in its own process as a user's client
 * is: reads `{ url, queries }` as JSON on stdin, POSTs every query once as warm-up and once timed,
 * one at a time on one kept-alive `node:http` connection, and prints the timed latencies (ms, in
 * query order) as one JSON line.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { text } from 'node:stream/consumers';

const { url, queries } = JSON.parse(await text(process.stdin)) as { url: string; queries: string[] };
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const target = new URL(url);

function post(query: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query });
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-service-title': 'bench' };
    const req = http.request(target, { method: 'POST', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString()}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

for (const q of queries) await post(q);
const latencies: number[] = [];
for (const q of queries) {
  const t = performance.now();
  await post(q);
  latencies.push(performance.now() - t);
}
agent.destroy();
console.log(JSON.stringify({ latencies }));
