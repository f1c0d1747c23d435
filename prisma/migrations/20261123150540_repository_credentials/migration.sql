-- AlterTable
ALTER TABLE "Factory" ADD COLUMN     "repoCredentialEncrypted" TEXT,
ADD COLUMN     "repoSetByOperator" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "repoSyncLeaseUntil" TIMESTAMP(3);
