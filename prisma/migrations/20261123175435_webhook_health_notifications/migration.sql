-- CreateEnum
CREATE TYPE "NotificationKind" AS ENUM ('standard_webhooks', 'slack');

-- CreateEnum
CREATE TYPE "NotificationStatus" AS ENUM ('pending', 'sent', 'failed');

-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "expectedIntervalSeconds" INTEGER;

-- CreateTable
CREATE TABLE "DeliveryRollup" (
    "webhookId" TEXT NOT NULL,
    "minute" TIMESTAMP(3) NOT NULL,
    "status" "DeliveryStatus" NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "DeliveryRollup_pkey" PRIMARY KEY ("webhookId","minute","status")
);

-- CreateTable
CREATE TABLE "WebhookHealth" (
    "webhookId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "since" TIMESTAMP(3) NOT NULL,
    "rateLimitedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebhookHealth_pkey" PRIMARY KEY ("webhookId")
);

-- CreateTable
CREATE TABLE "NotificationDestination" (
    "id" TEXT NOT NULL,
    "factoryId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "NotificationKind" NOT NULL,
    "url" TEXT NOT NULL,
    "secretEncrypted" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "NotificationDestination_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Notification" (
    "id" TEXT NOT NULL,
    "factoryId" TEXT NOT NULL,
    "destinationId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" "NotificationStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedUntil" TIMESTAMP(3),
    "lastError" TEXT,
    "responseStatus" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMP(3),

    CONSTRAINT "Notification_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "DeliveryRollup_minute_idx" ON "DeliveryRollup"("minute");

-- CreateIndex
CREATE INDEX "NotificationDestination_factoryId_idx" ON "NotificationDestination"("factoryId");

-- CreateIndex
CREATE INDEX "Notification_status_nextAttemptAt_idx" ON "Notification"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "Notification_factoryId_createdAt_idx" ON "Notification"("factoryId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Notification_destinationId_idx" ON "Notification"("destinationId");

-- AddForeignKey
ALTER TABLE "DeliveryRollup" ADD CONSTRAINT "DeliveryRollup_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookHealth" ADD CONSTRAINT "WebhookHealth_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationDestination" ADD CONSTRAINT "NotificationDestination_factoryId_fkey" FOREIGN KEY ("factoryId") REFERENCES "Factory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Notification" ADD CONSTRAINT "Notification_factoryId_fkey" FOREIGN KEY ("factoryId") REFERENCES "Factory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Notification" ADD CONSTRAINT "Notification_destinationId_fkey" FOREIGN KEY ("destinationId") REFERENCES "NotificationDestination"("id") ON DELETE CASCADE ON UPDATE CASCADE;
