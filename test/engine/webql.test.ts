/**
 * webql on the engine (adapters/engine/webql-search.ts) against the FTS5 index it replaced, kept as
 * the reference: on generated pages and a thousand generated expressions (terms, phrases, stop
 * words, OR groups, exclusions, every field) with the request's filters, both find exactly the same
 * versions; and the engine's first k are the start of its whole list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadCorpus, picker, rng } from '../../bench/scifact.js';
import { EngineIndexStore } from '../../src/adapters/engine/engine-index-store.js';
import { Matches, type MatchRequest } from '../../src/adapters/engine/engine.js';
import { phrasePairs } from '../../src/adapters/engine/pair-filter.js';
import { prefixEnd, type SegmentData } from '../../src/adapters/engine/segment.js';
import { checkClaimed, searchWebql, type WebqlDeps } from '../../src/adapters/engine/webql-search.js';
import { ASCII_MAKERS, hasPhrase, wordKey } from '../../src/core/phrase.js';
import { type Db, openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteIndexStore } from '../../src/adapters/sqlite/index-store.js';
import type { IndexHit } from '../../src/ports/index-store.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { cachedStem, words } from '../../src/core/text.js';
import { urlFileType } from '../../src/core/url.js';
import { parseWebql, type WebqlNode } from '../../src/core/webql.js';
import type { IndexQuery } from '../../src/ports/index-store.js';
import { idOf, page, tempDir } from '../helpers.js';

// Inflected forms (stemmed alike), stop words, and words that appear in the URLs too.
const VOCAB = (
  'garbage collector collectors collecting memory heap heaps tuning tuned rust ownership owner go java python ' +
  'concurrent fast faster speed cycle cycles counting reference the of a to in is and docs blog posts book'
).split(' ');
const HOSTS = ['rust.test', 'blog.go.test', 'go.test', 'java.test', 'plain.test', 'docs.plain.test'];
const LANGS = ['en', 'en-gb', 'enm', 'de', 'pt-br', undefined]; // enm: Middle English, not a subtag of en
const MEDIA_TYPES = ['text/html', 'text/html', 'application/pdf', 'text/plain', 'application/xhtml+xml', 'image/svg+xml', undefined];
const T0 = Date.parse('2024-01-01T00:00:00Z');
const DAY = 86_400_000;

describe('webql on the engine, against the FTS5 reference', () => {
  const dir = tempDir();
  const db = openDatabase({ path: `${dir.path}/webql.db` });
  const pages = new SqlitePageStore(db);
  const reference = new SqliteIndexStore(db);
  const engine = new EngineIndexStore(db);
  // The same engine gathering its candidates 7 documents at a time, letting the event loop turn
  // between; opened halfway through the writes, so it holds two segments (gathered one after the
  // other), each with an acquired order (engine.ts `AcquiredOrder`) for the time bounds.
  const stepped = new EngineIndexStore(db, { matchStep: 7, orderFrom: 1 });
  // One that keeps no lookup (a filetype:'s, inurl:'s, lang:'s or url:'s versions are always
  // too many): every page of the words is a candidate, and the lookups come while reading.
  const unkept = new EngineIndexStore(db, { fileTypeMax: 0 });
  // Ones that read the best candidates first whenever they can (with a phrase or a field, when
  // ranked by at most 2 words), the best 3 or 40, or 2 then 7 (then the rest); with no ranking
  // word and every page a candidate, the newest so many first (those of 3 and of 2 then 7 taken
  // from an acquired order, the others from every document).
  const bestFirst = [[{ from: 0, k: 3 }], [{ from: 0, k: 40 }], [{ from: 0, k: 2 }, { from: 0, k: 7 }]].map(
    (tiers) => new EngineIndexStore(db, { webqlBestFirst: { tiers, words: 2, few: 3 }, ...(tiers[0]!.k < 40 && { orderFrom: 1 }) }),
  );
  // Ones on two search threads that share every batch of candidates they read with the helper,
  // which reads them over its own connection and checks them: both claiming groups of them in
  // turn, and the helper alone.
  const twoThreads = new EngineIndexStore(db, { searchThreads: 2, splitFrom: 1, splitWork: 0, asideMin: 1 });
  const helperAlone = new EngineIndexStore(db, { searchThreads: 2, splitFrom: 1, splitWork: 0, asideMin: 1, asideOnly: true });
  const random = rng(7);
  const pick = picker(random);
  const sentence = (n: number) => Array.from({ length: n }, () => pick(VOCAB)).join(' ');
  const texts: string[] = [];

  before(async () => {
    for (let i = 0; i < 400; i++) {
      if (i === 200) await stepped.open();
      const host = pick(HOSTS);
      // Some paths name a file type (`filetype:`), of any case, before a query or not.
      const path = `${pick(['docs', 'Posts', 'book', 'gc'])}/${pick(VOCAB)}-${i % 150}${i % 150 < 60 ? ['.pdf', '.PDF', '.html', '.pdf?dl=1', '.tar.gz', ''][i % 6] : ''}`;
      const url = `${random() < 0.3 ? 'http' : 'https'}://${host}/${path}`;
      const content = `${sentence(6 + Math.floor(random() * 10))}. ${sentence(5)}.`;
      const title = sentence(2 + Math.floor(random() * 3));
      texts.push(content, title);
      const lang = pick(LANGS);
      // Served as a type (`filetype:` reads it with the URL), or stored before types were kept.
      const mediaType = pick(MEDIA_TYPES);
      // i % 150 in the path: some URLs get a second version, which replaces the first.
      await pages.putVersion(
        page(url, {
          title,
          content,
          ...(random() < 0.5 && { description: sentence(4) }),
          ...(lang && { lang }),
          ...(mediaType && { mediaType }),
          acquiredAt: T0 + i * DAY,
          ...(random() < 0.7 && { publishedAt: T0 - Math.floor(random() * 400) * DAY }),
        }),
      );
    }
    await engine.open();
    await unkept.open();
    await twoThreads.open();
    await helperAlone.open();
    for (const e of bestFirst) await e.open();
    await stepped.search({ terms: ['collector'], limit: 1 }); // takes in the second half
    assert.equal(stepped.segmentCount, 2);
  });
  after(async () => {
    await engine.close();
    await stepped.close();
    await unkept.close();
    await twoThreads.close();
    await helperAlone.close();
    for (const e of bestFirst) await e.close();
    db.close();
    dir.remove();
  });

  /** Two or three adjacent words of a stored text: a phrase some version holds. */
  const storedPhrase = () => {
    const words = pick(texts).replace(/\./g, '').split(' ');
    const at = Math.floor(random() * (words.length - 2));
    return words.slice(at, at + 2 + Math.floor(random() * 2)).join(' ');
  };
  const item = (depth: number): string => {
    const r = random();
    // A bare compound, read both ways (`"garbage collector" OR garbagecollector`).
    if (r < 0.06) return `${pick(VOCAB)}-${pick(VOCAB)}`;
    if (r < 0.3) return pick(VOCAB);
    if (r < 0.45) return `"${storedPhrase()}"`;
    if (r < 0.5) return `"${pick(VOCAB)} ${pick(VOCAB)}"`;
    if (r < 0.56) return random() < 0.5 ? `title:${pick(VOCAB)}` : `title:"${storedPhrase()}"`;
    if (r < 0.62) return `site:${pick(HOSTS)}`;
    if (r < 0.67) return `url:${random() < 0.5 ? pick(['http://', 'https://']) : ''}${pick(HOSTS)}/${pick(['docs', 'Posts', 'book'])}`;
    if (r < 0.7) return `inurl:${pick(['posts', 'DOCS', 'go', '/book/', 'heap'])}`;
    if (r < 0.72) return `${pick(['filetype', 'ext', 'FileType'])}:${pick(['pdf', '.PDF', 'html', 'gz', 'doc', 'txt', 'xhtml'])}`;
    if (r < 0.78) return `lang:${pick(['en', 'en-gb', 'de', 'pt'])}`;
    if (r < 0.9 && depth < 2) return `(${item(depth + 1)} OR ${item(depth + 1)})`;
    return pick(VOCAB);
  };
  const expression = () => {
    const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => (random() < 0.2 ? `-${item(1)}` : item(0)));
    return parts.join(' ');
  };
  const filters = (): Partial<IndexQuery> => {
    const r = random();
    if (r < 0.6) return {};
    if (r < 0.7) return { site: pick(HOSTS) };
    if (r < 0.8) return { publishedAfter: T0 - 200 * DAY, publishedBefore: T0 - 50 * DAY };
    if (r < 0.9) return { acquiredAfter: T0 + 100 * DAY };
    return { queryTime: T0 + Math.floor(random() * 400) * DAY };
  };

  test('the same versions as FTS5 for a thousand expressions with filters; the first k are the start of the whole list; candidates led by the words every match holds one of give the same list as every word walked', async () => {
    let compared = 0;
    let nonEmpty = 0;
    let led = 0;
    let sitesLed = 0;
    let versionsLed = 0;
    let contradictions = 0;
    for (let n = 0; n < 1000; n++) {
      const text = expression();
      let webql;
      try {
        webql = parseWebql(text);
      } catch {
        continue; // only exclusions: refused before any index sees it
      }
      const q: IndexQuery = { terms: [], webql, limit: 10_000, ...filters() };
      // The engine's webql with its candidates' requests counted where the leads have fewer postings than the usual way (allMatches takes them then).
      const deps = (Reflect.get(engine, 'webqlDeps') as (q: IndexQuery, node: WebqlNode) => WebqlDeps).call(engine, q, webql);
      const postings = (terms: readonly string[]) => terms.reduce((n, t) => n + deps.df(t), 0);
      let request: MatchRequest | undefined;
      const counted: WebqlDeps = {
        ...deps,
        matches: (r, only) => {
          request = r;
          const usual = r.required.length > 0 ? Math.min(...r.required.map((t) => deps.df(t))) : postings(r.terms.slice(0, r.terms.length - r.probed));
          if (!r.everyDoc && r.leads !== undefined && postings(r.leads) < usual) led++;
          if (r.leadSites !== undefined && r.leadSites.length > 0) sitesLed++;
          if (r.leadVersions !== undefined) versionsLed++;
          return deps.matches(r, only);
        },
      };
      const ours = await searchWebql(counted, webql, q.limit);
      const theirs = await reference.search(q);
      const ids = (hits: { versionId: number }[]) => hits.map((h) => h.versionId).sort((a, b) => a - b);
      assert.deepEqual(ids(ours), ids(theirs), `${text} ${JSON.stringify({ ...q, webql: undefined })}`);
      const first = await engine.search({ ...q, limit: 5 });
      assert.deepEqual(first, ours.slice(0, 5), text);
      // With a search of other time bounds between its steps, which takes its own documents of them.
      const [inSteps] = await Promise.all([stepped.search(q), stepped.search({ terms: [pick(VOCAB)], limit: 20, queryTime: T0 + Math.floor(random() * 100) * DAY })]);
      assert.deepEqual(inSteps, ours, `${text}, in steps`);
      assert.deepEqual(await unkept.search(q), ours, `${text}, no lookup kept`);
      assert.deepEqual(await twoThreads.search(q), ours, `${text}, checked on two threads`);
      assert.deepEqual(await helperAlone.search(q), ours, `${text}, checked on the helper thread`);
      for (const e of bestFirst) {
        assert.deepEqual(await e.search(q), ours, `${text}, the best first`);
        assert.deepEqual(await e.search({ ...q, limit: 5 }), ours.slice(0, 5), `${text}, the best first, 5`);
      }
      if (request === undefined) {
        // Nothing listed: the expression contradicts itself (`cell -cell`), and FTS5 found nothing either.
        assert.deepEqual(ours, [], text);
        contradictions++;
      } else {
        // The listing kept to some versions (every other one, and every fifth of the others: each
        // term looked up at each, `ofDocs`) is the whole listing's of them: the same terms held, scores.
        const whole = await deps.matches(request);
        const listed = (m: Matches, keep: (id: number) => boolean) =>
          Array.from({ length: m.count }, (_, i) => [m.versionIds[i]!, m.scores[i]!, m.held[i]!]).filter(([id]) => keep(id!)).sort((a, b) => a[0]! - b[0]!);
        const some = (id: number) => id % 2 === 0 || id % 5 === 0;
        const only = Float64Array.from({ length: 500 }, (_, i) => i).filter(some);
        assert.deepEqual(listed(await deps.matches(request, only), () => true), listed(whole, some), `${text}, listed for some versions`);
      }
      // Without leads (no word's postings known: every positive word walked), the same list, scores and order.
      assert.deepEqual(await searchWebql({ ...deps, df: () => Infinity }, webql, q.limit), ours, `${text}, no leads`);
      compared++;
      if (ours.length > 0) nonEmpty++;
    }
    assert.ok(compared > 800, `${compared} expressions compared`);
    assert.ok(nonEmpty > 300, `${nonEmpty} with matches`);
    assert.ok(led > 50, `${led} led by the words every match holds one of`);
    assert.ok(sitesLed > 30, `${sitesLed} listings led by the hosts of site: and url: items too`);
    assert.ok(versionsLed > 20, `${versionsLed} listings led by the versions of lang:, url: and filetype: items too`);
    assert.ok(contradictions > 0, `${contradictions} contradicting themselves`);
    await helperAlone.checksSettled();
    assert.ok(helperAlone.asideChecks > 10_000, `${helperAlone.asideChecks} candidates checked on the helper thread`);
  });

  test('a batch shared with another thread that fails after claiming some candidates: those are checked here, the same answers', async () => {
    let failed = 0;
    let asked = 0;
    for (const text of ['"garbage collector"', 'collector OR memory', 'title:heap', 'memory -"heap tuning"', 'go -site:go.test']) {
      const webql = parseWebql(text);
      const q: IndexQuery = { terms: [], webql, limit: 10_000 };
      const deps = (Reflect.get(engine, 'webqlDeps') as (q: IndexQuery, node: WebqlNode) => WebqlDeps).call(engine, q, webql);
      const alone = await searchWebql({ ...deps, checkAside: undefined }, webql, q.limit);
      // As the helper thread does when its reads fail: its first claim counted done, left unchecked.
      const failing: WebqlDeps = {
        ...deps,
        checkAside: (job) => {
          asked++;
          try {
            checkClaimed(() => {
              throw new Error('no reads here');
            }, job, undefined, true);
          } catch {
            failed += Math.min(16, job.ids.length);
          }
          return Promise.reject(new Error('failed'));
        },
      };
      assert.deepEqual(await searchWebql(failing, webql, q.limit), alone, text);
      assert.ok(alone.length > 0, text);
    }
    assert.ok(asked > 5 && failed > 50, `${asked} shared, ${failed} left unchecked`);
  });

  test('gathering the candidates lets the event loop turn: what waits for it runs before the query ends', async () => {
    // One read decides (limit 1), so only the candidates' steps can let the loop turn.
    const order: string[] = [];
    setImmediate(() => order.push('event loop'));
    await stepped.search({ terms: [], webql: parseWebql('collector OR memory'), limit: 1 }).then(() => order.push('webql'));
    assert.deepEqual(order, ['event loop', 'webql']);
  });

  test('ranked by BM25 over the top-level text items, best first; fields alone list the newest first', async () => {
    const ranked = await engine.search({ terms: [], webql: parseWebql('collector lang:en'), limit: 50 });
    assert.ok(ranked.length > 1);
    for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i - 1]!.score >= ranked[i]!.score);
    const newest = await engine.search({ terms: [], webql: parseWebql('site:go.test OR lang:de'), limit: 50 });
    assert.ok(newest.length > 1);
    const acquired = db.prepare<[number], { acquired_at: number }>('SELECT acquired_at FROM versions WHERE id = ?');
    const times = newest.map((h) => acquired.get(h.versionId)!.acquired_at);
    assert.deepEqual(times, [...times].sort((a, b) => b - a));
  });

  test('words that only rank (rankTerms, a standard query\'s beside its quoted phrase) order the same matches by them too, on the engine and FTS5', async () => {
    const node = parseWebql('"garbage collector"');
    const ids = (hits: readonly IndexHit[]) => hits.map((h) => h.versionId);
    for (const store of [engine, reference]) {
      const alone = await store.search({ terms: [], webql: node, limit: 400 });
      const ranked = await store.search({ terms: [], webql: node, rankTerms: ['rust', 'owners'], limit: 400 });
      assert.ok(alone.length > 5, String(alone.length));
      assert.deepEqual([...ids(ranked)].sort(), [...ids(alone)].sort(), 'the same matches');
      assert.notDeepEqual(ids(ranked), ids(alone), 'in another order');
    }
    // On the engine, each match scores its phrase's words and those: more when it holds them, never less.
    const before = new Map((await engine.search({ terms: [], webql: node, limit: 400 })).map((h) => [h.versionId, h.score]));
    const after = await engine.search({ terms: [], webql: node, rankTerms: ['rust', 'owners'], limit: 400 });
    assert.ok(after.every((h) => h.score >= before.get(h.versionId)! - 1e-9));
    assert.ok(after.some((h) => h.score > before.get(h.versionId)! + 1e-6));
  });
});

