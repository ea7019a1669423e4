/**
 * Passage indexes filled in while the service serves: versions stored by an older release (none,
 * or another format, after an upgrade) have their snippets found by reading the page until then.
 */
import { startWorker } from '../worker.js';

export type FillLog = (level: 'info' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export interface BackgroundFill {
  /** Settles when the thread has ended: done, stopped or failed (each logged). */
  readonly ended: Promise<void>;
  /** Asks the thread to stop after its current batch, and waits for it to end. */
  stop(): Promise<void>;
}

/** Fills the passage indexes of the database at `path` in a worker thread (passages-worker.ts). */
export function fillPassagesInBackground(path: string, log: FillLog): BackgroundFill {
  const started = Date.now();
  log('info', 'filling in passage indexes in the background (versions stored by an older release; their snippets read the page until then)');
  const worker = startWorker(import.meta.url, 'passages-worker', { path });
  const ended = new Promise<void>((resolve) => {
    let reported = false;
    worker.once('message', ({ built, done }: { built: number; done: boolean }) => {
      reported = true;
      const fields = { built, ms: Date.now() - started };
      if (done) log('info', 'passage indexes filled', fields);
      else log('info', 'passage index fill stopped; the next start goes on with it', fields);
    });
    worker.once('error', (err) => {
      reported = true;
      log('error', 'passage index fill failed; the next start tries again', { error: err.message });
    });
    worker.once('exit', (code) => {
      if (!reported) log('error', 'passage index fill ended without a result', { code });
      resolve();
    });
  });
  return {
    ended,
    async stop() {
      worker.postMessage('stop');
      await ended;
    },
  };
}
