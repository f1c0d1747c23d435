import 'server-only';
import type { z } from 'zod';
import { authorizeFactory, type FactoryContext } from '@/lib/domain/auth/guard';
import { getCurrentUser } from '@/lib/domain/auth/current-user';
import type { Permission } from '@/lib/domain/auth/roles';
import { AppError, errorBody, toAppError, type ErrorBody } from '@/lib/platform/http/errors';
import type { PublicUser } from '@/lib/domain/users/service';
import { errorFields, log } from '@/lib/platform/log';
import { refuseUnsafeBody, unsafeText } from '@/lib/platform/http/unsafe-input';

// Server actions go through these wrappers, so authentication, the role
// check, input validation and error mapping cannot be forgotten. Actions
// return a result instead of throwing: forms show `error.fields` next to
// their fields and `error.message` above them.

export type ActionResult<T = undefined> = { ok: true; data: T } | ({ ok: false } & ErrorBody);

function failure(error: unknown): ActionResult<never> {
  const appError = toAppError(error);
  if (appError.code === 'internal') log('actions').error(errorFields(error), 'server action failed');
  return { ok: false, ...errorBody(appError) };
}

/** The input through the same boundary as the API's bodies (no NUL, lone surrogate or inexact number), then its schema. */
function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  refuseUnsafeBody(input);
  return schema.parse(input);
}

async function currentUserOrThrow(): Promise<PublicUser> {
  const user = await getCurrentUser();
  if (!user) throw new AppError('unauthorized', 'Your session has ended. Sign in again.');
  return user;
}

/** An action for a signed-in user. */
export function userAction<S extends z.ZodType, R>(
  schema: S,
  handler: (user: PublicUser, input: z.output<S>) => Promise<R>,
): (input: z.input<S>) => Promise<ActionResult<R>> {
  return async (input) => {
    try {
      const user = await currentUserOrThrow();
      return { ok: true, data: await handler(user, parse(schema, input)) };
    } catch (error) {
      return failure(error);
    }
  };
}

/** An action inside a factory that needs a permission there. */
export function factoryAction<S extends z.ZodType, R>(
  permission: Permission,
  schema: S,
  handler: (context: FactoryContext, input: z.output<S>) => Promise<R>,
): (factorySlug: string, input: z.input<S>) => Promise<ActionResult<R>> {
  return async (factorySlug, input) => {
    try {
      const user = await currentUserOrThrow();
      if (unsafeText(String(factorySlug))) throw new AppError('not_found', 'No such factory');
      const context = await authorizeFactory(user, String(factorySlug), permission);
      return { ok: true, data: await handler(context, parse(schema, input)) };
    } catch (error) {
      return failure(error);
    }
  };
}

/** An action for instance admins (the Instance page). */
export function instanceAction<S extends z.ZodType, R>(
  schema: S,
  handler: (user: PublicUser, input: z.output<S>) => Promise<R>,
): (input: z.input<S>) => Promise<ActionResult<R>> {
  return async (input) => {
    try {
      const user = await currentUserOrThrow();
      if (!user.instanceAdmin) throw new AppError('forbidden', 'Only instance admins can do this');
      return { ok: true, data: await handler(user, parse(schema, input)) };
    } catch (error) {
      return failure(error);
    }
  };
}

/** An action anyone may call (sign-up, first run): validation and error mapping only. */
export function publicAction<S extends z.ZodType, R>(
  schema: S,
  handler: (input: z.output<S>) => Promise<R>,
): (input: z.input<S>) => Promise<ActionResult<R>> {
  return async (input) => {
    try {
      return { ok: true, data: await handler(parse(schema, input)) };
    } catch (error) {
      return failure(error);
    }
  };
}
