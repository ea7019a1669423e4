import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statfsSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { analyse, EngineIndexStore, fieldsOf } from '../../src/adapters/engine/engine-index-store.js';
import { exhaustive, searchable, searchTopK, sortedKeys, type Statistics, updateGone } from '../../src/adapters/engine/engine.js';
import { loadIndex, saveIndex, withLock } from '../../src/adapters/engine/segment-files.js';
import { compacted, concatSegments, decodeBlock, dictionaryOf, members, PostingsPool, publishedSet, SegmentBuilder, type SegmentData, termAt, termCount, termNumber } from '../../src/adapters/engine/segment.js';
import { openDatabase, type Db } from '../../src/adapters/sqlite/database.js';
import { SqlitePageStore } from '../../src/adapters/sqlite/page-store.js';
import { ANALYSIS_VERSION, queryTerms, stem } from '../../src/core/text.js';
import { reverseHost } from '../../src/core/url.js';
import { parseWebql } from '../../src/core/webql.js';
import { loadCorpus, loadQueries, rng } from '../../bench/scifact.js';
import { page, tempDir } from '../helpers.js';

/** A process running test/fixtures/`name` (TypeScript), its stdout piped, its stderr piped or inherited. */
const fixture = (name: string, args: string[], stderr: 'pipe' | 'inherit') =>
  spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'fixtures', name), ...args], { stdio: ['ignore', 'pipe', stderr] });

const corpus = loadCorpus();
const queries = [...loadQueries().values()].slice(0, 200);

function statsOf(segs: SegmentData[]): Statistics {
  const docCount = segs.reduce((n, s) => n + s.docCount, 0);
  const total = segs.reduce((n, s) => n + s.totalLength, 0);
  return {
    docCount,
    avgLength: total / docCount,
    df: (t) => segs.reduce((n, s) => n + (termNumber(s, t) === undefined ? 0 : s.termDf[termNumber(s, t)!]!), 0),
  };
}

/** A segment's terms, in their numbers' order. */
const termsOf = (seg: SegmentData): string[] => Array.from({ length: termCount(seg) }, (_, t) => termAt(seg, t));

/** A term's postings decoded from its blocks: document, frequency, document, frequency, ... */
function postings(seg: SegmentData, term: string): number[] {
  const t = termNumber(seg, term)!;
  const out: number[] = [];
  const docs = new Int32Array(128);
  const tfs = new Int32Array(128);
  for (let b = seg.termBlockStart[t]!; b < seg.termBlockStart[t]! + seg.termBlockCount[t]!; b++) {
    const n = decodeBlock(seg.postings, seg.blockOffset[b]!, seg.blockBase[b]! - 1, docs, tfs);
    for (let k = 0; k < n; k++) out.push(docs[k]!, tfs[k]!);
  }
  return out;
}

function run(segs: SegmentData[], q: string) {
  const stats = statsOf(segs);
  return searchTopK(segs.map((data) => searchable(data, stats.avgLength)), stats, queryTerms(q).map(stem), {}, 10);
}

