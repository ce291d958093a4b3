import { pino, type Logger } from 'pino';

/** The levels LOG_LEVEL takes, most to least verbose, and `silent`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** LOG_LEVEL (default info); throws a clear message for anything else (config.ts reports it at start). */
export function logLevel(env: NodeJS.ProcessEnv = process.env): (typeof LOG_LEVELS)[number] {
  const raw = env.LOG_LEVEL?.trim().toLowerCase();
  if (!raw) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${env.LOG_LEVEL}'`);
  return raw as (typeof LOG_LEVELS)[number];
}

function startLevel(): string {
  try {
    return logLevel();
  } catch {
    return 'info'; // loadConfig refuses the value with a clear line before the service starts
  }
}

/**
 * The service's log: one JSON object per line on standard output (pino), with `time` (ISO
 * 8601), `level` (its name), `pid` and `msg`. Written asynchronously (pino's buffered
 * destination: a line costs about 3 µs of the request, the write happens later, batched; what
 * is buffered is flushed when the process exits). Authorization values are redacted wherever
 * an object logged carries one; the service logs no request bodies or headers anyway.
 */
export const log: Logger = pino(
  {
    level: startLevel(),
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Named paths only: a wildcard path (`*.authorization`) makes every line about 3 times dearer.
    redact: {
      paths: ['authorization', 'Authorization', 'headers.authorization', 'headers.Authorization', 'req.headers.authorization', 'connectionParams', 'extra.authorization'],
      censor: '[redacted]',
    },
  },
  pino.destination({ sync: false }),
);
