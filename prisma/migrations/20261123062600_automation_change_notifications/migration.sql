-- The ingress caches each live webhook together with the triggers of its
-- enabled automations. Every change to an automation or a trigger notifies
-- "tripline_webhook_changed" with the UIDs of the webhooks concerned, so
-- every app instance drops those cache entries at once (see
-- lib/webhooks/live-cache.ts). Written by hand: the schema engine does not
-- generate functions or triggers.
CREATE OR REPLACE FUNCTION "tripline_notify_trigger_changed"() RETURNS trigger AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('tripline_webhook_changed', OLD."webhookUid");
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('tripline_webhook_changed', NEW."webhookUid");
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "WebhookTrigger_notify_changed"
AFTER INSERT OR UPDATE OR DELETE ON "WebhookTrigger"
FOR EACH ROW EXECUTE FUNCTION "tripline_notify_trigger_changed"();

CREATE OR REPLACE FUNCTION "tripline_notify_automation_changed"() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('tripline_webhook_changed', t."webhookUid")
     FROM "WebhookTrigger" t
    WHERE t."automationId" = COALESCE(NEW."id", OLD."id");
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "Automation_notify_changed"
AFTER UPDATE OR DELETE ON "Automation"
FOR EACH ROW EXECUTE FUNCTION "tripline_notify_automation_changed"();
