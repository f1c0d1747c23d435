import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_TTL_SECONDS, releaseLease, renewLeaseCte, takeLease, type Lease } from '@/lib/platform/db/lease';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';

describe.each(testDatabaseKinds())('a housekeeping lease on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.drop());

  /** Renews the lease as a pass's statement does: true while it is still the holder's. */
  const renew = async (lease: Lease) =>
    (await database.prisma.$queryRawUnsafe<{ held: boolean }[]>(`WITH ${renewLeaseCte(1)} SELECT EXISTS (SELECT 1 FROM lease) AS "held"`, lease.key, lease.token))[0]?.held;
  const age = (lease: Lease, seconds: number) =>
    database.prisma.$executeRawUnsafe(`UPDATE "InstanceSetting" SET "updatedAt" = now() - make_interval(secs => $2) WHERE "key" = $1`, lease.key, seconds);

  it('is held by one holder at a time, and free again once released', async () => {
    const first = await takeLease(database.prisma, 'test-a');
    expect(first).not.toBeNull();
    expect(await takeLease(database.prisma, 'test-a')).toBeNull();
    // Another job's lease is its own.
    expect(await takeLease(database.prisma, 'test-b')).not.toBeNull();
    expect(await renew(first!)).toBe(true);
    await releaseLease(database.prisma, first!);
    expect(await takeLease(database.prisma, 'test-a')).not.toBeNull();
  });

  it('passes to another holder once it has not been renewed for its time to live, and the old holder loses it', async () => {
    const old = (await takeLease(database.prisma, 'test-c'))!;
    await age(old, LEASE_TTL_SECONDS - 5);
    expect(await takeLease(database.prisma, 'test-c')).toBeNull();
    await age(old, LEASE_TTL_SECONDS + 1);
    const next = await takeLease(database.prisma, 'test-c');
    expect(next).not.toBeNull();
    expect(await renew(old)).toBe(false);
    expect(await renew(next!)).toBe(true);
    // The old holder's release leaves the new holder's lease alone.
    await releaseLease(database.prisma, old);
    expect(await takeLease(database.prisma, 'test-c')).toBeNull();
  });
});
