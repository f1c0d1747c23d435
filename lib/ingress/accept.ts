import 'server-only';
import { env } from '@/lib/platform/env';
import { currentTraceparent, inSpan } from '@/lib/platform/tracing';
import { announceEntry } from '@/lib/domain/deliveries/wake';
import { runsToStart } from '@/lib/domain/runs/start';
import { wakeWorkers } from '@/lib/domain/runs/wake';
import { wakeScheduler } from '@/lib/domain/run-control/wake';
import type { Identity } from '@/lib/ingress/identity';
import type { LiveWebhook } from '@/lib/ingress/live';
import type { FoldedRateLimit } from '@/lib/ingress/rate-limit';
import { recordAccepted, type AcceptOutcome } from '@/lib/ingress/record';
import { extractEventType } from '@/lib/ingress/signatures/event-types';
import { redactBodyCredential } from '@/lib/ingress/signatures/verify';

// The one way an accepted delivery enters the log: its event type read where
// the webhook's provider says, the automations it matches, and one statement
// that claims its identity, writes the entry and starts the runs
// (record.ts), then the workers, the scheduler and the log's listeners woken.
// The ingress calls it for a verified request; a recovery pass that imports
// an event from the provider's API (lib/domain/connections/import.ts) calls
// it too, so an imported event starts exactly the runs a live one would, and
// the identity's primary key decides between the two when they race.

export type Arrival = {
  identity: Identity;
  /** Bytes received (or, for an import, of the event as recorded). */
  size: number;
  /** The body as text and parsed (lib/ingress/json.ts). */
  json: { text: string; value: unknown };
  /** The request's headers, for an event type named by a header. */
  header: (name: string) => string | null;
  /** The headers the log stores, credentials redacted; what triggers' header filters read. */
  stored: Record<string, string>;
  signatureHeaders: Record<string, string> | null;
  remoteAddress: string | null;
  /** The webhook's rate limit, folded into the statement (PostgreSQL); undefined when counted before. */
  rateLimit?: FoldedRateLimit;
  /** How the entry reached the log when not live from its sender (`stripe_import`); null for a live delivery. */
  origin?: string | null;
};

export type Accepted = { outcome: AcceptOutcome; eventType: string | null };

export async function acceptDelivery(webhook: LiveWebhook, arrival: Arrival): Promise<Accepted> {
  // A credential in the body (Microsoft Graph's clientState) is stored and handed on redacted, like credential headers.
  const kept =
    webhook.authMode === 'signature' && webhook.signatureScheme && webhook.credential ? redactBodyCredential(webhook.signatureScheme, arrival.json, webhook.credential) : arrival.json;
  // From the headers and the body parsed above; null when the delivery names none (never a rejection).
  const eventType = extractEventType(webhook.eventTypeSource, { header: arrival.header, body: kept.value });
  // Runs continue the request's trace: their executor's span is this span's child.
  const traceparent = currentTraceparent();
  const outcome = await inSpan('tripline.ingress.record', { attributes: { 'db.system.name': 'postgresql', 'db.operation.name': 'record delivery' } }, () =>
    recordAccepted({
      webhookId: webhook.id,
      factoryId: webhook.factoryId,
      identity: arrival.identity,
      // Triggers read what the log stores (the type, the redacted headers), so Test filter, Backtest and Replay decide alike.
      runs: runsToStart(webhook, webhook.triggers, { deliveryId: arrival.identity.deliveryId, text: kept.text, value: kept.value, eventType, headers: arrival.stored }),
      size: arrival.size,
      body: kept.text,
      headers: arrival.stored,
      signatureHeaders: arrival.signatureHeaders,
      remoteAddress: arrival.remoteAddress,
      eventType,
      runQueueLimit: env().runQueueLimit,
      rateLimit: arrival.rateLimit,
      traceparent,
      origin: arrival.origin ?? null,
    }),
  );
  if (outcome.limited) return { outcome, eventType };
  if (outcome.runs > outcome.pending) wakeWorkers();
  if (outcome.pending > 0) wakeScheduler();
  announceEntry(webhook.id);
  return { outcome, eventType };
}
