/**
 * One contract for the PageStore + IndexStore pair, to be run against every adapter
 * (SQLite now; PostgreSQL and our own engine must pass the same).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NEAR_BYTES, nearFingerprint } from '../../src/core/near-duplicate.js';
import { buildPassages, PASSAGE_INDEX_MIN, SCAN_LIMIT } from '../../src/core/passages.js';
import { cachedStem } from '../../src/core/text.js';
import { pageSnippet, SnippetQuery } from '../../src/ops/snippet.js';
import type { IndexQuery, IndexStore } from '../../src/ports/index-store.js';
import type { PageStore } from '../../src/ports/page-store.js';
import { idOf, page } from '../helpers.js';

export type PageIndexFactory = () => Promise<{ pages: PageStore; index: IndexStore; close(): Promise<void> }>

const T = (iso: string) => Date.parse(iso);

export function pageIndexContract(name: string, make: PageIndexFactory): void {
  describe(`PageStore + IndexStore contract: ${name}`, () => {
    async function withStores(fn: (s: { pages: PageStore; index: IndexStore }) => Promise<void>) {
      const s = await make();
      try {
        await fn(s);
      } finally {
        await s.close();
      }
    }
    const urlsOf = async (index: IndexStore, pages: PageStore, q: Partial<IndexQuery> & { terms: string[] }) => {
      const hits = await index.search({ limit: 10, ...q });
      return (await pages.getVersions(hits.map((h) => h.versionId))).map((v) => v.url);
    };
    /** Pages of a site, its subdomain, a host ending like it and a host beginning like it. */
    const putKiwis = (pages: PageStore) =>
      pages.putVersions(['https://example.com/1', 'https://docs.example.com/2', 'https://notexample.com/3', 'https://example.com.evil.test/4'].map((url) => page(url, { content: 'kiwi' })));
    const kiwiUrls = async (index: IndexStore, pages: PageStore, q: Partial<IndexQuery>) => (await urlsOf(index, pages, { terms: ['kiwi'], ...q })).sort();

    test('a version round-trips with its metadata', () =>
      withStores(async ({ pages }) => {
        const v = page('https://example.com/a', {
          title: 'T',
          description: 'D',
          author: 'A',
          content: '# Hello\n\nworld',
          publishedAt: T('2025-01-02T03:04:05Z'),
          acquiredAt: T('2026-01-01T00:00:00Z'),
          mediaType: 'application/pdf',
        });
        const out = await pages.putVersion(v);
        assert.equal(out.status, 'added');
        assert.equal(out.version.mediaType, 'application/pdf');
        const got = await pages.latest('https://example.com/a');
        assert.ok(got);
        assert.equal(got.mediaType, 'application/pdf');
        assert.equal((await pages.history('https://example.com/a'))[0]!.mediaType, 'application/pdf');
        assert.equal((await pages.getVersions([got.id]))[0]!.mediaType, 'application/pdf');
        await pages.putVersion(page('https://example.com/b'));
        const untyped = await pages.latest('https://example.com/b');
        assert.equal(untyped!.mediaType, undefined, 'a version of no known type has none');
        assert.equal((await pages.getVersions([untyped!.id]))[0]!.mediaType, undefined);
        assert.equal(got.title, 'T');
        assert.equal(got.description, 'D');
        assert.equal(got.author, 'A');
        assert.equal(got.content, '# Hello\n\nworld');
        assert.equal(got.publishedAt, T('2025-01-02T03:04:05Z'));
        assert.equal(got.acquiredAt, T('2026-01-01T00:00:00Z'));
        assert.equal(got.host, 'example.com');
        assert.equal(await pages.latest('https://example.com/missing'), undefined);
      }));

    test('identical content is not stored twice; changed content is a new version', () =>
      withStores(async ({ pages }) => {
        const url = 'https://example.com/a';
        assert.equal((await pages.putVersion(page(url, { acquiredAt: T('2026-01-01T00:00:00Z') }))).status, 'added');
        assert.equal((await pages.putVersion(page(url, { acquiredAt: T('2026-02-01T00:00:00Z') }))).status, 'unchanged');
        assert.equal(
          (await pages.putVersion(page(url, { content: 'new', acquiredAt: T('2026-03-01T00:00:00Z') }))).status,
          'added',
        );
        assert.deepEqual(await pages.stats(), { pages: 1, versions: 2 });
        assert.equal((await pages.latest(url))?.content, 'new');
      }));

    test('a long page is stored with its passage index, a short one without; getVersions returns it', () =>
      withStores(async ({ pages }) => {
        const long = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} about topic ${i % 17}.`).join('\n');
        assert.ok(long.length >= PASSAGE_INDEX_MIN);
        const [a, b] = await pages.putVersions([page('https://example.com/long', { content: long }), page('https://example.com/short', { content: 'Short.' })]);
        const [gotLong, gotShort] = await pages.getVersions([idOf(a!), idOf(b!)]);
        assert.deepEqual(gotLong!.passages && new Uint8Array(gotLong!.passages), buildPassages(long));
        assert.equal(gotShort!.passages, undefined);
      }));

    test('a version is stored with its near-duplicate fingerprint, or one a reader thread made; getVersions returns it; a short text has none', () =>
      withStores(async ({ pages }) => {
        const text = (n: number) => Array.from({ length: 60 }, (_, i) => `word${(i * 7 + n) % 97}`).join(' ');
        const given = new Uint8Array(NEAR_BYTES).fill(7);
        const stored = await pages.putVersions([
          page('https://example.com/made', { content: text(1) }),
          page('https://example.com/given', { content: text(2), near: given }),
          page('https://example.com/short', { content: 'Short.' }),
        ]);
        const [made, taken, short] = await pages.getVersions(stored.map((o) => idOf(o)));
        assert.deepEqual(new Uint8Array(made!.near!), nearFingerprint(text(1)));
        assert.deepEqual(new Uint8Array(taken!.near!), given);
        assert.equal(short!.near, undefined);
      }));

    test('getVersions reads a page of megabytes only as far as snippets do: the same snippet and description, a whole prefix', () =>
      withStores(async ({ pages }) => {
        // Astral characters (two UTF-16 units each) all along, so a cut by code points and one by units differ.
        const line = (i: number) => `Otters \u{1F9A6} swim in river ${i}. Herons wait \u{1F426} by reeds.\n`;
        const huge = Array.from({ length: 60_000 }, (_, i) => (i % 5 === 0 ? `\n## Part ${i}\n\n` : '') + line(i)).join('') + 'Last line: frogs.';
        assert.ok(huge.length > 10 * SCAN_LIMIT);
        const [stored] = await pages.putVersions([page('https://example.com/huge', { content: huge, description: undefined })]);
        const [got] = await pages.getVersions([idOf(stored!)]);
        assert.ok(got!.content.length >= SCAN_LIMIT, `${got!.content.length} units`);
        assert.ok(got!.content.length < huge.length / 4, 'the whole page was read');
        assert.ok(huge.startsWith(got!.content));
        assert.doesNotMatch(got!.content, /[\uD800-\uDBFF]$/, 'a surrogate pair was cut');
        for (const words of [['otter', 'heron'], ['river', '59999'], ['frog'], ['part', '39990']]) {
          const query = new SnippetQuery(words.map(cachedStem));
          assert.deepEqual(pageSnippet(got!.content, got!.passages, query, 500, { describe: true }), pageSnippet(huge, got!.passages, query, 500, { describe: true }));
          assert.deepEqual(pageSnippet(got!.content, undefined, query, 500, { describe: true }), pageSnippet(huge, undefined, query, 500, { describe: true }));
        }
        // Its fingerprint is that of the part read, as the background fill makes it from that part.
        assert.deepEqual(new Uint8Array(got!.near!), nearFingerprint(got!.content));
      }));

    test("getVersions says which descriptions other pages of the host hold too: not a copy's, an older version's or another host's", () =>
      withStores(async ({ pages }) => {
        const site = 'News and views from the harbour.';
        const at = T('2026-03-01T00:00:00Z');
        const stored = await pages.putVersions([
          page('https://news.test/tides', { content: 'Tides.', description: site, acquiredAt: at }),
          page('https://www.news.test/gulls', { content: 'Gulls.', description: site, acquiredAt: at }),
          page('https://news.test/boats', { content: 'Boats.', description: site, acquiredAt: at }),
          page('https://other.test/tides', { content: 'Tides elsewhere.', description: site, acquiredAt: at }),
          page('https://copy.test/a', { title: 'A', content: 'A page.', description: 'Its own words.', acquiredAt: at }),
          page('https://copy.test/a?page=1', { title: 'A', content: 'A page.', description: 'Its own words.', acquiredAt: at }),
          page('https://old.test/a', { content: 'First.', description: 'Kept through edits.', acquiredAt: at }),
          page('https://old.test/a', { content: 'Second.', description: 'Kept through edits.', acquiredAt: at + 1000 }),
          page('https://none.test/a', { content: 'No description.', acquiredAt: at }),
          page('https://none.test/b', { content: 'None either.', acquiredAt: at }),
        ]);
        const shared = async (...k: number[]) => (await pages.getVersions(k.map((i) => idOf(stored[i]!)))).map((v) => v.sharedDescription ?? false);
        // Two pages of news.test hold it, and www.news.test is another host; other.test's is its own.
        assert.deepEqual(await shared(0, 1, 2, 3), [true, false, true, false]);
        // A copy of one page under another URL, and a page's own versions, share no description.
        assert.deepEqual(await shared(4, 5, 6, 7, 8, 9), [false, false, false, false, false, false]);
        // A page that comes to hold it later makes it shared.
        const [herons] = await pages.putVersions([page('https://www.news.test/herons', { content: 'Herons.', description: site, acquiredAt: at })]);
        assert.deepEqual(await shared(1), [true]);
        assert.equal((await pages.getVersions([idOf(herons!)]))[0]!.sharedDescription, true);
        // A run of captures split by one stored later goes on as a copy of its version: marked as it is.
        const cap = 'Shared by the pages of cap.test.';
        await pages.putVersions([
          page('https://cap.test/a', { content: 'A', description: cap, acquiredAt: at }),
          page('https://cap.test/b', { content: 'B', description: cap, acquiredAt: at }),
          page('https://cap.test/a', { content: 'A', description: cap, acquiredAt: at + 3000 }),
          page('https://cap.test/a', { content: 'C', description: cap, acquiredAt: at + 2000 }),
        ]);
        const timeline = await pages.history('https://cap.test/a');
        assert.deepEqual(timeline.map((v) => v.content), ['A', 'C', 'A']);
        assert.deepEqual((await pages.getVersions(timeline.map((v) => v.id))).map((v) => v.sharedDescription), [true, true, true]);
      }));

    test('getVersions: the versions asked for, in the order asked, any number of them; unknown ids left out', () =>
      withStores(async ({ pages }) => {
        const stored = await pages.putVersions(
          Array.from({ length: 23 }, (_, i) => page(`https://example.com/${i}`, { content: `page ${i}`, title: `T${i}` })),
        );
        const ids = stored.map((o) => idOf(o));
        const asked = [...ids].reverse();
        assert.deepEqual((await pages.getVersions(asked)).map((v) => v.id), asked);
        assert.deepEqual((await pages.getVersions(asked)).map((v) => v.title), asked.map((id) => `T${ids.indexOf(id)}`));
        const unknown = Math.max(...ids) + 1000;
        assert.deepEqual((await pages.getVersions([ids[3]!, unknown, ids[1]!])).map((v) => v.id), [ids[3], ids[1]]);
        assert.deepEqual((await pages.getVersions([ids[5]!])).map((v) => v.content), ['page 5']);
        assert.deepEqual(await pages.getVersions([]), []);
      }));

    test('a batch is all or nothing', () =>
      withStores(async ({ pages }) => {
        const bad = { ...page('https://example.com/b'), content: null as unknown as string };
        await assert.rejects(pages.putVersions([page('https://example.com/a'), bad]));
        assert.deepEqual(await pages.stats(), { pages: 0, versions: 0 });
      }));

    test('ranking: more matching terms and a title match rank higher', () =>
      withStores(async ({ pages, index }) => {
        await pages.putVersions([
          page('https://a.test/1', { title: 'Cooking pasta', content: 'Boil water and add salt.' }),
          page('https://a.test/2', { title: 'Rust memory safety', content: 'Ownership and borrowing give memory safety.' }),
          page('https://a.test/3', { title: 'Notes', content: 'Some words about memory in passing.' }),
        ]);
        const urls = await urlsOf(index, pages, { terms: ['memory', 'safety'] });
        assert.deepEqual(urls, ['https://a.test/2', 'https://a.test/3']);
      }));

    test('stemming matches word forms', () =>
      withStores(async ({ pages, index }) => {
        await pages.putVersion(page('https://a.test/1', { content: 'The runners were running quickly.' }));
        assert.deepEqual(await urlsOf(index, pages, { terms: ['run'] }), ['https://a.test/1']);
      }));

    test('limit is honoured and no match gives nothing', () =>
      withStores(async ({ pages, index }) => {
        await pages.putVersions(Array.from({ length: 20 }, (_, i) => page(`https://a.test/${i}`, { content: `zebra ${i}` })));
        assert.equal((await index.search({ terms: ['zebra'], limit: 7 })).length, 7);
        assert.equal((await index.search({ terms: ['unicorn'], limit: 7 })).length, 0);
        assert.equal((await index.search({ terms: [], limit: 7 })).length, 0);
      }));

    test('query syntax in terms is matched literally, never interpreted', () =>
      withStores(async ({ pages, index }) => {
        await pages.putVersion(page('https://a.test/1', { content: 'near or and not' }));
        for (const term of ['"', 'NEAR', 'a*', '(', 'title:x', '^']) {
          await assert.doesNotReject(index.search({ terms: [term], limit: 5 }), term);
        }
      }));

    test('site matches the host and its subdomains only', () =>
      withStores(async ({ pages, index }) => {
        await putKiwis(pages);
        const urls = await urlsOf(index, pages, { terms: ['kiwi'], site: 'example.com' });
        assert.deepEqual(urls.sort(), ['https://docs.example.com/2', 'https://example.com/1']);
        assert.deepEqual(await urlsOf(index, pages, { terms: ['kiwi'], site: 'docs.example.com' }), ['https://docs.example.com/2']);
      }));

    test('excluded sites leave out their hosts and subdomains only, with or without a site', () =>
      withStores(async ({ pages, index }) => {
        await putKiwis(pages);
        const urls = (q: Partial<IndexQuery>) => kiwiUrls(index, pages, q);
        assert.deepEqual(await urls({ excludeSites: ['example.com'] }), ['https://example.com.evil.test/4', 'https://notexample.com/3']);
        assert.deepEqual(await urls({ excludeSites: ['docs.example.com', 'evil.test'] }), ['https://example.com/1', 'https://notexample.com/3']);
        assert.deepEqual(await urls({ site: 'example.com', excludeSites: ['docs.example.com'] }), ['https://example.com/1']);
        assert.deepEqual(await urls({ site: 'docs.example.com', excludeSites: ['example.com'] }), []);
        assert.deepEqual(await urls({ excludeSites: ['nowhere.test'] }), (await urls({})));
      }));

    test('inUrl keeps to the pages whose URL holds the text, in any case, and to the pages stored since', () =>
      withStores(async ({ pages, index }) => {
        await putKiwis(pages);
        assert.deepEqual(await kiwiUrls(index, pages, { inUrl: 'EXAMPLE.com/' }), ['https://docs.example.com/2', 'https://example.com/1', 'https://notexample.com/3']);
        assert.deepEqual(await kiwiUrls(index, pages, { inUrl: 'evil.test/4' }), ['https://example.com.evil.test/4']);
        assert.deepEqual(await kiwiUrls(index, pages, { inUrl: 'nowhere' }), []);
        await pages.putVersion(page('https://kiwi.test/nowhere/5', { content: 'kiwi' }));
        assert.deepEqual(await kiwiUrls(index, pages, { inUrl: 'nowhere' }), ['https://kiwi.test/nowhere/5']);
      }));

    test('excluded terms leave out the pages that hold any of them, in any field, stemmed as the terms are', () =>
      withStores(async ({ pages, index }) => {
        await pages.putVersions([
          page('https://a.test/1', { title: 'Jaguar the cat', content: 'The jaguar hunts at night.' }),
          page('https://a.test/2', { title: 'Jaguar cars', content: 'A jaguar with a V8 engine.' }),
          page('https://a.test/3', { title: 'Jaguars', content: 'Jaguar racing cars of the sixties.' }),
          page('https://a.test/4', { title: 'Jaguar', content: 'The jaguar swims.', description: 'Not about a car.' }),
        ]);
        const urls = async (excludeTerms?: string[]) => (await urlsOf(index, pages, { terms: ['jaguar'], ...(excludeTerms && { excludeTerms }) })).sort();
        assert.deepEqual(await urls(['car']), ['https://a.test/1']);
        assert.deepEqual(await urls(['cars']), ['https://a.test/1']);
        assert.deepEqual(await urls(['engine', 'sixties']), ['https://a.test/1', 'https://a.test/4']);
        assert.deepEqual(await urls(['nowhere']), await urls());
        assert.deepEqual(await urls(['jaguar']), []);
        // Every word asked for left out, stemmed alike: nothing (and the engine looks at no page).
        assert.deepEqual(await urlsOf(index, pages, { terms: ['jaguars', 'jaguar'], excludeTerms: ['jaguar'] }), []);
      }));

    test('any of several sites matches their hosts and subdomains; none matches nothing', () =>
      withStores(async ({ pages, index }) => {
        await putKiwis(pages);
        const urls = (q: Partial<IndexQuery>) => kiwiUrls(index, pages, q);
        assert.deepEqual(await urls({ anySites: ['docs.example.com', 'notexample.com'] }), ['https://docs.example.com/2', 'https://notexample.com/3']);
        assert.deepEqual(await urls({ anySites: ['example.com', 'evil.test'] }), ['https://docs.example.com/2', 'https://example.com.evil.test/4', 'https://example.com/1']);
        assert.deepEqual(await urls({ anySites: ['example.com', 'notexample.com'], site: 'notexample.com' }), ['https://notexample.com/3']);
        assert.deepEqual(await urls({ anySites: ['example.com', 'nowhere.test'], excludeSites: ['docs.example.com'] }), ['https://example.com/1']);
        assert.deepEqual(await urls({ anySites: [] }), []);
      }));

    test('acquired and published windows are inclusive; pages without a publication time drop out of published filters', () =>
      withStores(async ({ pages, index }) => {
        await pages.putVersions([
          page('https://a.test/early', { content: 'mango', acquiredAt: T('2026-01-01T12:22:59Z'), publishedAt: T('2025-01-01T00:00:00Z') }),
          page('https://a.test/edge', { content: 'mango', acquiredAt: T('2026-01-01T12:23:00Z'), publishedAt: T('2025-06-01T00:00:00Z') }),
          page('https://a.test/nodate', { content: 'mango', acquiredAt: T('2026-01-02T00:00:00Z') }),
        ]);
        assert.deepEqual(
          (await urlsOf(index, pages, { terms: ['mango'], acquiredAfter: T('2026-01-01T12:23:00Z') })).sort(),
          ['https://a.test/edge', 'https://a.test/nodate'],
        );
        assert.deepEqual(await urlsOf(index, pages, { terms: ['mango'], acquiredBefore: T('2026-01-01T12:22:59Z') }), [
          'https://a.test/early',
        ]);
        assert.deepEqual(await urlsOf(index, pages, { terms: ['mango'], publishedAfter: T('2025-06-01T00:00:00Z') }), [
          'https://a.test/edge',
        ]);
        assert.deepEqual(
          (await urlsOf(index, pages, { terms: ['mango'], publishedBefore: T('2025-12-31T00:00:00Z') })).sort(),
          ['https://a.test/early', 'https://a.test/edge'],
        );
      }));

    test('point in time: the version alive at query_time, none before the first', () =>
      withStores(async ({ pages, index }) => {
        const url = 'https://a.test/p';
        await pages.putVersion(page(url, { content: 'papaya old text', acquiredAt: T('2026-01-01T00:00:00Z') }));
        await pages.putVersion(page(url, { content: 'papaya new text', acquiredAt: T('2026-03-01T00:00:00Z') }));
        const at = async (iso?: string) => {
          const hits = await index.search({ terms: ['papaya'], limit: 10, queryTime: iso ? T(iso) : undefined });
          return (await pages.getVersions(hits.map((h) => h.versionId))).map((v) => v.content);
        };
        assert.deepEqual(await at(), ['papaya new text']);
        assert.deepEqual(await at('2026-02-01T00:00:00Z'), ['papaya old text']);
        assert.deepEqual(await at('2026-03-01T00:00:00Z'), ['papaya new text']);
        assert.deepEqual(await at('2026-02-28T23:59:59.999Z'), ['papaya old text']);
        assert.deepEqual(await at('2025-12-31T23:59:59Z'), []);
        // Terms only in the old version match only at the old point in time.
        const old = await index.search({ terms: ['old'], limit: 10 });
        assert.equal(old.length, 0);
        assert.equal((await index.search({ terms: ['old'], limit: 10, queryTime: T('2026-02-01T00:00:00Z') })).length, 1);
      }));

    test('an older capture imported after a newer one takes its place in the timeline', () =>
      withStores(async ({ pages, index }) => {
        const url = 'https://a.test/p';
        await pages.putVersion(page(url, { content: 'guava v3', acquiredAt: T('2026-03-01T00:00:00Z') }));
        await pages.putVersion(page(url, { content: 'guava v1', acquiredAt: T('2026-01-01T00:00:00Z') }));
        await pages.putVersion(page(url, { content: 'guava v2', acquiredAt: T('2026-02-01T00:00:00Z') }));
        assert.equal((await pages.latest(url))?.content, 'guava v3');
        const at = async (iso: string) => {
          const hits = await index.search({ terms: ['guava'], limit: 10, queryTime: T(iso) });
          return (await pages.getVersions(hits.map((h) => h.versionId))).map((v) => v.content);
        };
        assert.deepEqual(await at('2026-01-15T00:00:00Z'), ['guava v1']);
        assert.deepEqual(await at('2026-02-15T00:00:00Z'), ['guava v2']);
        assert.deepEqual(await at('2026-03-15T00:00:00Z'), ['guava v3']);
        assert.deepEqual(
          (await pages.history(url)).map((v) => v.content),
          ['guava v1', 'guava v2', 'guava v3'],
        );
      }));

    test('captures at one instant follow one another by content hash, stored in any order; the latest is what search finds', () =>
      withStores(async ({ pages, index }) => {
        const [t1, t2] = [T('2026-01-01T00:00:00Z'), T('2026-02-01T00:00:00Z')];
        // One title for the three pages: the content hash, which orders an instant's captures, holds it.
        const captures = [
          { title: 'Guava', content: 'guava a', acquiredAt: t1 },
          { title: 'Guava', content: 'guava b', acquiredAt: t2 },
          { title: 'Guava', content: 'guava c', acquiredAt: t1 },
          { title: 'Guava', content: 'guava b', acquiredAt: t1 },
        ];
        const timelines = [];
        for (const [url, order] of [['https://a.test/p', [0, 1, 2, 3]], ['https://a.test/q', [3, 2, 1, 0]], ['https://a.test/r', [1, 3, 0, 2]]] as const) {
          for (const k of order) await pages.putVersion(page(url, captures[k]));
          const history = await pages.history(url);
          const keys = history.map((v) => `${v.acquiredAt} ${v.contentHash}`);
          assert.deepEqual(keys, [...keys].sort(), 'by time, then content hash');
          assert.ok(history.every((v, i) => i === 0 || v.content !== history[i - 1]!.content), 'a run of one content is one version');
          const latest = await pages.latest(url);
          assert.equal(latest?.id, history.at(-1)!.id);
          const hits = await index.search({ terms: ['guava'], limit: 10, site: 'a.test' });
          assert.ok(hits.some((h) => h.versionId === latest!.id), 'search finds the latest');
          const atT1 = await index.search({ terms: ['guava'], limit: 10, queryTime: t1 });
          assert.ok(atT1.some((h) => h.versionId === history.filter((v) => v.acquiredAt === t1).at(-1)!.id), 'the last at t1 is alive then');
          timelines.push(history.map((v) => [v.content, v.acquiredAt]));
        }
        assert.deepEqual(timelines[1], timelines[0]);
        assert.deepEqual(timelines[2], timelines[0]);
        assert.equal((await index.search({ terms: ['guava'], limit: 10 })).length, 3);
      }));

    test('versions that are not searchable never appear in results', () =>
      withStores(async ({ pages, index }) => {
        await pages.putVersion(page('https://a.test/private', { content: 'secret token', searchable: false }));
        assert.equal((await index.search({ terms: ['secret'], limit: 10 })).length, 0);
        assert.equal((await pages.latest('https://a.test/private'))?.searchable, false);
      }));

    test('rebuild gives the same answers', () =>
      withStores(async ({ pages, index }) => {
        await pages.putVersions([page('https://a.test/1', { content: 'lime lime' }), page('https://a.test/2', { content: 'lime' })]);
        const before = await index.search({ terms: ['lime'], limit: 10 });
        await index.rebuild();
        assert.deepEqual(await index.search({ terms: ['lime'], limit: 10 }), before);
      }));
  });
}
