import { afterAll, beforeAll } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { createUser } from '@/lib/domain/users/service';
import { handleIngress } from '@/lib/ingress/pipeline';
import { createTestDatabase, type TestDatabase, type TestDatabaseKind } from '@/tests/support/databases';

// The setup most service-and-ingress integration files share: a fresh
// database of the kind, installed as the process's database (the ingress and
// the services read it), one user and their factory; dropped after the file.

export type FactoryDatabase = { database: TestDatabase; userId: string; factoryId: string };

/** Registers the file's beforeAll/afterAll; the returned object is filled in before the first test. */
export function useFactoryDatabase(kind: TestDatabaseKind, name: string): FactoryDatabase {
  const state = {} as FactoryDatabase;
  beforeAll(async () => {
    state.database = await createTestDatabase(kind);
    setDatabase(state.database);
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    state.userId = (await createUser({ email: `${slug}@example.com`, password: 'a long enough password' }, state.database.prisma)).id;
    state.factoryId = (await createFactory(state.userId, { name, slug }, state.database.prisma)).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await state.database?.drop();
  });
  return state;
}

/** A JSON delivery to the webhook through the ingress, as the route handler passes it. */
export function postJson(uid: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return handleIngress(
    new Request(`http://localhost/webhooks/w/${uid}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    { uid },
  );
}
