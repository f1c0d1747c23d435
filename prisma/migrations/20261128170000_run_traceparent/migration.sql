-- The W3C trace context a run continues (docs/tracing.md): its executor's
-- span is the delivery's child. Null when traces are off.
ALTER TABLE "Run" ADD COLUMN "traceparent" TEXT;
