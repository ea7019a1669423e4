import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { importJsonl, markdownTitle } from '../../src/acquire/import-jsonl.js';
import { ReaderPool } from '../../src/adapters/reader/reader-pool.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import type { StoredVersion } from '../../src/ports/page-store.js';
import { openDatabase, type Db } from '../../src/adapters/sqlite/database.js';
import { tempDir } from '../helpers.js';

describe('JSONL import', () => {
  const dir = tempDir();
  let db: Db;
  let pages: SqlitePageStore;
  before(() => {
    db = openDatabase({ path: join(dir.path, 'db.sqlite') });
    pages = new SqlitePageStore(db);
  });
  after(() => {
    db.close();
    dir.remove();
  });

  const write = (name: string, lines: (object | string)[]) => {
    const path = join(dir.path, name);
    writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
    return path;
  };

  test('good lines are imported; bad lines are reported with their line number and skipped', async () => {
    const file = write('mixed.jsonl', [
      { url: 'https://a.test/1', markdown: '# One\n\ntext', title: 'One', published_at: '2025-01-02', acquired_at: '2026-01-01T00:00:00Z' },
      '{"url": broken',
      { url: 'https://a.test/2' },
      { url: 'mailto:x@y.z', markdown: 'x' },
      { url: 'https://a.test/3', markdown: 'x', html: '<p>x</p>' },
      { url: 'https://a.test/4', markdown: 'x', extra: 1 },
      { url: 'https://a.test/5', markdown: 'x', published_at: 'last tuesday' },
      '',
      { url: 'https://a.test/6', markdown: 'six', published_at: 1700000000 },
      '[1,2]',
      // Acquired more than a day after now: a date to come, not a capture; within a day, a clock a little ahead.
      { url: 'https://a.test/7', markdown: 'seven', acquired_at: '2026-05-06T00:00:01Z' },
      { url: 'https://a.test/8', markdown: 'eight', acquired_at: '2026-05-05T23:00:00Z' },
    ]);
    const s = await importJsonl(pages, file, { now: () => Date.parse('2026-05-05T00:00:00Z') });
    assert.equal(s.imported, 3);
    assert.equal(s.failed, 8);
    assert.deepEqual(
      s.failures.map((f) => f.line),
      [2, 3, 4, 5, 6, 7, 10, 11],
    );
    assert.match(s.failures[7]!.reason, /acquired_at is more than a day after now/);
    assert.match(s.failures[0]!.reason, /not valid JSON/);
    assert.match(s.failures[1]!.reason, /html or markdown is required/);
    assert.match(s.failures[4]!.reason, /unknown field\(s\): extra/);
    const one = await pages.latest('https://a.test/1');
    assert.equal(one?.publishedAt, Date.parse('2025-01-02'));
    assert.equal(one?.acquiredAt, Date.parse('2026-01-01T00:00:00Z'));
    const six = await pages.latest('https://a.test/6');
    assert.equal(six?.publishedAt, 1_700_000_000_000);
    assert.equal(six?.acquiredAt, Date.parse('2026-05-05T00:00:00Z'));
    assert.equal(await pages.latest('https://a.test/3'), undefined);
  });

  test('a line says the type its page was served as (media_type); an HTML line is text/html unless it says otherwise; a markdown line has none', async () => {
    const file = write('types.jsonl', [
      { url: 'https://m.test/pdf/1', markdown: 'A paper.', media_type: 'Application/PDF; name=paper' },
      { url: 'https://m.test/page', html: '<html><body><p>A page.</p></body></html>' },
      { url: 'https://m.test/feed', html: '<html><body><p>A feed, as XHTML.</p></body></html>', media_type: 'application/xhtml+xml' },
      { url: 'https://m.test/notes', markdown: 'Notes.' },
      { url: 'https://m.test/bad', markdown: 'x', media_type: 'pdf' },
      { url: 'https://m.test/long', markdown: 'x', media_type: `application/${'x'.repeat(70)}` },
      { url: 'https://m.test/number', markdown: 'x', media_type: 7 },
    ]);
    const s = await importJsonl(pages, file, { now: () => Date.parse('2026-05-05T00:00:00Z') });
    assert.equal(s.imported, 4);
    assert.deepEqual(
      s.failures.map((f) => [f.line, f.reason]),
      [
        [5, 'media_type must be a media type such as application/pdf'],
        [6, 'media_type must be a media type such as application/pdf'],
        [7, 'media_type must be a string'],
      ],
    );
    const type = async (path: string) => (await pages.latest(`https://m.test/${path}`))?.mediaType;
    assert.equal(await type('pdf/1'), 'application/pdf');
    assert.equal(await type('page'), 'text/html');
    assert.equal(await type('feed'), 'application/xhtml+xml');
    assert.equal(await type('notes'), undefined);
    assert.equal(await pages.latest('https://m.test/bad'), undefined);
  });

  test('re-importing adds no version for identical content, one for changed content', async () => {
    const first = write('v1.jsonl', [{ url: 'https://b.test/x', markdown: 'same', acquired_at: '2026-01-01T00:00:00Z' }]);
    const again = write('v1b.jsonl', [{ url: 'https://b.test/x', markdown: 'same', acquired_at: '2026-02-01T00:00:00Z' }]);
    const changed = write('v2.jsonl', [{ url: 'https://b.test/x', markdown: 'changed', acquired_at: '2026-03-01T00:00:00Z' }]);
    assert.equal((await importJsonl(pages, first)).imported, 1);
    const s = await importJsonl(pages, again);
    assert.deepEqual([s.imported, s.unchanged], [0, 1]);
    assert.equal((await importJsonl(pages, changed)).imported, 1);
    assert.equal((await pages.history('https://b.test/x')).length, 2);
  });

  test('a markdown page without a title takes its first line\'s level-1 heading, as plain text', async () => {
    const file = write('titles.jsonl', [
      { url: 'https://t.test/plain', markdown: '# Café crème\n\nLe café est chaud.' },
      { url: 'https://t.test/marked', markdown: '\n  \r\n  # **Bold** [link](https://x.test) ##\r\ntext' },
      { url: 'https://t.test/given', markdown: '# Heading\n\ntext', title: 'Given' },
      { url: 'https://t.test/second-level', markdown: '## Section\n\ntext' },
      { url: 'https://t.test/later', markdown: 'text first\n\n# Later heading' },
      { url: 'https://t.test/hashtag', markdown: '#hashtag then text' },
      { url: 'https://t.test/empty', markdown: '#   ##\n\ntext' },
      { url: 'https://t.test/long', markdown: `# ${'long '.repeat(300)}\n\ntext` },
    ]);
    const s = await importJsonl(pages, file);
    assert.equal(s.imported, 8);
    const title = async (path: string) => (await pages.latest(`https://t.test/${path}`))?.title;
    assert.equal(await title('plain'), 'Café crème');
    assert.equal(await title('marked'), 'Bold link');
    assert.equal(await title('given'), 'Given');
    for (const none of ['second-level', 'later', 'hashtag', 'empty', 'long']) assert.equal(await title(none), undefined, none);
    // A line indented by four spaces is code, not a heading (the import trims the page, so only after a first line).
    assert.equal(markdownTitle('\n    # code\n\ntext'), undefined);
    assert.equal(markdownTitle('\n   # Heading\n'), 'Heading');
    // The content is kept as given, heading included.
    assert.equal((await pages.latest('https://t.test/plain'))?.content, '# Café crème\n\nLe café est chaud.');
  });

  test('HTML lines are converted to markdown with their metadata; chrome is dropped', async () => {
    const html = `<!doctype html><html><head><title>Doc title</title>
      <meta name="description" content="A description">
      <meta name="author" content="Grace Hopper">
      <meta property="article:published_time" content="2024-07-08T09:10:11Z">
      <script>var tracking = 1;</script></head>
      <body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
      <article><h1>Heading</h1><p>A paragraph with <a href="https://x.test/">a link</a>.</p>
      <ul><li>one</li><li>two</li></ul></article><footer>Copyright</footer></body></html>`;
    const file = write('html.jsonl', [{ url: 'https://c.test/page', html }]);
    assert.equal((await importJsonl(pages, file)).imported, 1);
    const v = await pages.latest('https://c.test/page');
    assert.equal(v?.title, 'Doc title');
    assert.equal(v?.description, 'A description');
    assert.equal(v?.author, 'Grace Hopper');
    assert.equal(v?.publishedAt, Date.parse('2024-07-08T09:10:11Z'));
    assert.match(v!.content, /^# Heading/);
    assert.match(v!.content, /\[a link\]\(https:\/\/x\.test\/\)/);
    assert.match(v!.content, /- one\n- two/);
    assert.doesNotMatch(v!.content, /Home|Copyright|tracking/);
  });

  test("an HTML line's own publication time later than a day after its acquisition is dropped; the line's published_at is kept; titles and authors are cut", async () => {
    const html = (time: string) => `<html><head><meta property="article:published_time" content="${time}"></head><body><article><p>A paragraph long enough to be the article.</p></article></body></html>`;
    const file = write('future.jsonl', [
      { url: 'https://future.test/1', html: html('2099-01-01'), acquired_at: '2026-05-05T00:00:00Z' },
      { url: 'https://future.test/2', html: html('2026-05-04'), acquired_at: '2026-05-05T00:00:00Z' },
      { url: 'https://future.test/3', markdown: 'three', published_at: '2099-01-01', acquired_at: '2026-05-05T00:00:00Z', title: 'word '.repeat(1_000), author: 'name '.repeat(100) },
    ]);
    const s = await importJsonl(pages, file, { now: () => Date.parse('2026-05-05T00:00:00Z') });
    assert.equal(s.imported, 3);
    assert.equal((await pages.latest('https://future.test/1'))?.publishedAt, undefined);
    assert.equal((await pages.latest('https://future.test/2'))?.publishedAt, Date.parse('2026-05-04'));
    const three = await pages.latest('https://future.test/3');
    assert.equal(three?.publishedAt, Date.parse('2099-01-01'));
    assert.equal(three?.title?.length, 1_000);
    assert.ok(three!.author!.length <= 200 && three!.author!.endsWith('name…'), three!.author);
  });

  test('a byte order mark before the first line is skipped, in a plain file and a gzip one; one further on is bad JSON', async () => {
    const lines = [{ url: 'https://bom.test/1', markdown: 'first' }, { url: 'https://bom.test/2', markdown: 'second' }].map((l) => JSON.stringify(l));
    const text = `\ufeff${lines[0]}\r\n\ufeff${lines[1]}\r\n`;
    writeFileSync(join(dir.path, 'bom.jsonl'), text);
    writeFileSync(join(dir.path, 'bom.jsonl.gz'), gzipSync(text));
    for (const name of ['bom.jsonl', 'bom.jsonl.gz']) {
      const s = await importJsonl(pages, join(dir.path, name));
      assert.deepEqual(s.failures, [{ line: 2, reason: 'not valid JSON' }], name);
    }
    assert.equal((await pages.latest('https://bom.test/1'))?.content, 'first');
  });

  test('gzip files are read; progress is reported per batch', async () => {
    const lines = Array.from({ length: 25 }, (_, i) => JSON.stringify({ url: `https://d.test/${i}`, markdown: `page ${i}` }));
    const path = join(dir.path, 'pages.jsonl.gz');
    writeFileSync(path, gzipSync(lines.join('\n')));
    const progress: number[] = [];
    const s = await importJsonl(pages, path, { batchSize: 10, onProgress: (sum) => progress.push(sum.imported) });
    assert.equal(s.imported, 25);
    assert.deepEqual(progress, [10, 20, 25]);
  });

  test('a gzip file cut short (a partial download): the lines before the cut are stored, the cut is one failure at its line', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ url: `https://cut.test/${i}`, markdown: `Page ${i} about otters ${'and rafts '.repeat(i % 7)}` }));
    const whole = gzipSync(lines.join('\n'));
    const path = join(dir.path, 'cut.jsonl.gz');
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length / 2)));
    const s = await importJsonl(pages, path, { batchSize: 300 });
    assert.equal(s.failed, 1);
    const at = s.failures[0]!.line;
    assert.match(s.failures[0]!.reason, /cut short/);
    assert.equal(s.imported, at - 1, 'every line before the cut, the last unfinished batch too');
    assert.ok(at > 500 && at < 1500, String(at));
    assert.ok(await pages.latest(`https://cut.test/${at - 2}`));
    assert.equal(await pages.latest(`https://cut.test/${at - 1}`), undefined);
  });

  test("language: the line's lang, else the HTML's, else a guess; a bad lang is a failed line", async () => {
    const english = 'The collector was running and it is the thing that they have been waiting for with their team.';
    const file = write('lang.jsonl', [
      { url: 'https://lang.test/declared', markdown: english, lang: 'en-GB' },
      { url: 'https://lang.test/html', html: `<html lang="fr"><body><main><p>${english}</p></main></body></html>` },
      { url: 'https://lang.test/guess', markdown: english },
      { url: 'https://lang.test/unsure', markdown: 'Rust 1.80' },
      { url: 'https://lang.test/bad', markdown: english, lang: 'English!' },
      { url: 'https://lang.test/ja', markdown: '東京は今日晴れです。明日は雨が降るでしょう。' },
    ]);
    const s = await importJsonl(pages, file);
    assert.equal(s.imported, 5);
    assert.deepEqual(s.failures.map((f) => f.line), [5]);
    assert.match(s.failures[0]!.reason, /lang must be a language tag/);
    const lang = async (u: string) => (await pages.latest(`https://lang.test/${u}`))?.lang;
    assert.equal(await lang('declared'), 'en-gb');
    assert.equal(await lang('html'), 'fr');
    assert.equal(await lang('guess'), 'en');
    assert.equal(await lang('unsure'), undefined);
    assert.equal(await lang('ja'), 'ja');
  });
});

