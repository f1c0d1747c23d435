import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { sendDueNotifications } from '@/lib/domain/notifications/sender';
import { sendTestNotification } from '@/lib/domain/notifications/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// Every send checks the destination again, not only its save: a URL saved
// while the operator allowed private addresses (or written into the database
// some other way) is refused once they are no longer allowed. An IP literal
// matters most: Node makes no DNS lookup for it, so the lookup's own check
// never runs.

describe.each(testDatabaseKinds())('notification addresses at send time on %s', (kind) => {
  let database: TestDatabase;
  let receiver: http.Server;
  let port: number;
  let received = 0;
  let userId: string;

  beforeAll(async () => {
    // Plain http:// is allowed, private addresses are not.
    process.env.TRIPLINE_NOTIFICATION_ALLOW = 'http';
    receiver = http.createServer((request, response) => {
      received += 1;
      request.resume();
      response.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
    database = await createTestDatabase(kind);
    setDatabase(database);
    userId = (await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma)).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  for (const host of ['127.0.0.1', '[::1]', '2130706433', '169.254.169.254']) {
    it(`refuses a destination at ${host}, an address literal, when it is sent`, async () => {
      const db = database.prisma;
      const slug = `f${Math.random().toString(36).slice(2, 8)}`;
      const factory = await createFactory(userId, { name: slug, slug }, db);
      const destination = await db.notificationDestination.create({
        data: { factoryId: factory.id, name: 'old', kind: 'slack', url: `http://${host}:${port}/hook` },
      });
      const eventId = await sendTestNotification(factory.id, destination.id, { slug, name: slug }, db);
      const before = received;
      await sendDueNotifications(db);
      const row = await db.notification.findFirstOrThrow({ where: { eventId } });
      expect(received).toBe(before);
      expect(row.status).toBe('pending');
      expect(row.lastError).toMatch(/^Refused: private address/);
    });
  }
});
