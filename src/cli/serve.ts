/**
 * `websearch serve`: the HTTP service, with a graceful shutdown on SIGINT/SIGTERM. With
 * `--workers N` (WEBSEARCH_WORKERS) the process becomes a primary that prepares the search engine's
 * saved segments once, then forks N workers that share the port (node:cluster), load those
 * segments, follow the same database, and count rate limits in it. One of the workers (SAVES_INDEX)
 * also saves the segments after its merges, as a single process does, so that the saved index
 * keeps up (a worker that restarts loads it) and index_log is pruned.
 */
import cluster, { type Worker } from 'node:cluster';
import { EngineIndexStore } from '../adapters/engine/engine-index-store.js';
import { openDatabase } from '../adapters/sqlite/database.js';
import { type BackgroundFill, fillDerivedInBackground } from '../adapters/sqlite/derived-fill.js';
import { SqlitePageStore } from '../adapters/sqlite/page-store.js';
import { createServices, PAGE_SYNC_MS, savesIndex } from '../config/services.js';
import { SAVES_INDEX, type Settings } from '../config/settings.js';
import { buildApp, CLOSE_DRAIN_MS } from '../http/app.js';
import { startUsageRetention, type UsageRetention } from '../ops/usage-retention.js';
import { warmUp } from '../ops/warm-up.js';
import { CommandFailed, parse, settingsFrom } from './args.js';

