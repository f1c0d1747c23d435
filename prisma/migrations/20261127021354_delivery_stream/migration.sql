-- AlterTable
-- The column first, without a default: a volatile default in ADD COLUMN would
-- rewrite every row of the log under an exclusive lock. Entries written before
-- this migration keep NULL and are not in the stream (docs/decisions/0070).
ALTER TABLE "Delivery" ADD COLUMN     "signatureHeaders" JSONB,
ADD COLUMN     "txid" BIGINT;
ALTER TABLE "Delivery" ALTER COLUMN "txid" SET DEFAULT ((pg_current_xact_id())::text)::bigint;

-- CreateIndex
CREATE INDEX "Delivery_webhookId_txid_id_idx" ON "Delivery"("webhookId", "txid", "id");