describe('segments', () => {
  test('two halves joined answer exactly as one segment built whole', () => {
    const rows = corpus.map((d, i) => ({
      id: i + 1,
      url: `https://h${i % 5}.test/${d.id}`,
      rev_host: `test.h${i % 5}.`,
      title: d.title,
      description: null,
      content: d.text,
      acquired_at: 0,
      superseded_at: null,
      published_at: i,
      searchable: 1,
    }));
    const build = (part: typeof rows) => {
      const b = new SegmentBuilder();
      for (const r of part) b.add(analyse(r, { title: 3, description: 1, content: 1, url: 1 }));
      return b.finish();
    };
    const whole = build(rows);
    const joined = concatSegments([build(rows.slice(0, 2000)), build(rows.slice(2000))]);
    assert.equal(joined.docCount, whole.docCount);
    assert.deepEqual([...joined.pubSorted], [...whole.pubSorted]);
    for (const q of queries) assert.deepEqual(run([joined], q), run([whole], q), q);
    // The joined dictionary holds each term once, with the whole's postings.
    assert.equal(termCount(joined), termCount(whole));
    assert.deepEqual(termsOf(joined), termsOf(whole));
    for (const term of termsOf(whole).filter((_, t) => t % 7 === 0)) assert.deepEqual(postings(joined, term), postings(whole, term), term);
  });

  test('segments compacted into one without their deleted documents are the segment a build of the others makes', () => {
    // SciFact's documents on 5 hosts, one host's documents all deleted (a site removed), and every
    // 9th of the rest (pages removed); every 5th undated, so the published order is renumbered too.
    const docs = corpus.map((d, i) => ({
      ...analyse(
        { id: i + 1, url: `https://h${i % 5}.test/${d.id}`, rev_host: `test.h${i % 5}.`, title: d.title, description: null, content: d.text, acquired_at: i, superseded_at: null, published_at: i % 5 === 3 ? null : 1000 - i, searchable: 1 },
        { title: 3, description: 1, content: 1, url: 1 },
      ),
    }));
    const gone = (i: number) => i % 5 === 4 || i % 9 === 0;
    const build = (part: typeof docs) => {
      const b = new SegmentBuilder();
      for (const d of part) b.add(d);
      return b.finish();
    };
    const whole = build(docs);
    docs.forEach((_, i) => (whole.deleted[i] = gone(i) ? 1 : 0));
    const expected = build(docs.filter((_, i) => !gone(i)));
    // And the same documents in three segments merged (a merge of segments whose ids follow each other).
    const thirds = [docs.slice(0, 1700), docs.slice(1700, 3400), docs.slice(3400)].map((part, k) => {
      const seg = build(part);
      part.forEach((_, i) => (seg.deleted[i] = gone(k * 1700 + i) ? 1 : 0));
      return seg;
    });
    assert.throws(() => compacted([thirds[1]!, thirds[0]!]), /not in version-id order/);
    for (const [shared, parts] of [[false, [whole]], [true, [whole]], [false, thirds], [true, thirds]] as const) {
      const made = compacted(parts, shared)!;
      assert.equal(made.postings.buffer instanceof SharedArrayBuffer, shared);
      for (const k of ['docCount', 'totalLength', 'refAvg', 'hosts'] as const) assert.deepEqual(made[k], expected[k], k);
      for (const k of ['versionIds', 'lengths', 'acquiredAt', 'supersededAt', 'publishedAt', 'hostRank', 'urlMask', 'pubOrder', 'pubSorted', 'deleted'] as const) {
        assert.deepEqual([...made[k]], [...expected[k]], k);
      }
      assert.deepEqual(made.hosts, ['test.h0.', 'test.h1.', 'test.h2.', 'test.h3.'], "the removed site's host is gone");
      // The same terms, none that only deleted documents held, with the same blocks.
      assert.deepEqual(termsOf(made).sort(), termsOf(expected).sort());
      assert.ok(termCount(made) < termCount(whole));
      for (const term of termsOf(expected)) {
        const [a, b] = [termNumber(made, term)!, termNumber(expected, term)!];
        assert.equal(made.termDf[a], expected.termDf[b], term);
        assert.deepEqual(postings(made, term), postings(expected, term), term);
        const blocks = (seg: SegmentData, t: number) =>
          Array.from({ length: seg.termBlockCount[t]! }, (_, i) => {
            const block = seg.termBlockStart[t]! + i;
            return [seg.blockBase[block], seg.blockLast[block], seg.blockMaxSat[block], seg.postings[seg.blockOffset[block]!]];
          });
        assert.deepEqual(blocks(made, a), blocks(expected, b), term);
      }
      for (const q of queries) assert.deepEqual(run([made], q), run([expected], q), q);
    }
    whole.deleted.fill(1);
    assert.equal(compacted([whole]), undefined, 'none left');
  });

  test('the term dictionary finds each of its terms by its bytes and nothing else', () => {
    // Long terms too: their bytes do not fit the first scratch buffer.
    const words = ['a', 'ab', 'abc', 'b', '東京', 'café', 'x86', 'straße', 'long'.repeat(100), '東京'.repeat(200), ...Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`)];
    const dict = dictionaryOf(words);
    assert.equal(termCount(dict), words.length);
    assert.equal(dict.termSlots.length, 16_384); // a power of two, at least twice the terms
    words.forEach((w, t) => {
      assert.equal(termNumber(dict, w), t, w);
      assert.equal(termAt(dict, t), w);
    });
    for (const absent of ['', 'abcd', 'c', '東', '京東', 'cafe', 'strasse', 'w', 'W0', 'w0 ', 'x'.repeat(1000)]) assert.equal(termNumber(dict, absent), undefined, absent);
    // Each dictionary has a random key: the same terms lie in other slots, and are found all the same.
    const again = dictionaryOf(words);
    assert.notEqual(again.termSeed, dict.termSeed);
    assert.notDeepEqual(again.termSlots, dict.termSlots);
    words.forEach((w, t) => assert.equal(termNumber(again, w), t, w));
    // Its arrays read the same from shared memory (the search helper's copy).
    const shared = dictionaryOf(words, true);
    assert.ok(shared.termBytes.buffer instanceof SharedArrayBuffer);
    assert.equal(termNumber(shared, 'straße'), 7);
    assert.equal(termAt(shared, 4), '東京');
    const empty = dictionaryOf([]);
    assert.equal(termCount(empty), 0);
    assert.equal(termNumber(empty, 'a'), undefined);
  });

  test('published windows: the documents inside [from, to], as a bitset while they are at most half the segment', () => {
    // 1,003 documents (not a multiple of eight), every seventh undated, many sharing a time.
    const b = new SegmentBuilder();
    const published: number[] = [];
    for (let i = 0; i < 1003; i++) {
      const at = i % 7 === 3 ? Number.NaN : ((i * 7919) % 1000) * 10;
      published.push(at);
      b.add({ versionId: i + 1, terms: new Map([['w', 1]]), length: 1, acquiredAt: 0, supersededAt: Infinity, publishedAt: at, revHost: 'test.h.', urlMask: [0, 0] });
    }
    const seg = b.finish();
    const windows: [number | undefined, number | undefined][] = [[undefined, undefined], [0, 9990], [undefined, 4990], [5000, undefined], [-5, -1], [20_000, 30_000]];
    for (let k = 0; k < 200; k++) {
      const from = Math.floor(Math.random() * 10_000) - 50;
      windows.push([from, from + Math.floor(Math.random() * 6000)], [from, from]);
    }
    for (const [from, to] of windows) {
      const set = publishedSet(seg, from, to);
      if (from === undefined && to === undefined) {
        assert.equal(set, undefined);
        continue;
      }
      const inside = published.flatMap((p, doc) => (p >= (from ?? -Infinity) && p <= (to ?? Infinity) ? [doc] : []));
      assert.equal(set!.count, inside.length, `[${from}, ${to}]`);
      if (inside.length * 2 > seg.docCount) assert.equal(set!.bits, undefined, `[${from}, ${to}]`);
      else assert.deepEqual([...members(set!.bits!, set!.count)], inside, `[${from}, ${to}]`);
    }
  });

  test('wide acquired and published windows, query times and sites: the documents outside them left out by their bits, those of the first and last minutes and those moved by their times', () => {
    // 6,000 documents (an acquired order is made from 4,096 on), acquired at 20-second steps over
    // 1,000 minutes, so a bound inside a minute splits its documents, on four hosts (one a
    // subdomain of another), a fifth of them undated. Acquired and published windows holding more
    // than half of them, and sites that do, leave the others out by a bitset joined to `gone`
    // (engine.ts `foldedGone`), kept from one query to the next; the answer must be exactly the
    // exhaustive one, which tests every document's times and host.
    const n = 6000;
    const T0 = Date.parse('2026-01-01T00:00:00Z');
    const STEP = 20_000;
    const b = new SegmentBuilder();
    for (let doc = 0; doc < n; doc++) {
      const terms = new Map<string, number>([['w', 1 + (doc % 3)]]);
      if (doc % 3 === 0) terms.set('v', 1 + (doc % 4));
      if (doc % 7 === 0) terms.set('x', 1);
      const host = ['big.test', 'big.test', 'big.test', 'big.test', 'big.test', 'big.test', 'docs.big.test', 'other.test', 'other.test', 'x.test'][(doc * 31) % 10]!;
      // A fifth undated; the others at 1,000 hourly times before T0, about five to a time.
      const publishedAt = doc % 5 === 2 ? Number.NaN : T0 - ((doc * 104_729) % 1000) * 3_600_000;
      // Every thirteenth superseded already (alive for 0 to 1,499 steps), before any order is made.
      const acquiredAt = T0 + ((doc * 7919) % 3000) * STEP;
      const supersededAt = doc % 13 === 0 ? acquiredAt + ((doc * 389) % 1500) * STEP : Infinity;
      b.add({ versionId: doc + 1, terms, length: 3 + (doc % 9), acquiredAt, supersededAt, publishedAt, revHost: reverseHost(host), urlMask: [0, 0] });
    }
    const seg = b.finish();
    const stats = statsOf([seg]);
    const s = [searchable(seg, stats.avgLength)];
    const random = rng(7);
    // A bound at a document's time, a millisecond either side of one, or anywhere in a minute.
    const bound = (at: number) => T0 + Math.floor(at * 3000) * STEP + [0, -1, 1, Math.floor(random() * STEP)][Math.floor(random() * 4)]!;
    let lo = 0.2;
    let hi = 0.9;
    let wide = 0;
    let widePublished = 0;
    let wideThen = 0;
    // Sites of 70% of the documents (with the subdomain), 90% (two, overlapping or not), all, 10%, 20%.
    const SITE_FILTERS = [
      { revSite: reverseHost('big.test') },
      { anyRevSites: [reverseHost('big.test'), reverseHost('docs.big.test'), reverseHost('other.test')] },
      { anyRevSites: [reverseHost('other.test'), reverseHost('big.test')] },
      { revSite: reverseHost('test') },
      { revSite: reverseHost('big.test'), anyRevSites: [reverseHost('docs.big.test')] },
      { anyRevSites: [reverseHost('x.test')] },
      // (20%, asked three times: counted once, it is a few.)
      { anyRevSites: [reverseHost('other.test'), reverseHost('other.test'), reverseHost('other.test')] },
    ];
    const check = (label: string) => {
      for (let k = 0; k < 80; k++) {
        // Mostly a window moved a little (a relative window as the clock goes on), now and then another.
        if (random() < 0.2) [lo, hi] = [random() * 0.4, 0.6 + random() * 0.4];
        else [lo, hi] = [Math.max(0, lo + (random() - 0.5) * 0.02), Math.min(1, hi + (random() - 0.5) * 0.02)];
        let filter: { acquiredAfter?: number; acquiredBefore?: number; queryTime?: number; publishedAfter?: number; publishedBefore?: number; notTerms?: string[]; revSite?: string; anyRevSites?: string[] } = {};
        if (random() < 0.4) filter = { ...SITE_FILTERS[Math.floor(random() * SITE_FILTERS.length)]! };
        if (filter.revSite === undefined && filter.anyRevSites === undefined ? random() < 0.9 : random() < 0.5) {
          if (random() < 0.9) filter.acquiredAfter = bound(lo);
          if (random() < 0.9 || filter.acquiredAfter === undefined) filter.acquiredBefore = bound(hi);
        }
        if (random() < 0.3) {
          // (Published from 1,000 hours back to T0: most windows hold more than half the documents.)
          const [a, z] = [Math.floor(random() * 200), 750 + Math.floor(random() * 300)];
          if (random() < 0.8) filter.publishedAfter = T0 - z * 3_600_000 + [0, -1, 1][Math.floor(random() * 3)]!;
          if (random() < 0.8) filter.publishedBefore = T0 - a * 3_600_000 + [0, -1, 1][Math.floor(random() * 3)]!;
        }
        if (random() < 0.2) filter.notTerms = ['x'];
        // (A point in time: what was alive then, mostly after more than half was acquired.)
        if (random() < 0.25) filter.queryTime = bound(0.3 + random() * 0.7);
        const inside = Array.from(seg.acquiredAt).filter((t) => t >= (filter.acquiredAfter ?? -Infinity) && t <= Math.min(filter.acquiredBefore ?? Infinity, filter.queryTime ?? Infinity)).length;
        if (filter.acquiredAfter !== undefined && inside * 2 > n) wide++;
        if (filter.queryTime !== undefined && inside * 2 > n) wideThen++;
        const dated = Array.from(seg.publishedAt).filter((t) => t >= (filter.publishedAfter ?? -Infinity) && t <= (filter.publishedBefore ?? Infinity)).length;
        if (filter.publishedAfter !== undefined && dated * 2 > n) widePublished++;
        for (const q of [['w'], ['v', 'w'], ['x', 'v']]) {
          for (const top of [10, n]) assert.deepEqual(searchTopK(s, stats, q, filter, top), exhaustive(s, stats, q, filter, top), `${label}: ${q.join(' ')} ${JSON.stringify(filter)} top ${top}`);
        }
      }
    };
    check('as built');
    // Captures move documents' times (across the bounds, and within a minute): their keys in the
    // order are their old times now. Versions are superseded (alive before, gone now) and deleted.
    for (let doc = 5; doc < n; doc += 37) {
      seg.acquiredAt[doc] = doc % 2 === 0 ? T0 + Math.floor(random() * 3000) * STEP + 1 : seg.acquiredAt[doc]! - 1;
      if (doc % 3 === 0) seg.supersededAt[doc] = seg.acquiredAt[doc]! + Math.floor(random() * 1500) * STEP;
      if (doc % 11 === 0) seg.deleted[doc] = 1;
      updateGone(s[0]!, doc);
    }
    check('after moves');
    assert.ok(wide > 40 && widePublished > 20 && wideThen > 10, `wide windows: ${wide} acquired, ${widePublished} published, ${wideThen} at a queryTime`);
  });

  test('an acquired order\'s keys are the documents by acquired minute, then by number, whatever the times and however many', () => {
    // The keys sortedKeys writes (a radix sort by minute) against the same keys sorted as numbers:
    // times over two years, one minute, a few minutes many times over, in document order and
    // against it, unknown, before 1970 and past the last minute a key tells apart; none, one and
    // 5,000 documents; keys at an offset in a shared buffer, as a store on two threads keeps them.
    const random = rng(3);
    const T0 = Date.parse('2025-01-01T00:00:00Z');
    const MINUTE = 60_000;
    const sets: [string, number[]][] = [
      ['two years at random', Array.from({ length: 5000 }, () => T0 + Math.floor(random() * 730 * 24 * 60) * MINUTE + Math.floor(random() * MINUTE))],
      ['one minute', Array.from({ length: 3000 }, () => T0 + Math.floor(random() * MINUTE))],
      ['five minutes', Array.from({ length: 3000 }, () => T0 + Math.floor(random() * 5) * MINUTE)],
      ['in document order', Array.from({ length: 3000 }, (_, doc) => T0 + doc * 7_000)],
      ['against it', Array.from({ length: 3000 }, (_, doc) => T0 - doc * 7_000)],
      ['unknown, early and late', Array.from({ length: 3000 }, (_, doc) => [Number.NaN, 0, -5 * MINUTE, 2 ** 26 * MINUTE, 2 ** 40 * MINUTE, T0 + doc * MINUTE][doc % 6]!)],
      ['one', [T0]],
      ['none', []],
    ];
    for (const [label, times] of sets) {
      const n = times.length;
      const minuteOf = (t: number) => (Math.floor(t / MINUTE) > 0 ? Math.min(Math.floor(t / MINUTE), 2 ** 26 - 1) : 0);
      const expected = Float64Array.from(times, (t, doc) => minuteOf(t) * 2 ** 27 + doc).sort();
      const keys = new Float64Array(new SharedArrayBuffer(8 * (n + 3)), 8 * 2, n);
      sortedKeys(Float64Array.from(times), keys);
      assert.deepEqual([...keys], [...expected], label);
    }
  });

  test('probes find exactly the postings of blocks whose documents bunch (the guess misses, binary search finds them), with and without the dense lists\' bitsets', () => {
    // 40,000 documents. `bunched` is in runs (300 of every 2,000 documents, then every 13th), so
    // a block holds a run and a stretch of gaps and the position guessed from its first and last
    // documents is far off; `even` is in every third, `rare` in every 101st. Published windows of
    // every 97th and every 997th document make the traversal probe the dense lists at the window's
    // documents (and lead with the window), with no filter the candidates are completed from them.
    // `bunched` and `even` are dense (in more than 1/16 of the documents): they get bitsets.
    const n = 40_000;
    const b = new SegmentBuilder();
    for (let doc = 0; doc < n; doc++) {
      const terms = new Map<string, number>();
      if (doc % 2000 < 300 || doc % 13 === 0) terms.set('bunched', 1 + (doc % 4));
      if (doc % 3 === 0) terms.set('even', 1 + (doc % 5));
      if (doc % 101 === 0) terms.set('rare', 1 + (doc % 3));
      terms.set(`u${doc % 50}`, 1);
      const publishedAt = doc % 997 === 0 ? 2 : doc % 97 === 0 ? 1 : 0;
      b.add({ versionId: doc + 1, terms, length: 3 + (doc % 9), acquiredAt: 0, supersededAt: Infinity, publishedAt, revHost: 'test.h.', urlMask: [0, 0] });
    }
    const segs = [b.finish()];
    const stats = statsOf(segs);
    const s = segs.map((data) => searchable(data, stats.avgLength));
    const filters = [{}, { publishedAfter: 1, publishedBefore: 2 }, { publishedAfter: 2, publishedBefore: 2 }];
    let hits = 0;
    for (const filter of filters) {
      for (const q of [['bunched'], ['bunched', 'even'], ['bunched', 'rare'], ['rare', 'bunched', 'even'], ['bunched', 'u7'], ['even', 'u7', 'bunched']]) {
        for (const k of [1, 10, 1000]) {
          const want = exhaustive(s, stats, q, filter, k);
          assert.deepEqual(searchTopK(s, stats, q, filter, k), want, `${q.join(' ')} ${JSON.stringify(filter)} top ${k}`);
          hits += want.length;
        }
      }
    }
    assert.ok(hits > 5000, `hits compared: ${hits}`);
    // With `required`, exactly the top k of the documents holding one of the last terms (those a
    // query's other reading alone has), whichever lists are rare or dense, led by the window or not.
    const holds: Record<string, (doc: number) => boolean> = { bunched: (d) => d % 2000 < 300 || d % 13 === 0, even: (d) => d % 3 === 0, rare: (d) => d % 101 === 0, u7: (d) => d % 50 === 7 };
    let dropped = 0;
    for (const filter of filters) {
      for (const [q, required] of [[['bunched', 'rare'], 1], [['rare', 'bunched'], 1], [['bunched', 'even', 'rare'], 2], [['even', 'u7', 'bunched'], 1], [['rare', 'u7', 'even'], 2]] as const) {
        const all = exhaustive(s, stats, q, filter, n);
        const holding = all.filter((h) => q.slice(-required).some((t) => holds[t]!(h.versionId - 1)));
        dropped += all.length - holding.length;
        for (const k of [1, 10, 1000]) assert.deepEqual(searchTopK(s, stats, q, filter, k, undefined, undefined, required), holding.slice(0, k), `${q.join(' ')} required ${required} ${JSON.stringify(filter)} top ${k}`);
      }
    }
    assert.ok(dropped > 1000, `documents without a required term: ${dropped}`);
    // The dense lists' bitsets (engine.ts `Members`) were made by those searches, each exactly its list.
    const m = s[0]!.members;
    const seg = segs[0]!;
    const dense = [...m.terms].map((t) => termAt(seg, t));
    assert.deepEqual(dense.sort(), ['bunched', 'even']);
    for (const [i, t] of m.terms.entries()) {
      assert.equal(m.state[i], 2);
      const words = (n + 31) >>> 5;
      const bits = m.bits.subarray(i * words, (i + 1) * words);
      const inList = postings(seg, dense[i]!).filter((_, j) => j % 2 === 0);
      const set: number[] = [];
      for (let doc = 0; doc < n; doc++) if (bits[doc >>> 5]! & (1 << doc)) set.push(doc);
      assert.deepEqual(set, inList, `term ${t}`);
    }
    // A bitset another thread is still making (here: still empty) is not used: the same answers from the blocks alone.
    const busy = searchable(seg, stats.avgLength, undefined, { terms: m.terms, state: new Int32Array(m.state.length).fill(1), bits: new Int32Array(m.bits.length) });
    for (const filter of filters) {
      for (const q of [['bunched', 'even'], ['rare', 'bunched', 'even']]) assert.deepEqual(searchTopK([busy], stats, q, filter, 10), exhaustive(s, stats, q, filter, 10));
    }
  });

  test('addFields (the build path) indexes exactly what add(analyse(row)) does', () => {
    const weights = { title: 3, description: 2, content: 1, url: 1 };
    const odd = [
      'Ünïcode Café RÉSUMÉ naïve',
      'MiXeD CaSe The AND stop WORDS',
      '東京 x86_64 C++ e-mail 3.14',
      '',
      'ALLCAPS allcaps AllCaps',
      "Cell's\u00a0wall—C#-state-of-the-art 1000—C++ Wi-Fi# 1,000 ｶﬁle 𝐜ell İnsulin \u212Aelvin it's",
    ];
    const rows = corpus.slice(0, 1500).map((d, i) => ({
      id: i + 1,
      url: `https://Host${i % 7}.test/${d.id}/Path-Words`,
      rev_host: `test.host${i % 7}.`,
      title: `${d.title} ${odd[i % odd.length]}`,
      description: i % 3 === 0 ? null : odd[(i + 1) % odd.length]!,
      content: d.text.toUpperCase().slice(0, 40) + d.text,
      acquired_at: 0,
      superseded_at: null,
      published_at: i,
      searchable: 1,
    }));
    const viaMap = new SegmentBuilder();
    const viaFields = new SegmentBuilder();
    for (const r of rows) {
      const a = analyse(r, weights);
      viaMap.add(a);
      viaFields.addFields(a, fieldsOf(r, weights));
    }
    const x = viaMap.finish();
    const y = viaFields.finish();
    assert.deepEqual([...y.lengths], [...x.lengths]);
    assert.deepEqual(termsOf(y).sort(), termsOf(x).sort());
    for (const term of termsOf(x)) assert.deepEqual(postings(y, term), postings(x, term), term);
    for (const term of ['東京', 'cafe', 'allcap', '~the', '~and', 'email']) assert.equal(termAt(x, termNumber(x, term)!), term);
    // A URL's hyphenated words are no compound (engine-index-store's `fieldsOf`).
    assert.equal(termNumber(x, 'pathword'), undefined);
    assert.notEqual(termNumber(x, 'path'), undefined);
  });

  test('a compound\'s joined word is a term of the document but no part of its length', () => {
    const weights = { title: 3, description: 1, content: 1, url: 1 };
    const row = (id: number, content: string) => ({
      id,
      url: 'https://post.test/page',
      rev_host: 'test.post.',
      title: null,
      description: null,
      content,
      acquired_at: 0,
      superseded_at: null,
      published_at: null,
      searchable: 1,
    });
    const hyphenated = analyse(row(1, 'Send an e-mail to the office.'), weights);
    const apart = analyse(row(2, 'Send an e mail to the office.'), weights);
    assert.equal(hyphenated.length, apart.length);
    assert.equal(hyphenated.terms.get('email'), 1);
    assert.equal(apart.terms.get('email'), undefined);
    assert.deepEqual([...hyphenated.terms].filter(([t]) => t !== 'email'), [...apart.terms]);
  });

  test('every posting comes back as it was added: terms seen once, a few thousand times, and in every document', () => {
    // 150,000 documents: a term of its own in each (slices of the build's pool, past one chunk of
    // it), 37 terms in a 37th of them each (buffers that grow and leave slices to be reused), one in
    // every thousandth (wide gaps), one in all (a buffer of its own), frequencies up to 1,000.
    const n = 150_000;
    const expected = new Map<string, number[]>();
    const builder = new SegmentBuilder();
    for (let doc = 0; doc < n; doc++) {
      const terms = new Map<string, number>([
        [`u${doc}`, 1],
        [`k${doc % 37}`, 1 + (doc % 11)],
        ['all', doc % 97 === 0 ? 1000 : 1 + (doc % 5)],
      ]);
      if (doc % 1000 === 999) terms.set('sparse', 2);
      for (const [term, tf] of terms) {
        if (!expected.has(term)) expected.set(term, []);
        expected.get(term)!.push(doc, tf);
      }
      builder.add({ versionId: doc + 1, terms, length: 4, acquiredAt: 0, supersededAt: Infinity, publishedAt: NaN, revHost: 'test.h.', urlMask: [0, 0] });
    }
    const seg = builder.finish();
    assert.equal(termCount(seg), expected.size);
    for (const [term, want] of expected) {
      const t = termNumber(seg, term)!;
      assert.equal(seg.termDf[t], want.length / 2, term);
      const got = postings(seg, term);
      if (got.length !== want.length || got.some((v, i) => v !== want[i])) assert.deepEqual(got, want, term);
      // Each block's last document and base (the document before it, plus one).
      for (let b = seg.termBlockStart[t]!, k = 0; b < seg.termBlockStart[t]! + seg.termBlockCount[t]!; b++, k += 128) {
        assert.equal(seg.blockBase[b], k === 0 ? 0 : want[2 * (k - 1)]! + 1, term);
        assert.equal(seg.blockLast[b], want[2 * Math.min(k + 127, want.length / 2 - 1)], term);
      }
    }
  });

  test('the build\'s pool gives back postings too far apart or too frequent for one word each: distances about 2^24, frequencies about 256', () => {
    // An open block keeps a posting in one word when its distance from the block's base is below
    // 2^24 - 1 and its frequency at most 256, else in three. Term 0 sits on those edges (a block's
    // base is 0 until it closes); 40 others take random gaps (some of millions of documents) and
    // frequencies about the edge, and the last then 80,000 more at three words each, until its
    // buffer is an array of its own; slices grow, are freed and are split among them.
    const pool = new PostingsPool();
    const want: number[][] = [];
    const next = rng(11);
    const edge = 2 ** 24;
    const add = (t: number, doc: number, tf: number) => {
      pool.add(t, doc, tf);
      (want[t] ??= []).push(doc, tf);
    };
    for (let t = 0; t < 42; t++) pool.newTerm();
    for (const [doc, tf] of [[0, 1], [edge - 2, 256], [edge - 1, 256], [edge, 257], [edge + 1, 1], [2 * edge, 255]] as const) add(0, doc, tf);
    const frequencies = [1, 2, 255, 256, 257, 300, 70_000];
    const last = new Array<number>(42).fill(-1);
    for (let step = 0; step < 60_000; step++) {
      const t = 1 + Math.floor(next() * 41);
      const gap = next() < 0.01 ? Math.floor(next() * 3 * edge) : 1 + Math.floor(next() * 50);
      last[t] = last[t]! + gap;
      add(t, last[t]!, frequencies[Math.floor(next() * frequencies.length)]!);
    }
    for (let doc = 0; doc < 80_000; doc++) add(41, last[41]! + 1 + doc, 300 + (doc % 3));
    // Terms of one posting side by side in the pool, each in a slice just as long as it, which its
    // block outgrows when packed (a header and a word each for its document and its frequency).
    for (let k = 0; k < 300; k++) add(pool.newTerm(), 1_000 + 7 * k, 2 + k);
    const { blocks, words } = pool.closeAll();
    const blockBase = new Uint32Array(blocks);
    const blockLast = new Uint32Array(blocks);
    const blockOffset = new Uint32Array(blocks);
    const postingWords = new Int32Array(words);
    const docs = new Int32Array(128);
    const tfs = new Int32Array(128);
    for (let t = 0, b = 0, at = 0; t < pool.count; t++) {
      const first = b;
      const from = at;
      at = pool.emit(t, b, at, blockBase, blockLast, blockOffset, postingWords);
      if (t === 41) assert.ok(at - from > 2 ** 15, 'the last term\'s postings outgrow a slice');
      b += pool.blocks[t]!;
      const got: number[] = [];
      for (let k = first; k < b; k++) {
        const n = decodeBlock(postingWords, blockOffset[k]!, blockBase[k]! - 1, docs, tfs);
        for (let i = 0; i < n; i++) got.push(docs[i]!, tfs[i]!);
        assert.equal(blockLast[k], docs[n - 1], `term ${t}, block ${k - first}`);
      }
      assert.equal(pool.df[t], want[t]!.length / 2);
      if (got.length !== want[t]!.length || got.some((v, i) => v !== want[t]![i])) assert.deepEqual(got, want[t], `term ${t}`);
    }
  });
});

