'use server';

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { userAction } from '@/lib/adapters/actions/action';
import { createApiTokenSchema } from '@/lib/domain/api-tokens/schemas';
import { createApiToken, revokeApiToken } from '@/lib/domain/api-tokens/service';

export const createApiTokenAction = userAction(createApiTokenSchema, async (user, input) => {
  const { token, apiToken } = await createApiToken(user.id, input);
  revalidatePath('/settings');
  // The only time the token is shown.
  return { token, name: apiToken.name };
});

export const revokeApiTokenAction = userAction(z.object({ id: z.string().min(1) }), async (user, input) => {
  await revokeApiToken(user.id, input.id);
  revalidatePath('/settings');
  return null;
});
