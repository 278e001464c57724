/**
 * The one logger shape every Rewind package logs through. Nest's `Logger` and
 * `contextLogger(pino, context)` from @rewind/observability both fit it, so libraries take a
 * `Logger` and each process decides where the lines go.
 */
export interface Logger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug?(message: string): void;
}

/** For tests and for callers that want no output. */
export const silentLogger: Logger = { log: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
