/**
 * webql's read of a batch of candidates from the page store's SQLite file: the serving thread's
 * (engine-index-store.ts) and the search helper's, which checks half of a large batch on its own
 * connection (search-worker.ts).
 */
import type { Db } from '../sqlite/database.js';
import type { WebqlDeps, WebqlVersion } from './webql-search.js';

type WebqlRow = [number, string, string, string | null, string | null, string, string, string];

const webqlVersion = ([id, url, revHost, mediaType, lang, title, description, content]: WebqlRow): WebqlVersion => ({
  id,
  url,
  revHost,
  mediaType,
  lang,
  title,
  description,
  content,
});

/**
 * A batch of candidates (a JSON array of version ids), with their texts or with them empty, and
 * with the page's URL and the version's media type or without them (then empty: no lookup in
 * `pages`, a third of a read with the texts at 1M).
 */
const webqlRows = (withText: boolean, withUrl: boolean) =>
  `SELECT v.id, ${withUrl ? 'p.url, p.rev_host, v.media_type' : "'', '', NULL"}, v.lang, ${withText ? "coalesce(v.title, ''), coalesce(v.description, ''), v.content" : "'', '', ''"}
   FROM versions v ${withUrl ? 'JOIN pages p ON p.id = v.page_id ' : ''}WHERE v.id IN (SELECT value FROM json_each(?))`;

/** `WebqlDeps.read` over `db`, its statements prepared once. */
export function webqlReader(db: Db): WebqlDeps['read'] {
  const text = db.prepare<[string], WebqlRow>(webqlRows(true, true)).raw(true);
  const fields = db.prepare<[string], WebqlRow>(webqlRows(false, true)).raw(true);
  const texts = db.prepare<[string], WebqlRow>(webqlRows(true, false)).raw(true);
  return (ids, withText, withUrl) => {
    const statement = !withText ? fields : withUrl ? text : texts;
    return statement.all(JSON.stringify(ids)).map(webqlVersion);
  };
}
