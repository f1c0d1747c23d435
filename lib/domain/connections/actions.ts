'use server';

import { revalidatePath } from 'next/cache';
import { factoryAction } from '@/lib/adapters/actions/action';
import { connectWebhookSchema, disconnectWebhookSchema } from '@/lib/domain/connections/schemas';
import { connectWebhook, disconnectWebhook, requestCheck } from '@/lib/domain/connections/service';
import { webhookUidSchema } from '@/lib/domain/webhooks/schemas';

// Dashboard adapters over lib/domain/connections/service.ts, the same
// operations as the API's PUT/DELETE .../connection and POST .../check.
// Admins only, like every change to a webhook.

const webhookPath = (slug: string, uid: string) => `/f/${slug}/automations/webhooks/${uid}`;

export const connectWebhookAction = factoryAction('factory:manage', webhookUidSchema.extend(connectWebhookSchema.shape), async ({ factory }, { uid, ...input }) => {
  const connection = await connectWebhook(factory.id, uid, input);
  revalidatePath(webhookPath(factory.slug, uid));
  return { providerHookId: connection.providerHookId };
});

export const disconnectWebhookAction = factoryAction('factory:manage', webhookUidSchema.extend(disconnectWebhookSchema.shape), async ({ factory }, { uid, ...input }) => {
  await disconnectWebhook(factory.id, uid, input);
  revalidatePath(webhookPath(factory.slug, uid));
  return null;
});

export const checkConnectionAction = factoryAction('factory:manage', webhookUidSchema, async ({ factory }, { uid }) => {
  await requestCheck(factory.id, uid);
  revalidatePath(webhookPath(factory.slug, uid));
  return null;
});
