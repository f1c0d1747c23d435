import { healthJson } from '@/lib/domain/health/json';
import type { WebhookView } from '@/lib/domain/webhooks/service';

/** A webhook as the management API returns it. Never contains a secret. */
export function webhookJson(webhook: WebhookView) {
  return {
    uid: webhook.uid,
    name: webhook.name,
    authMode: webhook.authMode,
    signatureScheme: webhook.signatureScheme,
    secretName: webhook.secretName,
    deliveryIdHeader: webhook.deliveryIdHeader,
    eventTypeHeader: webhook.eventTypeHeader,
    eventTypePath: webhook.eventTypePath,
    enabled: webhook.enabled,
    ingressUrl: webhook.ingressUrl,
    createdAt: webhook.createdAt.toISOString(),
    state: webhook.state,
    awaitingSecret: webhook.awaitingSecret,
    secretChangePending: webhook.secretChangePending,
    lastDeliveryAt: webhook.lastDeliveryAt?.toISOString() ?? null,
    expectedIntervalSeconds: webhook.expectedIntervalSeconds,
    ipAllowlist: webhook.ipAllowlist,
    customResponse: webhook.customResponse,
    health: healthJson(webhook.health),
  };
}
