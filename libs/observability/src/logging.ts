import type { Logger } from '@rewind/config';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';

/** Rewind's log levels (REWIND_LOG_LEVEL), named as Nest names them. */
export type RewindLogLevel = 'error' | 'warn' | 'log' | 'debug';

const PINO_LEVEL: Record<RewindLogLevel, pino.Level> = { error: 'error', warn: 'warn', log: 'info', debug: 'debug' };

/**
 * The process's root logger: one JSON object per line, `level` as a word, `time` in ISO 8601.
 * JSON on every stream, so files and pipes never get colour codes; for reading on a
 * terminal, pipe through `npx pino-pretty`.
 * Writes are synchronous so that the last lines before process.exit() are never lost.
 */
export function createLogger(level: RewindLogLevel, destination: DestinationStream = pino.destination({ dest: 1, sync: true })): PinoLogger {
  return pino(
    {
      level: PINO_LEVEL[level],
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** The process's JSON lines as the one `Logger` every package takes, each line with a `context`. */
export function contextLogger(root: PinoLogger, context: string): Logger {
  const logger = root.child({ context });
  return {
    log: (m) => logger.info(m),
    warn: (m) => logger.warn(m),
    error: (m) => logger.error(m),
    debug: (m) => logger.debug(m),
  };
}
