/**
 * Reading fetched pages off the event loop. Turning a response into a page (HTML or PDF to
 * markdown) is the one piece of a live fetch that is all CPU: a 10 MB page takes 0.4-0.7 s
 * (bench:extract). On the serving thread that time would stop every other request of the process,
 * so live fetches, realtime_content searches and crawls hand their responses to a few worker
 * threads (reader-worker.ts) instead.
 *
 * Limits: one page at a time per thread; pages beyond the threads wait, at most `maxWaiting` of
 * them for requests (one more is refused with 503 server_busy and Retry-After, rather than left to
 * wait behind seconds of work); a page gets `timeoutMs` of a thread's time and a heap of
 * `maxHeapMb`, and a page over either fails (502 origin_error) and its thread is replaced. A thread
 * whose heap a page grew past `recycleHeapBytes` is replaced too, to give that memory back.
 */
import type { Worker } from 'node:worker_threads';
import type { RawResponse } from '../../acquire/http-client.js';
import type { ReadPage } from '../../acquire/live-fetch.js';
import { type ErrorCode, ServiceError } from '../../core/errors.js';
import type { LivePage } from '../../ports/live-fetcher.js';
import { startWorker } from '../worker.js';

export interface ReaderJob {
  id: number;
  res: RawResponse;
  /** Make the page's language there too (`LivePage.language`): for a request, whose thread serves others meanwhile. */
  language: boolean;
}

export type ReaderOutcome = { page: LivePage } | { error: { code?: ErrorCode; message: string; extra?: Record<string, unknown>; stack?: string } };

/** The page or its error, and the size of the thread's heap after it. */
export type ReaderAnswer = { id: number; heapBytes: number } & ReaderOutcome;

export interface ReaderPoolOptions {
  threads: number;
  /** A thread's time for one page. */
  timeoutMs: number;
  /** Pages a request may leave waiting for a thread; `readQueued` (crawls) is not bounded by it. */
  maxWaiting: number;
  /** The V8 heap of each thread, MiB. */
  maxHeapMb: number;
  /** A thread whose heap is larger than this after a page is replaced (default 256 MiB). */
  recycleHeapBytes?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
}

interface Job {
  id: number;
  res: RawResponse;
  language: boolean;
  resolve: (page: LivePage) => void;
  reject: (e: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  worker?: Worker;
  /** The thread has loaded its modules: a page's time starts when both it and the page are there. */
  ready?: boolean;
  /** Settles when the thread has loaded its modules or has ended. */
  loaded?: Promise<void>;
  job?: Job;
  timer?: NodeJS.Timeout;
}

export const BUSY_RETRY_AFTER_SECONDS = 1;

export class ReaderPool {
  private readonly slots: Slot[];
  private readonly waiting: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly recycleHeapBytes: number;

  constructor(private readonly o: ReaderPoolOptions) {
    if (!(o.threads >= 1)) throw new Error('a reader pool needs at least one thread');
    this.slots = Array.from({ length: o.threads }, () => ({}));
    this.recycleHeapBytes = o.recycleHeapBytes ?? 256 * 2 ** 20;
  }

  /**
   * For requests: refused with 503 server_busy when `maxWaiting` pages already wait. The page's
   * language is made on the thread too (up to a millisecond of the serving thread's otherwise).
   */
  readonly read: ReadPage = (res, signal) => this.submit(res, signal, this.o.maxWaiting, true);

  /**
   * For a crawl or an import, whose own concurrency bounds how many pages wait. The page's
   * language is left to the thread that stores it: that thread mostly waits for these, which
   * are what bound an import's pace (`npm run bench:warc`).
   */
  readonly readQueued: ReadPage = (res, signal) => this.submit(res, signal, Infinity, false);

  /**
   * Starts the threads not yet running and waits until each has loaded its modules (about 0.2 s),
   * so that the first pages do not wait for that: `serve` calls it once it listens. Without it a
   * thread starts with the first page it is given.
   */
  async start(): Promise<void> {
    await Promise.all(
      this.slots.map((slot) => {
        if (this.closed) return undefined;
        slot.worker ??= this.spawn(slot);
        return slot.loaded;
      }),
    );
  }

  /** The running threads' ids (tests: which thread is which). */
  get threadIds(): number[] {
    return this.slots.flatMap((s) => (s.worker ? [s.worker.threadId] : []));
  }

  /** Pages being read and waiting (tests, benchmarks). */
  get load(): { reading: number; waiting: number } {
    return { reading: this.slots.filter((s) => s.job).length, waiting: this.waiting.length };
  }