async function runPrimary(settings: Settings): Promise<void> {
  // SIGHUP restarts the workers (below); until they are forked there is none to restart, and the
  // system's default would end the primary.
  let onHangUp = () => void process.stderr.write('SIGHUP: no workers to restart yet (the primary is starting)\n');
  process.on('SIGHUP', () => onHangUp());
  // Build (or catch up) and save the engine once, so the workers load it instead of each building it.
  const db = openDatabase({ path: settings.sqlitePath });
  const log = (_level: string, msg: string, fields?: Record<string, unknown>) => process.stderr.write(`${msg} ${JSON.stringify(fields ?? {})}\n`);
  let fillDerived: boolean;
  try {
    const engine = await new EngineIndexStore(db, { dir: `${settings.sqlitePath}.engine`, log }).open();
    // Merges its catch-up started end (and save) before the database closes; its copy is then let go.
    await engine.settled();
    await engine.close();
    fillDerived = !(await new SqlitePageStore(db).derivedFilled());
  } finally {
    db.close();
  }
  let stopping = false;
  /** The worker that saves the segments (and its replacement, when it is replaced). */
  let saver: number | undefined;
  /** The id of the worker forked last (ids only grow). */
  let newest = 0;
  const fork = () => {
    const saves = saver === undefined;
    const worker = cluster.fork(saves ? { [SAVES_INDEX]: '1' } : {});
    newest = worker.id;
    if (!saves) return;
    saver = worker.id;
    process.stderr.write(`worker ${worker.process.pid} saves the search index after its merges\n`);
  };
  for (let i = 0; i < settings.workers; i++) fork();
  // The primary fills in the passage indexes and fingerprints, once for all the workers.
  const fill = fillDerived ? fillDerivedInBackground(settings.sqlitePath, log) : undefined;
  // Ends once no worker is left (and the fill has stopped), with process.exitCode (1 when a worker could not start).
  const endIfDone = () => {
    if (Object.keys(cluster.workers ?? {}).length === 0) void (fill?.stop() ?? Promise.resolve()).then(() => process.exit());
  };
  const listened = new Set<number>();
  /**
   * A restart's wait for its replacement: told when a worker forked after the wait began listens
   * (true), or one exits before it listened, or the service stops (false).
   */
  let awaiting: { since: number; done: (listening: boolean) => void } | undefined;
  cluster.on('listening', (worker) => {
    listened.add(worker.id);
    if (awaiting && worker.id > awaiting.since) awaiting.done(true);
  });
  /** The workers a restart (SIGHUP) has stopped, to be replaced; set while one is under way. */
  const retired = new Set<number>();
  let restarting = false;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return endIfDone();
    const wasRetired = retired.delete(worker.id);
    // A worker a restart stopped is replaced even if it had not listened yet (a SIGHUP just after the start).
    const served = listened.delete(worker.id) || wasRetired;
    const why = wasRetired ? 'stopped for the restart' : `exited (${signal ?? code})`;
    if (saver === worker.id) saver = undefined;
    if (!served && restarting) {
      // A restart's replacement that could not start (an upgrade that fails, say): none other is
      // started, and the workers not yet replaced serve on as they are.
      process.stderr.write(
        `worker ${worker.process.pid} ${why} before it listened; the restart stops there, the other workers serve on${saver === undefined ? ' (none saves the search index until the next restart)' : ''}\n`,
      );
      return awaiting?.done(false);
    }
    if (!served) {
      // It never served (the port taken, say): another would fail the same way, so the service stops.
      process.stderr.write(`worker ${worker.process.pid} ${why} before it listened; stopping\n`);
      process.exitCode = 1;
      return stop('SIGTERM');
    }
    process.stderr.write(`worker ${worker.process.pid} ${why}; starting another\n`);
    fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    awaiting?.done(false);
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    endIfDone();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  // SIGHUP: the workers are replaced one at a time, each stopped as SIGTERM stops a server (its
  // requests under way finished) and its replacement listening before the next goes, so the others
  // serve meanwhile. A replacement runs the code and the saved index as they are now: an upgrade
  // built in place (npm run build) is taken in without the service going down; the settings stay
  // the primary's. The saver goes last: its replacement saves. A replacement that cannot start
  // ends the restart there; the next SIGHUP first starts the workers missing, then replaces the rest.
  /** Runs `step` and waits for a worker forked after it began to listen: false if one exited first, or the service stops. */
  const replace = async (step: () => void): Promise<boolean> => {
    const listening = new Promise<boolean>((resolve) => (awaiting = { since: newest, done: resolve }));
    step();
    const ok = await listening;
    awaiting = undefined;
    return ok && !stopping;
  };
  const restart = async () => {
    const old = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    old.sort((a, b) => Number(a.id === saver) - Number(b.id === saver));
    process.stderr.write(`SIGHUP: restarting ${old.length} workers one at a time${old.length < settings.workers ? `, after starting the ${settings.workers - old.length} missing` : ''}\n`);
    for (let n = old.length; n < settings.workers; n++) if (!(await replace(fork))) return;
    for (const w of old) {
      if (w.isDead()) continue;
      const ok = await replace(() => {
        retired.add(w.id);
        w.process.kill('SIGTERM');
      });
      if (!ok) return;
    }
    process.stderr.write('SIGHUP: every worker restarted\n');
  };
  onHangUp = () => {
    if (stopping) return;
    if (restarting) return void process.stderr.write('SIGHUP: a restart of the workers is under way already\n');
    restarting = true;
    void restart().finally(() => {
      restarting = false;
    });
  };
}

/** A day in ms: how often `serve` prunes the page log when WEBSEARCH_SHARE_PRUNE_DAYS asks it to, and the unit of that setting. */
const DAY_MS = 86_400_000;

/** Why a server cannot listen, for the errors its operator can act on: one line instead of a stack. */
const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'another process is listening there (--port, PORT)',
  EACCES: 'not permitted (a port below 1024 needs privileges; --port, PORT)',
  EADDRNOTAVAIL: "the address is not one of this machine's (--host, HOST)",
  ENOTFOUND: 'the host name does not resolve (--host, HOST)',
  EAI_AGAIN: 'the host name does not resolve (--host, HOST)',
};

export async function serveCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {});
  const settings = settingsFrom(values);
  if (settings.workers > 1 && cluster.isPrimary) return runPrimary(settings);
  try {
    await serve(settings);
  } catch (e) {
    // A worker of `--workers N` that cannot serve: its channel to the primary would keep it running
    // without serving; closing it lets the process end with the error (and the primary stop the service).
    if (cluster.isWorker) cluster.worker?.disconnect();
    throw e;
  }
}

