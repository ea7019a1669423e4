import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServices } from '../../src/config/services.js';
import { loadSettings } from '../../src/config/settings.js';
import { buildApp } from '../../src/http/app.js';
import { page, tempDir } from '../helpers.js';

test('the access log: one line per request, after the response, with no secret in it', async () => {
  const dir = tempDir();
  const services = await createServices(loadSettings({ env: {}, flags: { dataDir: dir.path } }));
  const lines: Record<string, unknown>[] = [];
  const app = await buildApp(services, { logStream: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  try {
    await services.pages.putVersion(page('https://example.com/a', { content: 'Apples and pears.' }));
    const secret = 'ws_live_0123456789abcdefghijklmnopqrstuv';
    const keyed = await app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': secret }, payload: { query: 'apples' } });
    assert.equal(keyed.statusCode, 401);
    const keyless = await app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 'log-test', 'x-request-id': 'req-42' }, payload: { query: 'apples' } });
    assert.equal(keyless.statusCode, 200);

    const access = lines.filter((l) => l.msg === 'request completed');
    assert.equal(access.length, 2, 'one line per request');
    assert.equal(lines.filter((l) => l.msg === 'incoming request').length, 0, 'no second line per request');
    const [first, second] = access as { req: { method: string; url: string }; res: { statusCode: number }; responseTime: number; reqId: string; level: number }[];
    assert.deepEqual([first!.req.method, first!.req.url, first!.res.statusCode], ['POST', '/v1/search', 401]);
    assert.deepEqual([second!.req.url, second!.res.statusCode, second!.reqId], ['/v1/search/public', 200, 'req-42']);
    assert.equal(second!.level, 30, 'info level');
    assert.ok(typeof second!.responseTime === 'number' && second!.responseTime >= 0);
    assert.ok(!JSON.stringify(lines).includes(secret), 'the API key is never logged');
  } finally {
    await app.close();
    await services.close();
    dir.remove();
  }
});

test('below info, no access line is written', async () => {
  const dir = tempDir();
  const services = await createServices(loadSettings({ env: {}, flags: { dataDir: dir.path, logLevel: 'warn' } }));
  const lines: string[] = [];
  const app = await buildApp(services, { logStream: { write: (line) => lines.push(line) } });
  try {
    const res = await app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 'log-test' }, payload: { query: 'apples' } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(lines, []);
  } finally {
    await app.close();
    await services.close();
    dir.remove();
  }
});
