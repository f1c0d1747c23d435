import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { createDestination, destinationTarget, listDestinations, protectDestinationUrls } from '@/lib/domain/notifications/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// A Slack incoming webhook's URL is its credential: anyone who has it can post to the channel. It is
// stored encrypted, like team secrets, with only the part that may be shown readable; URLs stored in
// the clear before are encrypted at the next start. (e2e/api/notifications.spec.ts: Slack still
// receives at the whole URL.)

const TOKEN_PATH = '/services/T0ACME/B0ALERTS/xoxbsecretpathtoken0123';

describe.each(testDatabaseKinds())('a Slack destination URL at rest on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  const rowOf = async (id: string) => database.prisma.notificationDestination.findUniqueOrThrow({ where: { id }, select: { url: true, urlEncrypted: true } });

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const userId = (await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma)).id;
    factoryId = (await createFactory(userId, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  it('is stored encrypted, shown without its token, and sent to whole', async () => {
    const url = `https://hooks.slack.com${TOKEN_PATH}`;
    const { destination } = await createDestination(factoryId, { name: 'alerts', kind: 'slack', url }, database.prisma);
    const row = await rowOf(destination.id);
    expect(row.url).toBe('https://hooks.slack.com/services/T0ACME/…');
    expect(row.urlEncrypted).not.toBeNull();
    // No part of the token in the clear, in either column.
    expect(JSON.stringify(row)).not.toContain('xoxbsecretpathtoken0123');
    expect(JSON.stringify(row)).not.toContain('B0ALERTS');
    expect((await listDestinations(factoryId, database.prisma)).find((d) => d.id === destination.id)?.url).toBe('https://hooks.slack.com/services/T0ACME/…');
    expect(destinationTarget({ id: destination.id, ...row })).toBe(url);
    // Bound to its row: the ciphertext copied onto another destination does not decrypt.
    expect(() => destinationTarget({ id: 'nd_another', ...row })).toThrow();
  });

  it('stored in the clear before, is encrypted at start, once; a signed destination keeps its URL as it is', async () => {
    const url = `https://hooks.slack.com${TOKEN_PATH}2`;
    const legacy = await database.prisma.notificationDestination.create({ data: { id: 'nd_legacy', factoryId, name: 'old', kind: 'slack', url }, select: { id: true } });
    const signed = await createDestination(factoryId, { name: 'signed', kind: 'standard_webhooks', url: 'https://hooks.example.com/tripline?key=public' }, database.prisma);
    expect(await protectDestinationUrls(database.prisma)).toBe(1);
    const row = await rowOf(legacy.id);
    expect(row.url).toBe('https://hooks.slack.com/services/T0ACME/…');
    expect(destinationTarget({ id: legacy.id, ...row })).toBe(url);
    expect(await protectDestinationUrls(database.prisma)).toBe(0);
    expect(await rowOf(signed.destination.id)).toEqual({ url: 'https://hooks.example.com/tripline?key=public', urlEncrypted: null });
  });

  it('stored in the clear and unparseable, is encrypted at start all the same, and shown as none of itself: the start goes on', async () => {
    const url = `hooks.slack.com${TOKEN_PATH}3`;
    const legacy = await database.prisma.notificationDestination.create({ data: { id: 'nd_unparseable', factoryId, name: 'typo', kind: 'slack', url }, select: { id: true } });
    expect(await protectDestinationUrls(database.prisma)).toBe(1);
    const row = await rowOf(legacy.id);
    expect(row.url).toBe('(not a valid URL)');
    expect(JSON.stringify(row)).not.toContain('xoxbsecretpathtoken0123');
    expect(destinationTarget({ id: legacy.id, ...row })).toBe(url);
    expect((await listDestinations(factoryId, database.prisma)).find((d) => d.id === legacy.id)?.url).toBe('(not a valid URL)');
  });
});
