/**
 * Segments on disk. A segment file is written once (temporary name, fsync, rename) and never
 * changed. The columns that later writes change (acquired, superseded, deleted) and the log
 * sequence they reflect go into a state file; the manifest names the segment files and the state
 * file and is replaced atomically (write, fsync, rename, fsync the directory). A crash at any point
 * leaves the previous manifest and the files it names intact; files it does not name are removed
 * at the next load by a store that saves. Anything unreadable means "rebuild from SQLite", never a wrong index.
 *
 * Several processes may use one folder (a server's workers load it, `websearch index rebuild` saves
 * into it while a server runs and saves after its merges). A save holds the folder's lock
 * exclusively and a load holds it shared (`withLock`), so no load reads a file a save removes, and
 * no save removes the files another is writing or is about to name.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, fstatSync, fsyncSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statfsSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { makeDirs } from '../make-dirs.js';
import { type ArrayCtor, newArray, type SegmentData } from './segment.js';

const MAGIC = 'WSEG6';
const STATE_MAGIC = 'WSTA1';

/** The typed arrays of a segment in file order, with their constructors. */
const ARRAYS = [
  ['termBytes', Uint8Array],
  ['termStarts', Uint32Array],
  ['termSlots', Int32Array],
  ['termDf', Uint32Array],
  ['termBlockStart', Uint32Array],
  ['termBlockCount', Uint32Array],
  ['blockLast', Uint32Array],
  ['blockBase', Uint32Array],
  ['blockOffset', Uint32Array],
  ['blockMaxSat', Float32Array],
  ['postings', Int32Array],
  ['versionIds', Float64Array],
  ['lengths', Uint32Array],
  ['publishedAt', Float64Array],
  ['hostRank', Uint32Array],
  ['urlMask', Uint32Array],
  ['pubOrder', Uint32Array],
  ['pubSorted', Float64Array],
  ['pairStart', Uint32Array],
  ['pairBits', Int32Array],
] as const;

type ArrayName = (typeof ARRAYS)[number][0];

function writeDurably(path: string, parts: Uint8Array[]): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    try {
      for (const p of parts) {
        let off = 0;
        while (off < p.length) off += writeSync(fd, p, off, p.length - off);
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    // A file written in part (a full disk) is no use to anyone, and holds the room that ran out.
    rmSync(tmp, { force: true });
    throw err;
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A header (JSON: for a segment, its hosts, its dictionary's key and its arrays' lengths) then each array, 8-byte aligned. */
function encode(magic: string, meta: object, arrays: ArrayBufferView[]): Uint8Array[] {
  const header = Buffer.from(JSON.stringify(meta));
  const prefix = Buffer.alloc(16);
  prefix.write(magic, 0, 'latin1');
  prefix.writeUInt32LE(header.length, 8);
  const parts: Uint8Array[] = [prefix, header];
  let at = 16 + header.length;
  for (const a of arrays) {
    const pad = (8 - (at % 8)) % 8;
    if (pad) parts.push(new Uint8Array(pad));
    at += pad;
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    parts.push(bytes);
    at += bytes.length;
  }
  const end = Buffer.alloc(8);
  end.write(magic, 0, 'latin1');
  parts.push(end);
  return parts;
}

/** The next array of an engine file, of this kind and length (`readEncoded`). */
type NextArray = (ctor: ArrayCtor, length: number) => ArrayBufferView;

/**
 * Reads what `encode` wrote to `path` (the arrays in shared memory when `shared`) and gives it to
 * `read`; throws on any inconsistency. Each array is read from the file straight into its own
 * aligned buffer, so a segment is held once while it loads, not also as the whole file's bytes.
 */
function readEncoded<T>(path: string, magic: string, shared: boolean, read: (meta: Record<string, unknown>, next: NextArray) => T): T {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const prefix = Buffer.alloc(16);
    const end = Buffer.alloc(8);
    if (size < 24) throw new Error('not a complete engine file');
    readFully(fd, prefix, 0);
    readFully(fd, end, size - 8);
    if (prefix.toString('latin1', 0, magic.length) !== magic || end.toString('latin1', 0, magic.length) !== magic) throw new Error('not a complete engine file');
    const headerLength = prefix.readUInt32LE(8);
    if (16 + headerLength > size - 8) throw new Error('engine file is truncated');
    const header = Buffer.alloc(headerLength);
    readFully(fd, header, 16);
    let at = 16 + headerLength;
    return read(JSON.parse(header.toString('utf8')) as Record<string, unknown>, (ctor, length) => {
      at += (8 - (at % 8)) % 8;
      const bytes = length * ctor.BYTES_PER_ELEMENT;
      if (at + bytes > size - 8) throw new Error('engine file is truncated');
      // In shared memory when a search helper thread will read the arrays in place (engine-index-store.ts).
      const out = newArray(ctor, length, shared);
      readFully(fd, new Uint8Array(out.buffer, 0, bytes), at);
      at += bytes;
      return out;
    });
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, into: Uint8Array, position: number): void {
  for (let done = 0; done < into.length; ) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) throw new Error('engine file is truncated');
    done += n;
  }
}