/** Whether `text` holds `phrase` (its words' keys), every word of the text stemmed. */
function hasByEveryStem(text: string, phrase: readonly string[]): boolean {
  const stems = words(text).map(wordKey);
  return stems.some((_, i) => phrase.every((p, k) => stems[i + k] === p));
}

/** `hasPhrase` against stemming every word, phrase after phrase, counting those present. */
class PhraseChecks {
  private present = 0;
  private checked = 0;

  check(text: string, phrase: readonly string[], label: string): void {
    const expected = hasByEveryStem(text, phrase);
    assert.equal(hasPhrase(text, phrase), expected, label);
    if (expected) this.present++;
    this.checked++;
  }

  /** Both answers were exercised: between 30% and 90% of the phrases were present. */
  bothAnswered(): void {
    assert.ok(this.present > this.checked * 0.3 && this.present < this.checked * 0.9, `${this.present} of ${this.checked} present: both answers are exercised`);
  }
}

describe('hasPhrase (stems only words that start as the stem they must equal)', () => {
  test('the same answer as stemming every word, on SciFact abstracts with phrases found in them and made up', () => {
    const random = rng(11);
    const checks = new PhraseChecks();
    for (const d of loadCorpus().slice(0, 400)) {
      const ws = words(d.text);
      if (ws.length < 4) continue;
      for (let t = 0; t < 6; t++) {
        const n = 1 + Math.floor(random() * 3);
        const at = Math.floor(random() * (ws.length - n));
        // Half the phrases are the text's own words in order; the others mix in words from anywhere in it.
        const phrase = Array.from({ length: n }, (_, k) => wordKey(random() < 0.5 ? ws[at + k]! : ws[Math.floor(random() * ws.length)]!));
        checks.check(d.text, phrase, `${d.id}: ${phrase.join(' ')}`);
      }
    }
    checks.bothAnswered();
  });

  test('the same answer on made-up texts of what analysis treats apart: possessives, signs, numbers, accents, marks, other scripts', () => {
    const random = rng(29);
    // Words, and what may stand between them, that the analysis reads otherwise than as written.
    const vocabulary = [
      'insulin', 'Insulin', 'INSULIN', 'increases', 'increased', 'cell', 'cells', "cell's", "Cell'S", 'cell\u2019s', 'cell\uff07s', "it's", 'it',
      'the', 'of', 'C++', 'c', 'C#', '1,000', '1000', '3.12', '3', 'e-mail', 'mail', 'café', 'cafe', 'cafe\u0301', 'über', 'uber',
      'Åland', '\u212Aelvin', 'kelvin', 'ﬁle', 'file', 'ｆｉｌｅ', 'ｶﬁle', 'β', 'βcell', 'cellβ', '細胞', 'ß', 'ss', 's', "'s", 'İnsulin',
      'ภาษาcell', '𝐜ell',
    ];
    const separators = [' ', ' ', ' ', ', ', '. ', ' - ', '-', '\u2014', '\u00a0', ' (', ') ', '\n\n', "'", '\u2019', ' \u00e9 '];
    const pick = picker(random);
    const checks = new PhraseChecks();
    for (let t = 0; t < 4000; t++) {
      const length = 3 + Math.floor(random() * 10);
      let text = pick(vocabulary);
      for (let k = 1; k < length; k++) text += pick(separators) + pick(vocabulary);
      const ws = words(text);
      if (ws.length === 0) continue;
      const n = 1 + Math.floor(random() * 3);
      const at = Math.floor(random() * Math.max(1, ws.length - n + 1));
      // Most phrases are the text's own words in order; the others any words of the vocabulary.
      const own = random() < 0.6;
      const phrase = Array.from({ length: n }, (_, k) => wordKey(own ? (ws[at + k] ?? ws[0]!) : (words(pick(vocabulary))[0] ?? 'cell')));
      checks.check(text, phrase, `${JSON.stringify(text)}: ${JSON.stringify(phrase)}`);
    }
    checks.bothAnswered();
  });

  test('the same answer on long texts where a few words hold what makes ASCII words, read only around them', () => {
    const random = rng(31);
    const plain = ['cell', 'cells', 'insulin', 'increases', 'the', 'of', 'file', 'cafe', 'early', 'growth', 'a', '1,000', 'C++', "cell's", 'e-mail'];
    // Words that hold one of ASCII_MAKERS: accents, a mark, a ligature, fullwidth, an invisible hyphen, a dotted capital.
    const makers = ['café', 'cafe\u0301', 'ﬁle', 'ｆｉｌｅ', 'ce\u00adll', 'İnsulin', 'über', 'Åland', 'grow\u0301th', 'ｶﬁle'];
    // Separators, some long without a break (a run of dashes), some with a line break.
    const separators = [' ', ' ', ' ', ' ', ', ', '. ', '\n\n', ' - ', '-'.repeat(40), ' '.repeat(30), '\n'.repeat(50), '\u2014', '\u00a0', ' ('];
    const pick = picker(random);
    const checks = new PhraseChecks();
    for (let t = 0; t < 600; t++) {
      const length = 50 + Math.floor(random() * 1500);
      const makerShare = [0.002, 0.01, 0.1][t % 3]!;
      const tokens: string[] = [];
      const parts: string[] = [];
      for (let k = 0; k < length; k++) {
        tokens.push(random() < makerShare ? pick(makers) : pick(plain));
        parts.push(tokens[k]!, pick(separators));
      }
      // Some texts hold no break at all for long stretches: read whole.
      const text = t % 25 === 0 ? parts.join('').replace(/\s/g, '\u3000') : parts.join('');
      const n = 1 + Math.floor(random() * 4);
      let phrase: string[];
      const makerAt = tokens.findIndex((w, i) => i >= n && makers.includes(w) && random() < 0.3);
      if (makerAt >= 0 && random() < 0.7) {
        // The words that end at a maker's word (the words before it are those a part read must
        // start early enough for), or that start there.
        const ending = random() < 0.7;
        const around = words((ending ? tokens.slice(makerAt - n, makerAt + 1) : tokens.slice(makerAt, makerAt + n + 1)).join(' '));
        phrase = (ending ? around.slice(-n) : around.slice(0, n)).map(wordKey);
      } else {
        // Any words of both lists.
        phrase = Array.from({ length: n }, () => wordKey(words(pick(random() < 0.5 ? plain : makers))[0] ?? 'cell'));
      }
      checks.check(text, phrase, `${JSON.stringify(phrase)} in text ${t}: ${JSON.stringify(text.slice(0, 300))}...`);
    }
    checks.bothAnswered();
  });

  test('the same answer on long texts where most words hold an accent: a run is read around only if one of its words may start as a phrase word', () => {
    const random = rng(37);
    // Words of Latin letters (each character folded alone: text.ts latinFold), some whose fold
    // starts otherwise than they do (ß, æ, œ, ĳ, ǅ, ª, ²), and runs of several words (an
    // apostrophe or a dash outside ASCII between them, digits joined by a point).
    const latin = ['été', 'élève', 'très', 'à', 'où', 'français', 'naïve', 'œuvre', 'Ægir', 'straße', 'ĳssel', 'ǅemal', 'ª', 'x²', '²x', 'Ørsted', 'Économie', 'über', 'ça'];
    const runs = ['l\u2019été', 'd\u2019œuvre', 'l\u2019heron', 'l\u2019ĳssel', '3.5é', 'é3.5', 'x\u2014été', 'été\u2014otter', 'qu\u2019ça', 'heron\u00b7été', 'ª\u00b7early'];
    const plain = ['heron', 'otter', 'the', 'early', 'cell', 'oeuvre', 'ete', 'eleve', 'ij', 'ijssel', 'aegir', 'strasse', 'dzemal', 'a', 'x2', '2x', 'economie', 'uber', 'ca', '3.5'];
    const separators = [' ', ' ', ' ', ', ', '. ', '\n\n', ' - ', '\u00a0', ' ('];
    const pick = picker(random);
    const checks = new PhraseChecks();
    for (let t = 0; t < 600; t++) {
      const length = 50 + Math.floor(random() * 1000);
      const tokens: string[] = [];
      const parts: string[] = [];
      for (let k = 0; k < length; k++) {
        const r = random();
        tokens.push(r < 0.3 ? pick(latin) : r < 0.45 ? pick(runs) : pick(plain));
        parts.push(tokens[k]!, pick(separators));
      }
      const text = parts.join('');
      const ws = words(text);
      const n = 1 + Math.floor(random() * 3);
      const at = Math.floor(random() * Math.max(1, ws.length - n + 1));
      // Most phrases are the text's own words in order; the others any words of the three lists.
      const phrase =
        random() < 0.6
          ? ws.slice(at, at + n).map(wordKey)
          : Array.from({ length: n }, () => wordKey(words(pick(random() < 0.5 ? plain : random() < 0.5 ? latin : runs))[0] ?? 'cell'));
      checks.check(text, phrase, `${JSON.stringify(phrase)} in text ${t}: ${JSON.stringify(text.slice(0, 300))}...`);
    }
    checks.bothAnswered();
  });

  test('read around the words that hold what makes ASCII words: a phrase before, across the end of a part read, or after one', () => {
    const phrase = ['cell', 'cell', 'file'].map(wordKey);
    // A part is read from the café's word to well past it; the ﬁle's comes at every place after
    // that part's end, so a match starts in it and ends after it.
    for (let k = 40; k < 90; k++) assert.ok(hasPhrase(`café${' cell'.repeat(k)} ﬁle`, phrase), `${k}`);
    // Words before the ﬁle's apart by more than a part starts before it.
    assert.ok(hasPhrase(`x${' '.repeat(100)}cell${' '.repeat(100)}cell${' '.repeat(100)}ﬁle x`, phrase));
    assert.equal(hasPhrase(`x cell${' '.repeat(100)}x${' '.repeat(100)}cell ﬁle x`, phrase), false);
    // After a word that holds one, as many words as the phrase has are read.
    assert.ok(hasPhrase(`a ﬁle${' '.repeat(300)}insulin early x`, ['file', 'insulin', 'early'].map(wordKey)));
    // A text without a break near: read whole.
    assert.ok(hasPhrase(`${'cell\u3000'.repeat(400)}cell\u3000ﬁle`, phrase));
  });

  test('ASCII_MAKERS holds every character outside ASCII that the analysis reads into an ASCII word or drops from one', () => {
    let makers = 0;
    for (let c = 0x80; c <= 0xffff; c++) {
      const char = String.fromCharCode(c);
      // Between two ASCII letters, the character separates them or stays in a word that is not ASCII.
      const ws = c >= 0xd800 && c <= 0xdfff ? [] : words(`q${char}q`);
      const apart = ws.length === 2 && ws[0] === 'q' && ws[1] === 'q';
      const kept = ws.join('').replace(/[^a-z0-9]/g, '') === 'qq' && ws.every((w) => w === 'q' || /[\u0080-\u{10ffff}]/u.test(w));
      if (apart || kept) continue;
      makers++;
      assert.ok(ASCII_MAKERS.test(char), `U+${c.toString(16)} ${JSON.stringify(words(`q${char}q`))}`);
    }
    // The accented Latin letters, the marks, the surrogates and more; the class holds a few others.
    assert.ok(makers > 2500, `${makers}`);
    assert.equal(ASCII_MAKERS.test('2 × 3 ÷ 4'), false, 'between the Latin letters, the signs are not held');
    assert.equal(ASCII_MAKERS.test('β µ — ’ “ ” \u00a0 東京 ภาษา ж'), false);
    assert.ok(ASCII_MAKERS.test('a 𝐜 b') && ASCII_MAKERS.test('a \ud835 b'), 'beyond the first plane, paired or not');
  });
});

