import type { PrismaClient } from '@/lib/generated/prisma/client';

/**
 * Makes the database refuse every insert and update of `table`, with an error
 * naming the test, until the returned function is called: a real failure of
 * the database in the middle of a step (PostgreSQL and PGlite alike), where a
 * mocked client would only show what the mock was told to do.
 */
export async function refuseWrites(db: Pick<PrismaClient, '$executeRawUnsafe'>, table: string): Promise<() => Promise<void>> {
  await db.$executeRawUnsafe(`CREATE FUNCTION refuse_writes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'writes to ${table} refused by the test'; END $$`);
  await db.$executeRawUnsafe(`CREATE TRIGGER refuse_writes BEFORE INSERT OR UPDATE ON "${table}" FOR EACH ROW EXECUTE FUNCTION refuse_writes()`);
  return async () => {
    await db.$executeRawUnsafe(`DROP TRIGGER refuse_writes ON "${table}"`);
    await db.$executeRawUnsafe('DROP FUNCTION refuse_writes()');
  };
}
