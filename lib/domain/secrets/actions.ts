'use server';

import { revalidatePath } from 'next/cache';
import { factoryAction } from '@/lib/adapters/actions/action';
import { createSecretSchema, deleteSecretSchema, replaceSecretSchema } from '@/lib/domain/secrets/schemas';
import { createSecret, deleteSecret, replaceSecretValue } from '@/lib/domain/secrets/service';

// Team secrets are factory configuration: admins only. Values are write-only.

export const createSecretAction = factoryAction('factory:manage', createSecretSchema, async ({ factory }, input) => {
  await createSecret(factory.id, input);
  revalidatePath(`/f/${factory.slug}`, 'layout');
  return null;
});

export const replaceSecretAction = factoryAction('factory:manage', replaceSecretSchema, async ({ factory }, input) => {
  await replaceSecretValue(factory.id, input.name, input.value);
  revalidatePath(`/f/${factory.slug}`, 'layout');
  return null;
});

export const deleteSecretAction = factoryAction('factory:manage', deleteSecretSchema, async ({ factory }, input) => {
  await deleteSecret(factory.id, input.name);
  revalidatePath(`/f/${factory.slug}`, 'layout');
  return null;
});