/** `use` on a new database and its page store, removed after. */
async function withPages(use: (db: Db, pages: SqlitePageStore) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const db = openDatabase({ path: `${dir.path}/pages.db` });
  try {
    await use(db, new SqlitePageStore(db));
  } finally {
    db.close();
    dir.remove();
  }
}

/** The versions `engine` finds for the webql `query` (ids, sorted). */
async function webqlFound(engine: EngineIndexStore, query: string): Promise<number[]> {
  return (await engine.search({ terms: [], webql: parseWebql(query), limit: 10 })).map((h) => h.versionId).sort();
}

/** The versions `engine` finds in standard mode for `terms` (ids, sorted). */
async function termsFound(engine: EngineIndexStore, terms: string[]): Promise<number[]> {
  return (await engine.search({ terms, limit: 10 })).map((h) => h.versionId).sort();
}

/** The engine's webql dependencies for `node` with no filter, as its own search makes them. */
function depsOf(engine: EngineIndexStore, node: WebqlNode): WebqlDeps {
  return (Reflect.get(engine, 'webqlDeps') as (q: IndexQuery, node: WebqlNode) => WebqlDeps).call(engine, { terms: [], webql: node, limit: 10 }, node);
}

/** `deps` with how many candidates its last listing (`matches`) held. */
function counting(deps: WebqlDeps): { deps: WebqlDeps; listed: () => number } {
  let listed = 0;
  return {
    deps: {
      ...deps,
      matches: async (r, only) => {
        const m = await deps.matches(r, only);
        listed = m.count;
        return m;
      },
    },
    listed: () => listed,
  };
}

