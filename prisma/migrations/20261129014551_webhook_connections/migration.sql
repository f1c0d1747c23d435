-- Connections (lib/domain/connections, docs/connections.md): the sender's hook reached through
-- its API, and the state of the recovery pass that asks it for missed deliveries.
-- Delivery.origin marks entries a pass recorded itself (Stripe imports).
-- CreateEnum
CREATE TYPE "ConnectionProvider" AS ENUM ('github_repository', 'github_organization', 'gitlab_project', 'stripe_account');

-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "origin" TEXT;

-- CreateTable
CREATE TABLE "WebhookConnection" (
    "id" TEXT NOT NULL,
    "factoryId" TEXT NOT NULL,
    "webhookId" TEXT NOT NULL,
    "provider" "ConnectionProvider" NOT NULL,
    "apiBaseUrl" TEXT NOT NULL,
    "credentialSecretName" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "eventTypes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "providerHookId" TEXT,
    "watermark" TIMESTAMP(3),
    "lastCheckAt" TIMESTAMP(3),
    "nextCheckAt" TIMESTAMP(3),
    "lastError" TEXT,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "lastMissing" INTEGER NOT NULL DEFAULT 0,
    "lastRecovered" INTEGER NOT NULL DEFAULT 0,
    "leaseOwner" TEXT,
    "leaseUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebhookConnection_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "WebhookConnection_webhookId_key" ON "WebhookConnection"("webhookId");

-- CreateIndex
CREATE INDEX "WebhookConnection_factoryId_idx" ON "WebhookConnection"("factoryId");

-- CreateIndex
CREATE INDEX "WebhookConnection_nextCheckAt_idx" ON "WebhookConnection"("nextCheckAt");

-- AddForeignKey
ALTER TABLE "WebhookConnection" ADD CONSTRAINT "WebhookConnection_factoryId_fkey" FOREIGN KEY ("factoryId") REFERENCES "Factory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookConnection" ADD CONSTRAINT "WebhookConnection_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;
