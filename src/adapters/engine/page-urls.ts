/**
 * The URLs of the page store's pages, lowercased, in memory: what an `inurl:` asks of them is
 * found by a scan of bytes (`Buffer.indexOf`, from the text's rarest byte: `searchFrom`) instead
 * of one of the `pages` table. At 1M pages (41 MB of URLs) a scan takes 2-12 ms, against 111 ms in
 * SQLite (docs/BENCHMARKS.md). Pages are never deleted and their ids only grow, so the list is kept by
 * adding the pages stored since (`add`, ids ascending).
 */

/** Bytes of URLs a chunk holds (one longer URL takes a chunk of its own length). */
const CHUNK_BYTES = 1 << 20;

/** URLs packed one after another, each ended by a zero byte (no URL holds one: they are percent-encoded). */
interface Chunk {
  bytes: Buffer;
  used: number;
  /** Where each URL starts in `bytes` (an array while the chunk is filled, then typed). */
  starts: number[] | Uint32Array;
  ids: number[] | Float64Array;
}

export class PageUrls {
  private readonly chunks: Chunk[] = [];
  private last = 0;
  private held = 0;
  /** How often each byte is in the URLs held (`searchFrom`). */
  private readonly counts = new Float64Array(256);

  /** The highest page id held (0: none). */
  get lastPage(): number {
    return this.last;
  }

  /** Pages held. */
  get size(): number {
    return this.held;
  }

  /** Bytes taken by the URLs (the chunks' whole size) and their starts and ids, roughly. */
  get memory(): number {
    return this.chunks.reduce((n, c) => n + c.bytes.length, 0) + this.held * 12;
  }

  /** Adds a page, whose id is above every one held. */
  add(id: number, url: string): void {
    if (id <= this.last) throw new Error(`page ${id} is not after ${this.last}`);
    const lower = url.toLowerCase();
    const length = Buffer.byteLength(lower) + 1;
    let chunk = this.chunks.at(-1);
    if (!chunk || chunk.used + length > chunk.bytes.length) {
      if (chunk) sealed(chunk);
      chunk = { bytes: Buffer.allocUnsafe(Math.max(CHUNK_BYTES, length)), used: 0, starts: [], ids: [] };
      this.chunks.push(chunk);
    }
    (chunk.starts as number[]).push(chunk.used);
    (chunk.ids as number[]).push(id);
    const end = chunk.used + chunk.bytes.write(lower, chunk.used);
    const counts = this.counts;
    for (let i = chunk.used; i < end; i++) counts[chunk.bytes[i]!] = counts[chunk.bytes[i]!]! + 1;
    chunk.bytes[end] = 0;
    chunk.used = end + 1;
    this.last = id;
    this.held++;
  }

  /**
   * The ids of the pages whose URL holds `text`, compared lowercased (core/webql.ts `pageMatches`:
   * a substring of UTF-8 bytes is one of characters), ascending; undefined when there are more
   * than `max`.
   */
  find(text: string, max: number): number[] | undefined {
    const needle = Buffer.from(text.toLowerCase());
    if (needle.includes(0)) return [];
    // Looked for from its rarest byte on (`searchFrom`), the bytes before it compared where that is found.
    const k = searchFrom(needle, this.counts);
    const head = needle.subarray(0, k);
    const tail = needle.subarray(k);
    const found: number[] = [];
    for (const chunk of this.chunks) {
      const bytes = chunk.bytes.subarray(0, chunk.used);
      let url = 0;
      for (let at = bytes.indexOf(tail, k); at >= 0; ) {
        url = lastAtOrBefore(chunk.starts, at, url);
        const from = at - k;
        if (from < chunk.starts[url]! || (k > 0 && bytes.compare(head, 0, k, from, at) !== 0)) {
          at = bytes.indexOf(tail, at + 1);
          continue;
        }
        if (found.push(chunk.ids[url]!) > max) return undefined;
        if (++url === chunk.starts.length) break;
        at = bytes.indexOf(tail, chunk.starts[url]! + k);
      }
    }
    return found;
  }
}

/** The fewest bytes a needle is looked for by (`searchFrom`): a byte alone would be found at every turn. */
const TAIL_MIN = 4;

/**
 * Where in `needle` to start looking for it: at its rarest byte in the URLs, leaving at least
 * TAIL_MIN bytes (or all). `Buffer.indexOf` goes as fast as the byte it starts with is rare:
 * `/doc/12345` took 17.5 ms over 41 MB of URLs (a `/` is four times in each), `12345` 5.4, and
 * `where/` 1.7 against 20.5 for `/nowhere/` (ad hoc, at 1M pages).
 */
function searchFrom(needle: Buffer, counts: Float64Array): number {
  let best = 0;
  for (let k = 1; k <= needle.length - Math.min(needle.length, TAIL_MIN); k++) if (counts[needle[k]!]! < counts[needle[best]!]!) best = k;
  return best;
}

/** A full chunk's starts and ids as typed arrays: 12 bytes a page instead of 16 or more. */
function sealed(chunk: Chunk): void {
  chunk.starts = Uint32Array.from(chunk.starts);
  chunk.ids = Float64Array.from(chunk.ids);
}

/** The index of the last of the ascending `starts` at or before `at`, looking from `from` on. */
function lastAtOrBefore(starts: ArrayLike<number>, at: number, from: number): number {
  let lo = from;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
