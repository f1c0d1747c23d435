import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { verifyKeyFingerprints } from '@/lib/platform/db/prepare';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { readiness } from '@/lib/server/readiness';
import { setPhase } from '@/lib/server/lifecycle';

// What /readyz answers, on both databases: ready once started with its
// migrations applied and its keys matching the database; otherwise the reason.
// (e2e/lifecycle/readiness.spec.ts stops a real PostgreSQL under a server.)

describe.each(testDatabaseKinds())('readiness on %s', (kind) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    await verifyKeyFingerprints(database);
    setDatabase(database);
    setPhase('starting');
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  it('is not ready while starting, and ready once started', async () => {
    expect(await readiness()).toEqual({ ready: false, reason: 'starting' });
    setPhase('ready');
    expect(await readiness()).toEqual({ ready: true });
  });

  it('names a migration of this build that the database has not applied', async () => {
    const [row] = await database.prisma.$queryRawUnsafe<{ migration_name: string }[]>(
      `SELECT migration_name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1`,
    );
    await database.prisma.$executeRawUnsafe(`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = $1`, row!.migration_name);
    expect(await readiness()).toEqual({ ready: false, reason: `migrations not applied: ${row!.migration_name}` });
    await database.prisma.$executeRawUnsafe(`UPDATE _prisma_migrations SET finished_at = now() WHERE migration_name = $1`, row!.migration_name);
    expect(await readiness()).toEqual({ ready: true });
  });

  it('names the key that differs from the one the database was set up with', async () => {
    await database.prisma.instanceSetting.update({ where: { key: 'auth-secret-fingerprint' }, data: { value: 'another' } });
    expect(await readiness()).toEqual({ ready: false, reason: 'TRIPLINE_AUTH_SECRET differs from the database' });
  });
});
