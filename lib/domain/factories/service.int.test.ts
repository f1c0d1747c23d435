import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFactory, listFactoriesPage, pageOfFactoriesForUser, SWITCHER_FACTORIES, switcherFactories, type FactoryApiPage } from '@/lib/domain/factories/service';
import { FACTORIES_PER_API_PAGE } from '@/lib/domain/factories/schemas';
import { AppError } from '@/lib/platform/http/errors';
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
    const all = (await listFactoriesPage(userId, {}, database.prisma)).factories;
    expect(all).toHaveLength(count);
    const first = await pageOfFactoriesForUser(userId, 1, database.prisma, 10);
    expect(first).toMatchObject({ total: count, page: 1, pages: 3, perPage: 10 });
    const pages = [first, await pageOfFactoriesForUser(userId, 2, database.prisma, 10), await pageOfFactoriesForUser(userId, 3, database.prisma, 10)];
    expect(pages.flatMap((p) => p.rows.map((f) => f.slug))).toEqual(all.map((f) => f.slug));
    expect((await pageOfFactoriesForUser(userId, 99, database.prisma, 10)).page).toBe(3);
  });
});

/** Every page of a user's factories through the API's cursor, `limit` a page. */
async function cursorPages(userId: string, limit: number, db: TestDatabase['prisma'], between?: (page: FactoryApiPage) => Promise<void>): Promise<FactoryApiPage[]> {
  const pages: FactoryApiPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await listFactoriesPage(userId, { limit, cursor }, db);
    pages.push(page);
    await between?.(page);
    cursor = page.nextCursor ?? undefined;
    // Bounded: a cursor that never ends would be a bug, not a long list.
    if (pages.length > 100) throw new Error('more than 100 pages');
  } while (cursor);
  return pages;
}

// GET /api/v1/factories for an instance admin of many teams (issue 48: 1,000
// factories): a page at a time by a keyset cursor, never all at once.
describe.each(testDatabaseKinds())('the API list of 250 factories on %s', (kind) => {
  let database: TestDatabase;
  let userId: string;
  let otherId: string;
  const count = 250;
  // Names out of creation order, with pairs of equal names (the id orders them).
  const names = Array.from({ length: count }, (_, i) => `Team ${String((i * 37) % 200).padStart(3, '0')}`);

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    userId = (await createUser({ email: 'admin-of-many@example.com', password: 'a long enough password' }, database.prisma)).id;
    otherId = (await createUser({ email: 'other@example.com', password: 'a long enough password' }, database.prisma)).id;
    // In two statements: the factories themselves are not what is tested, and 250 creations take a minute on a busy machine.
    const made = await database.prisma.factory.createManyAndReturn({ data: names.map((name, i) => ({ name, slug: `many-${i}` })), select: { id: true } });
    await database.prisma.membership.createMany({ data: made.map(({ id }) => ({ factoryId: id, userId, role: 'admin' as const })) });
    await createFactory(otherId, { name: 'Team 000', slug: 'not-yours' }, database.prisma, 'everyone');
  });
  afterAll(() => database?.drop());

  it('pages are bounded, complete, in name order and stable', async () => {
    const first = await listFactoriesPage(userId, {}, database.prisma);
    expect(first.factories).toHaveLength(FACTORIES_PER_API_PAGE);
    expect(first.total).toBe(count);

    const pages = await cursorPages(userId, 60, database.prisma);
    expect(pages.map((p) => p.factories.length)).toEqual([60, 60, 60, 60, 10]);
    expect(pages.every((p) => p.total === count)).toBe(true);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    const slugs = pages.flatMap((p) => p.factories.map((f) => f.slug));
    // Complete: each of the user's factories once, none of another's.
    expect(new Set(slugs).size).toBe(count);
    expect(slugs).not.toContain('not-yours');
    // In name order (equal names next to each other), and the same order on any page size.
    const listed = pages.flatMap((p) => p.factories.map((f) => f.name));
    expect(listed).toEqual([...names].sort());
    expect((await cursorPages(userId, 7, database.prisma)).flatMap((p) => p.factories.map((f) => f.slug))).toEqual(slugs);
    expect((await cursorPages(userId, 100, database.prisma)).flatMap((p) => p.factories.map((f) => f.slug))).toEqual(slugs);
  });

  it('a factory created or left while a client pages neither repeats nor skips another', async () => {
    const before = (await cursorPages(userId, 100, database.prisma)).flatMap((p) => p.factories.map((f) => f.slug));
    let changed = false;
    const pages = await cursorPages(userId, 50, database.prisma, async (page) => {
      if (changed || page.nextCursor === null) return;
      changed = true;
      // One sorting before the page just read, one after it; and one already listed is left.
      await createFactory(userId, { name: 'AAA first', slug: 'aaa-first' }, database.prisma, 'everyone');
      await createFactory(userId, { name: 'Zzz last', slug: 'zzz-last' }, database.prisma, 'everyone');
      const left = await database.prisma.factory.findUniqueOrThrow({ where: { slug: page.factories[0]!.slug } });
      await database.prisma.membership.delete({ where: { factoryId_userId: { factoryId: left.id, userId } } });
    });
    const slugs = pages.flatMap((p) => p.factories.map((f) => f.slug));
    expect(new Set(slugs).size).toBe(slugs.length);
    // Every factory listed before is listed once; the one created past the cursor too, the one before it on the next walk.
    expect(slugs.slice(0, 50)).toEqual(before.slice(0, 50));
    expect(slugs.slice(50)).toEqual([...before.slice(50), 'zzz-last']);
    expect(pages.at(-1)!.total).toBe(count + 1);
  });

  it('refuses a cursor it did not make and a limit past the bound, naming the parameter', async () => {
    for (const cursor of ['not-a-cursor', Buffer.from('["a"]').toString('base64url'), Buffer.from('["\u0000", "x"]').toString('base64url')]) {
      const refused = await listFactoriesPage(userId, { cursor }, database.prisma).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: 'validation_failed', fields: { cursor: 'Use the nextCursor of a previous page' } });
    }
    for (const limit of [0, 101]) await expect(listFactoriesPage(userId, { limit }, database.prisma)).rejects.toThrow(/limit must be 1 to 100/);
  });
});