describe('webql title: words', () => {
  test('a page holding the word fewer times than the title\'s weight is no candidate; those holding it as often are, and only the titles match', () =>
    withPages(async (db, pages) => {
      const stored = await pages.putVersions([
        ...Array.from({ length: 40 }, (_, i) => page(`https://a.test/text/${i}`, { title: 'Rates', content: 'glycolysis rate' })),
        page('https://a.test/titled/1', { title: 'Glycolysis', content: 'a rate' }),
        page('https://a.test/titled/2', { title: 'On glycolysis rates', content: 'glycolysis again' }),
        page('https://a.test/titled/3', { title: 'Glycolysis', content: 'rates' }),
        // As often as a title gives, from the text alone: a candidate, read, and no match.
        page('https://a.test/often', { title: 'Rates', content: 'glycolysis, glycolysis and glycolysis' }),
      ]);
      const titled = stored.slice(40, 43).map((o) => idOf(o)).sort();
      const engine = await new EngineIndexStore(db).open();
      for (const query of ['title:glycolysis', 'title:glycolysis rate', '(title:glycolysis OR title:"glycolysis rates") rate']) {
        const node = parseWebql(query);
        const deps = depsOf(engine, node);
        assert.equal(deps.titleWeight, 3);
        const floored = counting(deps);
        const found = await searchWebql(floored.deps, node, 10);
        assert.deepEqual(found.map((h) => h.versionId).sort(), titled, query);
        assert.equal(floored.listed(), 4, `${query}: the three titles and the page holding it three times`);
        // With no floor (a title's word weighing what the text's do), every page of the word is one.
        const unfloored = counting({ ...deps, titleWeight: 1 });
        assert.deepEqual(await searchWebql(unfloored.deps, node, 10), found, query);
        assert.equal(unfloored.listed(), 44, query);
      }
      // How many pages hold it as often as a floor, from a sample of its postings (here all of them).
      const deps = depsOf(engine, parseWebql('title:glycolysis'));
      assert.deepEqual([1, 2, 3, 4].map((floor) => deps.heldAtLeast(cachedStem('glycolysis'), floor)), [44, 4, 4, 1], 'the one titled "On glycolysis rates" holds it in its text too');
    }));
  test('a title\'s stop words are its terms: `title:"to be or not to be"` has as candidates the pages whose title holds them, not every page', () =>
    withPages(async (db, pages) => {
      const stored = await pages.putVersions([
        ...Array.from({ length: 30 }, (_, i) => page(`https://b.test/text/${i}`, { title: 'Hamlet', content: 'to be or not to be, that is the question' })),
        page('https://b.test/play', { title: 'To be, or not to be', content: 'a soliloquy' }),
        page('https://b.test/missed', { title: 'Not to be missed or to be', content: 'a list' }),
        page('https://b.test/it', { title: 'It', content: 'a novel' }),
      ]);
      const [play, missed, it] = stored.slice(30).map((o) => idOf(o));
      const engine = await new EngineIndexStore(db).open();
      const cases: [string, number[], number][] = [
        ['title:"to be or not to be"', [play!], 2],
        ['title:"to be"', [play!, missed!].sort(), 2],
        ['title:it', [it!], 1],
        // An OR's items' terms in common: `to` and `be`.
        ['title:"to be" OR title:"not to be"', [play!, missed!].sort(), 2],
      ];
      for (const [query, expected, candidates] of cases) {
        const node = parseWebql(query);
        const { deps, listed } = counting(depsOf(engine, node));
        const found = await searchWebql(deps, node, 10);
        assert.deepEqual(found.map((h) => h.versionId).sort(), expected, query);
        // At most the pages the terms give: fewer where a page's filter of pairs lacks a pair of the phrase ('missed').
        assert.ok(listed() <= candidates && listed() >= expected.length, `${query}: ${listed()} listed`);
      }
    }));
});

describe('webql phrases holding a word twice', () => {
  test('a page holding the word fewer times than the phrase does is no candidate; the phrase in the title, the description or the text still matches', () =>
    withPages(async (db, pages) => {
      const stored = await pages.putVersions([
        ...Array.from({ length: 30 }, (_, i) => page(`https://d.test/once/${i}`, { title: 'Notes', content: 'one side of the deletion only' })),
        page('https://d.test/text', { title: 'Notes', content: 'they stood side by side after the deletion deleting it' }),
        page('https://d.test/title', { title: 'Side by side', content: 'a film' }),
        page('https://d.test/description', { title: 'Notes', description: 'Deletion, deleting: a study', content: 'nothing' }),
        // Twice, but apart: a candidate of the terms, and no match.
        page('https://d.test/apart', { title: 'Notes', content: 'one side; the other side. A deletion; then deleting.' }),
      ]);
      const [text, title, description] = stored.slice(30, 33).map((o) => idOf(o));
      const engine = await new EngineIndexStore(db).open();
      const cases: [string, number[], number][] = [
        ['"side by side"', [text!, title!].sort(), 3],
        ['"deletion deleting"', [text!, description!].sort(), 3],
        ['"side by side" "deletion deleting"', [text!], 2],
        // Not every match holds `side` twice, nor `delet`: no floor, every page of the words is a candidate.
        ['"side by side" OR "deletion deleting"', [text!, title!, description!].sort(), 34],
        ['"side by side" OR side', [...stored.slice(0, 32), stored[33]!].map((o) => idOf(o)).sort(), 33],
      ];
      for (const [query, expected, candidates] of cases) {
        const node = parseWebql(query);
        const deps = depsOf(engine, node);
        assert.equal(deps.textWeight, 1);
        const floored = counting(deps);
        const found = await searchWebql(floored.deps, node, 50);
        assert.deepEqual(found.map((h) => h.versionId).sort(), expected, query);
        // At most the pages the terms and floors give: fewer where a page's filter of pairs lacks a pair of a phrase ('apart').
        assert.ok(floored.listed() <= candidates && floored.listed() >= expected.length, `${query}: ${floored.listed()} listed`);
        // With no floor (a word weighing nothing), the same answer from every page of the words.
        const unfloored = counting({ ...deps, textWeight: 0 });
        assert.deepEqual(await searchWebql(unfloored.deps, node, 50), found, query);
      }
    }));
});

