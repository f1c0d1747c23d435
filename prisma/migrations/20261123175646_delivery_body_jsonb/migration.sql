-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "bodyJson" JSONB,
ADD COLUMN     "bodyJsonChecked" BOOLEAN NOT NULL DEFAULT false;

-- The bodies without a copy: pending ones, which housekeeping looks for, and
-- the few jsonb cannot hold, which Backtest evaluates in TypeScript. Prisma's
-- schema cannot express a partial index, hence raw SQL here.
CREATE INDEX "Delivery_bodyJson_missing_idx" ON "Delivery" ("webhookId", "receivedAt" DESC) WHERE "bodyJson" IS NULL AND "body" IS NOT NULL;

-- Backtest reads every retained copy: lz4 decompresses several times faster
-- than the default pglz. A server built without lz4 (or embedded PGlite)
-- keeps its default.
DO $$
BEGIN
  ALTER TABLE "Delivery" ALTER COLUMN "bodyJson" SET COMPRESSION lz4;
EXCEPTION WHEN others THEN
  NULL;
END $$;
