-- Backtest's copy job keeps a cursor (InstanceSetting 'backtest.copiedThrough':
-- every delivery received at or before it has its DeliveryJson row) instead of
-- marking each delivery: that update rewrote every index of the Delivery row,
-- the body's trigram index included, and slowed the ingress
-- (lib/deliveries/body-json.ts, docs/benchmarks.md).
--
-- The cursor starts just before the oldest body not copied yet, or at the
-- newest delivery when every body is copied.
INSERT INTO "InstanceSetting" ("key", "value", "updatedAt")
SELECT 'backtest.copiedThrough',
       COALESCE(
         (SELECT min("receivedAt") FROM "Delivery" WHERE NOT "bodyJsonChecked" AND "body" IS NOT NULL) - interval '1 millisecond',
         (SELECT max("receivedAt") FROM "Delivery"),
         '-infinity'::timestamp
       )::timestamp(3)::text,
       now()
ON CONFLICT ("key") DO NOTHING;

-- The partial index only served the marks. The column stays for this release,
-- so instances of the previous release keep working during a rolling restart
-- (docs/deploy.md: migrations are additive within a release); nothing reads it.
DROP INDEX IF EXISTS "Delivery_bodyJson_pending_idx";
