-- AlterEnum
ALTER TYPE "DeliveryStatus" ADD VALUE 'refused';

-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "refusedCount" INTEGER;
