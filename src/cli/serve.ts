/** `websearch serve`: the HTTP service, with a graceful shutdown on SIGINT/SIGTERM. */
import { createServices } from '../config/services.js';
import { buildApp } from '../http/app.js';
import { parse, settingsFrom } from './args.js';

export async function serveCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {});
  const settings = settingsFrom(values);
  const services = await createServices(settings);
  const app = await buildApp(services);
  app.addHook('onClose', async () => services.close());

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
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));

  if (services.x402Problems.length > 0) {
    app.log.error({ problems: services.x402Problems }, 'x402 tier not started: its configuration is incomplete; the other tiers run');
  }
  await app.listen({ host: settings.host, port: settings.port });
}
