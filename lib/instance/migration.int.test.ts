import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@/lib/db';
import { applyPendingMigrations } from '@/lib/db/migrate';
import { testDatabaseKinds } from '@/lib/testing/databases';
import { createPostgresDatabase } from '@/lib/testing/postgres';

// Upgrading a database that has accounts: the oldest one becomes the instance
// admin, so an existing instance keeps someone who can run it.

const migrationsDir = path.resolve('prisma/migrations');
const migration = fs.readdirSync(migrationsDir).find((name) => name.endsWith('_instance_access_and_invitations'))!;

/** A copy of the migrations folder that stops just before `migration`. */
function historyBefore(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-migrations-'));
  for (const entry of fs.readdirSync(migrationsDir)) {
    if (entry >= migration) continue;
    fs.cpSync(path.join(migrationsDir, entry), path.join(dir, entry), { recursive: true });
  }
  return dir;
}

describe.each(testDatabaseKinds())('the instance-admin migration on %s', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('makes the oldest existing account the instance admin, and only it', async () => {
    let database: Database;
    if (kind === 'pglite') {
      database = openDatabase({ kind: 'memory' });
    } else {
      const created = await createPostgresDatabase();
      cleanups.push(created.drop);
      database = openDatabase({ kind: 'postgres', url: created.url }, { poolSize: 2 });
    }
    cleanups.push(database.close);
    const before = historyBefore();
    cleanups.push(async () => fs.rmSync(before, { recursive: true, force: true }));

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
