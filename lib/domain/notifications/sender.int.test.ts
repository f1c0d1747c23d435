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

  it('reads only the status of an answer, and bounds the whole request: a destination trickling bytes holds nothing', async () => {
    const db = database.prisma;
    // One answers 200 and then a byte of its body every 200 ms, for ever; the other trickles its status line.
    const sockets = new Set<import('node:net').Socket>();
    const timers = new Set<NodeJS.Timeout>();
    const trickler = http.createServer();
    trickler.on('connection', (socket) => sockets.add(socket));
    trickler.on('request', (request, response) => {
      request.resume();
      if (request.url === '/body') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        timers.add(setInterval(() => response.write('.'), 200));
      } else {
        const socket = response.socket!;
        const line = 'HTTP/1.1 200 OK\r\n';
        let at = 0;
        timers.add(setInterval(() => at < line.length && socket.write(line[at++]!), 200));
      }
    });
    await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(trickler.address() as AddressInfo).port}`;
    try {
      const slug = `trickle-${kind}`;
      const factory = await createFactory(userId, { name: slug, slug }, db);
      const body = await createDestination(factory.id, { name: 'body', kind: 'standard_webhooks', url: `${base}/body` }, db);
      const status = await createDestination(factory.id, { name: 'status', kind: 'standard_webhooks', url: `${base}/status` }, db);
      await enqueueEvent(db, factory.id, 'notification.test', { n: 1 });
      expect(await sendDueNotifications(db, 3_000)).toBe(2);
      const rows = await db.notification.findMany({ where: { factoryId: factory.id }, select: { destinationId: true, status: true, responseStatus: true, lastError: true } });
      expect(rows.find((row) => row.destinationId === body.destination.id)).toMatchObject({ status: 'sent', responseStatus: 200 });
      expect(rows.find((row) => row.destinationId === status.destination.id)).toMatchObject({ status: 'pending', responseStatus: null, lastError: 'no answer within 3 s (attempt 1 of 8; retrying)' });
    } finally {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => trickler.close(resolve));
    }
  });

  it('keeps a disabled destination out of every batch, and a send in flight as it is disabled does not bring its notification back', async () => {
    const db = database.prisma;
    const slug = `inflight-${kind}`;
    const factory = await createFactory(userId, { name: slug, slug }, db);
    // A destination that holds its answer until the test lets it go.
    let release: () => void = () => undefined;
    const holder = http.createServer();
    const arrived = new Promise<void>((resolve) => {
      holder.on('request', (request, response) => {
        request.resume();
        resolve();
        release = () => response.end();
      });
    });
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const slow = await createDestination(factory.id, { name: 'slow', kind: 'standard_webhooks', url: `http://127.0.0.1:${(holder.address() as AddressInfo).port}/` }, db);
      await enqueueEvent(db, factory.id, 'notification.test', { n: 1 });
      const sending = sendDueNotifications(db);
      await arrived;
      await setDestinationEnabled(factory.id, slow.destination.id, false, db);
      release();
      expect(await sending).toBe(1);
      expect(await db.notification.findFirstOrThrow({ where: { destinationId: slow.destination.id } })).toMatchObject({ status: 'failed', lastError: DISABLED_DESTINATION_ERROR });

      // 20 rows of the disabled destination, due before anything else (queued as it was being disabled): the others still go out.
      await db.notification.createMany({
        data: Array.from({ length: 20 }, (_, i) => ({ id: `nt_stuck_${kind}_${i}`, factoryId: factory.id, destinationId: slow.destination.id, eventId: `evt_stuck_${i}`, type: 'notification.test', payload: {}, nextAttemptAt: new Date(Date.now() - 3_600_000) })),
      });
      received.length = 0;
      answers = [];
      await createDestination(factory.id, { name: 'receiver', kind: 'standard_webhooks', url }, db);
      await enqueueEvent(db, factory.id, 'notification.test', { n: 2 });
      expect(await sendDueNotifications(db)).toBe(1);
      expect(received).toHaveLength(1);
    } finally {
      holder.closeAllConnections();
      await new Promise((resolve) => holder.close(resolve));
    }
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
