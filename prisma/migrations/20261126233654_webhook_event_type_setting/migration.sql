-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "eventTypeHeader" TEXT,
ADD COLUMN     "eventTypePath" TEXT;

-- A webhook names its event type by a header or by a body path, never both
-- (lib/webhooks/schemas.ts checks it first, with a message at the field).
ALTER TABLE "Webhook" ADD CONSTRAINT "Webhook_eventType_one_source" CHECK ("eventTypeHeader" IS NULL OR "eventTypePath" IS NULL);
