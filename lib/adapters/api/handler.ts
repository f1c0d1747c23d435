import 'server-only';
import { createHash } from 'node:crypto';
import { getServerSession } from 'next-auth';
import type { z } from 'zod';
import { authenticateApiToken } from '@/lib/domain/api-tokens/service';
import { serverSessionOptions } from '@/lib/domain/auth/options';
import { getSessionUser } from '@/lib/domain/auth/sessions';
import { authorizeFactory, type FactoryContext } from '@/lib/domain/auth/guard';
import type { Permission } from '@/lib/domain/auth/roles';
import { declaredTooLarge, readBodyWithLimit } from '@/lib/platform/http/body';
import { AppError, errorResponse } from '@/lib/platform/http/errors';
import type { PublicUser } from '@/lib/domain/users/service';
import { bearerToken } from '@/lib/platform/http/bearer';
import { refuseUnsafeBody, refuseUnsafeUrl } from '@/lib/platform/http/unsafe-input';

// Every /api/v1 route handler is wrapped once: bearer-token authentication,
// the factory role check and error mapping happen here, not in each route.

type RouteContext<P> = { params: Promise<P> };

const authenticateHeader = { 'WWW-Authenticate': 'Bearer realm="tripline"' };

/**
 * Who is calling, for limits counted per caller: an API token or a
 * dashboard session, as a hash (never the token or the session's id).
 */
export type Caller = { kind: 'token' | 'session'; key: string };

const hashed = (kind: Caller['kind'], value: string): Caller => ({ kind, key: `${kind}:${createHash('sha256').update(value).digest('base64url')}` });

/** `again`: the same check later (the account, now), for a response that outlives its request (a log stream); null once refused. */
type Authenticated = { user: PublicUser; caller: Caller; again: () => Promise<PublicUser | null> };

async function authenticate(request: Request, options: { session?: boolean } = {}): Promise<Authenticated> {
  const token = bearerToken(request.headers);
  if (!token && options.session) {
    // Read-only GET routes that the dashboard reads too accept its session cookie (never for writes: no CSRF to guard).
    const session = await getServerSession(serverSessionOptions());
    const sid = session?.sid;
    const user = sid ? await getSessionUser(sid) : null;
    if (user && sid) return { user, caller: hashed('session', sid), again: () => getSessionUser(sid) };
  }
  if (!token) throw new AppError('unauthorized', 'Send an API token as "Authorization: Bearer <token>"');
  const user = await authenticateApiToken(token);
  if (!user) throw new AppError('unauthorized', 'The API token is invalid or was revoked');
  return { user, caller: hashed('token', token), again: () => authenticateApiToken(token) };
}

function respond(error: unknown): Response {
  return errorResponse(error, error instanceof AppError && error.code === 'unauthorized' ? authenticateHeader : undefined);
}

/** The largest management API body: the biggest real one (definition files for 20 webhooks) is a few kilobytes. */
export const MAX_API_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new AppError('payload_too_large', `The request body is larger than ${MAX_API_BODY_BYTES.toLocaleString('en')} bytes (1 MB)`);

/**
 * The JSON body of an /api/v1 request: every route reads its body here, and
 * only after the wrapper authenticated the caller. A declared Content-Length
 * over 1 MB is refused before anything is read; a streamed body is read
 * chunk by chunk and abandoned as soon as it passes the limit. Any string
 * holding a NUL character or a lone surrogate, and any number past 2^53, is
 * refused with a 422 naming the field (lib/platform/http/unsafe-input.ts).
 */
export async function readJson(request: Request): Promise<unknown> {
  if (declaredTooLarge(request.headers, MAX_API_BODY_BYTES) !== null) throw tooLarge();
  const read = await readBodyWithLimit(request.body, MAX_API_BODY_BYTES);
  if (!read.ok) throw tooLarge();
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(read.bytes)) as unknown;
  } catch {
    throw new AppError('bad_request', 'The request body must be valid JSON');
  }
  // No NUL, lone surrogate or inexact number reaches a schema or the database.
  refuseUnsafeBody(body);
  return body;
}