describe('webql reads', () => {
  // The pages between hold every pair of the phrase's words side by side, but not the phrase: their
  // filters of pairs let them through, and each is read (the test after these, pages that do not).
  test('a query reads at most webqlReadsMax candidates, and ends with the matches among them: the best (here the newest) first', () =>
    withPages(async (db, pages) => {
      const stored = await pages.putVersions([
        page('https://c.test/oldest', { title: 'A', content: 'to be or not to be', acquiredAt: T0 }),
        ...Array.from({ length: 300 }, (_, i) => page(`https://c.test/${i}`, { title: 'B', content: 'to be, be or, or not, not to, and so it will be', acquiredAt: T0 + (i + 1) * DAY })),
        page('https://c.test/newest', { title: 'C', content: 'to be, or not to be', acquiredAt: T0 + 400 * DAY }),
      ]);
      const [oldest, newest] = [idOf(stored[0]!), idOf(stored.at(-1)!)];
      const node = parseWebql('"to be or not to be"');
      const bounded = await new EngineIndexStore(db, { webqlReadsMax: 100 }).open();
      const deps = depsOf(bounded, node);
      let read = 0;
      const found = await searchWebql({ ...deps, read: (ids, withText, withUrl) => ((read += ids.length), deps.read(ids, withText, withUrl)) }, node, 10);
      assert.deepEqual(found.map((h) => h.versionId), [newest]);
      assert.ok(read >= 100 && read < 100 + 256, `${read} read`);
      // Unbounded (the default bound is far above these pages), every page is read and both are found.
      const whole = await new EngineIndexStore(db).open();
      assert.deepEqual((await whole.search({ terms: [], webql: node, limit: 10 })).map((h) => h.versionId), [newest, oldest]);
      // A top-level inurl: is looked up before the bound (at half of it), however few pages a
      // sixty-fourth of them is: the oldest is found by its URL. (No kept lookup: fileTypeMax 0.)
      const scanning = await new EngineIndexStore(db, { webqlReadsMax: 10, fileTypeMax: 0 }).open();
      assert.deepEqual((await scanning.search({ terms: [], webql: parseWebql('"to be or not to be" inurl:oldest'), limit: 10 })).map((h) => h.versionId), [oldest]);
    }));

  test('and at most webqlReadCharsMax characters of their texts: over long pages it ends after fewer of them', () =>
    withPages(async (db, pages) => {
      const long = 'to be, be or, or not, not to, it is. '.repeat(30); // 1,110 characters
      const stored = await pages.putVersions([
        page('https://c.test/oldest', { title: 'A', content: 'to be or not to be', acquiredAt: T0 }),
        ...Array.from({ length: 300 }, (_, i) => page(`https://c.test/${i}`, { title: 'B', content: long, acquiredAt: T0 + (i + 1) * DAY })),
        page('https://c.test/newest', { title: 'C', content: 'to be, or not to be', acquiredAt: T0 + 400 * DAY }),
      ]);
      const [oldest, newest] = [idOf(stored[0]!), idOf(stored.at(-1)!)];
      const node = parseWebql('"to be or not to be"');
      const run = async (options: ConstructorParameters<typeof EngineIndexStore>[1]) => {
        const deps = depsOf(await new EngineIndexStore(db, options).open(), node);
        let [read, chars] = [0, 0];
        const found = await searchWebql(
          {
            ...deps,
            read: (ids, withText, withUrl) => {
              const versions = deps.read(ids, withText, withUrl);
              read += versions.length;
              for (const v of versions) chars += v.title.length + v.description.length + v.content.length;
              return versions;
            },
          },
          node,
          10,
        );
        return { found: found.map((h) => h.versionId), read, chars };
      };
      // The bound is looked at between reads (the first of 32 candidates, then 64, ...): the first
      // read holds more than 20,000 characters, and the query ends after it.
      const bounded = await run({ webqlReadCharsMax: 20_000 });
      assert.deepEqual(bounded.found, [newest]);
      assert.equal(bounded.read, 32);
      assert.ok(bounded.chars >= 20_000, `${bounded.chars} characters`);
      // Past the first read, the next one: the rest of the 64 newest pages (the first tier,
      // WEBQL_BEST_FIRST: no word ranks, every page is a candidate), 64 read; without the tiers,
      // the next 64 of all of them, 96 read.
      assert.equal((await run({ webqlReadCharsMax: 40_000 })).read, 32 + 32);
      assert.equal((await run({ webqlReadCharsMax: 40_000, webqlBestFirst: { tiers: [], words: 4, few: 0 } })).read, 32 + 64);
      // With the default bounds every page is read and both are found.
      const whole = await run({});
      assert.deepEqual(whole.found, [newest, oldest]);
      assert.equal(whole.read, 302);
    }));

  test('pages whose filter of pairs lacks a pair of the phrase are not read: the bound is not reached, and both are found', () =>
    withPages(async (db, pages) => {
      const stored = await pages.putVersions([
        page('https://c.test/oldest', { title: 'A', content: 'to be or not to be', acquiredAt: T0 }),
        // Every word of the phrase, each pair but `not to` side by side (`not so to`), and the phrase's words in another order.
        ...Array.from({ length: 300 }, (_, i) => page(`https://c.test/${i}`, { title: 'B', content: i % 2 ? 'to be, be or, or not, not so to' : 'be to or be not or to not', acquiredAt: T0 + (i + 1) * DAY })),
        page('https://c.test/newest', { title: 'C', content: 'To be, or not to be', acquiredAt: T0 + 400 * DAY }),
      ]);
      const [oldest, newest] = [idOf(stored[0]!), idOf(stored.at(-1)!)];
      const node = parseWebql('"to be or not to be"');
      const deps = depsOf(await new EngineIndexStore(db, { webqlReadsMax: 100 }).open(), node);
      let read = 0;
      const found = await searchWebql({ ...deps, read: (ids, withText, withUrl) => ((read += ids.length), deps.read(ids, withText, withUrl)) }, node, 10);
      assert.deepEqual(found.map((h) => h.versionId), [newest, oldest]);
      // The two that hold it, and what the filters let through: each lacks a pair, and lets it
      // through with about one chance in 16.
      assert.ok(read >= 2 && read < 60, `${read} read`);
      // Left out, the phrase is decided without a read on the same pages: every page but the two.
      read = 0;
      const others = parseWebql('site:c.test -"to be or not to be"');
      const without = depsOf(await new EngineIndexStore(db).open(), others);
      const rest = await searchWebql({ ...without, read: (ids, withText, withUrl) => ((read += ids.length), without.read(ids, withText, withUrl)) }, others, 400);
      assert.equal(rest.length, 300);
      assert.ok(read < 60, `${read} read`);
    }));
});

describe('webql lang: and url: of few versions', () => {
  test('keep the candidates to their versions, lead them inside an OR and rule out the others without a read; of more than fileTypeMax, every page of the words is one, and they are looked up once reading has gone on long', () =>
    withPages(async (db, pages) => {
      // 200 English pages that rank above 8 German ones (each longer than the last, so no two
      // score alike), and 8 pages under one path.
      const stored = await pages.putVersions([
        ...Array.from({ length: 200 }, (_, i) => page(`https://d.test/en/${i}`, { title: 'T', content: `glycolysis ${'rate '.repeat(i)}`, lang: 'en', acquiredAt: T0 + (i + 10) * DAY })),
        ...Array.from({ length: 8 }, (_, i) => page(`https://d.test/de/${i}`, { title: 'T', content: `glycolysis ${'rate '.repeat(300 + i)}`, lang: i % 2 ? 'de' : 'de-at', acquiredAt: T0 + i * DAY })),
      ]);
      const german = stored.slice(200).map((o) => idOf(o)).sort();
      const kept = await new EngineIndexStore(db).open();
      const unkept = await new EngineIndexStore(db, { fileTypeMax: 0 }).open();
      for (const query of ['lang:de', 'glycolysis lang:de', 'url:d.test/de/', 'glycolysis url:https://d.test/de', 'lang:de url:d.test/de', 'url:D.Test/de/', 'glycolysis url:HTTPS://D.TEST/de']) {
        const node = parseWebql(query);
        const keptDeps = counting(depsOf(kept, node));
        assert.deepEqual((await searchWebql(keptDeps.deps, node, 10)).map((h) => h.versionId).sort(), german, query);
        assert.equal(keptDeps.listed(), 8, `${query}: the versions looked up`);
        // Too many to keep to: every page is listed, and the 200 English ones that rank first are
        // not all read: after the first read (32, a sixty-fourth of 208 pages being fewer), the lookup.
        const unkeptDeps = counting(depsOf(unkept, node));
        let read = 0;
        const deps = { ...unkeptDeps.deps, read: (ids: readonly number[], withText: boolean, withUrl: boolean) => ((read += ids.length), unkeptDeps.deps.read(ids, withText, withUrl)) };
        assert.deepEqual((await searchWebql(deps, node, 10)).map((h) => h.versionId).sort(), german, `${query}, unkept`);
        assert.equal(unkeptDeps.listed(), 208, query);
        assert.ok(read <= 32 + 8, `${query}: ${read} read`);
      }
      // In an OR where a page holding no word may match, the versions the lookups find lead: only
      // the German pages are listed (no page is a PDF). Of more than fileTypeMax, every page is.
      const either = parseWebql('(lang:de OR filetype:pdf)');
      for (const [store, listing] of [
        [kept, 8],
        [unkept, 208],
      ] as const) {
        const { deps, listed } = counting(depsOf(store, either));
        assert.deepEqual((await searchWebql(deps, either, 10)).map((h) => h.versionId).sort(), german);
        assert.equal(listed(), listing);
      }
      // Inside a group, a candidate outside the versions looked up is decided without a read: of
      // the 208 pages of `glycolysis`, only the German ones are read (every one, unkept).
      const grouped = parseWebql('glycolysis (lang:de OR title:nosuchword)');
      for (const [store, most] of [
        [kept, 8],
        [unkept, 208],
      ] as const) {
        const deps = depsOf(store, grouped);
        let read = 0;
        const counted = { ...deps, read: (ids: readonly number[], withText: boolean, withUrl: boolean) => ((read += ids.length), deps.read(ids, withText, withUrl)) };
        assert.deepEqual((await searchWebql(counted, grouped, 10)).map((h) => h.versionId).sort(), german);
        assert.equal(read, most);
      }
      // Read in tiers of the best (here the best 34, then all): the lookup's turn comes after 32
      // reads, one short of the tier's 33 above its bar, where the German pages are more than the
      // candidate left; so it is asked again for the whole listing, which is not read through.
      const tiered = await new EngineIndexStore(db, { fileTypeMax: 0, webqlBestFirst: { tiers: [{ from: 0, k: 34 }], words: 4, few: 0 } }).open();
      const node = parseWebql('glycolysis lang:de');
      const deps = depsOf(tiered, node);
      let read = 0;
      const counted = { ...deps, read: (ids: readonly number[], withText: boolean, withUrl: boolean) => ((read += ids.length), deps.read(ids, withText, withUrl)) };
      assert.deepEqual((await searchWebql(counted, node, 10)).map((h) => h.versionId).sort(), german);
      assert.ok(read <= 34 + 8, `${read} read`);
    }));
});

