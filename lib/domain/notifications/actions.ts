'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { factoryAction } from '@/lib/adapters/actions/action';
import { createDestinationSchema, updateDestinationSchema } from '@/lib/domain/notifications/schemas';
import { createDestination, deleteDestination, sendTestNotification, setDestinationEnabled } from '@/lib/domain/notifications/service';

// Dashboard adapters over lib/domain/notifications/service.ts: admins only.

const settingsPath = (slug: string) => `/f/${slug}/settings`;
const destinationId = z.object({ id: z.string().min(1).max(64) });

export const createDestinationAction = factoryAction('factory:manage', createDestinationSchema, async ({ factory }, input) => {
  const { destination, secret } = await createDestination(factory.id, input);
  revalidatePath(settingsPath(factory.slug));
  return { id: destination.id, secret };
});

export const deleteDestinationAction = factoryAction('factory:manage', destinationId, async ({ factory }, input) => {
  await deleteDestination(factory.id, input.id);
  revalidatePath(settingsPath(factory.slug));
  return null;
});

export const sendTestNotificationAction = factoryAction('factory:manage', destinationId, async ({ factory }, input) => {
  const eventId = await sendTestNotification(factory.id, input.id, factory);
  revalidatePath(settingsPath(factory.slug));
  return { eventId };
});

export const setDestinationEnabledAction = factoryAction('factory:manage', destinationId.extend(updateDestinationSchema.shape), async ({ factory }, input) => {
  await setDestinationEnabled(factory.id, input.id, input.enabled);
  revalidatePath(settingsPath(factory.slug));
  return null;
});
