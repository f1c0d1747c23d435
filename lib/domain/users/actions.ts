'use server';

import { headers } from 'next/headers';
import { publicAction } from '@/lib/adapters/actions/action';
import { withAddressBudget } from '@/lib/domain/auth/sign-in';
import { clientAddress } from '@/lib/platform/entry/client-address';
import { env } from '@/lib/platform/env';
import { AppError } from '@/lib/platform/http/errors';
import { completeFirstRun, createUser, needsFirstRun } from '@/lib/domain/users/service';
import { firstRunSchema, signUpClosedMessage, signUpSchema } from '@/lib/domain/users/schemas';

// The browser signs in with the same credentials right after these succeed.
// Both hash a password for someone not signed in: the client address's
// sign-in budget bounds how often (lib/domain/auth/sign-in.ts withAddressBudget).

export const completeFirstRunAction = publicAction(firstRunSchema, async (input) => {
  const { factory } = await withAddressBudget(clientAddress(await headers()), () => completeFirstRun(input));
  return { factorySlug: factory.slug };
});

// Open sign-up never says "this email has an account": a taken email gets a
// neutral message (see docs/security.md for what open sign-up still reveals).
const neutralRefusal = 'We could not create an account with these details. If you already have an account, sign in instead.';

export const signUpAction = publicAction(signUpSchema, async (input) => {
  // Checked here, not only on the page: the action is reachable without it.
  if (!env().allowSignup) throw new AppError('forbidden', signUpClosedMessage);
  if (await needsFirstRun()) throw new AppError('conflict', 'Tripline is not set up yet. Open the first-run page instead.');
  try {
    await withAddressBudget(clientAddress(await headers()), () => createUser(input));
  } catch (error) {
    if (error instanceof AppError && error.code === 'conflict') throw new AppError('conflict', neutralRefusal);
    throw error;
  }
  return null;
});
