-- AlterTable
ALTER TABLE "WebhookTrigger" ADD COLUMN     "events" JSON,
ADD COLUMN     "headerFilter" JSON;
