-- CreateTable
CREATE TABLE "DeliveryTypeRollup" (
    "webhookId" TEXT NOT NULL,
    "minute" TIMESTAMP(3) NOT NULL,
    "eventType" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "DeliveryTypeRollup_pkey" PRIMARY KEY ("webhookId","minute","eventType")
);

-- CreateIndex
CREATE INDEX "DeliveryTypeRollup_minute_idx" ON "DeliveryTypeRollup"("minute");

-- AddForeignKey
ALTER TABLE "DeliveryTypeRollup" ADD CONSTRAINT "DeliveryTypeRollup_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The health job's next run recounts the kept period into both rollup tables
-- (in 6-hour chunks, lib/health/rollups.ts); until then the charts read the
-- log itself past the watermark, so no count is missing meanwhile.
DELETE FROM "InstanceSetting" WHERE "key" = 'health-rollups-until';