async function serve(settings: Settings): Promise<void> {
  const services = await createServices(settings);
  // A stop leaves idle kept-alive connections open a second for a last request, or half the grace period when that is shorter.
  const closeDrainMs = Math.min(CLOSE_DRAIN_MS, settings.shutdownGraceSeconds * 500);
  // The app first, so that what the engine says while it loads or builds goes to the log.
  const app = await buildApp(services, { closeDrainMs }).catch(async (e: unknown) => {
    await services.close();
    throw e;
  });
  app.addHook('onClose', async () => services.close());
  // Versions stored by an older release get this release's passage indexes and near-duplicate
  // fingerprints while the service serves; with `--workers N` the primary fills them in.
  let fill: BackgroundFill | undefined;
  app.addHook('onClose', async () => fill?.stop());
  // Usage rows older than WEBSEARCH_USAGE_RETENTION_DAYS go daily (ops/usage-retention.ts); hooks run last added first, so before the database closes.
  let retention: UsageRetention | undefined;
  app.addHook('onClose', async () => retention?.stop());
  let fillDerived: boolean;
  try {
    // Load (or build) the search engine before taking requests.
    await services.index.open?.();
    fillDerived = !cluster.isWorker && !(await services.pages.derivedFilled());
  } catch (e) {
    await app.close();
    throw e;
  }
  // And search it, so that the first callers' searches do not run the code uncompiled (ops/warm-up.ts).
  try {
    const warmed = await warmUp(services, settings.warmUpMs);
    if (warmed.searches > 0) app.log.info(warmed, 'warmed up: searched the index before taking requests');
  } catch (e) {
    app.log.warn({ err: String(e) }, 'the warm-up searches failed; serving without them');
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // A request that hangs past the grace period must not keep the process alive.
    const timer = setTimeout(() => {
      app.log.error('shutdown grace period over; exiting');
      process.exit(1);
    }, settings.shutdownGraceSeconds * 1000);
    timer.unref();
    await app.close();
    app.log.info('stopped');
    // A worker of `--workers N`: its channel to the primary would keep it alive until the grace
    // period's forced exit (an error, 10 s later); closing it lets the process end.
    if (cluster.isWorker) cluster.worker?.disconnect();
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  // A worker leaves SIGHUP to its primary, which restarts the workers one at a time (a terminal's
  // hangup reaches the whole process group); one process alone stops as at SIGTERM rather than
  // be killed by the system's default with its requests under way.
  if (cluster.isWorker) process.on('SIGHUP', () => {});
  else process.once('SIGHUP', () => void stop('SIGHUP'));

  if (services.x402Problems.length > 0) {
    app.log.error({ problems: services.x402Problems }, 'x402 tier not started: its configuration is incomplete; the other tiers run');
  }
  try {
    await app.listen({ host: settings.host, port: settings.port });
  } catch (e) {
    // Not listening (the port taken, say): close what this process opened, so that it ends with the error.
    await app.close();
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === undefined ? undefined : LISTEN_FAILURES[code];
    throw why ? new CommandFailed(`cannot listen on ${settings.host}:${settings.port}: ${why} (${code})`, { cause: e }) : e;
  }
  // The reader threads load their modules now rather than with the first live fetch.
  if (!stopping) void services.reader?.start();
  // Pages the other machines store (DATABASE_URL=postgres://...), applied to this one's file.
  if (!stopping && savesIndex()) {
    services.sharedPages?.start(PAGE_SYNC_MS);
    // And, when asked, the page log pruned daily (`websearch share prune`'s rule).
    if (settings.sharePruneDays !== undefined) services.sharedPages?.startPruning(DAY_MS, settings.sharePruneDays * DAY_MS);
    if (settings.usageRetentionDays > 0) {
      retention = startUsageRetention(services.usage, settings.usageRetentionDays * DAY_MS, services.clock, (level, msg, fields) => app.log[level](fields ?? {}, msg));
    }
  }
  if (fillDerived && !stopping) fill = fillDerivedInBackground(settings.sqlitePath, (level, msg, fields) => app.log[level](fields ?? {}, msg));
}