/** The folder's lock: SQLite's lock on this file (an fcntl lock, so a process that dies releases it). */
const LOCK_FILE = 'lock.db';

/** What `withLock` gives when another process held the lock for longer than it would wait. */
const LOCKED: unique symbol = Symbol('locked');

/**
 * `use()` run while holding `dir`'s lock, shared (loads: any number at once) or exclusive (saves:
 * one, and no load), waiting up to `waitMs` for it; LOCKED when it was not had in that time.
 * `use` must not await: the lock is held for one synchronous run.
 */
export function withLock<T>(dir: string, mode: 'shared' | 'exclusive', waitMs: number, use: () => T): T | typeof LOCKED {
  makeDirs(dir);
  let lock: Database.Database;
  try {
    lock = new Database(join(dir, LOCK_FILE), { timeout: waitMs });
  } catch (err) {
    // A folder this process cannot write to: no process saves into it either, so nothing to fear.
    if (mode === 'shared' && (err as { code?: string }).code === 'SQLITE_CANTOPEN') return use();
    throw err;
  }
  try {
    try {
      // SHARED: a read transaction that has read (the schema); EXCLUSIVE: no one else reads or writes.
      if (mode === 'exclusive') lock.exec('BEGIN EXCLUSIVE');
      else lock.exec('BEGIN').prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY') return LOCKED;
      throw err;
    }
    try {
      return use();
    } finally {
      lock.exec('COMMIT');
    }
  } finally {
    lock.close();
  }
}

export function writeSegment(dir: string, seg: SegmentData): string {
  const name = `seg-${randomUUID()}.bin`;
  const meta = {
    docCount: seg.docCount,
    totalLength: seg.totalLength,
    refAvg: seg.refAvg,
    termSeed: seg.termSeed,
    hosts: seg.hosts,
    lengths: ARRAYS.map(([k]) => (seg[k] as ArrayBufferView & { length: number }).length),
  };
  writeDurably(join(dir, name), encode(MAGIC, meta, ARRAYS.map(([k]) => seg[k])));
  return name;
}

export function readSegment(dir: string, name: string, shared = false): SegmentData {
  return readEncoded(join(dir, name), MAGIC, shared, segmentOf);
}

function segmentOf(meta: Record<string, unknown>, next: NextArray): SegmentData {
  const lengths = meta.lengths as number[];
  const out: Partial<Record<ArrayName, ArrayBufferView>> = {};
  ARRAYS.forEach(([k, ctor], i) => {
    out[k] = next(ctor, lengths[i]!);
  });
  const docCount = meta.docCount as number;
  const { termBytes, termStarts, termSlots, termDf } = out as Pick<SegmentData, 'termBytes' | 'termStarts' | 'termSlots' | 'termDf'>;
  const slots = termSlots.length;
  const termSeed = meta.termSeed;
  const keyed = typeof termSeed === 'number' && Number.isInteger(termSeed) && termSeed >= 0 && termSeed < 2 ** 32;
  if (!keyed || termStarts.length !== termDf.length + 1 || termStarts[termDf.length] !== termBytes.length || slots < 2 || (slots & (slots - 1)) !== 0) {
    throw new Error('engine file has an inconsistent term dictionary');
  }
  const { pairStart, pairBits } = out as Pick<SegmentData, 'pairStart' | 'pairBits'>;
  if (!ascending(pairStart, docCount + 1) || pairStart[docCount] !== pairBits.length) throw new Error('engine file has inconsistent filters of pairs');
  return {
    ...(out as Pick<SegmentData, ArrayName>),
    docCount,
    totalLength: meta.totalLength as number,
    refAvg: meta.refAvg as number,
    termSeed,
    hosts: meta.hosts as string[],
    // Columns that change come from the state file.
    acquiredAt: new Float64Array(0),
    supersededAt: new Float64Array(0),
    deleted: new Uint8Array(0),
  };
}