describe('webql contradictions', () => {
  test('an item and the exclusion of words it holds side by side, anywhere or in its field, match nothing, and no candidate is listed; what only looks alike matches as FTS5 says', () =>
    withPages(async (db, pages) => {
      await pages.putVersions([
        page('https://a.test/1', { title: 'Cell walls', content: 'cells promote heart attack recovery' }),
        page('https://a.test/2', { title: 'Heart', content: 'a cell wall and an attack on the heart' }),
        page('https://a.test/3', { title: 'Attack', content: 'heart attack in cells' }),
        page('https://a.test/4', { title: 'Recovery', content: 'cells recover' }),
        page('https://a.test/5', { title: 'Pulse', content: 'heart rate at rest' }),
      ]);
      const engine = await new EngineIndexStore(db).open();
      const reference = new SqliteIndexStore(db);
      const contradictions = ['cells -cell', 'cells promote -cell', '"heart attack" -attack', '"heart attack" -"heart attack"', 'title:cell -cell', 'title:"cell walls" -title:wall', '(cells heart) -cell', 'heart (attack -attack)'];
      const alike = ['cell -title:cell', 'cells -"cell wall"', '"heart attack" -"attack heart"', '(cells OR heart) -cell', 'cells -heart', 'heart -"attack recovery"'];
      for (const query of [...contradictions, ...alike]) {
        const node = parseWebql(query);
        const own = depsOf(engine, node);
        let listings = 0;
        const deps = { ...own, matches: (r: MatchRequest, only?: Float64Array) => (listings++, own.matches(r, only)) };
        const ours = (await searchWebql(deps, node, 10)).map((h) => h.versionId).sort();
        const theirs = (await reference.search({ terms: [], webql: node, limit: 10 })).map((h) => h.versionId).sort();
        assert.deepEqual(ours, theirs, query);
        if (contradictions.includes(query)) assert.deepEqual([ours.length, listings], [0, 0], query);
        else assert.ok(ours.length > 0, `${query} matches some page`);
      }
      await engine.close();
    }));
});

describe('webql words whose stem is a stop word', () => {
  test('match as in the engine: `one` (stem `on`) and `its` (stem `it`) never match the stop words `on` and `it`', () =>
    withPages(async (db, pages) => {
      const stored = await pages.putVersions([
        page('https://a.test/on', { title: 'A', content: 'glycolysis on the rise' }),
        page('https://a.test/one', { title: 'B', content: 'glycolysis in one step' }),
        page('https://a.test/its', { title: 'C', content: 'its colour is red' }),
        page('https://a.test/it', { title: 'D', content: 'it is red' }),
        // Holds `one` (a candidate for it), but `on` where the phrase needs `one`.
        page('https://a.test/both', { title: 'E', content: 'glycolysis on the rise in one day' }),
        page('https://a.test/phrase', { title: 'F', content: 'glycolysis one day' }),
      ]);
      const [on, one, its, it, both, phrase] = stored.map((o) => idOf(o));
      const engine = await new EngineIndexStore(db).open();
      const found = (query: string) => webqlFound(engine, query);
      assert.deepEqual(await found('glycolysis one -day'), [one]);
      assert.deepEqual(await found('"glycolysis in one"'), [one]);
      assert.deepEqual(await found('"glycolysis one"'), [phrase]);
      assert.deepEqual(await found('its'), [its]);
      assert.deepEqual(await found('"its colour"'), [its]);
      assert.deepEqual(await found('red -its'), [it]);
      assert.deepEqual(await found('"it is" red'), [it]);
      assert.deepEqual(await found('glycolysis -"one step"'), [on, both, phrase].sort());
      // Standard mode agrees: the page with only `on` holds no term `on`.
      assert.deepEqual(await termsFound(engine, ['one']), [one, both, phrase].sort());
    }));
});

describe('webql numbers with a point', () => {
  test('3.12 is one word in a phrase and an exclusion, and in a URL\'s words in standard mode', () =>
    withPages(async (db, pages) => {
      const stored = await pages.putVersions([
        page('https://py.test/docs/3.12/whatsnew', { title: 'A', content: 'Python 3.12 improves error messages.' }),
        page('https://py.test/docs/3.11/whatsnew', { title: 'B', content: 'Python 3.11 brought 12 new modules.' }),
        page('https://py.test/docs/3.12/changelog', { title: 'C', content: 'What changed, release by release.' }),
      ]);
      const [v312, v311, log] = stored.map((o) => idOf(o));
      const engine = await new EngineIndexStore(db).open();
      const found = (query: string) => webqlFound(engine, query);
      assert.deepEqual(await found('"python 3.12"'), [v312]);
      assert.deepEqual(await found('"python 3"'), []);
      assert.deepEqual(await found('python -3.12'), [v311]);
      assert.deepEqual(await found('3 12'), []);
      assert.deepEqual(await found('3.12'), [v312]);
      // Standard mode reads the URL's words too: the changelog's only 3.12 is in its URL.
      assert.deepEqual(await termsFound(engine, ['3.12']), [v312, log].sort());
    }));
});

describe("the engine's matches (allMatches' arrays)", () => {
  test('grow past their first 4,096 keeping every match, to no more than the bound', () => {
    const n = 10_000;
    const seg = { versionIds: Float64Array.from({ length: n }, (_, i) => 1_000 + i), acquiredAt: Float64Array.from({ length: n }, (_, i) => 5_000 + i) } as SegmentData;
    const m = new Matches(n);
    for (let doc = 0; doc < n; doc++) m.add(seg, doc, doc / 2, doc % 7);
    assert.equal(m.count, n);
    assert.equal(m.scores.length, n, 'grown to the bound, not past it');
    for (let i = 0; i < n; i++) {
      assert.deepEqual([m.versionIds[i], m.acquiredAt[i], m.scores[i], m.held[i], m.docs[i]], [1_000 + i, 5_000 + i, i / 2, i % 7, i]);
    }
  });
});

