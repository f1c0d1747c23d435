-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "customResponseBody" TEXT,
ADD COLUMN     "customResponseContentType" TEXT,
ADD COLUMN     "customResponseStatus" INTEGER;

-- A webhook's custom response (docs/decisions/0099-a-custom-response-per-webhook.md):
-- none at all, a 204 with no content type and no body, or 200, 201 or 202 with
-- one of three content types and a body of at most 1,024 bytes. The schema
-- (lib/domain/webhooks/schemas.ts) checks it first, with a message at the field.
ALTER TABLE "Webhook" ADD CONSTRAINT "Webhook_customResponse_shape" CHECK (
  (("customResponseStatus" IS NULL OR "customResponseStatus" = 204) AND "customResponseContentType" IS NULL AND "customResponseBody" IS NULL)
  OR ("customResponseStatus" IN (200, 201, 202)
      AND "customResponseContentType" IN ('application/json', 'text/plain; charset=utf-8', 'application/xml')
      AND "customResponseBody" IS NOT NULL AND octet_length("customResponseBody") <= 1024)
);
