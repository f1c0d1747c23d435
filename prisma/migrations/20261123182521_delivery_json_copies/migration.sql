-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "bodyJsonChecked" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "DeliveryJson" (
    "deliveryId" TEXT NOT NULL,
    "webhookId" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL,
    "json" JSONB,

    CONSTRAINT "DeliveryJson_pkey" PRIMARY KEY ("deliveryId")
);

-- CreateIndex
CREATE INDEX "DeliveryJson_webhookId_receivedAt_deliveryId_idx" ON "DeliveryJson"("webhookId", "receivedAt" DESC, "deliveryId" DESC);

-- AddForeignKey
ALTER TABLE "DeliveryJson" ADD CONSTRAINT "DeliveryJson_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "Delivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The bodies housekeeping has not copied yet (Prisma's schema cannot express
-- a partial index, hence raw SQL here): the copy job finds them, and Backtest
-- evaluates them in TypeScript meanwhile.
CREATE INDEX "Delivery_bodyJson_pending_idx" ON "Delivery" ("webhookId", "receivedAt" DESC) WHERE NOT "bodyJsonChecked" AND "body" IS NOT NULL;
-- The few bodies jsonb cannot hold, which Backtest evaluates in TypeScript.
CREATE INDEX "DeliveryJson_missing_idx" ON "DeliveryJson" ("webhookId") WHERE "json" IS NULL;

-- Backtest reads every retained copy: lz4 decompresses several times faster
-- than the default pglz. A server built without lz4 (or embedded PGlite)
-- keeps its default.
DO $$
BEGIN
  ALTER TABLE "DeliveryJson" ALTER COLUMN "json" SET COMPRESSION lz4;
EXCEPTION WHEN others THEN
  NULL;
END $$;
