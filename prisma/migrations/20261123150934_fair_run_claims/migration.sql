-- DropIndex
DROP INDEX "Run_status_createdAt_idx";

-- CreateIndex
CREATE INDEX "Run_status_factoryId_createdAt_id_idx" ON "Run"("status", "factoryId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Run_factoryId_startedAt_idx" ON "Run"("factoryId", "startedAt");
