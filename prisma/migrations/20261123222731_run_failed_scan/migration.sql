-- CreateIndex
CREATE INDEX "Run_status_finishedAt_idx" ON "Run"("status", "finishedAt");
