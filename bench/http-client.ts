/**
 * The client side of the search benchmark's HTTP figure, in its own process as a user's client
 * is: reads `{ url, queries, headers, warmUpPasses }` as JSON on stdin, POSTs every query
 * `warmUpPasses` times as warm-up (its own code is new to V8, as the server's was) and once timed,
 * one at a time on one kept-alive connection (bench/wire-client.ts), and prints the timed latencies (ms, in
 * query order) as one JSON line.
 */
import { performance } from 'node:perf_hooks';
import { text } from 'node:stream/consumers';
import { WireClient } from './wire-client.js';

const { url, queries, headers, warmUpPasses } = JSON.parse(await text(process.stdin)) as {
  url: string;
  queries: string[];
  headers: Record<string, string>;
  warmUpPasses: number;
};
const target = new URL(url);
const client = new WireClient(target);

async function post(query: string): Promise<void> {
  const res = await client.post(target.pathname, JSON.stringify({ query }), headers);
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body}`);
}

for (let pass = 0; pass < warmUpPasses; pass++) for (const q of queries) await post(q);
const latencies: number[] = [];
for (const q of queries) {
  const t = performance.now();
  await post(q);
  latencies.push(performance.now() - t);
}
client.close();
console.log(JSON.stringify({ latencies }));
