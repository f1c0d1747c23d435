-- A webhook's IP allowlist (docs/ingress.md, IP allowlist): canonical CIDR
-- ranges, at most 100; empty admits every address.
ALTER TABLE "Webhook" ADD COLUMN "ipAllowlist" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

-- A request from an address outside the list: answered like an unknown
-- webhook (404), logged as Refused (address).
ALTER TYPE "DeliveryStatus" ADD VALUE 'refused_address';