describe('JSONL import on the reader threads', () => {
  test('HTML lines are read there as on this thread, in the file order; a line over the time limit fails with its number', async () => {
    const dir = tempDir();
    const reader = new ReaderPool({ threads: 2, timeoutMs: 300, maxWaiting: 32, maxHeapMb: 256 });
    const dbs = [openDatabase({ path: join(dir.path, 'inline.db') }), openDatabase({ path: join(dir.path, 'threads.db') })];
    try {
      const lines: object[] = [];
      for (let i = 0; i < 30; i++) {
        lines.push(
          i % 3 === 0
            ? { url: `https://r.test/${i}`, markdown: `# Note ${i}\n\nA note about the ${i}th heron.` }
            : {
                url: `https://r.test/${i}`,
                // (Every fifth declares no language: the guess from its words is stored, as on this thread.)
                html: `<html${i % 5 === 1 ? '' : ' lang="de"'}><head><title>Seite ${i}</title><meta name="description" content="Reiher ${i}"></head><body><article><p>Der Reiher ${i} steht still im flachen Wasser und wartet auf Fische.</p></article></body></html>`,
                ...(i === 4 ? { title: 'The line names its own title', lang: 'en' } : {}),
              },
        );
        // A page that takes seconds to read: over the threads' 300 ms.
        if (i === 10) lines.push({ url: 'https://r.test/huge', html: `<body>${'<p>ab</p>'.repeat(400_000)}</body>` });
        // A bot challenge saved as a page: refused either way.
        if (i === 20) {
          lines.push({
            url: 'https://r.test/challenge',
            html: '<html><head><title>Just a moment...</title></head><body><div id="cf-browser-verification">Checking your browser before accessing</div></body></html>',
          });
        }
      }
      const file = join(dir.path, 'pages.jsonl');
      writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
      const now = () => Date.parse('2026-05-05T00:00:00Z');
      const [inlinePages, threadPages] = dbs.map((db) => new SqlitePageStore(db)) as [SqlitePageStore, SqlitePageStore];
      const threaded = await importJsonl(threadPages, file, { now, read: reader.readQueued, inFlight: 4, batchSize: 7 });
      assert.deepEqual({ imported: threaded.imported, failed: threaded.failed }, { imported: 30, failed: 2 });
      assert.deepEqual(
        threaded.failures.map((f) => f.line),
        [12, 23],
      );
      assert.match(threaded.failures[0]!.reason, /could not be read within 300 ms/);
      assert.match(threaded.failures[1]!.reason, /bot challenge/);
      assert.equal(reader.threadIds.length, 2, 'both threads read');

      const inline = await importJsonl(inlinePages, file, { now });
      assert.equal(inline.imported, 31, 'on this thread there is no time limit');
      assert.deepEqual(
        inline.failures.map((f) => [f.line, /bot challenge/.test(f.reason)]),
        [[23, true]],
      );
      const fields = (v: StoredVersion | undefined) => v && [v.title, v.description, v.content, v.lang, v.acquiredAt];
      for (let i = 0; i < 30; i++) {
        const url = `https://r.test/${i}`;
        assert.deepEqual(fields(await threadPages.latest(url)), fields(await inlinePages.latest(url)), url);
      }
      assert.deepEqual(fields(await threadPages.latest('https://r.test/4'))!.slice(0, 1), ['The line names its own title']);
      assert.equal((await threadPages.latest('https://r.test/4'))!.lang, 'en');
      assert.equal((await threadPages.latest('https://r.test/5'))!.lang, 'de');
      assert.equal((await threadPages.latest('https://r.test/11'))!.lang, 'de', 'guessed from its words');
    } finally {
      await reader.close();
      for (const db of dbs) db.close();
      dir.remove();
    }
  });
});
