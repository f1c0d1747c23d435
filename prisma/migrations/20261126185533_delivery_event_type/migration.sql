-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "eventType" TEXT;

-- CreateIndex
-- IF NOT EXISTS: on a large log an operator can build it beforehand with
-- CREATE INDEX CONCURRENTLY under the same name (docs/operations.md,
-- "Upgrading a large delivery log").
CREATE INDEX IF NOT EXISTS "Delivery_webhookId_eventType_receivedAt_idx" ON "Delivery"("webhookId", "eventType", "receivedAt" DESC);

-- Entries stored before this migration get their type from a housekeeping
-- job, in small batches (lib/deliveries/event-type-backfill.ts): it fills
-- the entries received up to this moment, and deletes this row when done.
INSERT INTO "InstanceSetting" ("key", "value", "updatedAt")
SELECT 'eventType.backfill', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') || '|', now()
 WHERE EXISTS (SELECT 1 FROM "Delivery" WHERE "headers" IS NOT NULL)
ON CONFLICT ("key") DO NOTHING;
