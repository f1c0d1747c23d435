import { describe, expect, it } from 'vitest';
import { RunStatus as PrismaRunStatus } from '@/lib/generated/prisma/enums';
import { ACTIVE_RUN_STATUSES, CANCELLABLE_RUN_STATUSES, isActiveRunStatus, RUN_STATUSES, STARTED_RUN_STATUSES } from '@/lib/domain/run-status/statuses';

describe('run statuses', () => {
  it('are exactly the database enum RunStatus, in its order', () => {
    expect([...RUN_STATUSES]).toEqual(Object.values(PrismaRunStatus));
  });

  it('active: the ones that have not ended; a cancel applies to them alone', () => {
    expect(RUN_STATUSES.filter(isActiveRunStatus).sort()).toEqual([...ACTIVE_RUN_STATUSES].sort());
    expect(RUN_STATUSES.filter((status) => !isActiveRunStatus(status))).toEqual(['succeeded', 'failed', 'superseded', 'debounced', 'skipped', 'cancelled']);
    expect(CANCELLABLE_RUN_STATUSES).toBe(ACTIVE_RUN_STATUSES);
    expect(STARTED_RUN_STATUSES.every((status) => RUN_STATUSES.includes(status))).toBe(true);
  });
});
