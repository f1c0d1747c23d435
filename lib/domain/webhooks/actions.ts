'use server';

import { revalidatePath } from 'next/cache';
import { headers } from 'next/headers';
import { z } from 'zod';
import { factoryAction } from '@/lib/adapters/actions/action';
import { listDeliveries } from '@/lib/domain/deliveries/service';
import { revealHandshakeToken } from '@/lib/domain/webhooks/handshake-token';
import {
  createWebhookSchema,
  customResponseChangeSchema,
  eventTypeSettingFormSchema,
  expectedIntervalSchema,
  ipAllowlistFormSchema,
  providerSecretSchema,
  webhookUidSchema,
} from '@/lib/domain/webhooks/schemas';
import { allowlistAdmits, compileAllowlist } from '@/lib/ingress/allowlist-match';
import { clientAddress } from '@/lib/platform/entry/client-address';
import {
  createWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  setCustomResponse,
  setEventTypeSetting,
  setExpectedInterval,
  setIpAllowlist,
  setProviderSecret,
  setWebhookEnabled,
} from '@/lib/domain/webhooks/service';

// Dashboard adapters over lib/domain/webhooks/service.ts. Every webhook operation
// needs the admin role (managing the factory's configuration).

const webhooksPath = (slug: string) => `/f/${slug}/automations/webhooks`;

export const createWebhookAction = factoryAction('factory:manage', createWebhookSchema, async ({ factory }, input) => {
  const result = await createWebhook(factory.id, input);
  revalidatePath(webhooksPath(factory.slug), 'layout');
  return {
    uid: result.webhook.uid,
    secret: result.secret,
    ingressUrl: result.ingressUrl,
    secretName: result.webhook.secretName,
    state: result.webhook.state,
  };
});

export const setWebhookEnabledAction = factoryAction(
  'factory:manage',
  webhookUidSchema.extend({ enabled: z.boolean() }),
  async ({ factory }, input) => {
    await setWebhookEnabled(factory.id, input.uid, input.enabled);
    revalidatePath(webhooksPath(factory.slug), 'layout');
    return null;
  },
);

export const setExpectedIntervalAction = factoryAction(
  'factory:manage',
  webhookUidSchema.extend({ expectedIntervalSeconds: expectedIntervalSchema }),
  async ({ factory }, input) => {
    await setExpectedInterval(factory.id, input.uid, input.expectedIntervalSeconds);
    revalidatePath(webhooksPath(factory.slug), 'layout');
    return null;
  },
);

export const setEventTypeSettingAction = factoryAction(
  'factory:manage',
  webhookUidSchema.and(eventTypeSettingFormSchema),
  async ({ factory }, input) => {
    await setEventTypeSetting(factory.id, input.uid, { eventTypeHeader: input.eventTypeHeader, eventTypePath: input.eventTypePath });
    revalidatePath(webhooksPath(factory.slug), 'layout');
    return null;
  },
);

export const setCustomResponseAction = factoryAction(
  'factory:manage',
  webhookUidSchema.extend(customResponseChangeSchema.shape),
  async ({ factory }, input) => {
    await setCustomResponse(factory.id, input.uid, input.customResponse);
    revalidatePath(webhooksPath(factory.slug), 'layout');
    return null;
  },
);

export const rotateWebhookSecretAction = factoryAction('factory:manage', webhookUidSchema, async ({ factory }, input) => {
  const result = await rotateWebhookSecret(factory.id, input.uid);
  revalidatePath(webhooksPath(factory.slug), 'layout');
  return { secret: result.secret, ingressUrl: result.ingressUrl };
});

export const setProviderSecretAction = factoryAction(
  'factory:manage',
  webhookUidSchema.extend(providerSecretSchema.shape),
  async ({ factory }, input) => {
    await setProviderSecret(factory.id, input.uid, { secret: input.secret });
    revalidatePath(webhooksPath(factory.slug), 'layout');
    return null;
  },
);

export const deleteWebhookAction = factoryAction('factory:manage', webhookUidSchema, async ({ factory }, input) => {
  await deleteWebhook(factory.id, input.uid);
  revalidatePath(webhooksPath(factory.slug), 'layout');
  return null;
});

/** The newest log entry, for the creation page that waits for the first delivery (polled). */
export const latestDeliveryAction = factoryAction('factory:read', webhookUidSchema, async ({ factory }, input) => {
  const [latest] = (await listDeliveries(factory.id, input.uid, { limit: 1 })).deliveries;
  return latest ? { id: latest.id, deliveryId: latest.deliveryId, status: latest.status, receivedAt: latest.receivedAt.toISOString(), detail: latest.detail } : null;
});

/** Notion's verification token, shown once to paste back into Notion. */
export const revealHandshakeTokenAction = factoryAction('factory:manage', webhookUidSchema, async ({ factory }, input) => {
  // No revalidation: the page must keep the alert that now holds the token in the browser.
  return { token: await revealHandshakeToken(factory.id, input.uid) };
});

/**
 * The IP allowlist. A list that would refuse the address the admin is using
 * now is not saved at once: the answer names the address, and the form asks
 * before saving it with confirmOutsideAddress.
 */
export const setIpAllowlistAction = factoryAction('factory:manage', webhookUidSchema.and(ipAllowlistFormSchema), async ({ factory }, input) => {
  const address = clientAddress(await headers());
  if (!input.confirmOutsideAddress && !allowlistAdmits(compileAllowlist(input.ipAllowlist), address)) return { outsideAddress: address };
  await setIpAllowlist(factory.id, input.uid, input.ipAllowlist);
  revalidatePath(webhooksPath(factory.slug), 'layout');
  return { outsideAddress: null };
});
