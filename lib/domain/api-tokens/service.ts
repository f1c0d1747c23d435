import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import { prisma, type Db, type DbOrTx } from '@/lib/platform/db';
import { createApiTokenSchema, MAX_API_TOKENS_PER_USER, type CreateApiTokenInput } from '@/lib/domain/api-tokens/schemas';
import { AppError } from '@/lib/platform/http/errors';
import { publicUserSelect, type PublicUser } from '@/lib/domain/users/service';

// Personal API tokens for /api/v1. A token is 256 random bits with a
// recognisable prefix (so secret scanners can find leaked ones); only its
// SHA-256 is stored. Looking a token up by its hash is safe against timing
// attacks: the attacker does not control the hash being compared.

const TOKEN_PREFIX = 'trl_';

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export type ApiTokenSummary = { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null };

const summary = { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true } as const;

/**
 * Creates a token; the returned `token` is the only time it exists in clear.
 * An account holds at most MAX_API_TOKENS_PER_USER (409 past it, from the
 * dashboard and the CLI alike).
 */
export async function createApiToken(
  userId: string,
  input: CreateApiTokenInput,
  db: Db = prisma,
): Promise<{ token: string; apiToken: ApiTokenSummary }> {
  const data = createApiTokenSchema.parse(input);
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const apiToken = await db.$transaction(async (tx) => {
    // The user row's lock serialises an account's creations, so the bound holds under concurrent requests on any instance.
    await tx.$queryRawUnsafe('SELECT "id" FROM "User" WHERE "id" = $1 FOR UPDATE', userId);
    if ((await tx.apiToken.count({ where: { userId } })) >= MAX_API_TOKENS_PER_USER) {
      throw new AppError(
        'conflict',
        `This account already has ${MAX_API_TOKENS_PER_USER} API tokens, the most one account may have. Revoke one it no longer uses (Settings, API tokens) to create another.`,
      );
    }
    return tx.apiToken.create({
      data: { userId, name: data.name, tokenHash: hashApiToken(token), prefix: token.slice(0, TOKEN_PREFIX.length + 6) },
      select: summary,
    });
  });
  return { token, apiToken };
}

export async function listApiTokens(userId: string, db: DbOrTx = prisma): Promise<ApiTokenSummary[]> {
  return db.apiToken.findMany({ where: { userId }, select: summary, orderBy: { createdAt: 'desc' } });
}

export async function revokeApiToken(userId: string, tokenId: string, db: DbOrTx = prisma): Promise<void> {
  const { count } = await db.apiToken.deleteMany({ where: { id: tokenId, userId } });
  if (count === 0) throw new AppError('not_found', 'This token does not exist or was already revoked');
}

// Update lastUsedAt at most once a minute per token.
const LAST_USED_RESOLUTION_MS = 60_000;

/** The user a bearer token belongs to, or null for an unknown, expired or malformed token, or a disabled account. */
export async function authenticateApiToken(token: string, db: DbOrTx = prisma): Promise<PublicUser | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashApiToken(token) },
    select: { id: true, expiresAt: true, lastUsedAt: true, user: { select: { ...publicUserSelect, disabledAt: true } } },
  });
  if (!row || (row.expiresAt && row.expiresAt <= new Date()) || row.user.disabledAt) return null;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.apiToken.updateMany({ where: { id: row.id }, data: { lastUsedAt: new Date() } });
  }
  const { disabledAt: _disabledAt, ...user } = row.user;
  return user;
}