/** Whether `a` holds `n` values, from 0, none less than the one before. */
function ascending(a: Uint32Array, n: number): boolean {
  if (a.length !== n || a[0] !== 0) return false;
  for (let i = 1; i < n; i++) if (a[i]! < a[i - 1]!) return false;
  return true;
}

export interface Manifest {
  segments: string[];
  state: string;
  /** The index_log sequence the saved state reflects. */
  applied: number;
  /** The analysis and weights the segments were built with; a change means rebuild. */
  signature: string;
}

/**
 * Saves the segments (writing those not yet on disk and adding their file names to `names`),
 * their changing columns, and a new manifest, holding the folder's lock; 'locked', having written
 * nothing, when another process held it for longer than `waitMs`, and 'behind' when `applied` is
 * below `log`'s floor (see SavedLog). A segment whose file is gone is
 * written again: another process's save into the same folder (`websearch index rebuild` while a
 * server runs) removes the files its own manifest does not name, and a manifest naming them would
 * be refused at the next start, which would then rebuild everything.
 */
export function saveIndex(
  dir: string,
  segs: SegmentData[],
  names: Map<SegmentData, string>,
  applied: number,
  signature: string,
  waitMs: number,
  log?: SavedLog,
  minFreeBytes = 0,
): 'saved' | 'locked' | 'behind' | { low: { freeBytes: number; neededBytes: number } } {
  const outcome = withLock(dir, 'exclusive', waitMs, () => {
    if (log && applied < log.floor()) return 'behind';
    if (minFreeBytes > 0) {
      // The files this save writes must leave the room kept for what requests write
      // (WEBSEARCH_MIN_FREE_DISK_MB): a merge's new segment is as large as its parts together.
      const { bavail, bsize } = statfsSync(dir);
      const neededBytes = bytesToWrite(dir, segs, names);
      if (bavail * bsize - neededBytes < minFreeBytes) return { low: { freeBytes: bavail * bsize, neededBytes } };
    }
    writeIndex(dir, segs, names, applied, signature);
    log?.saved(applied);
    return 'saved';
  });
  return outcome === LOCKED ? 'locked' : outcome;
}

/**
 * The index_log that a save is of: a saved index is the one place a process behind its floor (the
 * rows deleted) can catch up from, so a save never records a sequence below the floor, and the
 * log is pruned (`saved`) while the lock is still held, so that no save of an older index can come
 * between this one and the prune.
 */
export interface SavedLog {
  floor(): number;
  saved(applied: number): void;
}

/** About what `writeIndex` writes: the segments not saved yet, whole, and the changing columns of all (17 bytes a document). */
function bytesToWrite(dir: string, segs: SegmentData[], names: Map<SegmentData, string>): number {
  let bytes = 0;
  for (const s of segs) {
    bytes += 17 * s.docCount;
    const name = names.get(s);
    if (name !== undefined && existsSync(join(dir, name))) continue;
    for (const [k] of ARRAYS) bytes += (s[k] as ArrayBufferView).byteLength;
  }
  return bytes;
}