  private submit(res: RawResponse, signal: AbortSignal | undefined, maxWaiting: number, language: boolean): Promise<LivePage> {
    return new Promise<LivePage>((resolve, reject) => {
      if (this.closed) return reject(new ServiceError('service_unavailable'));
      if (signal?.aborted) return reject(signal.reason);
      const job: Job = { id: this.nextId++, res, language, resolve, reject };
      const free = this.slots.find((s) => !s.job);
      if (free) return this.run(free, job);
      if (this.waiting.length >= maxWaiting) {
        return reject(
          new ServiceError('server_busy', 'Too many pages are waiting to be read; retry shortly', {
            headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) },
          }),
        );
      }
      if (signal) {
        job.signal = signal;
        job.onAbort = () => {
          const at = this.waiting.indexOf(job);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.waiting.push(job);
    });
  }

  private run(slot: Slot, job: Job): void {
    if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
    slot.job = job;
    const worker = (slot.worker ??= this.spawn(slot));
    worker.ref();
    if (slot.ready) this.startClock(slot);
    worker.postMessage({ id: job.id, res: job.res, language: job.language } satisfies ReaderJob);
  }

  private startClock(slot: Slot): void {
    slot.timer = setTimeout(() => this.overTime(slot), this.o.timeoutMs);
  }

  private spawn(slot: Slot): Worker {
    const worker = startWorker(import.meta.url, 'reader-worker', undefined, { resourceLimits: { maxOldGenerationSizeMb: this.o.maxHeapMb } });
    let loaded!: () => void;
    slot.loaded = new Promise<void>((resolve) => (loaded = resolve));
    worker.on('message', (a: ReaderAnswer | 'ready') => {
      if (a === 'ready') loaded();
      if (slot.worker !== worker) return;
      if (a === 'ready') {
        slot.ready = true;
        if (slot.job) this.startClock(slot);
        else worker.unref(); // an idle thread does not keep the process alive (it does while it starts)
      } else if (slot.job?.id === a.id) this.answer(slot, a);
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (slot.worker !== worker) return;
      const url = slot.job?.res.url;
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        this.o.log?.('warn', 'a page needed more memory than a reader thread has; the thread is replaced', { url, maxHeapMb: this.o.maxHeapMb });
        this.lose(slot, new ServiceError('origin_error', `The page could not be read: it needs more than ${this.o.maxHeapMb} MiB`));
      } else {
        this.o.log?.('error', 'a reader thread failed; it is replaced', { url, error: err.message });
        this.lose(slot, err);
      }
    });
    worker.on('exit', (code) => {
      loaded();
      if (slot.worker === worker) this.lose(slot, new Error(`a reader thread exited with code ${code}`));
    });
    return worker;
  }

  private answer(slot: Slot, a: ReaderAnswer): void {
    clearTimeout(slot.timer);
    const job = slot.job!;
    slot.job = undefined;
    if ('page' in a) job.resolve(a.page);
    else if (a.error.code) job.reject(new ServiceError(a.error.code, a.error.message, { body: a.error.extra }));
    else job.reject(Object.assign(new Error(a.error.message), a.error.stack ? { stack: a.error.stack } : {}));
    if (a.heapBytes > this.recycleHeapBytes) {
      // A large page grew the thread's heap, and V8 keeps it (700 MiB after a page of 700,000
      // paragraphs): a new thread gives the memory back.
      void slot.worker?.terminate();
      slot.worker = this.spawn(slot);
      slot.ready = false;
    }
    this.next(slot);
  }

  private next(slot: Slot): void {
    const job = this.waiting.shift();
    if (job) this.run(slot, job);
    else if (slot.ready) slot.worker?.unref(); // an idle thread does not keep the process alive
  }

  private overTime(slot: Slot): void {
    this.o.log?.('warn', 'a page took too long to read; its reader thread is replaced', { url: slot.job?.res.url, timeoutMs: this.o.timeoutMs });
    this.lose(slot, new ServiceError('origin_error', `The page could not be read within ${this.o.timeoutMs} ms`));
  }

  /** The thread is gone or must go: its page fails and a new thread (started when needed) takes the next. */
  private lose(slot: Slot, err: Error): void {
    clearTimeout(slot.timer);
    const { worker, job } = slot;
    slot.worker = undefined;
    slot.ready = false;
    slot.job = undefined;
    void worker?.terminate();
    job?.reject(err);
    if (!this.closed) this.next(slot);
  }

  /** Fails what waits and what is being read (503 service_unavailable) and ends the threads. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) {
      if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
      job.reject(new ServiceError('service_unavailable'));
    }
    await Promise.all(
      this.slots.map(async (slot) => {
        const { worker } = slot;
        this.lose(slot, new ServiceError('service_unavailable'));
        await worker?.terminate();
      }),
    );
  }
}
