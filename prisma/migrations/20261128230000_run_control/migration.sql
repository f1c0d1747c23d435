-- Run control (docs/automations.md, Run control): per-automation settings,
-- the outcomes a matched delivery can have, and the scheduler's state per key.
ALTER TABLE "Automation" ADD COLUMN "runControl" JSON;

ALTER TYPE "RunStatus" ADD VALUE 'pending';
ALTER TYPE "RunStatus" ADD VALUE 'waiting';
ALTER TYPE "RunStatus" ADD VALUE 'debouncing';
ALTER TYPE "RunStatus" ADD VALUE 'throttled';
ALTER TYPE "RunStatus" ADD VALUE 'superseded';
ALTER TYPE "RunStatus" ADD VALUE 'debounced';
ALTER TYPE "RunStatus" ADD VALUE 'skipped';
ALTER TYPE "RunStatus" ADD VALUE 'cancelled';

ALTER TABLE "Run" ADD COLUMN "controlKey" TEXT,
                  ADD COLUMN "outcomeRunId" TEXT,
                  ADD COLUMN "outcomeDeliveryId" TEXT,
                  ADD COLUMN "outcomeDetail" TEXT,
                  ADD COLUMN "notBefore" TIMESTAMP(3),
                  ADD COLUMN "cancelRequestedAt" TIMESTAMP(3);

CREATE INDEX "Run_automationId_controlKey_status_createdAt_idx" ON "Run"("automationId", "controlKey", "status", "createdAt");

CREATE TABLE "RunGroup" (
    "automationId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "keyText" TEXT NOT NULL,
    "dirty" BOOLEAN NOT NULL DEFAULT true,
    "dueAt" TIMESTAMP(3),
    "activeAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RunGroup_pkey" PRIMARY KEY ("automationId","key")
);

CREATE INDEX "RunGroup_dirty_idx" ON "RunGroup"("dirty");
CREATE INDEX "RunGroup_dueAt_idx" ON "RunGroup"("dueAt");
CREATE INDEX "RunGroup_automationId_activeAt_idx" ON "RunGroup"("automationId", "activeAt");

ALTER TABLE "RunGroup" ADD CONSTRAINT "RunGroup_automationId_fkey" FOREIGN KEY ("automationId") REFERENCES "Automation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
