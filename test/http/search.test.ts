import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { nearDuplicates, nearFingerprint, nearInSize, nearShingles } from '../../src/core/near-duplicate.js';
import { CHECKED_CANDIDATES_MAX } from '../../src/ops/search.js';
import { createFundedKey, createTestEnv, page, type TestEnv } from '../helpers.js';

const T = (iso: string) => Date.parse(iso);

/** A wire story, as its agency and a paper that ran it show it (its own lead-in, footer and one word), and another paper's story of the same news. */
const CORMORANT_STORY =
  'Cormorants have returned to nest on the old pier at the mouth of the river for the first time in twenty years. ' +
  'Volunteers counted forty-two nests this week, most of them on the iron beams below the deck, where the birds are safe from foxes ' +
  'and from the boats that pass at high tide. The harbour board said the pier will stay closed to visitors until the chicks have ' +
  'fledged in late summer, and asked anglers to keep their lines away from the beams.';
const CORMORANT_PAGES = {
  wire: `By A. Reporter, Coast Wire\n\n${CORMORANT_STORY}\n\n© Coast Wire. All rights reserved.`,
  gazette: `Gazette staff and [wire reports](https://gazette.test/wire)\n\n${CORMORANT_STORY.replace('this week', 'on Tuesday')}\n\nRead more local news in the Gazette.`,
  courier:
    'Birds are back on the pier. A flock of cormorants has settled under the deck of the river pier, which has been closed since spring. ' +
    'The birds dive in the estuary and dry their wings on the railings, and a local photographer has taken pictures of them every morning. ' +
    'Anglers are unhappy that the pier is closed, but the harbour board says it will open again in the autumn.',
  /** A blog that quotes the story whole and says as much again of its own: it holds the story, it does not repeat it. */
  blog:
    `Good news from the river this week. The wire ran it this morning:\n\n> ${CORMORANT_STORY}\n\n` +
    'Twenty years is a long time. The birds left when the cannery opened and the water turned brown, and nobody on the board thought they would come back. ' +
    'What changed is the outfall: since it was closed the estuary has filled with sprats again, and where the sprats go the cormorants follow. ' +
    'Keep the pier closed, by all means.',
};
const NARWHAL_STORY =
  'Narwhals were seen in the fjord this week, a narwhal pod of thirty with calves, swimming close to the ice edge where the narwhal hunts cod. ' +
  'Researchers from the station followed the pod by boat for two days and recorded the clicks the whales use to find their prey under the ice, ' +
  'and they hope to fit tags on two of the adults before the sea freezes again in the autumn.';
/** A site's tide tables, one template: near-duplicates by their text, other pages by their titles. */
const tideTable = (harbour: string, first: string) =>
  `Tide times for ${harbour} this week. High water on Monday at ${first} and 18:40, low water at 00:05 and 12:30. ` +
  'High water on Tuesday at 06:55 and 19:21, low water at 00:48 and 13:10. High water on Wednesday at 07:40 and 20:02. ' +
  'Times are in local time and may change with the weather and the wind; read the notices at the harbour office before you sail. Heights are in metres above chart datum.';

