/**
 * What a loopback HTTP round trip costs on this machine, right after the thread has computed for a
 * while (as a search request's does after the engine's few milliseconds). No part of the service:
 * a node:http server answering a fixed 10 kB JSON body (a search response's size) and the lean
 * benchmark client, both in this process; before each timed request the thread computes for 0, 1
 * or 5 ms (a loop reading the clock, touching no memory). Also a JSON.stringify of the same body, for comparison.
 * Usage: node --import tsx bench/http-floor.ts
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { percentile } from './scifact.js';
import { WireClient } from './wire-client.js';

const body = {
  query: 'q',
  results: Array.from({ length: 10 }, (_, i) => ({ title: `Title ${i}`.repeat(8), url: `https://example.com/${i}`, description: 'd'.repeat(300), snippet: 's'.repeat(500) })),
};
const payload = JSON.stringify(body);
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload));
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const client = new WireClient(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));

function compute(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

async function measure(what: 'http' | 'json', burstMs: number): Promise<number> {
  const lat: number[] = [];
  for (let k = 0; k < 600; k++) {
    compute(burstMs);
    const t = performance.now();
    if (what === 'http') await client.post('/', '{"query":"q"}');
    else JSON.stringify(body);
    if (k >= 100) lat.push(performance.now() - t);
  }
  return percentile(lat.sort((a, b) => a - b), 50);
}

await measure('http', 0); // warm-up
for (const what of ['http', 'json'] as const) {
  const figures: string[] = [];
  for (const burst of [0, 1, 5]) figures.push(`after ${burst} ms of computing: p50 ${(await measure(what, burst)).toFixed(3)} ms`);
  console.log(`${what === 'http' ? 'HTTP round trip, 10 kB response' : 'JSON.stringify of it'}: ${figures.join('; ')}`);
}
client.close();
server.close();
