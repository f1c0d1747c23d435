-- The delivery log and Backtest's jsonb copies are partitioned by day
-- (lib/deliveries/partitions.ts). Retention then drops an expired day's
-- partition instead of deleting its rows one by one: a deleted row dirties
-- its page and logs it whole after every checkpoint, so a day's prune at the
-- limits wrote about 2 GB of WAL and forced checkpoints whose writes stalled
-- the ingress (docs/benchmarks.md, "A day's prune against PostgreSQL's
-- checkpoints"). Dropping a partition writes almost nothing.
--
-- "bucket" is the partition key: the day (in receivedAt's frame) of an entry
-- that lives in that day's partition, or 9999-12-31 for the kept partition,
-- which holds what outlives its day: entries that started runs (a run reads
-- its delivery's body, and runs are kept longer than the log), the newest
-- entries of a quiet webhook, entries written while no partition for their
-- day existed, and every entry written before this migration. The kept
-- partition is pruned row by row, as the whole log was.
--
-- Nothing is copied: the present tables become the kept partitions, and
-- their indexes become the partitioned indexes' first members. Attaching
-- reads each table once to check its rows belong (no writes), and the new
-- primary keys on (id, bucket) are built once.

-- The partition key. A constant default adds a column without rewriting the
-- table.
ALTER TABLE "Delivery" ADD COLUMN "bucket" DATE NOT NULL DEFAULT '9999-12-31';
ALTER TABLE "DeliveryJson" ADD COLUMN "bucket" DATE NOT NULL DEFAULT '9999-12-31';

-- No foreign key points at an entry any more: PostgreSQL checks one into a
-- partitioned table by locking every partition and its indexes (once the
-- check's plan is generic), which made every delivery dearer and deadlocked
-- a day's DETACH ... CONCURRENTLY with the ingress (docs/benchmarks.md, "Day
-- partitions of the log"). The code that deletes or moves an entry takes its
-- identity and jsonb copy along; a run's entry lives in the kept partition
-- and is not pruned while the run is kept.
ALTER TABLE "Run" DROP CONSTRAINT "Run_deliveryId_fkey";
ALTER TABLE "DeliveryIdentity" DROP CONSTRAINT "DeliveryIdentity_acceptedId_fkey";
ALTER TABLE "DeliveryJson" DROP CONSTRAINT "DeliveryJson_deliveryId_fkey";

-- The log: the present table becomes the kept partition.
ALTER TABLE "Delivery" RENAME TO "Delivery_kept";
ALTER TABLE "Delivery_kept" DROP CONSTRAINT "Delivery_pkey";
ALTER TABLE "Delivery_kept" RENAME CONSTRAINT "Delivery_webhookId_fkey" TO "Delivery_kept_webhookId_fkey";
ALTER INDEX "Delivery_receivedAt_idx" RENAME TO "Delivery_kept_receivedAt_idx";
ALTER INDEX "Delivery_webhookId_deliveryId_idx" RENAME TO "Delivery_kept_webhookId_deliveryId_idx";
ALTER INDEX "Delivery_webhookId_receivedAt_id_idx" RENAME TO "Delivery_kept_webhookId_receivedAt_id_idx";
ALTER INDEX "Delivery_webhookId_status_receivedAt_idx" RENAME TO "Delivery_kept_webhookId_status_receivedAt_idx";
-- An operator may have built the search index beforehand, or not yet (docs/operations.md).
ALTER INDEX IF EXISTS "Delivery_search_trgm_idx" RENAME TO "Delivery_kept_search_trgm_idx";

CREATE TABLE "Delivery" (LIKE "Delivery_kept" INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION) PARTITION BY RANGE ("bucket");
ALTER TABLE "Delivery" ADD CONSTRAINT "Delivery_pkey" PRIMARY KEY ("id", "bucket");
ALTER TABLE "Delivery" ADD CONSTRAINT "Delivery_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "Delivery_receivedAt_idx" ON "Delivery"("receivedAt");
CREATE INDEX "Delivery_webhookId_deliveryId_idx" ON "Delivery"("webhookId", "deliveryId");
CREATE INDEX "Delivery_webhookId_receivedAt_id_idx" ON "Delivery"("webhookId", "receivedAt" DESC, "id" DESC);
CREATE INDEX "Delivery_webhookId_status_receivedAt_idx" ON "Delivery"("webhookId", "status", "receivedAt" DESC);
CREATE INDEX "Delivery_search_trgm_idx" ON "Delivery" USING GIN ("webhookId", "body" gin_trgm_ops) WHERE "body" IS NOT NULL;
-- Attaching the table takes its indexes as the partitioned indexes' members
-- and builds whichever is missing: the primary key, and the search index if
-- it was not there.
ALTER TABLE "Delivery" ATTACH PARTITION "Delivery_kept" FOR VALUES FROM ('9999-12-31') TO (MAXVALUE);

-- Backtest's copies, the same way.
ALTER TABLE "DeliveryJson" RENAME TO "DeliveryJson_kept";
ALTER TABLE "DeliveryJson_kept" DROP CONSTRAINT "DeliveryJson_pkey";
ALTER INDEX "DeliveryJson_missing_idx" RENAME TO "DeliveryJson_kept_missing_idx";
ALTER INDEX "DeliveryJson_webhookId_receivedAt_deliveryId_idx" RENAME TO "DeliveryJson_kept_webhookId_receivedAt_deliveryId_idx";

CREATE TABLE "DeliveryJson" (LIKE "DeliveryJson_kept" INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION) PARTITION BY RANGE ("bucket");
ALTER TABLE "DeliveryJson" ADD CONSTRAINT "DeliveryJson_pkey" PRIMARY KEY ("deliveryId", "bucket");
CREATE INDEX "DeliveryJson_missing_idx" ON "DeliveryJson"("webhookId") WHERE "json" IS NULL;
CREATE INDEX "DeliveryJson_webhookId_receivedAt_deliveryId_idx" ON "DeliveryJson"("webhookId", "receivedAt" DESC, "deliveryId" DESC);
ALTER TABLE "DeliveryJson" ATTACH PARTITION "DeliveryJson_kept" FOR VALUES FROM ('9999-12-31') TO (MAXVALUE);
