-- AlterTable
ALTER TABLE "Delivery" DROP COLUMN "payload",
ADD COLUMN     "body" TEXT,
ADD COLUMN     "detail" TEXT,
ADD COLUMN     "remoteAddress" TEXT;

-- CreateTable
CREATE TABLE "rate_limits" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "rate_limits_pkey" PRIMARY KEY ("key")
);
