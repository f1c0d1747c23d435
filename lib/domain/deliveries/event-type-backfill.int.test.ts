import { afterAll, describe, expect, it } from 'vitest';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import { BACKFILL_KEY, backfillEventTypes } from '@/lib/domain/deliveries/event-type-backfill';
import { testDatabaseKinds } from '@/tests/support/databases';
import { migrationNamed, migrationsDir, openWebhookBefore } from '@/tests/support/migration-history';

// Migration delivery_event_type on a log written before it: the job types
// every stored entry from its stored headers and body, in batches, then
// removes its cursor; entries of webhooks without a source, rejections and
// entries that name no readable type stay null, and nothing is lost.

const MIGRATION = migrationNamed('_delivery_event_type');
const ENTRIES = 240;

describe.each(testDatabaseKinds())('the event type backfill on a log stored before the migration on %s', (kind) => {
  const cleanups: Array<() => unknown> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('types the stored entries of each provider in batches and stops at the end', async () => {
    const database = await openWebhookBefore(kind, MIGRATION, cleanups);
    const db = database.prisma;
    // w1 (token auth, no source), a GitHub webhook and a Stripe webhook.
    await db.$executeRawUnsafe(
      `INSERT INTO "Webhook" ("id", "factoryId", "uid", "name", "secretName", "authMode", "signatureScheme", "updatedAt")
       VALUES ('w2', 'f1', 'wh_2', 'gh', 'S2', 'signature', 'github', now()), ('w3', 'f1', 'wh_3', 'st', 'S3', 'signature', 'stripe', now())`,
    );
    // n % 4: 0 GitHub pull_request (opened or review submitted), 1 Stripe, 2 token webhook, 3 GitHub with a type too long to keep.
    // Every tenth entry is a rejection (no headers, no body).
    await db.$executeRawUnsafe(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers")
       SELECT 'd' || lpad(n::text, 4, '0'),
              CASE n % 4 WHEN 1 THEN 'w3' WHEN 2 THEN 'w1' ELSE 'w2' END,
              'evt-' || n, 'service_header',
              (CASE WHEN n % 10 = 0 THEN 'rejected_auth' ELSE 'accepted' END)::"DeliveryStatus", 20,
              timestamp '2026-11-01 00:00:00' + make_interval(mins => n),
              CASE WHEN n % 10 = 0 THEN NULL
                   WHEN n % 4 = 1 THEN '{"type":"invoice.paid","n":' || n || '}'
                   WHEN n % 8 = 0 THEN '{"action":"opened","pull_request":{}}'
                   ELSE '{"action":"submitted","pull_request":{}}' END,
              CASE WHEN n % 10 = 0 THEN NULL
                   WHEN n % 4 = 0 THEN jsonb_build_object('x-github-event', CASE WHEN n % 8 = 0 THEN 'pull_request' ELSE 'pull_request_review' END)
                   WHEN n % 4 = 3 THEN jsonb_build_object('X-GitHub-Event', repeat('x', 300))
                   ELSE '{"content-type":"application/json"}'::jsonb END
         FROM generate_series(1, $1::int) AS n`,
      ENTRIES,
    );

    expect(await applyPendingMigrations(database.adapter, { migrationsDir })).toContain(MIGRATION);
    expect(await db.instanceSetting.findUnique({ where: { key: BACKFILL_KEY } })).not.toBeNull();

    // Small batches, no rest: the first pass stops at its budget, later passes go on from the cursor.
    let passes = 0;
    while ((await db.instanceSetting.findUnique({ where: { key: BACKFILL_KEY } })) && passes < 100) {
      await backfillEventTypes(db, { batch: 25, budgetMs: 0, restRatio: 0 });
      passes += 1;
    }
    expect(passes).toBeGreaterThan(5);
    expect(await db.instanceSetting.findUnique({ where: { key: BACKFILL_KEY } })).toBeNull();

    const counts = await db.$queryRawUnsafe<{ eventType: string | null; n: number }[]>(
      `SELECT "eventType", count(*)::int AS "n" FROM "Delivery" GROUP BY 1 ORDER BY 1 NULLS LAST`,
    );
    const expected = (test: (n: number) => boolean) => Array.from({ length: ENTRIES }, (_, i) => i + 1).filter((n) => n % 10 !== 0 && test(n)).length;
    expect(counts).toEqual([
      { eventType: 'invoice.paid', n: expected((n) => n % 4 === 1) },
      { eventType: 'pull_request.opened', n: expected((n) => n % 8 === 0) },
      { eventType: 'pull_request_review.submitted', n: expected((n) => n % 4 === 0 && n % 8 !== 0) },
      { eventType: null, n: ENTRIES - expected((n) => n % 4 === 1 || n % 4 === 0) },
    ]);
    expect(await db.delivery.count()).toBe(ENTRIES);
    // Nothing left: a later pass reads one setting and does nothing.
    expect(await backfillEventTypes(db)).toBe(0);
  });

  it('leaves no cursor behind on a log with nothing to type', async () => {
    const database = await openWebhookBefore(kind, MIGRATION, cleanups);
    expect(await applyPendingMigrations(database.adapter, { migrationsDir })).toContain(MIGRATION);
    expect(await database.prisma.instanceSetting.findUnique({ where: { key: BACKFILL_KEY } })).toBeNull();
    expect(await backfillEventTypes(database.prisma)).toBe(0);
  });
});
