import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_API_TOKENS_PER_USER } from '@/lib/domain/api-tokens/schemas';
import { authenticateApiToken, createApiToken, listApiTokens, revokeApiToken } from '@/lib/domain/api-tokens/service';
import { createUser } from '@/lib/domain/users/service';
import type { AppError } from '@/lib/platform/http/errors';
import { appError } from '@/tests/support/app-error';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';

// The bound on an account's API tokens: each token has its own open-stream
// slots, so unlimited tokens would be unlimited streams for one member.

describe.each(testDatabaseKinds())('API tokens per account on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.drop());

  const refusal = `This account already has ${MAX_API_TOKENS_PER_USER} API tokens, the most one account may have. Revoke one it no longer uses (Settings, API tokens) to create another.`;

  it(`allows at most ${MAX_API_TOKENS_PER_USER} per account, even under concurrent creation; revoking one makes room`, async () => {
    const db = database.prisma;
    expect(MAX_API_TOKENS_PER_USER).toBe(25);
    const user = await createUser({ email: 'many-tokens@example.com', password: 'a long enough password' }, db);
    const other = await createUser({ email: 'one-token@example.com', password: 'a long enough password' }, db);
    for (let i = 0; i < 20; i++) await createApiToken(user.id, { name: `token ${i}` }, db);

    // Ten at once for the five places left: the user row's lock lets exactly five through.
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => createApiToken(user.id, { name: `burst ${i}` }, db)));
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as AppError);
    expect(refused).toHaveLength(5);
    for (const error of refused) expect([error.code, error.status, error.message]).toEqual(['conflict', 409, refusal]);
    expect(await db.apiToken.count({ where: { userId: user.id } })).toBe(MAX_API_TOKENS_PER_USER);

    const again = await appError(createApiToken(user.id, { name: 'one more' }, db));
    expect([again.status, again.message]).toEqual([409, refusal]);
    // Another account is not affected.
    const [newest] = await listApiTokens(user.id, db);
    expect(await createApiToken(other.id, { name: 'CI' }, db)).toMatchObject({ apiToken: { name: 'CI' } });

    await revokeApiToken(user.id, newest!.id, db);
    const { token } = await createApiToken(user.id, { name: 'after a revocation' }, db);
    expect(await authenticateApiToken(token, db)).toMatchObject({ id: user.id });
    await expect(createApiToken(user.id, { name: 'past the bound again' }, db)).rejects.toThrow(refusal);
  });
});