describe('search over HTTP', () => {
  let env: TestEnv;
  before(async () => {
    env = await createTestEnv({ keylessPerSecond: 100000, keylessPerHour: 100000 });
    const p = env.services.pages;
    await p.putVersions([
      page('https://rule3.test/kept', { title: 'Kept', content: 'walrus facts', acquiredAt: T('2026-11-22T12:23:00Z') }),
      page('https://rule3.test/dropped', { title: 'Dropped', content: 'walrus facts', acquiredAt: T('2026-11-22T12:22:59Z') }),
      page('https://rule4.test/morning', { content: 'heron morning', acquiredAt: T('2026-03-04T00:00:00Z') }),
      page('https://rule4.test/evening', { content: 'heron evening', acquiredAt: T('2026-03-04T18:30:00Z') }),
      page('https://rule4.test/next', { content: 'heron next day', acquiredAt: T('2026-03-05T00:00:00Z') }),
      page('https://www.site.test/a', { content: 'otter' }),
      page('https://blog.site.test/b', { content: 'otter' }),
      page('https://othersite.test/c', { content: 'otter' }),
      page('https://pub.test/old', { content: 'lynx', publishedAt: T('2020-01-15T10:00:00Z') }),
      page('https://pub.test/new', { content: 'lynx', publishedAt: T('2026-11-01T10:00:00Z') }),
      page('https://pub.test/none', { content: 'lynx' }),
    ]);
    for (let i = 0; i < 60; i++) await p.putVersion(page(`https://many.test/${i}`, { content: `badger number ${i}` }));
    const filler = Array.from({ length: 10_000 }, () => 'Gecko notes say little.').join(' ');
    await p.putVersions([
      page('https://gecko.test/leopard', { title: 'Leopard geckos', content: 'The leopard gecko is a lizard of dry grassland.' }),
      page('https://gecko.test/tokay', { title: 'Tokay', content: 'A gecko that barks; a leopard would not.' }),
      page('https://gecko.test/care', { title: 'Gecko care', content: 'Feeding and housing.', description: 'How to keep Leopard Geckos' }),
      page('https://gecko.test/scan', { title: 'Scan', content: 'A gecko under X-ray shows its bones.' }),
      page('https://gecko.test/ray', { title: 'Ray', content: 'An x ray of a gecko.' }),
      page('https://gecko.test/archive', { title: 'Archive', content: 'The gecko xray archive.' }),
      // The phrase only past the part of a page snippets read (SCAN_LIMIT, 200,000 characters).
      page('https://gecko.test/long', { title: 'Long', content: `${filler} The leopard gecko ends here.` }),
      // Pages holding the phrase rank above those that do not (three stoats to one).
      ...Array.from({ length: 40 }, (_, i) => page(`https://stoat.test/den/d${i}`, { title: 'Den', content: `stoat stoat stoat den d${i}` })),
      ...Array.from({ length: 15 }, (_, i) => page(`https://stoat.test/field/f${i}`, { title: 'Field', content: `A stoat in field f${i}.` })),
      // More than a check reads (CHECKED_CANDIDATES_MAX), so the three in a field are found only by
      // the query asked as webql asks it; of a length near the other pages', so that so many of
      // them leave the average length, and the other tests' rankings, much as they were.
      ...Array.from({ length: CHECKED_CANDIDATES_MAX + 5 }, (_, i) =>
        page(`https://vole.test/nest/n${i}`, { title: 'Nest', content: `${'vole '.repeat(6)}nest n${i}, lined with grass and moss, under the roots of an old hedge at the edge of a meadow.` }),
      ),
      ...Array.from({ length: 3 }, (_, i) => page(`https://vole.test/field/f${i}`, { title: 'Field', content: `A vole in field f${i}.` })),
      page('https://pdf.test/papers/axolotl.pdf', { title: 'Paper', content: 'Axolotl regeneration.' }),
      page('https://pdf.test/papers/Axolotl-2.PDF?dl=1', { title: 'Paper two', content: 'Axolotl limbs.' }),
      page('https://pdf.test/axolotl.html', { title: 'Page', content: 'Axolotl care.' }),
      page('https://pdf.test/pdf/axolotl', { title: 'Not a file', content: 'Axolotl, pdf.' }),
      // The types pages were served as: a PDF whose URL names no type, a web page, a URL naming one type served as another.
      page('https://preprints.test/pdf/2101.00001', { title: 'Caecilian preprint', content: 'Caecilian burrowing.', mediaType: 'application/pdf' }),
      page('https://preprints.test/abs/2101.00001', { title: 'Caecilian abstract', content: 'Caecilian burrowing, in brief.', mediaType: 'text/html' }),
      page('https://preprints.test/files/caecilian.pdf', { title: 'Caecilian notes', content: 'Caecilian eyes.', mediaType: 'text/html' }),
      page('https://preprints.test/caecilian.txt', { title: 'Caecilian list', content: 'Caecilian species.' }),
      page('https://preprints.test/caecilian.html', { title: 'Caecilian slides', content: 'Caecilian teeth.', mediaType: 'application/pdf' }),
      page('https://preprints.test/data/caecilian', { title: 'Caecilian data', content: 'Caecilian counts.', mediaType: 'application/xhtml+xml' }),
    ]);
    await p.putVersion(page('https://pit.test/p', { title: 'Old title', content: 'ibis first edition', acquiredAt: T('2026-01-01T00:00:00Z') }));
    await p.putVersion(page('https://pit.test/p', { title: 'New title', content: 'ibis second edition', acquiredAt: T('2026-06-01T00:00:00Z') }));
    const long = Array.from({ length: 200 }, (_, i) =>
      i === 150 ? 'The quetzal nests in tall trees of the cloud forest.' : `Filler sentence number ${i} talks about nothing much.`,
    ).join(' ');
    await p.putVersion(page('https://snippet.test/long', { content: long, description: 'A long page' }));
    const wholeArticle = Array.from({ length: 60 }, (_, i) => `The kiwi's sentence ${i} runs on.`).join('\n');
    await p.putVersion(page('https://desc.test/kiwi', { title: 'Kiwi', content: 'The kiwi is a flightless bird.', description: wholeArticle }));
    await p.putVersion(page('https://desc.test/weka', { title: 'The  Weka of the South', content: 'The weka is a flightless rail of New Zealand.', description: 'The weka of the south' }));
    await p.putVersion(page('https://desc.test/takahe', { title: 'The Takahē – a bird of Fiordland | Bird News', content: 'The takahē is a flightless swamphen of Fiordland.', description: 'The Takahē - a bird of Fiordland' }));
    await p.putVersions([
      page('https://ja.test/tenki', { title: '東京の天気', content: '今日は朝から曇っていました。午後になって東京の天気は急に変わりました。' }),
      page('https://ja.test/kyoto', { content: '京都の寺を訪ねました。猫が庭で寝ていました。' }),
      page('https://zh.test/beijing', { content: '北京是中国的首都。今天北京的天气很好。' }),
      page('https://th.test/phasa', { content: 'ภาษาไทยง่ายนิดเดียว' }),
      page('https://ko.test/nalssi', { content: '오늘 서울의 날씨는 맑습니다. 내일은 비가 옵니다.' }),
      page('https://ja.test/jr', { content: 'ＪＲ東日本の時刻表。ﾀﾞｲﾔは毎日変わります。' }),
      page('https://de.wiki.test/wiki/Stra%C3%9Fe', { title: 'Wege', content: 'Eine Seite über Wege.' }),
      page('https://xn--wgv71a119e.jp/about', { title: 'About', content: 'About this site.' }),
      page('https://pl.test/miasto', { title: 'Łódź', content: 'Miasto w Polsce, blisko Warszawy.' }),
      page('https://dk.test/cph', { content: 'København er Danmarks hovedstad.' }),
      page('https://med.test/alz', { content: 'Alzheimer’s disease is the most common dementia.' }),
      page('https://chem.test/block', { content: 'The s block holds two groups.' }),
      page('https://play.test/hamlet', { title: 'To Be or Not to Be', content: 'A soliloquy from Hamlet, with doubt.' }),
      page('https://film.test/it', { title: 'It', content: 'A horror film with a clown.' }),
      page('https://law.test/wills', { title: 'Wills and estates', content: 'How a testament works.' }),
      page('https://song.test/rain', { title: 'It Will Rain', content: 'A song.' }),
      page('https://code.test/cpp', { title: 'Templates', content: 'C++ templates are resolved at compile time.' }),
      page('https://food.test/vitc', { title: 'Citrus', content: 'Vitamin C is found in citrus fruit.' }),
      page('https://md.test/pangolin', { title: 'Pangolin facts', content: '# Pangolin facts\n\nPangolins roll into a ball when threatened.' }),
      // One page under three URLs (a parameter, a mirror), and another page.
      ...['https://dup.test/story?id=1', 'https://dup.test/story?id=1&page=1', 'https://mirror.test/story'].map((url) =>
        page(url, { title: 'Kestrel colony returns', content: 'The kestrel colony returned to the cliffs this spring.' }),
      ),
      page('https://dup.test/story?id=2', { title: 'Kestrel colony returns', content: 'The kestrel colony returned to the cliffs last spring.' }),
      page('https://other.test/kestrels', { title: 'Kestrels', content: 'A kestrel hovers over the cliffs.' }),
      page('https://wire.test/cormorants', { title: 'Cormorants nest on the old pier', content: CORMORANT_PAGES.wire }),
      page('https://gazette.test/news/cormorants', { title: 'Cormorants nest on old pier | The Gazette', content: CORMORANT_PAGES.gazette }),
      page('https://courier.test/cormorants', { title: 'Cormorants nest on the old pier', content: CORMORANT_PAGES.courier }),
      page('https://blog.test/cormorants', { title: 'Why the cormorants came back', content: CORMORANT_PAGES.blog }),
      page('https://tides.test/kingsport', { title: 'Tide table: Kingsport', content: tideTable('Kingsport', '06:12') }),
      page('https://tides.test/kingsport?print=1', { title: 'Tide table: Kingsport', content: `${tideTable('Kingsport', '06:12')} Printed from tides.test.` }),
      page('https://tides.test/eastwick', { title: 'Tide table: Eastwick', content: tideTable('Eastwick', '06:31') }),
      // A wire story run by 40 papers, each with its own byline, ranked above 12 other pages of its word.
      ...Array.from({ length: 40 }, (_, i) =>
        page(`https://paper${i}.test/narwhals`, { title: `Narwhals | Herald ${i}`, content: `By reporter ${i} of the Herald ${i}.\n\n${NARWHAL_STORY}` }),
      ),
      ...Array.from({ length: 12 }, (_, i) => page(`https://zoo${i}.test/narwhal`, { title: `Zoo ${i}`, content: `A narwhal of zoo ${i}.` })),
      // A site's one description on each of its pages; another page's own.
      page('https://birds.test/osprey', { title: 'Ospreys', content: 'The osprey dives feet first for fish.', description: 'Birds of the coast, every week.' }),
      page('https://birds.test/osprey-pair', { title: 'Osprey pairs', content: 'An osprey pair returns each spring.', description: 'Birds of the coast, every week.' }),
      page('https://other.test/osprey', { title: 'Osprey facts', content: 'Ospreys live on every continent but one.', description: 'Facts about the osprey.' }),
      page('https://harbour.test/keeper', {
        title: 'The point',
        content:
          'The harbour has many dinghies in summer, moored in rows along the quay from the market to the old customs house by the river mouth. ' +
          'A lamplighter lives alone on the point, and climbs the tower every evening to light the lamp for the ships that pass in the night.',
      }),
      ...[1, 2, 3, 4].map((n) => page(`https://dinghies.test/${n}`, { title: `Bay ${n}`, content: `The dinghies of bay ${n} are painted red.` })),
      page('https://wire.test/kite', { title: 'Kites return', content: 'Red kites breed again in the valley.', description: 'A story from the wire.' }),
      page('https://paper.test/kite', { title: 'Kites are back', content: 'The red kite was seen over the town.', description: 'A story from the wire.' }),
      page('https://py.test/312', {
        title: 'Release notes',
        content:
          'Python 3.11 is still supported by the projects and vendors that ship it, with security fixes and binary wheels for every platform that its users run today. Python 3.12 improves error messages.',
      }),
      page('https://py.test/311', { title: 'Release notes', content: 'Python 3.11 brought 12 new modules and faster startup.' }),
      page('https://net.test/home', {
        title: 'Routers',
        content: 'Routers come in many sizes and shapes for homes and offices of every kind, and most of them sit on a shelf out of sight. Every room gets Wi-Fi from one router. Cables still run to the desk in the study, where the printer and the old computer stay plugged in all day.',
      }),
      page('https://post.test/office', { title: 'Office', content: 'Send an e-mail to the office.' }),
      page('https://post.test/inbox', {
        title: 'Inbox',
        content: 'The inbox holds messages from many people and lists, sorted by date, with the newest first and the oldest at the end. Your email inbox is full. Old messages can be moved to an archive folder or deleted to make room.',
      }),
      page('https://post.test/letters', { title: 'Letters', content: 'A letter comes by mail to the e desk.' }),
      page('https://slug.test/bird-song-guide', { title: 'Guide', content: 'Nothing more.' }),
      page('https://shop.test/laptop', {
        title: 'Laptops',
        content: 'Laptops come in every size and colour, from small netbooks for school to large workstations for designers and engineers. The best one costs $1,000 this year. Prices fall again after the new models come out in the spring.',
      }),
      page('https://shop.test/phone', { title: 'Phones', content: 'A good phone costs 1000 euros.' }),
      page('https://shop.test/decimal', { title: 'Prices', content: 'A coffee costs 1,00 euro in Rome.' }),
      page('https://dk.test/havn', {
        title: 'Havne',
        content: '# Havne\n\nHavnen ligger ved Øresund, og\nder er mange både.\n\n## Nyhavn\n\nNyhavn har gamle huse.\n- Kanaler\n- Både',
      }),
    ]);
  });
  after(() => env.close());

  const search = async (body: object) => {
    const res = await env.app.inject({
      method: 'POST',
      url: '/v1/search/public',
      headers: { 'x-service-title': 'tests' },
      payload: body,
    });
    return { status: res.statusCode, body: res.json() };
  };
  const urls = async (body: object) => {
    const r = await search(body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.results as { url: string }[]).map((x) => x.url).sort();
  };

  test('rule 3: at 14:23:45, acquired_after=2h keeps 12:23:00 and drops 12:22:59', async () => {
    env.clock.set('2026-11-22T14:23:45Z');
    assert.deepEqual(await urls({ query: 'walrus', acquired_after: '2h' }), ['https://rule3.test/kept']);
    // Bounds are inclusive: 12:23:00 is also at or before 2h ago.
    assert.deepEqual(await urls({ query: 'walrus', acquired_before: '2h' }), ['https://rule3.test/dropped', 'https://rule3.test/kept']);
    // Seconds of the request time do not matter: at 14:23:00 and 14:23:59 the bound is the same minute.
    env.clock.set('2026-11-22T14:23:59.999Z');
    assert.deepEqual(await urls({ query: 'walrus', acquired_after: '2h' }), ['https://rule3.test/kept']);
    env.clock.set('2026-11-22T14:24:00Z');
    assert.deepEqual(await urls({ query: 'walrus', acquired_after: '2h' }), []);
  });

  test('rule 4: a date on _before keeps the whole day; a midnight timestamp drops the rest of it', async () => {
    assert.deepEqual(await urls({ query: 'heron', acquired_before: '2026-03-04' }), [
      'https://rule4.test/evening',
      'https://rule4.test/morning',
    ]);
    assert.deepEqual(await urls({ query: 'heron', acquired_before: '2026-03-04T00:00:00' }), ['https://rule4.test/morning']);
    assert.deepEqual(await urls({ query: 'heron', acquired_after: '2026-03-04', acquired_before: '2026-03-04' }), [
      'https://rule4.test/evening',
      'https://rule4.test/morning',
    ]);
    assert.deepEqual(await urls({ query: 'heron', acquired_after: '2026-03-04T18:30:00+00:00' }), [
      'https://rule4.test/evening',
      'https://rule4.test/next',
    ]);
  });

  test('a relative bound combines with an absolute one across a window (rule 2)', async () => {
    env.clock.set('2026-03-05T06:00:00Z');
    assert.deepEqual(await urls({ query: 'heron', acquired_after: '1d', acquired_before: '2026-03-04' }), ['https://rule4.test/evening']);
  });

  test('published windows; pages without a publication time are left out of them', async () => {
    assert.deepEqual(await urls({ query: 'lynx', published_after: '2026-01-01' }), ['https://pub.test/new']);
    assert.deepEqual(await urls({ query: 'lynx', published_before: '2020-01-15' }), ['https://pub.test/old']);
    assert.equal((await urls({ query: 'lynx' })).length, 3);
  });

  test('after: and before: in a standard query narrow the published window: from the start of what they name, up to its start', async () => {
    env.clock.set('2026-11-20T12:00:00Z');
    const [oldPage, newPage] = ['https://pub.test/old', 'https://pub.test/new'];
    assert.deepEqual(await urls({ query: 'lynx after:2026' }), [newPage]);
    assert.deepEqual(await urls({ query: 'before:2021 lynx' }), [oldPage]);
    assert.deepEqual((await urls({ query: 'lynx after:2020-01-15' })).sort(), [newPage, oldPage].sort(), 'the day named by after: is kept');
    assert.deepEqual(await urls({ query: 'lynx after:2020 before:2020-01-15' }), [], 'the day named by before: is left out');
    assert.deepEqual(await urls({ query: 'lynx AFTER:2020-01 Before:2020-02' }), [oldPage]);
    assert.deepEqual(await urls({ query: 'lynx after:2020-01-15T10:00:00Z before:2020-01-15T10:00:00.001Z' }), [oldPage]);
    assert.deepEqual(await urls({ query: 'lynx after:30d' }), [newPage], 'a relative delta counts back from now');
    assert.deepEqual(await urls({ query: 'lynx before:6y' }), [oldPage]);
    assert.deepEqual(await urls({ query: 'lynx before:6y', query_time: '2026-01-10' }), [], '... or from query_time');
    // With the fields, the narrower bound applies; a window left empty finds nothing (no error).
    assert.deepEqual(await urls({ query: 'lynx after:2019', published_after: '2026-01-01' }), [newPage]);
    assert.deepEqual(await urls({ query: 'lynx before:2027', published_before: '2020-12-31' }), [oldPage]);
    assert.deepEqual(await urls({ query: 'lynx after:2027', published_before: '2026-12-31' }), []);
    // Only the published window: pages with no publication time are left out, as by the fields.
    assert.equal((await urls({ query: 'lynx after:1900' })).length, 2);
    // A value that names no time, or an operator alone, stays words: every lynx page is found.
    const lynxes = ['https://pub.test/new', 'https://pub.test/none', 'https://pub.test/old'];
    for (const query of ['lynx after:yesterday', 'lynx after:2020-13', 'lynx before:20']) {
      const found = await urls({ query });
      assert.deepEqual(lynxes.filter((u) => found.includes(u)), lynxes, query);
    }
    const alone = await search({ query: 'after:2026' });
    assert.equal(alone.status, 200);
    assert.equal((await search({ query: 'lynx after:2026' })).body.query, 'lynx after:2026', 'the response echoes the query as sent');
    // With site: and -word read too.
    assert.deepEqual(await urls({ query: 'site:pub.test lynx before:2021' }), [oldPage]);
  });

  test('query_time: the newest version acquired at or before it', async () => {
    const at = async (query_time?: string) => {
      const r = await search(query_time ? { query: 'ibis', query_time } : { query: 'ibis' });
      return r.body.results.map((x: { title: string }) => x.title);
    };
    assert.deepEqual(await at(), ['New title']);
    assert.deepEqual(await at('2026-03-01'), ['Old title']);
    assert.deepEqual(await at('2026-06-01'), ['New title']);
    assert.deepEqual(await at('2025-12-31T23:59:59Z'), []);
    // A date resolves to the start of that day: at 2026-06-01 00:00:00 the new version exists.
    const r = await search({ query: 'first edition', query_time: '2026-05-31T23:59:59Z' });
    assert.equal(r.body.results[0].title, 'Old title');
  });

  test('query_time re-bases relative deltas', async () => {
    const r = await search({ query: 'ibis', query_time: '2026-06-02T00:00:00Z', acquired_after: '2d' });
    assert.deepEqual(r.body.results.map((x: { title: string }) => x.title), ['New title']);
    const none = await search({ query: 'ibis', query_time: '2026-03-01T00:00:00Z', acquired_after: '1d' });
    assert.deepEqual(none.body.results, []);
  });

  test('site matches the host and its subdomains', async () => {
    assert.deepEqual(await urls({ query: 'otter', site: 'site.test' }), ['https://blog.site.test/b', 'https://www.site.test/a']);
    assert.deepEqual(await urls({ query: 'otter', site: 'blog.site.test' }), ['https://blog.site.test/b']);
  });

  test('site: in a standard query restricts it as the site field does, and narrows the field; the response echoes the query', async () => {
    assert.deepEqual(await urls({ query: 'site:site.test otter' }), ['https://blog.site.test/b', 'https://www.site.test/a']);
    assert.deepEqual(await urls({ query: 'otter site:BLOG.site.test' }), ['https://blog.site.test/b']);
    assert.deepEqual(await urls({ query: 'site:https://blog.site.test/any/path otter' }), ['https://blog.site.test/b'], 'a URL gives its host');
    assert.deepEqual(await urls({ query: 'site:blog.site.test otter', site: 'site.test' }), ['https://blog.site.test/b']);
    assert.deepEqual(await urls({ query: 'site:site.test otter', site: 'blog.site.test' }), ['https://blog.site.test/b']);
    assert.deepEqual(await urls({ query: 'site:othersite.test otter', site: 'site.test' }), [], 'two sites: no page is of both');
    assert.equal((await search({ query: 'site:site.test otter' })).body.query, 'site:site.test otter');
    // One that names no host stays a word of the query, as before (every otter page is found).
    const otters = ['https://blog.site.test/b', 'https://othersite.test/c', 'https://www.site.test/a'];
    const found = await urls({ query: 'site:not_a_host otter' });
    assert.deepEqual(otters.filter((u) => found.includes(u)), otters);
  });

  test('two or more site:s in a standard query find the pages of any of them, each narrowed by the site field', async () => {
    const sorted = async (q: Record<string, unknown>) => (await urls(q)).sort();
    assert.deepEqual(await sorted({ query: 'site:site.test site:othersite.test otter' }), ['https://blog.site.test/b', 'https://othersite.test/c', 'https://www.site.test/a']);
    assert.deepEqual(await sorted({ query: 'site:blog.site.test OR site:othersite.test otter' }), ['https://blog.site.test/b', 'https://othersite.test/c']);
    assert.deepEqual(await sorted({ query: 'site:blog.site.test site:othersite.test otter', site: 'site.test' }), ['https://blog.site.test/b']);
    assert.deepEqual(await sorted({ query: 'site:site.test site:othersite.test otter', site: 'www.site.test' }), ['https://www.site.test/a']);
    assert.deepEqual(await urls({ query: 'site:blog.site.test site:othersite.test otter', site: 'nowhere.test' }), [], 'none of them is of the field\'s site');
    assert.deepEqual(await sorted({ query: 'site:site.test site:othersite.test otter -site:blog.site.test' }), ['https://othersite.test/c', 'https://www.site.test/a']);
  });

  test('-site: in a standard query leaves the site and its subdomains out, with or without site: or the site field', async () => {
    assert.deepEqual(await urls({ query: 'otter -site:site.test' }), ['https://othersite.test/c']);
    assert.deepEqual(await urls({ query: '-site:blog.site.test otter -site:othersite.test' }), ['https://www.site.test/a']);
    assert.deepEqual(await urls({ query: 'site:site.test otter -site:www.site.test' }), ['https://blog.site.test/b']);
    assert.deepEqual(await urls({ query: 'otter -site:https://www.site.test/a', site: 'site.test' }), ['https://blog.site.test/b'], 'a URL gives its host');
    assert.deepEqual(await urls({ query: 'otter -site:site.test', site: 'blog.site.test' }), [], 'the site itself left out');
    // The words site, www, test are not searched for: only otter pages are found.
    assert.deepEqual(await urls({ query: 'otter -site:nowhere.test' }), await urls({ query: 'otter' }));
    assert.equal((await search({ query: 'otter -site:site.test' })).body.query, 'otter -site:site.test');
    // More than twenty, or one that names no host: read as words, as before.
    const many = `otter ${Array.from({ length: 21 }, (_, i) => `-site:x${i}.test`).join(' ')}`;
    assert.ok((await urls({ query: many })).includes('https://www.site.test/a'));
    assert.ok((await urls({ query: 'otter -site:not_a_host' })).includes('https://www.site.test/a'));
  });

  test('-word in a standard query leaves out the pages holding the word, stemmed; one that is no single word is read as before', async () => {
    const ospreys = ['https://birds.test/osprey', 'https://birds.test/osprey-pair', 'https://other.test/osprey'];
    const sorted = async (query: string) => (await urls({ query })).sort();
    assert.deepEqual(await sorted('osprey'), ospreys);
    assert.deepEqual(await sorted('osprey -fish'), ['https://birds.test/osprey-pair', 'https://other.test/osprey']);
    assert.deepEqual(await sorted('osprey -pairs -Continent'), ['https://birds.test/osprey']);
    assert.deepEqual(await sorted('osprey -fish -site:other.test'), ['https://birds.test/osprey-pair']);
    // Nothing else to search for, a stop word, a number: read as words, as before.
    assert.deepEqual(await urls({ query: '-fish' }), ['https://birds.test/osprey']);
    assert.deepEqual(await sorted('osprey -the'), ospreys);
    assert.deepEqual(await urls({ query: 'osprey -1' }), await urls({ query: 'osprey 1' }));
    assert.equal((await search({ query: 'osprey -fish' })).body.query, 'osprey -fish');
    // More than twenty: all read as words, as before (each costs a pass over its postings).
    const twenty = `osprey -fish ${Array.from({ length: 19 }, (_, i) => `-nothing${String.fromCharCode(97 + i)}`).join(' ')}`;
    assert.deepEqual(await sorted(twenty), ['https://birds.test/osprey-pair', 'https://other.test/osprey']);
    assert.ok((await sorted(`${twenty} -nothingz`)).includes('https://birds.test/osprey'));
  });

  test('-"phrase" in a standard query leaves out the pages holding its words side by side, in the title, description or content', async () => {
    const sorted = async (query: string) => (await urls({ query, max_results: 20 })).sort();
    const all = (await sorted('gecko')).filter((u) => u.startsWith('https://gecko.test/'));
    assert.equal(all.length, 7);
    const without = (...paths: string[]) => all.filter((u) => !paths.some((p) => u === `https://gecko.test/${p}`));
    // Stemmed and folded as the index reads words; the description's and past the first 200,000 characters too.
    assert.deepEqual(await sorted('gecko -"leopard gecko"'), without('leopard', 'care', 'long'));
    assert.deepEqual(await sorted('gecko -"gecko leopard"'), all, 'in its order');
    assert.deepEqual(await sorted('gecko -"leopard"'), await sorted('gecko -leopard'), 'one word is a -word');
    assert.deepEqual(await sorted('gecko -"leopard"'), without('leopard', 'tokay', 'care', 'long'));
    // A -compound leaves out both readings (the phrase of its words, its joined word); quoted, the phrase alone.
    assert.deepEqual(await sorted('gecko -x-ray'), without('scan', 'ray', 'archive'));
    assert.deepEqual(await sorted('gecko -"x-ray"'), without('scan', 'ray'));
    assert.deepEqual(await sorted('gecko -"leopard gecko" -x-ray -site:gecko.test'), []);
    // Nothing else to search for, a stop word: read as words, as before.
    assert.ok((await sorted('-"leopard gecko"')).includes('https://gecko.test/leopard'));
    assert.deepEqual(await sorted('gecko -"the"'), await sorted('gecko'));
    assert.equal((await search({ query: 'gecko -"leopard gecko"' })).body.query, 'gecko -"leopard gecko"');
  });

  test('a quoted "phrase" in a standard query: only the pages holding its words side by side, in order, ranked by all the query\'s words', async () => {
    const sorted = async (query: string) => (await urls({ query, max_results: 20 })).sort();
    const g = (...paths: string[]) => paths.map((p) => `https://gecko.test/${p}`).sort();
    // In the title, description or content, stemmed and folded; past the first 200,000 characters too.
    assert.deepEqual(await sorted('"leopard gecko"'), g('care', 'leopard', 'long'));
    assert.deepEqual(await sorted('"Leopard Geckos"'), g('care', 'leopard', 'long'));
    assert.deepEqual(await sorted('"gecko leopard"'), [], 'in its order');
    // The other words rank but need not be held: pages without "lizard" are found too. The page
    // holding "housing" comes first by it; by the phrase alone the leopard page leads (as it does
    // here, also holding "lizard").
    const inOrder = async (query: string) => ((await search({ query })).body.results as { url: string }[]).map((x) => x.url);
    const ranked = await inOrder('lizard "leopard gecko"');
    assert.deepEqual([...ranked].sort(), g('care', 'leopard', 'long'));
    assert.equal(ranked[0], 'https://gecko.test/leopard');
    assert.equal((await inOrder('"leopard gecko" housing'))[0], 'https://gecko.test/care');
    // What is left out is decided on every page, as webql decides it.
    assert.deepEqual(await sorted('"leopard gecko" -"dry grassland"'), g('care', 'long'));
    assert.deepEqual(await sorted('"leopard gecko" -lizard -site:a.test'), g('care', 'long'));
    assert.deepEqual(await sorted('"leopard gecko" -site:gecko.test'), []);
    assert.deepEqual(await sorted('"leopard gecko" "x-ray"'), []);
    assert.deepEqual(await sorted('gecko "x-ray"'), g('ray', 'scan'), 'a quoted compound is its words side by side');
    assert.deepEqual(await sorted('"gecko is a -lizard"'), g('leopard'), 'a hyphen inside quotes excludes nothing');
    // A quoted word, stop words alone, an unclosed quote: words, as before.
    assert.deepEqual(await sorted('"gecko"'), await sorted('gecko'));
    assert.ok((await sorted('"to be"')).includes('https://play.test/hamlet'));
    assert.deepEqual(await sorted('"leopard gecko'), await sorted('leopard gecko'));
    const r = await search({ query: '"leopard gecko" lizard', snippet_max_length: 180 });
    assert.equal(r.body.query, '"leopard gecko" lizard');
    assert.match(r.body.results[0].snippet, /leopard gecko is a lizard/);
  });

  test('intitle:, inurl: and filetype: in a standard query: only the pages whose title holds the words, whose URL holds the text or names the type; with a -, not', async () => {
    const sorted = async (query: string) => (await urls({ query, max_results: 20 })).sort();
    const g = (...paths: string[]) => paths.map((p) => `https://gecko.test/${p}`).sort();
    assert.deepEqual(await sorted('intitle:gecko'), g('care', 'leopard'), 'stemmed and folded, as the title: of webql');
    assert.deepEqual(await sorted('INTITLE:"leopard geckos"'), g('leopard'));
    assert.deepEqual(await sorted('intitle:"geckos leopard"'), [], 'a phrase in its order');
    // The title's words and the query's other words rank; the others need not be held.
    const inOrder = async (query: string) => ((await search({ query })).body.results as { url: string }[]).map((x) => x.url);
    assert.deepEqual(await inOrder('intitle:gecko housing'), g('care', 'leopard'));
    assert.deepEqual(await inOrder('lizard intitle:gecko'), g('leopard', 'care').reverse());
    assert.deepEqual(await sorted('gecko inurl:TOKAY'), g('tokay'), 'inurl: is case-insensitive');
    assert.deepEqual(await sorted('gecko inurl:gecko.test/ar'), g('archive'));
    // With what is left out, a quoted phrase and site:.
    assert.deepEqual(await sorted('intitle:gecko -feeding'), g('leopard'));
    assert.deepEqual(await sorted('"leopard gecko" intitle:gecko'), g('care', 'leopard'));
    assert.deepEqual(await sorted('intitle:gecko "dry grassland"'), g('leopard'));
    assert.deepEqual(await sorted('site:gecko.test intitle:leopard'), g('leopard'));
    assert.deepEqual(await sorted('intitle:gecko -site:gecko.test'), []);
    // One with no word, or an inurl: with nothing to rank by, stays words.
    assert.deepEqual(await sorted('gecko intitle:"..."'), await sorted('gecko'));
    assert.deepEqual(await sorted('inurl:archive'), await sorted('inurl archive'));
    assert.deepEqual(await sorted('gecko inurl:"  "'), await sorted('gecko inurl'));
    assert.equal((await search({ query: 'intitle:gecko' })).body.query, 'intitle:gecko');
    // filetype: (or ext:) the type the URL names its file by, of any case, before a query or not.
    assert.deepEqual(await sorted('axolotl filetype:pdf'), ['https://pdf.test/papers/Axolotl-2.PDF?dl=1', 'https://pdf.test/papers/axolotl.pdf']);
    assert.deepEqual(await sorted('EXT:.html axolotl'), ['https://pdf.test/axolotl.html']);
    assert.deepEqual(await sorted('axolotl filetype:doc'), []);
    assert.deepEqual(await sorted('axolotl filetype:pdf inurl:axolotl.pdf'), ['https://pdf.test/papers/axolotl.pdf']);
    assert.deepEqual(await sorted('axolotl filetype:p.df'), await sorted('axolotl filetype p df'), 'a value that names no type stays words');
    // With a - before it, each leaves those pages out.
    assert.deepEqual(await sorted('axolotl -filetype:pdf'), ['https://pdf.test/axolotl.html', 'https://pdf.test/pdf/axolotl']);
    assert.deepEqual(await sorted('axolotl -inurl:PAPERS -ext:html'), ['https://pdf.test/pdf/axolotl']);
    assert.deepEqual(await sorted('gecko -intitle:leopard').then((us) => us.filter((u) => u.startsWith('https://gecko.test/'))), g('archive', 'care', 'long', 'ray', 'scan', 'tokay'));
    assert.deepEqual(await sorted('intitle:paper -intitle:"paper two" axolotl'), ['https://pdf.test/papers/axolotl.pdf']);
    assert.deepEqual(await sorted('"axolotl regeneration" -filetype:pdf'), []);
    // Or the type the page was served as (a page stored before types were kept: its URL's alone).
    const c = (...paths: string[]) => paths.map((p) => `https://preprints.test/${p}`).sort();
    assert.deepEqual(await sorted('caecilian filetype:pdf'), c('pdf/2101.00001', 'files/caecilian.pdf', 'caecilian.html'));
    assert.deepEqual(await sorted('caecilian filetype:html'), c('abs/2101.00001', 'files/caecilian.pdf', 'caecilian.html', 'data/caecilian'));
    assert.deepEqual(await sorted('caecilian filetype:htm'), c('abs/2101.00001', 'files/caecilian.pdf', 'data/caecilian'));
    assert.deepEqual(await sorted('caecilian -filetype:pdf'), c('abs/2101.00001', 'caecilian.txt', 'data/caecilian'));
    assert.deepEqual(await sorted('caecilian filetype:txt'), c('caecilian.txt'));
    // No web page by its URL or the type it was served as: a PDF, and a text of no type (the index keeps to them).
    assert.deepEqual(await sorted('caecilian -filetype:html'), c('pdf/2101.00001', 'caecilian.txt'));
    assert.deepEqual(await sorted('caecilian -ext:htm'), c('pdf/2101.00001', 'caecilian.txt', 'caecilian.html'));
    const { key } = await createFundedKey(env.services, 1_000_000);
    const webql = async (query: string) => {
      const res = await env.app.inject({ method: 'POST', url: '/v1/search', headers: { 'x-api-key': key }, payload: { query, mode: 'webql' } });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().results as { url: string }[]).map((x) => x.url).sort();
    };
    assert.deepEqual(await webql('caecilian -filetype:html'), c('pdf/2101.00001', 'caecilian.txt'));
    assert.deepEqual(await webql('caecilian -filetype:html (species OR burrowing)'), c('pdf/2101.00001', 'caecilian.txt'));
    assert.deepEqual(await webql('caecilian (-filetype:html OR teeth)'), c('pdf/2101.00001', 'caecilian.txt', 'caecilian.html'));
    assert.deepEqual(await sorted('"caecilian burrowing" -ext:html'), c('pdf/2101.00001'));
    assert.deepEqual(await sorted('-inurl:papers'), await sorted('inurl papers'), 'what is left out alone stays words');
    // Left out past the best CHECKED_CANDIDATES_MAX: every page of the words decided.
    const voles = await urls({ query: 'vole -inurl:/nest/' });
    assert.deepEqual(voles, ['https://vole.test/field/f0', 'https://vole.test/field/f1', 'https://vole.test/field/f2']);
    // Checked on the ranked pages, further down while they fail; past the best CHECKED_CANDIDATES_MAX, every page of the words is decided.
    const stoats = await urls({ query: 'stoat inurl:/field/' });
    assert.equal(stoats.length, 10);
    assert.ok(stoats.every((u) => u.startsWith('https://stoat.test/field/')), stoats.join());
    assert.deepEqual(await urls({ query: 'vole inurl:/FIELD/' }), ['https://vole.test/field/f0', 'https://vole.test/field/f1', 'https://vole.test/field/f2']);
    // The title's word is a word of the query: stoats in a field are found too, below the voles.
    const fields = ((await search({ query: 'vole intitle:field', max_results: 20 })).body.results as { url: string }[]).map((x) => x.url);
    assert.deepEqual(fields.slice(0, 3).sort(), ['https://vole.test/field/f0', 'https://vole.test/field/f1', 'https://vole.test/field/f2']);
    assert.ok(fields.length === 18 && fields.slice(3).every((u) => u.startsWith('https://stoat.test/field/')), fields.join());
  });

  test('a word no page holds is asked for as the nearest word in spelling that pages hold; phrases and fields are asked as written', async () => {
    const sorted = async (query: string) => (await urls({ query, max_results: 20 })).sort();
    const geckos = (await sorted('gecko')).filter((u) => u.startsWith('https://gecko.test/'));
    assert.ok(geckos.length >= 7);
    assert.deepEqual((await sorted('gekco')).filter((u) => u.startsWith('https://gecko.test/')), geckos, 'one transposition');
    assert.deepEqual(await sorted('leopard gekcos'), await sorted('leopard gecko'));
    const r = await search({ query: 'leopard gekco', snippet_max_length: 180 });
    assert.equal(r.body.query, 'leopard gekco', 'the response echoes the query as sent');
    assert.match(r.body.results[0].snippet, /leopard gecko/i, 'the snippet holds the word asked for');
    // Words pages hold, short words and what is quoted or a field are asked as written.
    assert.deepEqual(await sorted('gecko'), await sorted('"gecko"'));
    assert.deepEqual(await sorted('gekc'), []);
    assert.deepEqual(await sorted('"leopard gekco"'), []);
    assert.deepEqual(await sorted('intitle:gekco'), []);
    assert.deepEqual(await sorted('gecko -gekco'), await sorted('gecko'), 'a word left out is not corrected');
  });

  test('-"phrase": the ranks of pages left out are filled from further down; past the best CHECKED_CANDIDATES_MAX, every page of the words is decided', async () => {
    const field = (u: string) => u.startsWith('https://stoat.test/field/') || u.startsWith('https://vole.test/field/');
    // The 40 pages holding the phrase rank first: none of the first 10 passes, and the next round
    // goes eight times as deep (nextDepth), where the 15 that pass are.
    const index = env.services.index;
    const search = index.search.bind(index);
    const depths: number[] = [];
    index.search = (q) => (depths.push(q.limit), search(q));
    let ten: string[];
    try {
      ten = await urls({ query: 'stoat -"stoat den"' });
    } finally {
      index.search = search;
    }
    assert.deepEqual(depths, [10, 80]);
    assert.equal(ten.length, 10);
    assert.ok(ten.every(field), ten.join());
    const fifty = await urls({ query: 'stoat -"stoat den"', max_results: 50 });
    assert.equal(fifty.length, 15);
    assert.ok(fifty.every(field));
    // Below the CHECKED_CANDIDATES_MAX pages holding the phrase, the three that do not are found, by the query asked as webql asks it.
    assert.ok((await urls({ query: 'vole', max_results: 50 })).every((u) => !field(u)));
    const three = ['https://vole.test/field/f0', 'https://vole.test/field/f1', 'https://vole.test/field/f2'];
    assert.deepEqual(await urls({ query: 'vole -"vole nest"' }), three);
    assert.deepEqual(await urls({ query: 'vole -"vole nest" -f1' }), [three[0], three[2]], 'and what else is left out');
    assert.deepEqual(await urls({ query: 'vole -nest' }), three);
  });

  test('never more than max_results; default 10', async () => {
    assert.equal((await search({ query: 'badger' })).body.results.length, 10);
    assert.equal((await search({ query: 'badger', max_results: 1 })).body.results.length, 1);
    assert.equal((await search({ query: 'badger', max_results: 50 })).body.results.length, 50);
  });

  test('result shape: title, url, description, snippet, ISO 8601 UTC times', async () => {
    const r = await search({ query: 'lynx', published_after: '2026-01-01' });
    assert.equal(r.body.query, 'lynx');
    const [res] = r.body.results;
    assert.deepEqual(Object.keys(res).sort(), ['acquired_at', 'description', 'published_at', 'snippet', 'title', 'url']);
    assert.equal(res.published_at, '2026-11-01T10:00:00.000Z');
    assert.equal(res.acquired_at, '2026-01-01T00:00:00.000Z');
    const noDate = (await search({ query: 'otter', site: 'othersite.test' })).body.results[0];
    assert.equal('published_at' in noDate, false);
    assert.equal(noDate.description, 'otter', 'without a description, the opening text');
  });

  test("a page's own description is short: spaces folded, cut at a word near 300 characters (in search and fetch)", async () => {
    const hit = (await search({ query: 'flightless kiwi' })).body.results[0];
    assert.equal(hit.url, 'https://desc.test/kiwi');
    const fetched = (await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(hit.url)}`, headers: { 'x-service-title': 't' } })).json();
    for (const description of [hit.description, fetched.description]) {
      assert.ok(description.length <= 300 && description.length > 250, `${description.length}`);
      assert.match(description, /^The kiwi's sentence 0 runs on\. The kiwi's sentence 1 runs on\. [^\n]*\S…$/);
    }
  });

  test("a description that only repeats the title gives way to the page's opening text, in search; fetch answers the page's own", async () => {
    const hit = (await search({ query: 'weka rail' })).body.results[0];
    assert.equal(hit.url, 'https://desc.test/weka');
    assert.equal(hit.description, 'The weka is a flightless rail of New Zealand.');
    const fetched = (await env.app.inject({ url: `/v1/fetch/public?url=${encodeURIComponent(hit.url)}`, headers: { 'x-service-title': 't' } })).json();
    assert.equal(fetched.description, 'The weka of the south');
    // A part of the title says nothing more either, whatever stands between its words (a dash for a hyphen).
    const takahe = (await search({ query: 'takahē swamphen' })).body.results[0];
    assert.equal(takahe.url, 'https://desc.test/takahe');
    assert.equal(takahe.description, 'The takahē is a flightless swamphen of Fiordland.');
  });

  test('snippets are query-biased, within snippet_max_length, cut at a word boundary', async () => {
    for (const max of [180, 300, 1000]) {
      // On its site: the long page's one "quetzal nests" among 1,800 words ranks near the short vole nests of other tests.
      const r = await search({ query: 'quetzal nests', site: 'snippet.test', snippet_max_length: max });
      const { snippet } = r.body.results[0];
      assert.ok(snippet.length <= max, `${snippet.length} <= ${max}`);
      assert.match(snippet, /quetzal nests/);
      const body = snippet.replace(/…$/, '');
      assert.ok(/[.\w]$/.test(body), 'ends on a whole word');
      const words = body.split(/\s+/);
      for (const w of words) assert.match(w, /^(The|quetzal|nests|in|tall|trees|of|the|cloud|forest\.|Filler|sentence|number|\d+|talks|about|nothing|much\.)$/, w);
    }
    const r = await search({ query: 'quetzal', snippet_max_length: 10000 });
    assert.ok(r.body.results[0].snippet.length > 5000);
  });

  test('a page under several URLs is one result, and the ranks it took are filled from further down', async () => {
    const copies = ['https://dup.test/story?id=1', 'https://dup.test/story?id=1&page=1', 'https://mirror.test/story'];
    const ranked = async (body: object) => ((await search(body)).body.results as { url: string }[]).map((x) => x.url);
    const all = await ranked({ query: 'kestrel colony cliffs' });
    assert.equal(all.length, 3, all.join(' '));
    assert.equal(all.filter((u) => copies.includes(u)).length, 1, all.join(' '));
    // The same title with other content is another page.
    assert.ok(all.includes('https://dup.test/story?id=2') && all.includes('https://other.test/kestrels'), all.join(' '));
    // The engine's first three are the copies: asked again for more, the search still gives three.
    for (const max of [1, 2, 3]) {
      const some = await ranked({ query: 'kestrel colony cliffs', max_results: max });
      assert.deepEqual(some, all.slice(0, max), `max_results ${max}`);
    }
  });

  test('a near-duplicate of a result ranked above it is left out, when on another host or under the same title; a site\'s pages of one template are kept', async () => {
    // The texts are near-duplicates, or not, as the fingerprints of their pages say.
    const near = (a: string, b: string) => nearDuplicates(nearFingerprint(a)!, nearFingerprint(b)!);
    assert.equal(near(CORMORANT_PAGES.wire, CORMORANT_PAGES.gazette), true);
    assert.equal(near(CORMORANT_PAGES.wire, CORMORANT_PAGES.courier), false);
    // The blog's fingerprint agrees with the story's, but it is half as long again: not a repeat.
    assert.equal(near(CORMORANT_PAGES.wire, CORMORANT_PAGES.blog), true);
    assert.equal(nearInSize(nearShingles(CORMORANT_PAGES.wire), nearShingles(CORMORANT_PAGES.blog)), false);
    assert.equal(near(tideTable('Kingsport', '06:12'), tideTable('Eastwick', '06:31')), true);
    const ranked = async (body: object) => ((await search(body)).body.results as { url: string }[]).map((x) => x.url);
    // Of the pages the tests store, these tests' own.
    const these = (urls: string[], hosts: RegExp) => urls.filter((u) => hosts.test(new URL(u).hostname));
    const stories = these(await ranked({ query: 'cormorants pier' }), /^(wire|gazette|courier|blog)\.test$/);
    assert.equal(stories.length, 3, stories.join(' '));
    assert.ok(stories.includes('https://courier.test/cormorants'), 'the same title over other text is another story');
    assert.ok(stories.includes('https://blog.test/cormorants'), 'a page that quotes the story at length is another page');
    assert.equal(stories.filter((u) => u === 'https://wire.test/cormorants' || u === 'https://gazette.test/news/cormorants').length, 1, stories.join(' '));
    // The one left out comes back when the one shown is not a result.
    assert.deepEqual(await ranked({ query: 'cormorants pier', site: 'gazette.test' }), ['https://gazette.test/news/cormorants']);
    assert.deepEqual(await ranked({ query: 'cormorants pier', site: 'wire.test' }), ['https://wire.test/cormorants']);
    // The print copy shares its host and its title: left out. Eastwick's table is another page.
    const tides = these(await ranked({ query: 'tide times harbour' }), /^tides\.test$/);
    assert.equal(tides.length, 2, tides.join(' '));
    assert.ok(tides.includes('https://tides.test/eastwick'), tides.join(' '));
  });

  test('a story on many sites takes one rank: the others are filled from further down, however many copies rank above them', async () => {
    const results = ((await search({ query: 'narwhal', max_results: 10 })).body.results as { url: string }[]).map((x) => x.url);
    assert.equal(results.length, 10, results.join(' '));
    assert.equal(results.filter((u) => /^https:\/\/paper\d+\.test\//.test(u)).length, 1, results.join(' '));
    assert.equal(results.filter((u) => /^https:\/\/zoo\d+\.test\//.test(u)).length, 9, results.join(' '));
  });

  test('a description that several results, or other pages of its host, share says nothing of each: each gives its opening text instead', async () => {
    const described = async (body: object) => Object.fromEntries(((await search(body)).body.results as { url: string; description: string }[]).map((x) => [x.url, x.description]));
    assert.deepEqual(await described({ query: 'osprey' }), {
      'https://birds.test/osprey': 'The osprey dives feet first for fish.',
      'https://birds.test/osprey-pair': 'An osprey pair returns each spring.',
      'https://other.test/osprey': 'Facts about the osprey.',
    });
    // Alone in the results, the site's description is still its host's for all its pages.
    assert.deepEqual(await described({ query: 'osprey dives', max_results: 1 }), { 'https://birds.test/osprey': 'The osprey dives feet first for fish.' });
    // Two hosts' pages that share one (a wire story's) are known by it only when both are results.
    assert.deepEqual(await described({ query: 'kite' }), {
      'https://wire.test/kite': 'Red kites breed again in the valley.',
      'https://paper.test/kite': 'The red kite was seen over the town.',
    });
    assert.deepEqual(Object.values(await described({ query: 'kite', max_results: 1 })), ['A story from the wire.']);
  });

  test("a snippet's sentence holding a rare word of the query comes before one holding a common word", async () => {
    const [hit] = (await search({ query: 'dinghies lamplighter', max_results: 1, snippet_max_length: 180 })).body.results;
    assert.equal(hit.url, 'https://harbour.test/keeper');
    assert.match(hit.snippet, /^A lamplighter lives alone/);
    // The same words, each counted once: the first of equals (a single word gives no weights).
    const [alone] = (await search({ query: 'dinghies', max_results: 5, site: 'harbour.test', snippet_max_length: 180 })).body.results;
    assert.match(alone.snippet, /^The harbour has many dinghies/);
  });

  test('a snippet leaves out a first heading the title shows already', async () => {
    const [hit] = (await search({ query: 'pangolin facts' })).body.results;
    assert.deepEqual([hit.title, hit.snippet], ['Pangolin facts', 'Pangolins roll into a ball when threatened.']);
  });

  test('Chinese, Japanese, Korean and Thai pages are found by their words, though written without spaces', async () => {
    assert.deepEqual(await urls({ query: '東京' }), ['https://ja.test/tenki']);
    assert.deepEqual(await urls({ query: '天気' }), ['https://ja.test/tenki']);
    assert.deepEqual(await urls({ query: '猫' }), ['https://ja.test/kyoto']);
    assert.deepEqual(await urls({ query: '北京 天气' }), ['https://zh.test/beijing']);
    assert.deepEqual(await urls({ query: 'ไทย' }), ['https://th.test/phasa']);
    // A Korean word carries its particle (서울의, 날씨는): the bare nouns find it.
    assert.deepEqual(await urls({ query: '서울 날씨' }), ['https://ko.test/nalssi']);
    assert.deepEqual(await urls({ query: '비' }), ['https://ko.test/nalssi']);
    // Fullwidth letters and halfwidth katakana, as Japanese pages often write them, are found by their usual forms.
    assert.deepEqual(await urls({ query: 'jr' }), ['https://ja.test/jr']);
    assert.deepEqual(await urls({ query: 'ダイヤ' }), ['https://ja.test/jr']);
    // A query asks for the pair: the page with 東京 holds 京 but is not a result for 京都.
    assert.deepEqual(await urls({ query: '京都' }), ['https://ja.test/kyoto']);
    const r = await search({ query: '東京の天気' });
    assert.equal(r.body.results[0].title, '東京の天気');
    assert.match(r.body.results[0].snippet, /東京の天気は急に変わりました。/);
  });

  test('letters no accent can be taken off (Ł, ø, ß) are found typed in ASCII, as Lucene\'s ASCIIFoldingFilter folds them', async () => {
    assert.deepEqual(await urls({ query: 'lodz' }), ['https://pl.test/miasto']);
    assert.deepEqual(await urls({ query: 'Łódź' }), ['https://pl.test/miasto']);
    const cph = await search({ query: 'kobenhavn hovedstad' });
    assert.deepEqual(cph.body.results.map((x: { url: string }) => x.url), ['https://dk.test/cph']);
    // The snippet shows the page's own word.
    assert.match(cph.body.results[0].snippet, /København er Danmarks hovedstad/);
  });

  test('a snippet\'s lines are joined by a newline where a block starts, by a space within a paragraph; a description has no headings', async () => {
    const r = await search({ query: 'øresund nyhavn' });
    assert.deepEqual(r.body.results.map((x: { url: string }) => x.url), ['https://dk.test/havn']);
    const [hit] = r.body.results;
    // The page's first heading is its title, shown above the snippet; the others are kept.
    assert.equal(hit.snippet, 'Havnen ligger ved Øresund, og der er mange både.\nNyhavn\nNyhavn har gamle huse.\nKanaler\nBåde');
    assert.equal(hit.description, 'Havnen ligger ved Øresund, og der er mange både. Nyhavn har gamle huse. Kanaler Både');
  });

  test('C++ is a word of its own: it finds the C++ page and not one about vitamin C, and c finds only that one', async () => {
    assert.deepEqual(await urls({ query: 'C++' }), ['https://code.test/cpp']);
    const c = await urls({ query: 'c' });
    assert.ok(c.includes('https://food.test/vitc') && !c.includes('https://code.test/cpp'), c.join(' '));
    const r = await search({ query: 'c++ compile' });
    assert.equal(r.body.results[0].snippet, 'C++ templates are resolved at compile time.');
  });

  test('3.12 is a word of its own: it finds the page holding it, not one holding a 3 and a 12, and the snippet is its sentence', async () => {
    assert.deepEqual(await urls({ query: '3.12' }), ['https://py.test/312']);
    const r = await search({ query: 'python 3.12', snippet_max_length: 180 });
    assert.deepEqual(r.body.results.map((x: { url: string }) => x.url), ['https://py.test/312', 'https://py.test/311']);
    assert.equal(r.body.results[0].snippet, 'Python 3.12 improves error messages.');
  });

  test('a page\'s hyphenated compound is found by its words joined (wifi finds Wi-Fi, email e-mail), a query\'s by either reading, and the snippet is its sentence', async () => {
    assert.deepEqual(await urls({ query: 'wifi' }), ['https://net.test/home']);
    assert.deepEqual(await urls({ query: 'WiFi' }), ['https://net.test/home']);
    const r = await search({ query: 'wifi', snippet_max_length: 180 });
    assert.match(r.body.results[0].snippet, /^Every room gets Wi-Fi from one router\. Cables/);
    assert.deepEqual(await urls({ query: 'email' }), ['https://post.test/inbox', 'https://post.test/office']);
    // A query's compound is read both ways, a page scoring the better: as its words and as the words joined.
    const r2 = await search({ query: 'e-mail', snippet_max_length: 180 });
    assert.deepEqual(r2.body.results.map((x: { url: string }) => x.url), ['https://post.test/office', 'https://post.test/letters', 'https://post.test/inbox']);
    assert.match(r2.body.results[2].snippet, /^Your email inbox is full\./);
    // A URL's slug is no compound: its words are terms, not the slug joined.
    assert.deepEqual(await urls({ query: 'birdsongguide' }), []);
    assert.deepEqual(await urls({ query: 'guide' }), ['https://slug.test/bird-song-guide']);
  });

  test('a number grouped by thousands is its digits: 1000 finds $1,000 and 1,000 finds 1000, and the snippet is its sentence', async () => {
    const both = ['https://shop.test/laptop', 'https://shop.test/phone'];
    assert.deepEqual(await urls({ query: '1000' }), both);
    assert.deepEqual(await urls({ query: '1,000' }), both);
    const r = await search({ query: '1000', snippet_max_length: 180 });
    const laptop = r.body.results.find((x: { url: string }) => x.url === 'https://shop.test/laptop');
    assert.match(laptop.snippet, /^The best one costs \$1,000 this year\./);
    // A comma that does not group thousands stays in the word.
    assert.deepEqual(await urls({ query: '1,00' }), ['https://shop.test/decimal']);
  });

  test('a possessive\'s s is no word: a query holding one asks for the noun alone', async () => {
    assert.deepEqual(await urls({ query: "alzheimer's" }), ['https://med.test/alz']);
    assert.deepEqual(await urls({ query: 'alzheimer' }), ['https://med.test/alz']);
    assert.deepEqual(await urls({ query: 's block' }), ['https://chem.test/block']);
  });

  test('a URL\'s words are read as a person reads them: escapes decoded, an internationalized host in its own letters', async () => {
    assert.deepEqual(await urls({ query: 'straße' }), ['https://de.wiki.test/wiki/Stra%C3%9Fe']);
    assert.deepEqual(await urls({ query: 'strasse' }), ['https://de.wiki.test/wiki/Stra%C3%9Fe']);
    // 日本語 asks for 日本 and 本語: the page on 日本語.jp holds both, ＪＲ東日本's page one.
    const r = await search({ query: '日本語' });
    assert.deepEqual(r.body.results.map((x: { url: string }) => x.url), ['https://xn--wgv71a119e.jp/about', 'https://ja.test/jr']);
    // The hex of the escaped bytes is not a word of the page.
    assert.deepEqual(await urls({ query: 'c3' }), []);
  });

  test('a query of stop words alone finds the pages whose titles hold them; punctuation-only queries return no results', async () => {
    const hamlet = await search({ query: 'to be or not to be' });
    assert.equal(hamlet.body.results[0].url, 'https://play.test/hamlet');
    assert.equal(hamlet.body.results[0].title, 'To Be or Not to Be');
    assert.deepEqual(await urls({ query: 'it' }), ['https://film.test/it', 'https://song.test/rain']);
    assert.equal((await search({ query: 'it' })).body.results[0].url, 'https://film.test/it');
    // A title's stop words are its own terms: `wills` (stem `will`) does not find a title's `will`,
    // and any other query ignores them (`of`, in every other page's title, adds none to `soliloquy`).
    assert.deepEqual(await urls({ query: 'wills' }), ['https://law.test/wills']);
    assert.deepEqual(await urls({ query: 'of soliloquy' }), ['https://play.test/hamlet']);
    // Stop words in the text alone are not indexed: `with` is in both pages' text, in no title.
    assert.deepEqual(await urls({ query: 'with' }), []);
    const r = await search({ query: '!!! ???' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.results, []);
  });

  test('bad bodies: not JSON, wrong content type, unknown field', async () => {
    const notJson = await env.app.inject({
      method: 'POST',
      url: '/v1/search/public',
      headers: { 'x-service-title': 't', 'content-type': 'application/json' },
      payload: '{"query": ',
    });
    assert.equal(notJson.statusCode, 400);
    assert.equal(notJson.json().code, 'invalid_parameter');
    const text = await env.app.inject({
      method: 'POST',
      url: '/v1/search/public',
      headers: { 'x-service-title': 't', 'content-type': 'text/plain' },
      payload: 'query',
    });
    assert.equal(text.statusCode, 400);
    const unknown = await search({ query: 'x', foo: 1 });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.param, 'foo');
    const invalidDate = await search({ query: 'x', published_after: 'yesterday' });
    assert.deepEqual(Object.keys(invalidDate.body).sort(), ['code', 'error', 'param']);
    assert.equal(invalidDate.body.param, 'published_after');
  });
});

test('a misspelling a page holds, beside a word far commoner, is asked for as written and as the word', async () => {
  const env = await createTestEnv({ keylessPerSecond: 100000, keylessPerHour: 100000 });
  try {
    await env.services.pages.putVersions([
      ...Array.from({ length: 210 }, (_, i) => page(`https://newt.test/s${i}`, { title: 'Newt', content: `A salamander, number ${i}.` })),
      page('https://newt.test/typo', { title: 'Typo', content: 'A salamnder by the pond.' }),
    ]);
    const search = async (query: string) => {
      const res = await env.app.inject({ method: 'POST', url: '/v1/search/public', headers: { 'x-service-title': 'tests' }, payload: { query, max_results: 50 } });
      assert.equal(res.statusCode, 200);
      return (res.json().results as { url: string }[]).map((r) => r.url);
    };
    const found = await search('salamnder pond');
    assert.equal(found.length, 50);
    assert.equal(found[0], 'https://newt.test/typo', 'the page holding both words as written ranks first');
    assert.ok(found.slice(1).every((u) => /^https:\/\/newt\.test\/s\d+$/.test(u)), found.join());
  } finally {
    await env.close();
  }
});
