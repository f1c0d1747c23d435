import { episodes, errorFields, log } from '@/lib/platform/log';

// A database that cannot be reached (stopped, restarting, failing over, or
// out of connections) is not the request's fault: callers answer 503 with
// Retry-After, so a sender retries later instead of reading a 500 as "your
// request failed". Recognised from every layer an error can come through:
// node-postgres (socket codes, SQLSTATE classes 08 and 57P), Prisma's driver
// adapter (DriverAdapterError kinds) and Prisma's own codes (P1001...).
//
// A database whose disk is full (SQLSTATE 53100, or ENOSPC from the embedded
// database's files) is the same for a caller: the write did not happen, and
// it will once space is freed. It gets its own log line, and /readyz reports
// it until a write succeeds again (or no write has failed for a while).

/** Seconds a caller is asked to wait before retrying. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The code of the error every call gets once the embedded database's thread has died (lib/platform/db/pglite-thread.ts). */
export const EMBEDDED_THREAD_GONE = 'TRIPLINE_EMBEDDED_THREAD_GONE';
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', EMBEDDED_THREAD_GONE]);
// SQLSTATE: connection exceptions, admin/crash shutdown, cannot connect now, too many connections.
const SQLSTATE = /^(08\w{3}|57P0[1-3]|53300)$/;
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// node-postgres's own messages, which carry no code.
const MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed|Cannot use a pool after calling end)/;

const DISK_FULL_CODES = new Set(['53100', 'ENOSPC']);
const DISK_FULL_MESSAGE = /No space left on device|could not (extend|write to) file/;

type Probe = { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { code?: unknown; driverAdapterError?: unknown } };

/** Whether `test` holds for `error` or anything it wraps (a cause, Prisma's driver adapter error), a few levels deep. */
function anyCause(error: unknown, test: (probe: Probe) => boolean): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth += 1) {
    const probe = current as Probe;
    if (test(probe)) return true;
    current = probe.meta?.driverAdapterError ?? probe.cause;
  }
  return false;
}

/** Whether `error` (or anything it wraps) says the database's disk is full. */
export function isDatabaseDiskFull(error: unknown): boolean {
  return anyCause(error, (probe) => (typeof probe.code === 'string' && DISK_FULL_CODES.has(probe.code)) || (typeof probe.message === 'string' && DISK_FULL_MESSAGE.test(probe.message)));
}

/** Whether `error` (or anything it wraps) says the database cannot be reached, or cannot write for want of disk. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isDatabaseDiskFull(error)) return true;
  return anyCause(
    error,
    (probe) =>
      (typeof probe.code === 'string' && (SOCKET_CODES.has(probe.code) || SQLSTATE.test(probe.code) || PRISMA_CODES.has(probe.code))) ||
      (typeof probe.kind === 'string' && (ADAPTER_KINDS.has(probe.kind) || (probe.kind === 'postgres' && typeof probe.code === 'string' && SQLSTATE.test(probe.code)))) ||
      (typeof probe.message === 'string' && MESSAGES.test(probe.message)),
  );
}

/** Whether `error` (or anything it wraps) is PostgreSQL's statement timeout (SQLSTATE 57014). */
export function isStatementTimeout(error: unknown): boolean {
  return anyCause(error, (probe) => probe.code === '57014' || probe.meta?.code === '57014');
}

// One log line per outage, not one per request: an outage is a run of such
// errors with less than 15 s between them. A full disk is an episode of its own.
const outageStarts = episodes(15_000);
const diskFullStarts = episodes(15_000);

/** How long after the last write refused for want of disk /readyz still reports it, when no write succeeded since. */
export const DISK_FULL_REPORT_MS = 30_000;
let diskFullAt: number | null = null;

/** Notes a request answered 503 because the database is unreachable or its disk is full; logs the episode's first one. */
export function noteDatabaseUnavailable(error: unknown, now = Date.now()): void {
  if (isDatabaseDiskFull(error)) {
    diskFullAt = now;
    if (diskFullStarts(now)) {
      log('db').error(
        { ...errorFields(error), retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
        "the database's disk is full: answering 503 with Retry-After until space is freed; nothing acknowledged is lost (logged once per episode)",
      );
    }
    return;
  }
  if (outageStarts(now)) {
    log('db').error(
      { ...errorFields(error), retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
      'database unreachable: answering 503 with Retry-After until it is back (logged once per outage)',
    );
  }
}

/** A write succeeded: the disk has room again. Logs the end of a full-disk episode. */
export function noteDatabaseWrote(): void {
  if (diskFullAt === null) return;
  diskFullAt = null;
  log('db').warn({}, "the database's disk has room again: accepting writes");
}

/** Whether a write failed for want of disk recently, with none succeeding since (for /readyz). */
export function databaseDiskFull(now = Date.now()): boolean {
  return diskFullAt !== null && now - diskFullAt < DISK_FULL_REPORT_MS;
}
