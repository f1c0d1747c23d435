'use server';

import { publicAction } from '@/lib/actions/action';
import { env } from '@/lib/env';
import { AppError } from '@/lib/http/errors';
import { completeFirstRun, createUser } from '@/lib/users/service';
import { firstRunSchema, signUpSchema } from '@/lib/users/schemas';

// The browser signs in with the same credentials right after these succeed.

export const completeFirstRunAction = publicAction(firstRunSchema, async (input) => {
  const { factory } = await completeFirstRun(input);
  return { factorySlug: factory.slug };
});

export const signUpAction = publicAction(signUpSchema, async (input) => {
  if (!env().allowSignup) throw new AppError('forbidden', 'Sign-up is closed on this Tripline. Ask an admin for an account.');
  await createUser(input);
  return null;
});
