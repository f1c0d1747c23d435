import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { currentRequestId } from '@/lib/platform/entry/request-context';
import { activeSpanContext } from '@/lib/platform/trace-context';

// One logger per process: JSON lines by default in production (what log
// shippers read), readable lines in development. TRIPLINE_LOG_FORMAT=json|pretty
// and TRIPLINE_LOG_LEVEL override. The server entry and the app inside Next.js
// load this module separately, so the instance lives on globalThis.
//
// Never log a secret: callers pass identifiers (webhook UID, run id, request
// id), never bodies, headers or credentials. The redact paths below are a net
// under that rule, not the rule itself.

export type { Logger };

const key = Symbol.for('tripline.logger');

const REDACT = [
  'secret',
  'token',
  'password',
  'authorization',
  'cookie',
  'credentials',
  '*.secret',
  '*.token',
  '*.password',
  '*.authorization',
  '*.cookie',
  '*.credentials',
  'headers.authorization',
  'headers.cookie',
];

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

function createLogger(): Logger {
  const format = process.env.TRIPLINE_LOG_FORMAT || (process.env.NODE_ENV === 'production' ? 'json' : 'pretty');
  const requested = process.env.TRIPLINE_LOG_LEVEL || 'info';
  const level = LEVELS.has(requested) ? requested : 'info';
  const options = {
    level,
    base: { pid: process.pid },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    // Every line written while serving a request names it, and, with traces on, the trace and span it was written in.
    mixin: () => {
      const requestId = currentRequestId();
      const span = activeSpanContext();
      const traced = span ? { traceId: span.traceId, spanId: span.spanId } : {};
      return requestId ? { requestId, ...traced } : traced;
    },
  };
  if (format === 'pretty') {
    // Synchronous, in this thread: no worker-thread transport to bundle or lose on exit.
    return pino(options, pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  }
  return pino(options, pino.destination({ sync: true }));
}

/** The process's logger. */
export function logger(): Logger {
  const holder = globalThis as Record<symbol, Logger | undefined>;
  holder[key] ??= createLogger();
  return holder[key]!;
}

/** A child logger for one part of the app, e.g. `log('runs')`. */
export function log(component: string, fields: Record<string, unknown> = {}): Logger {
  return logger().child({ component, ...fields });
}

/** An error as loggable fields: its message and, below warn, its stack. */
export function errorFields(error: unknown): { err: { message: string; stack?: string } } {
  if (error instanceof Error) return { err: { message: error.message, stack: error.stack } };
  return { err: { message: String(error) } };
}

/**
 * For a condition logged once per episode rather than once per request: the
 * returned function is called at each occurrence and answers whether it starts
 * a new episode (none in the `quietMs` before it).
 */
export function episodes(quietMs: number): (now?: number) => boolean {
  let lastAt = Number.NEGATIVE_INFINITY;
  return (now = Date.now()) => {
    const starts = now - lastAt > quietMs;
    lastAt = now;
    return starts;
  };
}
