import { describe, expect, it } from 'vitest';
import { databaseDiskFull, DISK_FULL_REPORT_MS, EMBEDDED_THREAD_GONE, isDatabaseDiskFull, isDatabaseUnavailable, noteDatabaseUnavailable, noteDatabaseWrote } from '@/lib/platform/db/unavailable';

// What the embedded database's worker threw when its disk filled (seen on a 96 MB tmpfs).
const pgliteDiskFull = Object.assign(new Error('could not extend file "base/5/16528_fsm": No space left on device'), { code: '53100', severity: 'ERROR' });

describe('a full disk under the database', () => {
  it('is recognised from SQLSTATE 53100, ENOSPC, or the message, also when wrapped', () => {
    expect(isDatabaseDiskFull(pgliteDiskFull)).toBe(true);
    expect(isDatabaseDiskFull({ code: 'P2010', meta: { driverAdapterError: { kind: 'postgres', code: '53100' } } })).toBe(true);
    expect(isDatabaseDiskFull(new Error('wrapped', { cause: Object.assign(new Error('write'), { code: 'ENOSPC' }) }))).toBe(true);
    expect(isDatabaseDiskFull(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    // Callers answer it as they answer an unreachable database: 503 with Retry-After.
    expect(isDatabaseUnavailable(pgliteDiskFull)).toBe(true);
  });

  it('is reported (for /readyz) until a write succeeds, or for a while after the last refused write', () => {
    const now = Date.now();
    expect(databaseDiskFull(now)).toBe(false);
    noteDatabaseUnavailable(pgliteDiskFull, now);
    expect(databaseDiskFull(now + 1)).toBe(true);
    expect(databaseDiskFull(now + DISK_FULL_REPORT_MS + 1)).toBe(false);
    noteDatabaseWrote();
    expect(databaseDiskFull(now + 1)).toBe(false);
  });
});

describe("the embedded database's thread gone", () => {
  it('is an unavailable database (503 with Retry-After, as /readyz says), not a failed request (500)', () => {
    const gone = Object.assign(new Error("the embedded database's thread exited (code 1)"), { code: EMBEDDED_THREAD_GONE });
    expect(isDatabaseUnavailable(gone)).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: gone }))).toBe(true);
    expect(isDatabaseUnavailable(new Error("the embedded database's thread exited (code 1)"))).toBe(false);
  });
});
