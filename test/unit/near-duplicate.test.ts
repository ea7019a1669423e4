/**
 * Near-duplicate fingerprints (core/near-duplicate.ts) on SciFact's abstracts: a copy with a byline
 * and a footer added, or a sentence in five left out too, is a near-duplicate of its abstract; two
 * abstracts are not; a page quoting one whole with half as much again of its own is not, by length;
 * case and link targets change nothing; a short text has none.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCorpus } from '../../bench/scifact.js';
import { NEAR_BYTES, nearDuplicates, nearFingerprint, nearInSize, nearShingles } from '../../src/core/near-duplicate.js';

/** SciFact's abstracts of 80 words or more, the first 400. */
const abstracts = loadCorpus()
  .map((d) => d.text)
  .filter((t) => t.split(/\s+/).length >= 80)
  .slice(0, 400);

const syndicated = (text: string) => `By Jane Doe, Science Wire\n\n${text}\n\nCopyright 2026 Science Wire. All rights reserved; not to be republished.`;
/** The text without every fifth sentence. */
const shortened = (text: string) =>
  text
    .split(/(?<=\.)\s+/)
    .filter((_, i) => i % 5 !== 4)
    .join(' ');

describe('nearFingerprint', () => {
  test('a copy with a byline and a footer is a near-duplicate of its text, and so, nearly always, is one missing a sentence in five', () => {
    assert.equal(abstracts.length, 400);
    let shortenedNear = 0;
    for (const text of abstracts) {
      const print = nearFingerprint(text)!;
      assert.equal(print.length, NEAR_BYTES);
      const copy = syndicated(text);
      assert.ok(nearDuplicates(print, nearFingerprint(copy)!) && nearInSize(nearShingles(text), nearShingles(copy)), text.slice(0, 80));
      const shorter = syndicated(shortened(text));
      if (nearDuplicates(print, nearFingerprint(shorter)!) && nearInSize(nearShingles(text), nearShingles(shorter))) shortenedNear++;
    }
    assert.ok(shortenedNear >= 390, `${shortenedNear} of 400`);
  });

  test('a page that quotes an abstract whole, with half as much again of its own, shares its fingerprint nearly always and is not alike in length', () => {
    const others = abstracts.join(' ').split(/\s+/);
    let agree = 0;
    abstracts.forEach((text, i) => {
      const length = text.split(/\s+/).length;
      const own = others.slice(i * 50, i * 50 + Math.ceil(length / 2)).join(' ');
      const quoting = `${own}\n\n> ${text}`;
      if (nearDuplicates(nearFingerprint(text)!, nearFingerprint(quoting)!)) agree++;
      assert.equal(nearInSize(nearShingles(text), nearShingles(quoting)), false, text.slice(0, 80));
      // A fifth as much again is a copy with its own lines: alike.
      assert.equal(nearInSize(nearShingles(text), nearShingles(`${own.split(' ').slice(0, Math.floor(length / 5)).join(' ')}\n\n> ${text}`)), true);
    });
    assert.ok(agree >= 380, `${agree} of 400`);
  });

  test('nearShingles counts the shingles a fingerprint reads: words less two, characters in scripts without spaces, link targets left out', () => {
    assert.equal(nearShingles('one two three four'), 2);
    assert.equal(nearShingles('one [two](https://a.example/three-four-five) three'), 1);
    assert.equal(nearShingles('東京の天気'), 3);
    assert.equal(nearShingles('one'), 0);
    assert.equal(nearInSize(75, 100), true);
    assert.equal(nearInSize(100, 74), false);
  });

  test('two abstracts are not near-duplicates', () => {
    const prints = abstracts.map((t) => nearFingerprint(t)!);
    const near: string[] = [];
    for (let i = 0; i < prints.length; i++) {
      for (let j = i + 1; j < prints.length; j++) if (nearDuplicates(prints[i]!, prints[j]!)) near.push(`${i}-${j}`);
    }
    assert.deepEqual(near, []);
  });

  test('a text written without spaces (Japanese, Chinese, Thai) is read by its characters: its copies are near-duplicates, other texts are not', () => {
    const texts = [
      '今日は朝から曇っていましたが、午後になって東京の天気は急に変わりました。雨が降り始め、多くの人が傘を持たずに駅へ急ぎました。気象庁によると、明日も大気の状態が不安定で、夕方には雷を伴った激しい雨が降るおそれがあるということです。',
      '京都の古い寺では、秋になると庭の紅葉を見るために多くの観光客が訪れます。今年は夏の暑さが長く続いたため、色づきが例年より一週間ほど遅れています。寺の関係者は、十一月の終わりごろが見頃になるだろうと話しています。',
      '北京市政府今天宣布，从下个月起将在全市范围内推广新的垃圾分类办法。居民需要把厨余垃圾、可回收物、有害垃圾和其他垃圾分开投放。有关部门表示，这项措施将有助于减少填埋量，改善城市环境。',
      'กรุงเทพมหานครประกาศว่าจะปรับปรุงระบบขนส่งสาธารณะในปีหน้า โดยจะเพิ่มรถโดยสารไฟฟ้าอีกหลายร้อยคันและขยายเส้นทางรถไฟฟ้าไปยังชานเมือง เจ้าหน้าที่กล่าวว่าโครงการนี้จะช่วยลดปัญหาการจราจรติดขัดและมลพิษทางอากาศ',
    ];
    const prints = texts.map((t) => nearFingerprint(t)!);
    prints.forEach((p, i) => assert.equal(p?.length, NEAR_BYTES, texts[i]));
    const copies = [`共同通信\n\n${texts[0]}\n\n（転載禁止）`, `${texts[1]}\n\n関連記事はこちら。`, `新华社北京电\n\n${texts[2]}`, `${texts[3]} (ข่าวจากสำนักข่าว)`];
    copies.forEach((c, i) => assert.ok(nearDuplicates(prints[i]!, nearFingerprint(c)!), texts[i]));
    for (let i = 0; i < prints.length; i++) for (let j = i + 1; j < prints.length; j++) assert.equal(nearDuplicates(prints[i]!, prints[j]!), false, `${i}-${j}`);
  });

  test('the case of ASCII letters and the targets of links and images change nothing', () => {
    const text = abstracts[0]!;
    const words = text.split(' ');
    const linked = [...words.slice(0, 10), `[${words[10]}](https://a.example/x "A title")`, ...words.slice(11, 20), `![${words[20]}](/img/b.png)`, ...words.slice(21)].join(' ');
    const relinked = linked.replace('https://a.example/x', 'https://b.example/y?ref=feed').replace('/img/b.png', 'https://cdn.example/c.jpg');
    assert.deepEqual(nearFingerprint(linked), nearFingerprint(relinked));
    assert.deepEqual(nearFingerprint(text.toUpperCase()), nearFingerprint(text.toLowerCase()));
  });

  test('a text of fewer than 40 three-word shingles has none; one of 40 has one', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    assert.equal(nearFingerprint(words(41)), undefined);
    assert.equal(nearFingerprint(''), undefined);
    assert.equal(nearFingerprint(words(42))?.length, NEAR_BYTES);
  });

  test('fingerprints of another length are never near-duplicates', () => {
    const print = nearFingerprint(abstracts[0]!)!;
    assert.equal(nearDuplicates(print, print), true);
    assert.equal(nearDuplicates(print, print.subarray(0, NEAR_BYTES - 2)), false);
    assert.equal(nearDuplicates(new Uint8Array(0), new Uint8Array(0)), false);
  });
});
