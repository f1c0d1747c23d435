-- Run control's scheduler (lib/domain/run-control/scheduler.ts): a group's
-- debounce burst and its throttle or rate limit period.
ALTER TABLE "RunGroup" ADD COLUMN "burstStartedAt" TIMESTAMP(3),
                       ADD COLUMN "burstDueAt" TIMESTAMP(3),
                       ADD COLUMN "windowStartedAt" TIMESTAMP(3),
                       ADD COLUMN "windowRuns" INTEGER NOT NULL DEFAULT 0;
