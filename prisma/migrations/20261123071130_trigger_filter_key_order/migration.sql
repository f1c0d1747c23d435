-- AlterTable
ALTER TABLE "WebhookTrigger" ALTER COLUMN "payloadFilter" SET DATA TYPE JSON;
