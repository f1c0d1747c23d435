-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "replayCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "replayedBy" TEXT;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "replay" BOOLEAN NOT NULL DEFAULT false;