/** A route handler for a signed-in API user. */
export function withUser<P = Record<string, never>>(
  handler: (args: { request: Request; user: PublicUser; params: P }) => Promise<Response>,
) {
  return async (request: Request, context: RouteContext<P>): Promise<Response> => {
    try {
      const { user } = await authenticate(request);
      const params = await context.params;
      refuseUnsafeUrl((params ?? {}) as Record<string, string>, new URL(request.url));
      return await handler({ request, user, params });
    } catch (error) {
      return respond(error);
    }
  };
}

type FactoryParams = { factory: string };
/**
 * `reauthorize`: the caller's token or session and its role checked again, as
 * at the request's start (an AppError once either is gone), for a response
 * that outlives its request: a log stream re-checks while it is open.
 */
type FactoryHandler<P, I> = (args: { request: Request; context: FactoryContext; params: P; input: I; caller: Caller; reauthorize: () => Promise<FactoryContext> }) => Promise<Response>;

/** `session`: a GET route that also accepts the dashboard's session cookie when no token is sent. */
type FactoryOptions = { session?: boolean };

/**
 * The input of a route that declares a schema: the query string of a GET
 * (the first value of each parameter), otherwise the JSON body read through
 * readJson. A ZodError from the schema becomes a 422 with field errors.
 */
async function readInput(request: Request, schema: z.ZodType): Promise<unknown> {
  if (request.method === 'GET' || request.method === 'HEAD') {
    const search = new URL(request.url).searchParams;
    return schema.parse(Object.fromEntries([...new Set(search.keys())].map((key) => [key, search.get(key)])));
  }
  return schema.parse(await readJson(request));
}

/**
 * A route handler under /api/v1/factories/{factory}/... that needs a permission
 * there. With a schema, the handler receives `input` already parsed (the JSON
 * body, or the query string of a GET), as factoryAction's handlers do.
 *
 * Route parameters other than {factory} are named with the generic:
 * `withFactory<Params>(permission, handler)`, or with a schema
 * `withFactory<typeof schema, Params>(permission, schema, handler)` (TypeScript
 * infers all of a call's type arguments or none).
 */
export function withFactory<P extends FactoryParams = FactoryParams>(
  permission: Permission,
  handler: FactoryHandler<P, undefined>,
): (request: Request, routeContext: RouteContext<P>) => Promise<Response>;
export function withFactory<S extends z.ZodType, P extends FactoryParams = FactoryParams>(
  permission: Permission,
  schema: S,
  handler: FactoryHandler<P, z.output<S>>,
  options?: FactoryOptions,
): (request: Request, routeContext: RouteContext<P>) => Promise<Response>;
export function withFactory<P extends FactoryParams>(
  permission: Permission,
  schemaOrHandler: z.ZodType | FactoryHandler<P, never>,
  maybeHandler?: FactoryHandler<P, never>,
  options: FactoryOptions = {},
) {
  const schema = typeof schemaOrHandler === 'function' ? undefined : schemaOrHandler;
  const handler = (typeof schemaOrHandler === 'function' ? schemaOrHandler : maybeHandler) as FactoryHandler<P, unknown>;
  return async (request: Request, routeContext: RouteContext<P>): Promise<Response> => {
    try {
      const { user, caller, again } = await authenticate(request, { session: options.session && (request.method === 'GET' || request.method === 'HEAD') });
      const params = await routeContext.params;
      // Path and query values that no field can hold are refused before any lookup.
      refuseUnsafeUrl(params, new URL(request.url));
      const context = await authorizeFactory(user, params.factory, permission);
      const input = schema ? await readInput(request, schema) : undefined;
      const reauthorize = async () => {
        const now = await again();
        if (!now) throw new AppError('unauthorized', 'The API token or session was revoked, or its account disabled');
        return authorizeFactory(now, params.factory, permission);
      };
      return await handler({ request, context, params, input, caller, reauthorize });
    } catch (error) {
      return respond(error);
    }
  };
}
