-- Runs stop copying the payload: event-payload.json is their delivery's
-- stored body, attached when the run is claimed or shown.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "payload" TEXT;

-- Keep the payload of runs that cannot read it from their delivery: the
-- delivery was pruned (deliveryId set to NULL) or, defensively, its body is
-- not the run's copy. Every other run drops its copy.
UPDATE "Run" r SET "payload" = r."attachments"->0->>'content'
 WHERE NOT EXISTS (
   SELECT 1 FROM "Delivery" d
    WHERE d."id" = r."deliveryId" AND d."body" IS NOT DISTINCT FROM r."attachments"->0->>'content'
 );

-- AlterTable
ALTER TABLE "Run" DROP COLUMN "attachments";
