'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { factoryAction } from '@/lib/adapters/actions/action';
import { previewJson } from '@/lib/domain/definitions/json';
import { applyRepository, previewRepository } from '@/lib/domain/definitions/repository';
import { repositoryApplySchema, repositoryCheckSchema } from '@/lib/domain/definitions/schemas';
import { setConfigSource } from '@/lib/domain/definitions/service';

// Dashboard adapters for a factory's definition settings: admins only, like
// every change to the factory's configuration.

const refresh = (slug: string) => revalidatePath(`/f/${slug}`, 'layout');

export const setConfigSourceAction = factoryAction(
  'factory:manage',
  z.object({ source: z.enum(['dashboard', 'managed']) }),
  async ({ factory }, input) => {
    await setConfigSource(factory.id, input.source);
    refresh(factory.slug);
    return null;
  },
);

/** Fetches the branch and shows what applying its newest commit would do. Without a repository: the factory's own. */
export const previewRepositoryAction = factoryAction('factory:manage', repositoryCheckSchema, async ({ factory, user }, input) =>
  previewJson(await previewRepository(factory.id, input.repository, { kind: 'user', userId: user.id })),
);

/** Applies the previewed commit: connecting a repository, or syncing the connected one. */
export const applyRepositoryAction = factoryAction('factory:manage', repositoryApplySchema, async ({ factory, user }, input) => {
  const result = await applyRepository(factory.id, input, { kind: 'user', userId: user.id });
  refresh(factory.slug);
  return result;
});
