'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { factoryAction } from '@/lib/actions/action';
import { planJson } from '@/lib/definitions/json';
import { connectRepository, previewRepository, syncRepository } from '@/lib/definitions/repository';
import { repositorySettingsSchema } from '@/lib/definitions/schemas';
import { setConfigSource } from '@/lib/definitions/service';

// Dashboard adapters for a factory's definition settings: admins only, like
// every change to the factory's configuration.

const refresh = (slug: string) => revalidatePath(`/f/${slug}`, 'layout');

const commitSchema = z.string().regex(/^[0-9a-f]{40,64}$/, 'Check the repository again');

export const setConfigSourceAction = factoryAction(
  'factory:manage',
  z.object({ source: z.enum(['dashboard', 'managed']) }),
  async ({ factory }, input) => {
    await setConfigSource(factory.id, input.source);
    refresh(factory.slug);
    return null;
  },
);

/** Fetches the branch and shows what applying its newest commit would do. Without settings: the factory's own repository. */
export const previewRepositoryAction = factoryAction(
  'factory:manage',
  z.object({ settings: repositorySettingsSchema.optional() }),
  async ({ factory, user }, input) => {
    const preview = await previewRepository(factory.id, input.settings, { kind: 'user', userId: user.id });
    return { commit: preview.commit, url: preview.url, branch: preview.branch, plan: planJson(preview.plan) };
  },
);

/** Applies the previewed commit: connecting a repository, or syncing the connected one. */
export const applyRepositoryAction = factoryAction(
  'factory:manage',
  z.object({ settings: repositorySettingsSchema.optional(), commit: commitSchema }),
  async ({ factory, user }, input) => {
    const by = { kind: 'user', userId: user.id } as const;
    if (input.settings) {
      const outcome = await connectRepository(factory.id, input.settings, by, input.commit);
      refresh(factory.slug);
      return { applied: outcome.ok, problems: outcome.plan.problems };
    }
    const result = await syncRepository(factory.id, { by, expectedCommit: input.commit, force: true });
    refresh(factory.slug);
    return { applied: result.status !== 'failed', problems: result.status === 'failed' ? result.failure.problems : [] };
  },
);
