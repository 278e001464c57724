import { silentLogger, type Logger } from '@rewind/config';

/** @deprecated The one `Logger` of @rewind/config; this name stays until the relay and the worker take it. */
export type MessagingLogger = Logger;
export { silentLogger };

export type MessagingLogLevel = 'error' | 'warn' | 'log' | 'debug';

const RANK: Record<MessagingLogLevel, number> = { error: 0, warn: 1, log: 2, debug: 3 };

/** Plain-text lines on stdout (log, debug) and stderr (warn, error), with a context label. */
export function consoleLogger(context: string, level: MessagingLogLevel = 'log'): Logger {
  const write = (at: MessagingLogLevel, message: string) => {
    if (RANK[at] > RANK[level]) return;
    const line = `${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} [${context}] ${message}\n`;
    (at === 'error' || at === 'warn' ? process.stderr : process.stdout).write(line);
  };
  return {
    log: (m) => write('log', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    debug: (m) => write('debug', m),
  };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
