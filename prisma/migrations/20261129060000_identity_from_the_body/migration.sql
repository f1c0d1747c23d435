-- A provider without a delivery header names the event in its signed body
-- (Stripe's `id`, evt_...): the ingress takes it as the delivery's identity,
-- so a live delivery, Stripe's retries of it and the recovery pass's import
-- of the same event share one identity (docs/decisions, Stripe import).
ALTER TYPE "IdentitySource" ADD VALUE 'provider_body' AFTER 'provider_header';
