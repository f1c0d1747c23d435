import { episodes, errorFields, log } from '@/lib/platform/log';

// A database that cannot be reached (stopped, restarting, failing over, or
// out of connections) is not the request's fault: callers answer 503 with
// Retry-After, so a sender retries later instead of reading a 500 as "your
// request failed". Recognised from every layer an error can come through:
// node-postgres (socket codes, SQLSTATE classes 08 and 57P), Prisma's driver
// adapter (DriverAdapterError kinds) and Prisma's own codes (P1001...).

/** Seconds a caller is asked to wait before retrying. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);
// SQLSTATE: connection exceptions, admin/crash shutdown, cannot connect now, too many connections.
const SQLSTATE = /^(08\w{3}|57P0[1-3]|53300)$/;
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// node-postgres's own messages, which carry no code.
const MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed|Cannot use a pool after calling end)/;

type Probe = { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };

/** Whether `error` (or anything it wraps) says the database cannot be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth += 1) {
    const probe = current as Probe;
    if (typeof probe.code === 'string' && (SOCKET_CODES.has(probe.code) || SQLSTATE.test(probe.code) || PRISMA_CODES.has(probe.code))) return true;
    if (typeof probe.kind === 'string' && (ADAPTER_KINDS.has(probe.kind) || (probe.kind === 'postgres' && typeof probe.code === 'string' && SQLSTATE.test(probe.code)))) return true;
    if (typeof probe.message === 'string' && MESSAGES.test(probe.message)) return true;
    current = probe.meta?.driverAdapterError ?? probe.cause;
  }
  return false;
}

// One log line per outage, not one per request: an outage is a run of such
// errors with less than 15 s between them.
const outageStarts = episodes(15_000);

/** Notes a request answered 503 because the database is unreachable; logs the outage's first one. */
export function noteDatabaseUnavailable(error: unknown, now = Date.now()): void {
  if (outageStarts(now)) {
    log('db').error(
      { ...errorFields(error), retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
      'database unreachable: answering 503 with Retry-After until it is back (logged once per outage)',
    );
  }
}
