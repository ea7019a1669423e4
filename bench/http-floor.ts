/**
 * What a loopback HTTP round trip costs on this machine, right after the thread has computed for a
 * while (as a search request's does after the engine's few milliseconds). No part of the service but its logging:
 * a bare node:http server, a Fastify one, and a Fastify one that logs as the service does (an
 * access line per request, to /dev/null), each answering a fixed 10 kB JSON body (a search
 * response's size), and the lean benchmark client, all in this process; before each timed request
 * the thread computes for 0, 1 or 5 ms (integer arithmetic, touching no memory: `computeFor`), or waits
 * 5 ms for a worker thread that computes. Also a JSON.stringify of the same body, for comparison.
 * Usage: node --import tsx bench/http-floor.ts
 */
import { once } from 'node:events';
import { openSync, writeSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import { AccessLog, serverLogger } from '../src/http/app.js';
import { computeFor, percentile } from './scifact.js';
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
const app = Fastify({ logger: false });
app.post('/', async (_request, reply) => reply.code(200).send(body));
// The same with the service's logging (src/http/app.ts): at info, one access line per request, to /dev/null.
const devNull = openSync('/dev/null', 'w');
const logged = Fastify({ logger: serverLogger('info', { write: (line) => writeSync(devNull, line) }), logController: new AccessLog() });
logged.post('/', async (_request, reply) => reply.code(200).send(body));
const clients = {
  'node:http': new WireClient(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  Fastify: new WireClient(new URL(await app.listen({ host: '127.0.0.1', port: 0 }))),
  "Fastify with the service's logging": new WireClient(new URL(await logged.listen({ host: '127.0.0.1', port: 0 }))),
};

// A worker that computes for the milliseconds it is sent, then answers.
const worker = new Worker(
  `const { parentPort } = require('node:worker_threads');
   const { performance } = require('node:perf_hooks');
   parentPort.on('message', (ms) => { const until = performance.now() + ms; while (performance.now() < until); parentPort.postMessage(0); });`,
  { eval: true },
);
const inWorker = (ms: number) =>
  new Promise<void>((resolve) => {
    worker.once('message', () => resolve());
    worker.postMessage(ms);
  });

type Pause = { ms: number; waiting?: boolean };
async function measure(what: WireClient | 'json', pause: Pause): Promise<number> {
  const lat: number[] = [];
  for (let k = 0; k < 600; k++) {
    if (pause.waiting) await inWorker(pause.ms);
    else computeFor(pause.ms);
    const t = performance.now();
    if (what === 'json') JSON.stringify(body);
    else await what.post('/', '{"query":"q"}');
    if (k >= 100) lat.push(performance.now() - t);
  }
  return percentile(lat.sort((a, b) => a - b), 50);
}

const pauses: [string, Pause][] = [
  ['after 0 ms of computing', { ms: 0 }],
  ['after 1 ms', { ms: 1 }],
  ['after 5 ms', { ms: 5 }],
  ['after 5 ms waiting for a worker that computes', { ms: 5, waiting: true }],
];
for (const client of Object.values(clients)) await measure(client, { ms: 0 }); // warm-up
for (const [name, what] of [...Object.entries(clients), ['JSON.stringify of it', 'json'] as const]) {
  const figures: string[] = [];
  for (const [label, pause] of pauses) figures.push(`${label}: p50 ${(await measure(what, pause)).toFixed(3)} ms`);
  console.log(`${what === 'json' ? name : `HTTP round trip, 10 kB response, ${name}`}: ${figures.join('; ')}`);
}
for (const client of Object.values(clients)) client.close();
server.close();
await app.close();
await logged.close();
await worker.terminate();
