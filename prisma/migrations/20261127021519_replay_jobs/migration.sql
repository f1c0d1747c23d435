-- CreateEnum
CREATE TYPE "ReplayJobStatus" AS ENUM ('running', 'completed', 'cancelled');

-- CreateTable
CREATE TABLE "ReplayJob" (
    "id" TEXT NOT NULL,
    "factoryId" TEXT NOT NULL,
    "status" "ReplayJobStatus" NOT NULL DEFAULT 'running',
    "webhookUid" TEXT NOT NULL,
    "selection" JSONB NOT NULL,
    "total" INTEGER NOT NULL,
    "done" INTEGER NOT NULL DEFAULT 0,
    "runsStarted" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "waiting" TEXT,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),
    "cancelledBy" TEXT,
    "leaseToken" TEXT,
    "leaseUntil" TIMESTAMP(3),

    CONSTRAINT "ReplayJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReplayJobItem" (
    "jobId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "doneAt" TIMESTAMP(3),
    "outcome" TEXT,
    "runs" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ReplayJobItem_pkey" PRIMARY KEY ("jobId","position")
);

-- CreateIndex
CREATE INDEX "ReplayJob_factoryId_createdAt_idx" ON "ReplayJob"("factoryId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "ReplayJob_status_leaseUntil_idx" ON "ReplayJob"("status", "leaseUntil");

-- AddForeignKey
ALTER TABLE "ReplayJob" ADD CONSTRAINT "ReplayJob_factoryId_fkey" FOREIGN KEY ("factoryId") REFERENCES "Factory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ReplayJobItem" ADD CONSTRAINT "ReplayJobItem_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "ReplayJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
