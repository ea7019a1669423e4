/**
 * npm run bench:http [-- --size 1000000 --queries 300]
 *
 * The HTTP figure of `npm run bench:search` alone (bench/http-figure.ts): what POST
 * /v1/search/public adds to the engine's time, and its stages, on the corpus and saved segments
 * that bench:search built and cached in bench/.cache (run it once first). A few minutes instead
 * of the whole benchmark, for working on the request path.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describeHttpFigure, httpFigure, openServedIndex } from './http-figure.js';
import { benchQuerySets } from './scifact.js';

const { values } = parseArgs({ options: { size: { type: 'string', default: '1000000' }, queries: { type: 'string', default: '300' } } });
const path = join(import.meta.dirname, '.cache', `generated-${values.size}.db`);
const { services, engine } = await openServedIndex(path);
for (const [set, qs] of benchQuerySets(Number(values.queries))) {
  console.log(describeHttpFigure(await httpFigure(services, engine, set, qs)));
}
await services.close();
