import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { MAX_ATTEMPTS, retryDelayMs, sendDueNotifications } from '@/lib/domain/notifications/sender';
import { createDestination, DISABLED_DESTINATION_ERROR, enqueueEvent, sendTestNotification, setDestinationEnabled } from '@/lib/domain/notifications/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// Retries: a destination that fails is tried again after the backoff, not
// before; the retry carries the same event id and a valid signature; after the
// last attempt the notification is marked failed and never sent again.

type Received = { headers: http.IncomingHttpHeaders; body: string };

describe.each(testDatabaseKinds())('notification retries on %s', (kind) => {
  let database: TestDatabase;
  let receiver: http.Server;
  let url: string;
  const received: Received[] = [];
  let answers: number[] = [];
  let userId: string;

  beforeAll(async () => {
    process.env.TRIPLINE_NOTIFICATION_ALLOW = 'http,private';
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.statusCode = answers.shift() ?? 200;
        response.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    database = await createTestDatabase(kind);
    setDatabase(database);
    userId = (await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma)).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const setUp = async (slug: string) => {
    const db = database.prisma;
    const factory = await createFactory(userId, { name: slug, slug }, db);
    const { destination, secret } = await createDestination(factory.id, { name: 'receiver', kind: 'standard_webhooks', url }, db);
    const eventId = await sendTestNotification(factory.id, destination.id, { slug, name: slug }, db);
    const row = () => db.notification.findFirstOrThrow({ where: { eventId } });
    const makeDue = async () => {
      await db.notification.updateMany({ where: { eventId }, data: { nextAttemptAt: new Date(Date.now() - 1000) } });
    };
    return { eventId, secret: secret!, row, makeDue };
  };

  it('backs off 30 s, doubling, capped at an hour', () => {
    expect([1, 2, 3, 7, 8, 20].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 1_920_000, 3_600_000, 3_600_000]);
  });

  it('retries a failed notification after its backoff, with the same event id and a valid signature', async () => {
    const db = database.prisma;
    received.length = 0;
    answers = [500];
    const { eventId, secret, row, makeDue } = await setUp(`retry-${kind}`);

    const before = Date.now();
    expect(await sendDueNotifications(db)).toBe(1);
    const failed = await row();
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500 });
    expect(failed.lastError).toBe(`HTTP 500 (attempt 1 of ${MAX_ATTEMPTS}; retrying)`);
    expect(failed.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + 30_000 - 1000);

    // Not due yet: nothing is sent.
    expect(await sendDueNotifications(db)).toBe(0);
    expect(received).toHaveLength(1);

    await makeDue();
    expect(await sendDueNotifications(db)).toBe(1);
    expect(await row()).toMatchObject({ status: 'sent', attempts: 2, responseStatus: 200, lastError: null });
    expect(received).toHaveLength(2);
    for (const request of received) {
      expect(request.headers['webhook-id']).toBe(eventId);
      const verified = new Webhook(secret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as { type: string };
      expect(verified.type).toBe('notification.test');
    }

    // Sent is final.
    await makeDue();
    expect(await sendDueNotifications(db)).toBe(0);
  });

  it('gives up after the last attempt and marks the notification failed', async () => {
    const db = database.prisma;
    received.length = 0;
    answers = Array.from({ length: MAX_ATTEMPTS }, () => 503);
    const { row, makeDue } = await setUp(`exhaust-${kind}`);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      await makeDue();
      expect(await sendDueNotifications(db)).toBe(1);
    }
    const gaveUp = await row();
    expect(gaveUp).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, responseStatus: 503 });
    expect(gaveUp.lastError).toBe(`HTTP 503 (attempt ${MAX_ATTEMPTS} of ${MAX_ATTEMPTS}; no attempts left)`);
    await makeDue();
    expect(await sendDueNotifications(db)).toBe(0);
    expect(received).toHaveLength(MAX_ATTEMPTS);
  });

  it('sends nothing to a disabled destination: its queued notifications fail with the reason, new events skip it, until enabled again', async () => {
    const db = database.prisma;
    received.length = 0;
    answers = [500];
    const slug = `paused-${kind}`;
    const factory = await createFactory(userId, { name: slug, slug }, db);
    const { destination } = await createDestination(factory.id, { name: 'paused', kind: 'standard_webhooks', url }, db);
    // One notification waiting for its retry, one not tried yet.
    const retrying = await sendTestNotification(factory.id, destination.id, { slug, name: slug }, db);
    expect(await sendDueNotifications(db)).toBe(1);
    const queued = await enqueueEvent(db, factory.id, 'notification.test', { n: 2 });

    expect(await setDestinationEnabled(factory.id, destination.id, false, db)).toMatchObject({ id: destination.id, enabled: false });
    const rows = await db.notification.findMany({ where: { destinationId: destination.id }, select: { eventId: true, status: true, lastError: true }, orderBy: { createdAt: 'asc' } });
    expect(rows).toEqual([
      { eventId: retrying, status: 'failed', lastError: DISABLED_DESTINATION_ERROR },
      { eventId: queued, status: 'failed', lastError: DISABLED_DESTINATION_ERROR },
    ]);
    // New events are not queued for it; a test says it is disabled; a row queued behind the sender's back is not sent.
    expect(await enqueueEvent(db, factory.id, 'notification.test', { n: 3 })).toBeNull();
    await expect(sendTestNotification(factory.id, destination.id, { slug, name: slug }, db)).rejects.toThrow('This destination is disabled');
    await db.notification.create({ data: { id: `nt_sneak_${kind}`, factoryId: factory.id, destinationId: destination.id, eventId: 'evt_sneak', type: 'notification.test', payload: {} } });
    expect(await sendDueNotifications(db)).toBe(0);
    expect(received).toHaveLength(1);

    // Enabled again: new events go out; what was marked failed stays failed.
    await setDestinationEnabled(factory.id, destination.id, true, db);
    await db.notification.delete({ where: { id: `nt_sneak_${kind}` } });
    await enqueueEvent(db, factory.id, 'notification.test', { n: 4 });
    expect(await sendDueNotifications(db)).toBe(1);
    expect(received).toHaveLength(2);
    expect(await db.notification.count({ where: { destinationId: destination.id, status: 'failed', lastError: DISABLED_DESTINATION_ERROR } })).toBe(2);
    // Another factory's admin cannot reach it.
    const other = await createFactory(userId, { name: `other-${slug}`, slug: `other-${slug}` }, db);
    await expect(setDestinationEnabled(other.id, destination.id, false, db)).rejects.toThrow('Notification destination not found');
  });
});