describe('webql site: and url: items told from the segments\' hosts', () => {
  test('inside an OR they are decided without a read where the host tells; a top-level OR of sites keeps the traversal to them; the same answers as FTS5', () =>
    withPages(async (db, pages) => {
      // 40 pages of `kiwi` on each of four hosts (plain.test and its subdomain docs.plain.test, a
      // host whose name starts as plain.test's, and go.test), the newest on go.test; a few hold `lime` too.
      const hosts = ['plain.test', 'docs.plain.test', 'plain.testing', 'go.test'];
      await pages.putVersions(
        hosts.flatMap((host, h) =>
          Array.from({ length: 40 }, (_, i) => page(`https://${host}/docs/${i}`, { title: 'T', content: `kiwi ${i % 10 === 0 ? 'lime' : 'fig'}`, acquiredAt: T0 + (h * 40 + i) * DAY })),
        ),
      );
      const reference = new SqliteIndexStore(db);
      const engine = await new EngineIndexStore(db).open();
      const cases: [string, number][] = [
        // [expression, the most versions read to answer it (limit 10)]
        ['kiwi (site:plain.test OR lime)', 5],
        ['kiwi (site:docs.plain.test OR site:go.test)', 5],
        ['(site:plain.test OR site:plain.testing) -lime', 5],
        ['kiwi (url:https://plain.test/docs OR lime)', 40],
        ['kiwi (url:plain.test/ OR lime)', 40],
        ['kiwi (url:https://docs.plain.test:8080/ OR lime)', 40],
        // Not a whole host: read.
        ['kiwi (url:plain.test OR lime)', 1_000],
      ];
      for (const [text, most] of cases) {
        const node = parseWebql(text);
        const deps = depsOf(engine, node);
        let read = 0;
        const found = await searchWebql({ ...deps, read: (ids, withText, withUrl) => ((read += ids.length), deps.read(ids, withText, withUrl)) }, node, 10_000);
        const ids = (hits: { versionId: number }[]) => hits.map((h) => h.versionId).sort((a, b) => a - b);
        assert.deepEqual(ids(found), ids(await reference.search({ terms: [], webql: node, limit: 10_000 })), text);
        assert.ok(found.length > 0, text);
        assert.deepEqual(await engine.search({ terms: [], webql: node, limit: 10_000 }), found, text);
        assert.ok(read <= most, `${text}: ${read} read`);
      }
      // The OR of sites is the filter's (`anyRevSites`): only their pages are listed.
      const node = parseWebql('(site:docs.plain.test OR site:go.test) kiwi');
      const { deps, listed } = counting(depsOf(engine, node));
      assert.equal((await searchWebql(deps, node, 10_000)).length, 80);
      assert.equal(listed(), 80);
      // A page holding no word may match, but only on the hosts of the site: and url: items of an
      // OR, among the pages of its other items or holding a word of it: those pages are listed
      // (`leadSites`, `leadVersions`), not every page. plain.test's subdomain holds
      // docs.plain.test's 40 pages; lime is on 4 pages of each host.
      for (const [text, listing, found] of [
        ['(lime OR site:go.test) (fig OR url:https://plain.test/docs)', 40 + 12, 36 + 4],
        ['(site:docs.plain.test OR url:go.test/)', 80, 80],
        ['site:plain.testing OR lime', 40 + 12, 40 + 12],
        // An inurl:'s pages looked up in the URLs in memory (docs/3 and docs/30-39 of each host).
        ['site:go.test OR inurl:docs/3', 40 + 33, 40 + 33],
        // Stop words alone lead nothing: every page.
        ['site:go.test OR "of the"', 160, 40],
      ] as const) {
        const node = parseWebql(text);
        const { deps, listed } = counting(depsOf(engine, node));
        const hits = await searchWebql(deps, node, 10_000);
        const ids = (h: { versionId: number }[]) => h.map((x) => x.versionId).sort((a, b) => a - b);
        assert.deepEqual(ids(hits), ids(await reference.search({ terms: [], webql: node, limit: 10_000 })), text);
        assert.equal(hits.length, found, text);
        assert.equal(listed(), listing, text);
      }
      await engine.close();
    }));
});

describe('webql tiers of the best first and the pages holding every required word', () => {
  test('`together` counts the pages holding every word, up to a bound, from dense lists\' bitsets and the lists themselves; the tiers are skipped where those are few though each word\'s are many; an OR with a phrase whose bare word decides a match reads the best first; an OR ranked by no word reads the newest first, and every page a candidate the best first', () =>
    withPages(async (db, pages) => {
      // Page i holds alpha when i % 3 is 0, beta when i % 5 is, side by side when i % 30 is (else
      // zeta between), gamma when i % 97 is, delta when i % 50 is, epsilon when i is even.
      const content = (i: number) =>
        [
          i % 3 === 0 && 'alpha',
          i % 3 === 0 && i % 5 === 0 && i % 30 !== 0 && 'zeta',
          i % 5 === 0 && 'beta',
          i % 97 === 0 && 'gamma',
          i % 50 === 0 && 'delta',
          i % 2 === 0 && 'epsilon',
          'filler',
        ]
          .filter(Boolean)
          .join(' ');
      const put = (from: number, to: number) =>
        pages.putVersions(Array.from({ length: to - from }, (_, k) => page(`https://t.test/p/${from + k}`, { title: 'T', content: content(from + k), acquiredAt: T0 + (from + k) * 60_000 })));
      const count = (holds: (i: number) => boolean) => Array.from({ length: 1_400 }, (_, i) => i).filter(holds).length;
      // A segment of 1,100 pages (its common words' lists are dense: bitsets kept) and one of 300 (none are).
      await put(0, 1_100);
      const tiers = [{ from: 100, k: 5 }];
      const engine = await new EngineIndexStore(db).open();
      const tiered = await new EngineIndexStore(db, { webqlBestFirst: { tiers, words: 4, few: 100 } }).open();
      await put(1_100, 1_400);
      for (const e of [engine, tiered]) await e.search({ terms: ['filler'], limit: 1 }); // takes them in
      assert.equal(engine.segmentCount, 2);
      const deps = depsOf(engine, parseWebql('alpha'));
      const together = (...ws: string[]) => deps.together(ws.map(cachedStem), Infinity);
      assert.equal(together('alpha', 'beta'), count((i) => i % 15 === 0));
      assert.equal(together('alpha', 'beta', 'epsilon'), count((i) => i % 30 === 0));
      assert.equal(together('gamma', 'alpha'), count((i) => i % 291 === 0), 'the rarest not dense');
      assert.equal(together('delta', 'gamma'), count((i) => i % 4_850 === 0), 'neither dense');
      assert.equal(together('alpha', 'nosuchword'), 0);
      // Counted up to a bound: past it, Infinity (the tiers then go as each word's pages say).
      const both = ['alpha', 'beta'].map(cachedStem);
      assert.deepEqual([93, 94].map((max) => deps.together(both, max)), [Infinity, 94]);
      // With the pair of `"alpha beta"`, the pages whose filters of pairs may hold it: those holding
      // it (i % 30), and of the others (`alpha zeta beta`) the few their filters let through.
      const sideBySide = deps.together(both, Infinity, phrasePairs(['alpha', 'beta'].map(wordKey)));
      assert.ok(sideBySide >= count((i) => i % 30 === 0) && sideBySide <= count((i) => i % 30 === 0) + 12, `${sideBySide}`);
      // `"alpha beta"`: each word on more pages than the tier's 100, both on 94; `alpha epsilon`, both on 234.
      const reference = new SqliteIndexStore(db);
      for (const [text, tiersRead] of [
        ['"alpha beta"', false],
        ['alpha epsilon', true],
      ] as const) {
        const node = parseWebql(text);
        const ds = depsOf(tiered, node);
        let best = 0;
        const found = await searchWebql({ ...ds, best: (terms, k) => (best++, ds.best(terms, k)) }, node, 10);
        assert.equal(best > 0, tiersRead, `${text}: ${best} tiers`);
        assert.deepEqual(found, await engine.search({ terms: [], webql: node, limit: 10 }), text);
        const all = await tiered.search({ terms: [], webql: node, limit: 10_000 });
        const ids = (hits: { versionId: number }[]) => hits.map((h) => h.versionId).sort((a, b) => a - b);
        assert.deepEqual(ids(all), ids(await reference.search({ terms: [], webql: node, limit: 10_000 })), text);
        assert.equal(all.length, text.startsWith('"') ? count((i) => i % 30 === 0) : count((i) => i % 6 === 0), text);
      }
      // No ranking word, no word every match holds, but many pages of one of an OR's: the newest
      // pages first (a tier of 5: pages 1395-1399, of which 1396 and 1398 hold epsilon and 1395
      // beta, not in its title), not the whole listing, and the same two as without tiers.
      const node = parseWebql('(title:beta OR epsilon)');
      const { deps: ds, listed } = counting(depsOf(tiered, node));
      let newest = 0;
      const found = await searchWebql({ ...ds, newest: (k, held) => (newest++, ds.newest(k, held)) }, node, 2);
      assert.equal(newest, 1);
      assert.equal(listed(), 3);
      assert.deepEqual(found, await engine.search({ terms: [], webql: node, limit: 2 }));
      assert.equal(found.length, 2);
      // More words rank than `words`, beside a phrase, yet the best first too (a tier of 5: page 0,
      // the only one holding five of them, scores above the 5th), not every page listed: where a
      // bare word of the OR decides a match alone, and where every page is a candidate (an item
      // of stop words alone).
      for (const text of ['(alpha OR "beta zeta" OR gamma OR delta OR epsilon)', '(alpha OR beta OR gamma OR delta OR epsilon OR "to be")']) {
        const expr = parseWebql(text);
        const c = counting(depsOf(tiered, expr));
        let asked = 0;
        const top = await searchWebql({ ...c.deps, best: (terms, k) => (asked++, c.deps.best(terms, k)) }, expr, 1);
        assert.equal(asked, 1, text);
        assert.equal(c.listed(), 5, text);
        assert.deepEqual(top, await engine.search({ terms: [], webql: expr, limit: 1 }), text);
        assert.equal(top.length, 1, text);
      }
      await engine.close();
      await tiered.close();
    }));
});

