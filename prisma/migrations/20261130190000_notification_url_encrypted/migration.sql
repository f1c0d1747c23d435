-- AlterTable
-- A Slack incoming webhook's URL is its credential (its path is the token): it is kept encrypted,
-- like team secrets, and "url" keeps only the part that may be shown. Rows written before this are
-- encrypted by the server at its next start (lib/domain/notifications/service.ts, protectDestinationUrls).
ALTER TABLE "NotificationDestination" ADD COLUMN     "urlEncrypted" TEXT;
