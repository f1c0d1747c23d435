import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFactory, listFactoriesForUser, pageOfFactoriesForUser, SWITCHER_FACTORIES, switcherFactories } from '@/lib/domain/factories/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// A person in many factories: the switcher on every page lists the first 20 by
// name and how many there are; /factories pages through all of them.

describe.each(testDatabaseKinds())('the factories of a person in many on %s', (kind) => {
  let database: TestDatabase;
  let userId: string;
  const count = SWITCHER_FACTORIES + 5;
  // Names that sort differently from their creation order.
  const names = Array.from({ length: count }, (_, i) => `Team ${String((i * 7) % count).padStart(2, '0')}`);

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    userId = (await createUser({ email: 'many@example.com', password: 'a long enough password' }, database.prisma)).id;
    for (const [i, name] of names.entries()) await createFactory(userId, { name, slug: `team-${i}` }, database.prisma, 'everyone');
  });
  afterAll(() => database?.drop());

  it('the switcher gets the first 20 by name and the total', async () => {
    const { factories, total } = await switcherFactories(userId, database.prisma);
    expect(total).toBe(count);
    expect(factories.map((f) => f.name)).toEqual([...names].sort().slice(0, SWITCHER_FACTORIES));
    expect(factories.every((f) => f.role === 'admin')).toBe(true);
  });

  it('the list pages through every one of them in the same order', async () => {
    const all = await listFactoriesForUser(userId, database.prisma);
    const first = await pageOfFactoriesForUser(userId, 1, database.prisma, 10);
    expect(first).toMatchObject({ total: count, page: 1, pages: 3, perPage: 10 });
    const pages = [first, await pageOfFactoriesForUser(userId, 2, database.prisma, 10), await pageOfFactoriesForUser(userId, 3, database.prisma, 10)];
    expect(pages.flatMap((p) => p.rows.map((f) => f.slug))).toEqual(all.map((f) => f.slug));
    expect((await pageOfFactoriesForUser(userId, 99, database.prisma, 10)).page).toBe(3);
  });
});
