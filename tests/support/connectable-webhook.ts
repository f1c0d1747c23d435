import type { FactoryDatabase } from '@/tests/support/factory-database';

// The setting every connection test starts from (GitHub, GitLab, Stripe): a
// signature webhook in the test's factory, the team secrets its connection
// will name, and an automation whose trigger matches on the webhook. The
// services are imported when called, not with this module: each test first
// points the ingress URL at its own server, before anything reads env().

export type ConnectableWebhook = {
  uid: string;
  webhookId: string;
  automationId: string;
  /** The webhook's connection's ID, once connected. */
  connectionId: () => Promise<string>;
  /** The webhook's accepted log entries (of one event type, when given). */
  accepted: (eventType?: string) => Promise<Array<{ id: string; deliveryId: string; origin: string | null }>>;
};

export async function connectableWebhook(
  state: FactoryDatabase,
  setting: { name: string; scheme: 'github' | 'gitlab' | 'stripe'; secrets: Record<string, string>; automation: { name: string; prompt: string; filter: Record<string, unknown> } },
): Promise<ConnectableWebhook> {
  const { createWebhook } = await import('@/lib/domain/webhooks/service');
  const { createSecret } = await import('@/lib/domain/secrets/service');
  const { createAutomation } = await import('@/lib/domain/automations/service');
  const db = state.database.prisma;
  for (const [name, value] of Object.entries(setting.secrets)) await createSecret(state.factoryId, { name, value }, db);
  const created = await createWebhook(state.factoryId, { name: setting.name, authMode: 'signature', signatureScheme: setting.scheme }, db);
  const uid = created.webhook.uid;
  const webhookId = (await db.webhook.findUniqueOrThrow({ where: { uid } })).id;
  const { name, prompt, filter } = setting.automation;
  const automation = await createAutomation(state.factoryId, { name, prompt, triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid], ...filter } }] }, db);
  return {
    uid,
    webhookId,
    automationId: automation.id,
    connectionId: async () => (await db.webhookConnection.findUniqueOrThrow({ where: { webhookId } })).id,
    accepted: (eventType) => db.delivery.findMany({ where: { webhookId, status: 'accepted', ...(eventType ? { eventType } : {}) }, select: { id: true, deliveryId: true, origin: true } }),
  };
}
