import { afterAll, describe, expect, it } from 'vitest';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import { testDatabaseKinds } from '@/tests/support/databases';
import { migrationsDir, openWebhookBefore } from '@/tests/support/migration-history';

// Migration runs_share_delivery_payload on a database written before it:
// runs whose delivery still holds the body drop their copy; runs whose
// delivery was already pruned keep theirs (Run.payload). No payload is lost.

const MIGRATION = '20261123150616_runs_share_delivery_payload';

describe.each(testDatabaseKinds())('moving run payloads onto deliveries on %s', (kind) => {
  const cleanups: Array<() => unknown> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('keeps every payload: shared with the delivery when it has the body, on the run when the delivery is gone', async () => {
    const database = await openWebhookBefore(kind, MIGRATION, cleanups);

    const db = database.prisma;
    const body = '{ "a":  1, "t": "caf\\u00e9" }';
    const orphan = '{"pruned": true}';
    const attachments = (content: string) => JSON.stringify([{ name: 'event-payload.json', contentType: 'application/json', content }]);
    await db.$executeRawUnsafe(`INSERT INTO "Automation" ("id", "factoryId", "name", "prompt", "updatedAt") VALUES ('a1', 'f1', 'A', 'P', now()), ('a2', 'f1', 'B', 'P', now())`);
    await db.$executeRawUnsafe(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "body") VALUES ('d1', 'w1', 'evt-1', 'service_header', 'accepted', 10, $1)`,
      body,
    );
    const insertRun = (id: string, automation: string, delivery: string | null, content: string) =>
      db.$executeRawUnsafe(
        `INSERT INTO "Run" ("id", "factoryId", "automationId", "deliveryId", "prompt", "envelope", "attachments") VALUES ($1, 'f1', $2, $3, 'P', '{}', $4::jsonb)`,
        id,
        automation,
        delivery,
        attachments(content),
      );
    await insertRun('r1', 'a1', 'd1', body);
    await insertRun('r2', 'a2', 'd1', body);
    await insertRun('r3', 'a1', null, orphan);

    expect(await applyPendingMigrations(database.adapter, { migrationsDir })).toContain(MIGRATION);
    const runs = await db.$queryRawUnsafe<{ id: string; payload: string | null; body: string | null }[]>(
      `SELECT r."id", r."payload", d."body" FROM "Run" r LEFT JOIN "Delivery" d ON d."id" = r."deliveryId" ORDER BY r."id"`,
    );
    expect(runs).toEqual([
      { id: 'r1', payload: null, body },
      { id: 'r2', payload: null, body },
      { id: 'r3', payload: orphan, body: null },
    ]);
  });
});