function writeIndex(dir: string, segs: SegmentData[], names: Map<SegmentData, string>, applied: number, signature: string): void {
  for (const s of segs) {
    const name = names.get(s);
    if (name === undefined || !existsSync(join(dir, name))) names.set(s, writeSegment(dir, s));
  }
  const state = `state-${randomUUID()}.bin`;
  const columns: ArrayBufferView[] = [];
  for (const s of segs) columns.push(s.acquiredAt, s.supersededAt, s.deleted);
  writeDurably(join(dir, state), encode(STATE_MAGIC, { counts: segs.map((s) => s.docCount) }, columns));
  const manifest: Manifest = { segments: segs.map((s) => names.get(s)!), state, applied, signature };
  syncDir(dir);
  writeDurably(join(dir, 'manifest.json'), [Buffer.from(JSON.stringify(manifest))]);
  syncDir(dir);
  removeUnlisted(dir, manifest);
}

function removeUnlisted(dir: string, m: Manifest): void {
  const keep = new Set([...m.segments, m.state, 'manifest.json', LOCK_FILE, `${LOCK_FILE}-journal`]);
  for (const f of readdirSync(dir)) if (!keep.has(f)) rmSync(join(dir, f), { force: true });
}

/**
 * The saved index, or undefined when there is none or it cannot be trusted (then: rebuild), read
 * holding the folder's lock (shared, waiting up to `waitMs`, LOCK_WAIT_MS unless told; undefined when not had). With
 * `shared`, every array is in shared memory (segment.ts `shareSegment`). With `clean`, files the
 * manifest does not name are removed, and the lock is held exclusively for that; a reader that
 * never saves passes false.
 */
export function loadIndex(
  dir: string,
  signature: string,
  shared = false,
  clean = true,
  waitMs = LOCK_WAIT_MS,
): { segments: SegmentData[]; names: Map<SegmentData, string>; applied: number } | undefined {
  if (!existsSync(join(dir, 'manifest.json'))) return undefined;
  try {
    const loaded = withLock(dir, clean ? 'exclusive' : 'shared', waitMs, () => readIndex(dir, signature, shared, clean));
    return loaded === LOCKED ? undefined : loaded;
  } catch {
    return undefined;
  }
}

/**
 * Copies the saved index of `dir` into `into` (a backup's copy): the files its manifest names,
 * then the manifest, holding the folder's lock shared, so that no save replaces them meanwhile
 * (a save waits; loads go on). Answers the files and bytes copied; undefined when there is no
 * saved index, or the lock was not had in `waitMs` (then the copy builds its index at its start).
 */
export function copyIndex(dir: string, into: string, waitMs = LOCK_WAIT_MS): { files: number; bytes: number } | undefined {
  if (!existsSync(join(dir, 'manifest.json'))) return undefined;
  const copied = withLock(dir, 'shared', waitMs, () => {
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
    makeDirs(into);
    let bytes = 0;
    for (const f of [...m.segments, m.state, 'manifest.json']) {
      copyFileSync(join(dir, f), join(into, f));
      bytes += statSync(join(into, f)).size;
    }
    return { files: m.segments.length + 2, bytes };
  });
  return copied === LOCKED ? undefined : copied;
}

/** How long a load, a first save or a rebuild's save waits for another process's save or load to end (a save at 1M pages writes about 340 MB). */
export const LOCK_WAIT_MS = 120_000;

function readIndex(dir: string, signature: string, shared: boolean, clean: boolean): { segments: SegmentData[]; names: Map<SegmentData, string>; applied: number } | undefined {
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  if (m.signature !== signature) return undefined;
  const segments = m.segments.map((name) => readSegment(dir, name, shared));
  readEncoded(join(dir, m.state), STATE_MAGIC, shared, (meta, next) => {
    const counts = meta.counts as number[];
    if (counts.length !== segments.length) throw new Error('state does not match the segments');
    segments.forEach((s, i) => {
      if (counts[i] !== s.docCount) throw new Error('state does not match the segments');
      s.acquiredAt = next(Float64Array, s.docCount) as Float64Array;
      s.supersededAt = next(Float64Array, s.docCount) as Float64Array;
      s.deleted = next(Uint8Array, s.docCount) as Uint8Array;
    });
  });
  if (clean) removeUnlisted(dir, m);
  const names = new Map(segments.map((s, i) => [s, m.segments[i]!]));
  return { segments, names, applied: m.applied };
}