describe('webql tiers under time bounds', () => {
  test('the best first under a window that keeps many of the pages, the listing under one that keeps few (a sixteenth or less), the same answers either way', () =>
    withPages(async (db, pages) => {
      // Page i acquired at minute i and published on day i, holding alpha when i % 3 is 0 and
      // epsilon when i is even.
      const content = (i: number) => [i % 3 === 0 && 'alpha', i % 2 === 0 && 'epsilon', 'filler'].filter(Boolean).join(' ');
      await pages.putVersions(Array.from({ length: 1_400 }, (_, i) => page(`https://w.test/p/${i}`, { title: 'T', content: content(i), acquiredAt: T0 + i * 60_000, publishedAt: T0 + i * DAY })));
      const tiered = await new EngineIndexStore(db, { webqlBestFirst: { tiers: [{ from: 100, k: 5 }], words: 4, few: 100 }, orderFrom: 1 }).open();
      const reference = new SqliteIndexStore(db);
      const node = parseWebql('alpha epsilon');
      const minute = (i: number) => T0 + i * 60_000;
      const day = (i: number) => T0 + i * DAY;
      for (const [name, bounds, tiersRead] of [
        ['no bounds', {}, true],
        ['acquired, 1,000 of 1,400 pages', { acquiredAfter: minute(400) }, true],
        ['acquired, 60 of them', { acquiredAfter: minute(1_340) }, false],
        ['published, 700', { publishedAfter: day(700) }, true],
        ['published, 80', { publishedAfter: day(100), publishedBefore: day(179) }, false],
        ['a query_time, 1,200 alive', { queryTime: minute(1_199) }, true],
        ['a query_time, 60 alive', { queryTime: minute(59) }, false],
        ['a wide acquired and a narrow published window', { acquiredAfter: minute(400), publishedAfter: day(1_340) }, false],
      ] as const) {
        const q: IndexQuery = { terms: [], webql: node, limit: 10, ...bounds };
        const ds = (Reflect.get(tiered, 'webqlDeps') as (q: IndexQuery, node: WebqlNode) => WebqlDeps).call(tiered, q, node);
        let best = 0;
        const found = await searchWebql({ ...ds, best: (terms, k) => (best++, ds.best(terms, k)) }, node, 10);
        assert.equal(found.length, 10, name);
        // A tier asked for returns its best only where the bounds keep many pages.
        const asked = await ds.best(['alpha'], 5);
        assert.equal(asked !== undefined, tiersRead, `${name}: ${best} tiers asked, the best ${asked === undefined ? 'not given' : 'given'}`);
        const all = await tiered.search({ ...q, limit: 10_000 });
        const ids = (hits: { versionId: number }[]) => hits.map((h) => h.versionId).sort((a, b) => a - b);
        assert.deepEqual(ids(all), ids(await reference.search({ ...q, limit: 10_000 })), name);
        assert.deepEqual(found, await tiered.search(q), name);
      }
      await tiered.close();
    }));
});

describe('webql ties', () => {
  test('equal scores go to the lower version id; with no ranking words, equal times to the higher (the newest stored)', () =>
    withPages(async (db, pages) => {
      const at = Date.parse('2025-06-01T00:00:00Z');
      // The same title, text and URL length (four-letter words, none a stop word), so the same score; the same time; only the ids differ.
      const stored = await pages.putVersions(['kiwi', 'lime', 'pear', 'plum'].map((p) => page(`https://t.test/${p}`, { title: 'T', content: 'glycolysis rate', acquiredAt: at })));
      const ids = stored.map((o) => idOf(o));
      const engine = await new EngineIndexStore(db).open();
      const order = async (query: string) => (await engine.search({ terms: [], webql: parseWebql(query), limit: 10 })).map((h) => h.versionId);
      const hits = await engine.search({ terms: [], webql: parseWebql('glycolysis'), limit: 10 });
      assert.equal(new Set(hits.map((h) => h.score)).size, 1, 'the four score alike');
      assert.deepEqual(await order('glycolysis'), [...ids].sort((a, b) => a - b));
      assert.deepEqual(await order('site:t.test'), [...ids].sort((a, b) => b - a));
    }));
});

describe('webql url: and inurl: looked up in the page store', () => {
  test('find what checking every URL finds: cases folded as in JavaScript (K and İ too), LIKE and range bounds escaped; filetype: what the URL names or the page was served as', () =>
    withPages(async (db, pages) => {
      const paths = ['doc/1', 'DOC/2', '\u212Aelvin', '\u0130stanbul', 'caf\u00e9', 'CAF\u00c9', '100%_off', '100x-off', 'back\\slash', 'doc/1/deeper', 'doc/Report.PDF', 'a.pdf/x'];
      const special = [...paths.map((p) => `https://a.test/${p}`), 'http://a.test/doc/3'];
      const filler = Array.from({ length: 190 }, (_, i) => `https://c.test/page-${i}`);
      // Every page holds the word, and the longer pages of the URLs looked for rank below the
      // others (BM25 favours short pages): the first read finds none of them and the lookup's turn comes.
      // Two PDFs at URLs that name no type, a web page, and the filler as text or of no type known.
      const served = new Map([
        ['https://a.test/pdf/2101.00001', 'application/pdf'],
        ['https://a.test/pdf/2101.00002', 'application/pdf'],
        ['https://a.test/abs/2101.00001', 'text/html'],
      ]);
      await pages.putVersions([
        ...[...special, ...served.keys()].map((url) => page(url, { title: 'T', content: `glycolysis ${'rate '.repeat(40)}`, ...(served.has(url) && { mediaType: served.get(url)! }) })),
        ...filler.map((url, i) => page(url, { title: 'T', content: 'glycolysis', ...(i % 2 === 0 && { mediaType: 'text/plain' }) })),
      ]);
      const stored = db
        .prepare<[], { id: number; url: string; media: string | null }>('SELECT v.id, p.url, v.media_type AS media FROM versions v JOIN pages p ON p.id = v.page_id')
        .all();
      // A top-level inurl: narrows the search to the pages whose URL holds it, found in memory
      // (PageUrls). Where they are too many to narrow to (here every set but an empty one: a bound
      // of 0), webql looks them up with a scan of the pages in SQLite, here in steps of 4 pages: the
      // special pages (ids 1-11) lie on either side of its bounds.
      const engine = await new EngineIndexStore(db, { urlScanStep: 4 }).open();
      const scanning = await new EngineIndexStore(db, { urlScanStep: 4, fileTypeMax: 0 }).open();
      const found = (query: string) => webqlFound(engine, query);
      const expect = (match: (url: string) => boolean) => stored.filter((r) => match(r.url)).map((r) => r.id).sort();
      for (const text of ['k', 'K', 'i', 'İ', 'é', 'É', 'doc', 'DOC/1', '%', '_', '%_', '\\', 'x-off']) {
        const expected = expect((url) => url.toLowerCase().includes(text.toLowerCase()));
        assert.ok(expected.length > 0, text);
        assert.deepEqual(await found(`glycolysis inurl:${text}`), expected, `inurl:${text}`);
        assert.deepEqual(await webqlFound(scanning, `glycolysis inurl:${text}`), expected, `inurl:${text}, scanned`);
      }
      assert.ok(expect((url) => url.toLowerCase().includes('k')).length > 0, 'a URL with K (U+212A) lowercases to hold k');
      // A top-level filetype: is looked up as the URLs holding its dot and type and the versions
      // served as it, each then decided; one that pages served as HTML answer to is not looked up.
      const pdfs = stored.filter((r) => urlFileType(r.url) === 'pdf' || r.media === 'application/pdf').map((r) => r.id).sort();
      assert.equal(pdfs.length, 3);
      assert.deepEqual(await found('glycolysis filetype:pdf'), pdfs);
      // The web page ranks below the first reads (the lookup's turn), and is found by reading on.
      const html = stored.filter((r) => urlFileType(r.url) === 'html' || r.media === 'text/html').map((r) => r.id);
      assert.equal(html.length, 1);
      assert.deepEqual(await found('glycolysis filetype:html'), html);
      const texts = await found('glycolysis filetype:txt');
      assert.equal(texts.length, 10);
      assert.ok(texts.every((id) => stored.find((r) => r.id === id)!.media === 'text/plain'));
      // A query that reads on lets the event loop turn between its reads: what waits for the loop
      // (here a callback set before the query starts) runs before the query ends.
      const order: string[] = [];
      setImmediate(() => order.push('event loop'));
      await scanning.search({ terms: [], webql: parseWebql('glycolysis inurl:x-off'), limit: 10 }).then(() => order.push('webql'));
      assert.deepEqual(order, ['event loop', 'webql']);
      for (const prefix of ['a.test/doc/1', 'https://a.test/doc', 'http://a.test/', 'a.test/DOC', 'a.test/caf\u00e9', 'https://a.test/100%']) {
        const starts = /^https?:\/\//.test(prefix) ? [prefix] : [`http://${prefix}`, `https://${prefix}`];
        assert.deepEqual(await found(`glycolysis url:${prefix}`), expect((url) => starts.some((s) => url.startsWith(s))), `url:${prefix}`);
      }
    }));

  test('prefixEnd: the least string above every string with the prefix, or none', () => {
    assert.equal(prefixEnd('https://a.test/doc'), 'https://a.test/dod');
    assert.equal(prefixEnd('a\u00e9'), 'a\u00ea');
    assert.equal(prefixEnd(''), undefined);
    assert.equal(prefixEnd('a\ud7ff'), undefined);
    assert.equal(prefixEnd('a\ud83d\ude00'), undefined);
    assert.equal(prefixEnd('a\uffff'), undefined);
  });
});
