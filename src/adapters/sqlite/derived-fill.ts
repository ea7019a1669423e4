/**
 * Passage indexes and near-duplicate fingerprints filled in while the service serves: versions
 * stored by an older release (none, or another format, after an upgrade) have their snippets found
 * by reading the page until then, and are compared with other results only for exact repeats.
 */
import { startWorker } from '../worker.js';

export type FillLog = (level: 'info' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export interface BackgroundFill {
  /** Settles when the thread has ended: done, stopped or failed (each logged). */
  readonly ended: Promise<void>;
  /** Asks the thread to stop after its current batch, and waits for it to end. */
  stop(): Promise<void>;
}

/** Fills the passage indexes and fingerprints of the database at `path` in a worker thread (derived-worker.ts). */
export function fillDerivedInBackground(path: string, log: FillLog): BackgroundFill {
  const started = Date.now();
  log('info', 'filling in passage indexes and near-duplicate fingerprints in the background (versions stored by an older release; their snippets read the page until then)');
  const worker = startWorker(import.meta.url, 'derived-worker', { path });
  const ended = new Promise<void>((resolve) => {
    let reported = false;
    worker.once('message', ({ built, done }: { built: { fingerprints: number; passages: number }; done: boolean }) => {
      reported = true;
      const fields = { ...built, ms: Date.now() - started };
      if (done) log('info', 'passage indexes and fingerprints filled', fields);
      else log('info', 'passage index and fingerprint fill stopped; the next start goes on with it', fields);
    });
    worker.once('error', (err) => {
      reported = true;
      log('error', 'passage index and fingerprint fill failed; the next start tries again', { error: err.message });
    });
    worker.once('exit', (code) => {
      if (!reported) log('error', 'passage index and fingerprint fill ended without a result', { code });
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
