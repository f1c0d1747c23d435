import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordApplyFailure } from '@/lib/domain/definitions/service';
import { createFactory } from '@/lib/domain/factories/service';
import { createDestination } from '@/lib/domain/notifications/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// A failed apply is recorded once per failure (the periodic check retries it
// quietly), so its record and its notification are one transaction: a record
// without its notification would never be announced.

describe.each(testDatabaseKinds())('recording a failed apply on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  const failure = { commit: 'a'.repeat(40), message: 'Commit aaaaaaaaaaaa did not apply: 1 problem in the definition files', problems: [] };

  beforeAll(async () => {
    process.env.TRIPLINE_NOTIFICATION_ALLOW = 'http,private';
    database = await createTestDatabase(kind);
    const user = await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma);
    factoryId = (await createFactory(user.id, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
    await createDestination(factoryId, { name: 'receiver', kind: 'standard_webhooks', url: 'http://127.0.0.1:9/hook' }, database.prisma);
  });
  afterAll(() => database?.drop());

  const recorded = async () => (await database.prisma.factory.findUniqueOrThrow({ where: { id: factoryId }, select: { lastApplyError: true } })).lastApplyError;
  const queued = () => database.prisma.notification.count({ where: { factoryId, type: 'definitions.apply_failed' } });

  it('records nothing when its notification cannot be queued', async () => {
    const db = database.prisma;
    await db.$executeRawUnsafe(`CREATE FUNCTION refuse_notification() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'queue unavailable'; END $$`);
    await db.$executeRawUnsafe(`CREATE TRIGGER refuse_notification BEFORE INSERT ON "Notification" FOR EACH ROW EXECUTE FUNCTION refuse_notification()`);
    try {
      await expect(recordApplyFailure(factoryId, failure, db)).rejects.toThrow(/queue unavailable/);
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER refuse_notification ON "Notification"`);
      await db.$executeRawUnsafe(`DROP FUNCTION refuse_notification()`);
    }
    expect(await recorded()).toBeNull();
    expect(await queued()).toBe(0);
  });

  it('records the failure and queues its one notification together', async () => {
    await recordApplyFailure(factoryId, failure, database.prisma);
    expect(await recorded()).toMatchObject({ commit: failure.commit, message: failure.message });
    expect(await queued()).toBe(1);
  });
});
