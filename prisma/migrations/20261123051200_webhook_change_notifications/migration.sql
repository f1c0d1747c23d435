-- Every change to a webhook row notifies the app instances listening on
-- "tripline_webhook_changed" (payload: the webhook's UID), so each drops the
-- webhook from its ingress cache at once. Written by hand: the schema engine
-- does not generate functions or triggers.
CREATE OR REPLACE FUNCTION "tripline_notify_webhook_changed"() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('tripline_webhook_changed', COALESCE(NEW."uid", OLD."uid"));
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "Webhook_notify_changed"
AFTER INSERT OR UPDATE OR DELETE ON "Webhook"
FOR EACH ROW EXECUTE FUNCTION "tripline_notify_webhook_changed"();
