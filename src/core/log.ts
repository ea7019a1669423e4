/**
 * A logging seam for code below the HTTP layer. The composition root creates one; the HTTP app
 * points it at its own logger, so tiers and workers log through the same redacting logger.
 */
export type LogLevel = 'info' | 'warn' | 'error';
export type LogFn = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

export interface LogSink {
  log: LogFn;
  attach(fn: LogFn): void;
}

export function createLogSink(initial: LogFn = () => {}): LogSink {
  let target = initial;
  return {
    log: (level, msg, fields) => target(level, msg, fields),
    attach(fn) {
      target = fn;
    },
  };
}
