import { afterAll, describe, expect, it } from 'vitest';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import { testDatabaseKinds } from '@/tests/support/databases';
import { migrationNamed, migrationsBefore, migrationsDir, openEmptyDatabase } from '@/tests/support/migration-history';

// Upgrading a database that has accounts: the oldest one becomes the instance
// admin, so an existing instance keeps someone who can run it.

const migration = migrationNamed('_instance_access_and_invitations');

describe.each(testDatabaseKinds())('the instance-admin migration on %s', (kind) => {
  const cleanups: Array<() => unknown> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('makes the oldest existing account the instance admin, and only it', async () => {
    const database = await openEmptyDatabase(kind, cleanups);
    const before = migrationsBefore(migration, cleanups);

    await applyPendingMigrations(database.adapter, { migrationsDir: before });
    for (const [id, email, createdAt] of [
      ['u2', 'second@example.com', '2026-02-01T00:00:00Z'],
      ['u1', 'first@example.com', '2026-01-01T00:00:00Z'],
      ['u3', 'third@example.com', '2026-03-01T00:00:00Z'],
    ]) {
      await database.prisma.$executeRawUnsafe(
        `INSERT INTO "User" (id, email, "passwordHash", "createdAt", "updatedAt") VALUES ($1, $2, 'x', $3::timestamp, now())`,
        id,
        email,
        createdAt,
      );
    }
    expect(await applyPendingMigrations(database.adapter, { migrationsDir })).toContain(migration);
    const admins = await database.prisma.user.findMany({ where: { instanceAdmin: true }, select: { email: true, disabledAt: true } });
    expect(admins).toEqual([{ email: 'first@example.com', disabledAt: null }]);
  });
});