describe('segments on disk', () => {
  const dir = tempDir();
  const dbPath = join(dir.path, 'pages.db');
  const engineDir = join(dir.path, 'engine');
  let db: Db;
  let pages: SqlitePageStore;
  const probe = ['alpha', 'beta', 'gamma', 'delta'];
  const results = async (index: EngineIndexStore) => {
    const out = [];
    for (const t of probe) out.push(await index.search({ terms: [t], limit: 20 }));
    out.push(await index.search({ terms: ['alpha'], limit: 20, queryTime: Date.parse('2026-01-01T00:10:00Z') }));
    // webql that the URLs' filters decide: `disk` is in every URL and no text, `item` in no URL.
    for (const q of ['alpha -disk', 'alpha -item', 'alpha (disk OR item)']) out.push(await index.search({ terms: [], webql: parseWebql(q), limit: 20 }));
    assert.equal(out.at(-3)!.length, 20, 'every alpha page lacks `disk` in its text');
    return out;
  };
  const reference = async () => results(await new EngineIndexStore(db).open());
  /** The signature the saved manifest records (what a load must be given). */
  const savedSignature = () => (JSON.parse(readFileSync(join(engineDir, 'manifest.json'), 'utf8')) as { signature: string }).signature;

  before(async () => {
    db = openDatabase({ path: dbPath });
    pages = new SqlitePageStore(db);
    for (let i = 0; i < 300; i++) {
      await pages.putVersion(page(`https://s${i % 7}.disk.test/${i % 120}`, {
        title: `Page ${i}`,
        content: `${probe[i % 4]} ${probe[(i * 3) % 4]} item ${i}`,
        acquiredAt: Date.parse('2026-01-01T00:00:00Z') + i * 1000,
      }));
    }
  });
  after(() => {
    db.close();
    dir.remove();
  });

  test('a second open loads the saved segments, then catches up with writes made since', async () => {
    // A build says so (a start that builds a large store takes minutes); a load does not.
    const said: string[] = [];
    const log = (_level: string, msg: string) => said.push(msg);
    const first = await new EngineIndexStore(db, { dir: engineDir, log }).open();
    assert.equal(first.loadedFromDisk, false);
    assert.deepEqual(said, ['building the search index from the page store (no saved index of this version)', 'search index built']);
    assert.ok(existsSync(join(engineDir, 'manifest.json')));
    said.length = 0;
    const again = await new EngineIndexStore(db, { dir: engineDir, log }).open();
    assert.equal(again.loadedFromDisk, true);
    assert.deepEqual(said, []);
    assert.deepEqual(await results(again), await reference());
    // Writes after the save: new versions supersede old ones; the log brings them in.
    for (let i = 300; i < 340; i++) {
      await pages.putVersion(page(`https://s${i % 7}.disk.test/${i % 120}`, { content: `${probe[i % 4]} later ${i}`, acquiredAt: Date.parse('2026-02-01T00:00:00Z') + i }));
    }
    const third = await new EngineIndexStore(db, { dir: engineDir }).open();
    assert.equal(third.loadedFromDisk, true);
    assert.deepEqual(await results(third), await reference());
  });

  test('a save that would leave less room than is kept for requests is not made; searches go on from memory', async () => {
    const low = tempDir();
    try {
      const lowDir = join(low.path, 'engine');
      const said: { msg: string; fields?: Record<string, unknown> }[] = [];
      const { bavail, bsize } = statfsSync(low.path);
      const index = await new EngineIndexStore(db, {
        dir: lowDir,
        minFreeBytes: bavail * bsize + 2 ** 30,
        log: (_level: string, msg: string, fields?: Record<string, unknown>) => said.push({ msg, ...(fields ? { fields } : {}) }),
      }).open();
      const refused = said.find((l) => l.msg.startsWith('search index not saved: it would leave less room'));
      assert.ok(refused, JSON.stringify(said));
      assert.ok(Math.abs((refused.fields!.freeMib as number) - (bavail * bsize) / 2 ** 20) < 256, "the disk's free room as it is");
      assert.ok(!existsSync(join(lowDir, 'manifest.json')));
      assert.deepEqual(readdirSync(lowDir).filter((f) => f !== 'lock.db' && f !== 'lock.db-journal'), [], 'nothing written');
      assert.deepEqual(await results(index), await reference());
      // With room, the same folder takes the save.
      await new EngineIndexStore(db, { dir: lowDir }).open();
      assert.ok(existsSync(join(lowDir, 'manifest.json')));
    } finally {
      low.remove();
    }
  });

  test('an index saved under another analysis of the text is built again from the pages', async () => {
    await new EngineIndexStore(db, { dir: engineDir }).open();
    const manifestPath = join(engineDir, 'manifest.json');
    const manifest = readFileSync(manifestPath, 'utf8');
    const current = `analysis-${ANALYSIS_VERSION} `;
    assert.ok(savedSignature().includes(current), savedSignature());
    writeFileSync(manifestPath, manifest.replace(current, `analysis-${ANALYSIS_VERSION - 1} `));
    const said: string[] = [];
    const reopened = await new EngineIndexStore(db, { dir: engineDir, log: (_level: string, msg: string) => said.push(msg) }).open();
    assert.equal(reopened.loadedFromDisk, false);
    assert.equal(said[0], 'building the search index from the page store (no saved index of this version)');
    assert.deepEqual(await results(reopened), await reference());
    assert.ok(savedSignature().includes(current));
  });

  test('a save after another process saved into the same folder writes again the files that one removed', async () => {
    await new EngineIndexStore(db, { dir: engineDir }).open();
    // What a running server holds: the saved segments and their file names.
    const held = loadIndex(engineDir, savedSignature())!;
    // `websearch index rebuild` in another process: its save removes the files its manifest does not name.
    await new EngineIndexStore(db, { dir: engineDir }).rebuild();
    assert.ok([...held.names.values()].every((name) => !existsSync(join(engineDir, name))));
    // The server saves (after a merge) with the names it had.
    saveIndex(engineDir, held.segments, held.names, held.applied, savedSignature(), 0);
    const next = await new EngineIndexStore(db, { dir: engineDir }).open();
    assert.equal(next.loadedFromDisk, true);
    assert.deepEqual(await results(next), await reference());
  });

  test('two processes saving into one folder at once take turns: neither fails, and the index left loads', async () => {
    await new EngineIndexStore(db, { dir: engineDir }).open();
    const signature = savedSignature();
    const saver = () => {
      const child = fixture('engine-saver.ts', [engineDir, signature, '15'], 'pipe');
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d));
      child.stderr!.on('data', (d: Buffer) => (out += d));
      return new Promise<string>((resolve) => child.once('close', (code) => resolve(`${code}: ${out.trim()}`)));
    };
    // Each save writes new files and removes those its manifest does not name: without the
    // folder's lock, one removes the other's files as they are written or named, or as a load reads them.
    let running = true;
    const savers = Promise.all([saver(), saver()]).finally(() => (running = false));
    let loads = 0;
    while (running) {
      assert.ok(loadIndex(engineDir, signature, false, false), `load ${loads} while the others save`);
      loads++;
      await new Promise((r) => setImmediate(r));
    }
    assert.deepEqual(await savers, ['0: saved 15', '0: saved 15']);
    assert.ok(loads > 5, `${loads} loads while they saved`);
    const next = await new EngineIndexStore(db, { dir: engineDir }).open();
    assert.equal(next.loadedFromDisk, true);
    assert.deepEqual(await results(next), await reference());
    // While another holds the folder, a save that does not wait writes nothing and says so.
    const files = readdirSync(engineDir).sort();
    const held = loadIndex(engineDir, signature)!;
    assert.equal(withLock(engineDir, 'shared', 0, () => saveIndex(engineDir, held.segments, new Map(), held.applied, signature, 0)), 'locked');
    assert.deepEqual(readdirSync(engineDir).sort(), files);
  });

  test('leftovers are removed; a damaged file means a rebuild, never a wrong index', async () => {
    await new EngineIndexStore(db, { dir: engineDir }).open();
    writeFileSync(join(engineDir, 'seg-leftover.bin.tmp'), 'half a segment');
    // A store that never saves (the server's workers) leaves them: they may be another process's save under way.
    assert.equal((await new EngineIndexStore(db, { dir: engineDir, readOnly: true }).open()).loadedFromDisk, true);
    assert.ok(existsSync(join(engineDir, 'seg-leftover.bin.tmp')));
    const loaded = await new EngineIndexStore(db, { dir: engineDir }).open();
    assert.equal(loaded.loadedFromDisk, true);
    assert.ok(!existsSync(join(engineDir, 'seg-leftover.bin.tmp')));
    const seg = readdirSync(engineDir).find((f) => f.startsWith('seg-'))!;
    truncateSync(join(engineDir, seg), 100);
    const rebuilt = await new EngineIndexStore(db, { dir: engineDir }).open();
    assert.equal(rebuilt.loadedFromDisk, false);
    assert.deepEqual(await results(rebuilt), await reference());
    // A header whose term dictionary does not add up (its starts one short, so every array after
    // them is read from the wrong place, though the file's length and marks are whole): rebuilt too.
    const file = join(engineDir, readdirSync(engineDir).find((f) => f.startsWith('seg-'))!);
    const bytes = readFileSync(file);
    const headerLength = bytes.readUInt32LE(8);
    const meta = JSON.parse(bytes.toString('utf8', 16, 16 + headerLength)) as { lengths: number[] };
    meta.lengths[1]! -= 1; // termStarts (segment-files.ts ARRAYS)
    bytes.write(JSON.stringify(meta).padEnd(headerLength), 16, 'utf8');
    writeFileSync(file, bytes);
    const again = await new EngineIndexStore(db, { dir: engineDir }).open();
    assert.equal(again.loadedFromDisk, false);
    assert.deepEqual(await results(again), await reference());
  });

  test('kill -9 at random moments while writing and saving leaves a consistent index', async () => {
    const crashDb = join(dir.path, 'crash.db');
    const crashDir = join(dir.path, 'crash-engine');
    const manifest = join(crashDir, 'manifest.json');
    for (let round = 0; round < 6; round++) {
      const child = fixture('engine-writer.ts', [crashDb, crashDir, String(round)], 'inherit');
      await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
      const opened = statSync(manifest).mtimeMs;
      // The kill falls among saves: the writer has saved after a merge, not only when it opened.
      // Waiting for that save (rather than a fixed time) holds on a slow machine too.
      const since = Date.now();
      while (!existsSync(manifest) || statSync(manifest).mtimeMs === opened) {
        assert.ok(Date.now() - since < 60_000, `round ${round}: the writer saved nothing in 60 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 1500)));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    const cdb = openDatabase({ path: crashDb });
    try {
      const saved = await new EngineIndexStore(cdb, { dir: crashDir }).open();
      const fresh = await new EngineIndexStore(cdb).open();
      // What the last kill left is loadable (a damaged set would be rebuilt from SQLite instead).
      assert.ok(saved.loadedFromDisk, 'the saved segments load after the kills');
      for (const t of ['alpha', 'beta', 'kappa', 'omicron', 'number']) {
        const q = { terms: [t], limit: 50 };
        assert.deepEqual(await saved.search(q), await fresh.search(q), t);
      }
      const count = (cdb.prepare('SELECT count(*) AS n FROM versions').get() as { n: number }).n;
      assert.ok(count > 50, `the writer wrote ${count} versions`);
    } finally {
      cdb.close();
    }
  });
});
