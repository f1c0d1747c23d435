import 'server-only';
import { prisma, type Db } from '@/lib/platform/db';
import { acceptDelivery } from '@/lib/ingress/accept';
import { deliveryIdentity, type Identity } from '@/lib/ingress/identity';
import { MAX_BODY_BYTES } from '@/lib/ingress/limits';
import { findLiveWebhook } from '@/lib/ingress/live';
import { recordRejected } from '@/lib/ingress/record';
import { providerBodyDeliveryId } from '@/lib/ingress/signatures/verify';
import type { ProviderDelivery, ProviderModule } from '@/lib/domain/connections/provider';

// Recovery by import (docs/connections.md, Stripe): a provider that cannot
// send an event again (Stripe) hands the event over in its API's listing,
// and the recovery pass records it as the delivery the ingress would have
// recorded: through the ingress's own acceptDelivery (lib/ingress/accept.ts),
// so its event type, the automations it matches and its runs are decided as
// for a live delivery, with origin `<scheme>_import`. Its identity is taken
// as the ingress takes a live one's (the event's `id` in the body), so the
// DeliveryIdentity primary key lets exactly one of a racing live delivery, a
// retry from the provider and a second pass's import be accepted; the others
// are Duplicates and start nothing.
//
// The event is recorded as the provider's API rendered it: in the event's
// own API version, pretty-printed as Stripe's deliveries are, with no
// headers (a live delivery's are not known). An event over the ingress's
// body limit is not imported: the log says so, once.

export type ImportOutcome = { status: 'accepted' | 'duplicate'; runs: number } | { status: 'refused'; detail: string };

/** What a pass needs of the webhook it imports into, read once per pass. */
export type ImportTarget = { webhookId: string; uid: string; module: ProviderModule };

export async function importTarget(db: Db, webhookId: string, module: ProviderModule): Promise<ImportTarget> {
  const webhook = await db.webhook.findUniqueOrThrow({ where: { id: webhookId }, select: { uid: true } });
  return { webhookId, uid: webhook.uid, module };
}

export async function importDelivery(target: ImportTarget, delivery: ProviderDelivery, payload: unknown, db: Db = prisma): Promise<ImportOutcome> {
  const webhook = await findLiveWebhook(target.uid);
  // Disabled or deleted since the pass began: nothing is recorded (the ingress would answer 404).
  if (!webhook) throw new Error('the webhook is disabled or deleted: nothing was imported');
  const text = JSON.stringify(payload, null, 2);
  const size = Buffer.byteLength(text, 'utf8');
  const body = Buffer.from(text, 'utf8');
  // The identity as the ingress takes a live delivery's: no headers, the ID the body names.
  const identity: Identity = deliveryIdentity({
    headers: new Headers(),
    body,
    configuredHeader: null,
    providerId: null,
    providerBodyId: providerBodyDeliveryId(target.module.scheme as Parameters<typeof providerBodyDeliveryId>[0], payload),
  });
  if (identity.deliveryId !== delivery.identity) {
    throw new Error(`${target.module.name}'s event ${delivery.attemptId} names another ID in its body than its listing did`);
  }
  if (size > MAX_BODY_BYTES) {
    const detail = `${target.module.name}'s event ${delivery.attemptId} is ${Math.ceil(size / 1024)} KB, over the ${MAX_BODY_BYTES / 1024} KB limit of a delivery's body: not imported`;
    // Said once in the log, not at every pass that lists the event again.
    const said = await db.delivery.findFirst({ where: { webhookId: target.webhookId, deliveryId: identity.deliveryId, status: 'rejected_too_large' }, select: { id: true } });
    if (!said) await recordRejected({ webhookId: target.webhookId, status: 'rejected_too_large', identity, size, detail, remoteAddress: null });
    return { status: 'refused', detail };
  }
  const { outcome } = await acceptDelivery(webhook, {
    identity,
    size,
    json: { text, value: payload },
    header: () => null,
    stored: {},
    signatureHeaders: null,
    remoteAddress: null,
    origin: `${target.module.scheme}_import`,
  });
  if (outcome.limited) throw new Error('the webhook’s rate limit refused the import');
  return { status: outcome.status, runs: outcome.runs };
}
