import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { checkFailedRuns, checkWebhookHealth, FAILED_RUNS_PER_CHECK, RUNS_WATERMARK_KEY } from '@/lib/domain/health/monitor';
import { createAutomation } from '@/lib/domain/automations/service';
import { recordSpentBudgets } from '@/lib/domain/health/rate-limits';
import { CATCH_UP_CHUNK_MS, ROLLUP_KEEP_MS, floorMinute, forgetRollups, refreshRollupChunk, refreshRollups, rollupsUntil } from '@/lib/domain/health/rollups';
import { deliveryStats, healthOf } from '@/lib/domain/health/service';
import { createDestination } from '@/lib/domain/notifications/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';
import { createWebhook, getWebhook, setExpectedInterval } from '@/lib/domain/webhooks/service';

// Health from the log: the rollup job's counts agree with the log, health
// follows the documented thresholds, and each change of state queues exactly
// one notification (a second run of the job queues nothing more).

describe.each(testDatabaseKinds())('webhook health on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let userId: string;
  let seq = 0;

  const entry = (webhookId: string, status: string, receivedAt: Date, refusedCount?: number) => ({
    id: `d_${++seq}`,
    webhookId,
    deliveryId: `id_${seq}`,
    identitySource: 'request_id' as const,
    status: status as 'accepted',
    size: 2,
    receivedAt,
    refusedCount: refusedCount ?? null,
  });

  beforeAll(async () => {
    process.env.TRIPLINE_NOTIFICATION_ALLOW = 'http,private';
    database = await createTestDatabase(kind);
    setDatabase(database);
    const user = await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma);
    userId = user.id;
    factoryId = (await createFactory(user.id, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
    await createDestination(factoryId, { name: 'receiver', kind: 'standard_webhooks', url: 'http://127.0.0.1:9/hook' }, database.prisma);
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  const rowOf = async (uid: string) => (await database.prisma.webhook.findUniqueOrThrow({ where: { uid } })).id;

  it('counts the log per status and hour, the same from rollups as from the log, with refused summaries counting their requests', async () => {
    const db = database.prisma;
    const { webhook } = await createWebhook(factoryId, { name: 'counted' }, db);
    const id = await rowOf(webhook.uid);
    const now = new Date();
    const hourAgo = new Date(now.getTime() - 60 * 60 * 1000);
    await db.delivery.createMany({
      data: [
        entry(id, 'accepted', hourAgo),
        entry(id, 'accepted', hourAgo),
        entry(id, 'rejected_auth', hourAgo),
        entry(id, 'refused', hourAgo, 7),
        entry(id, 'accepted', new Date(now.getTime() - 3 * 24 * 3600 * 1000)),
      ],
    });
    const fromLog = await deliveryStats(id, '24h', db, now);
    expect(fromLog.totals).toMatchObject({ accepted: 2, rejected_auth: 1, refused: 7 });
    expect(fromLog.buckets).toHaveLength(24);
    await refreshRollups(db, now);
    const fromRollups = await deliveryStats(id, '24h', db, now);
    expect(fromRollups.totals).toEqual(fromLog.totals);
    expect(fromRollups.buckets).toEqual(fromLog.buckets);
    const week = await deliveryStats(id, '7d', db, now);
    expect(week.totals.accepted).toBe(3);
    expect(week.buckets).toHaveLength(28);
    // Idempotent: a second run over the same minutes counts the same.
    await refreshRollups(db, now);
    expect((await deliveryStats(id, '7d', db, now)).totals).toEqual(week.totals);
  });

  it('counts accepted deliveries per event type and hour, the same from rollups as from the log: 8 series, the rest as other', async () => {
    const db = database.prisma;
    const { webhook } = await createWebhook(factoryId, { name: 'typed' }, db);
    const id = await rowOf(webhook.uid);
    const now = new Date();
    const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60 * 1000);
    const typed = (type: string | null, minutesAgo: number, status = 'accepted') => ({ ...entry(id, status, at(minutesAgo)), eventType: type });
    // Backdated entries: the rollups of earlier tests must not stand for their minutes.
    await forgetRollups(db);
    await db.delivery.createMany({
      data: [
        ...Array.from({ length: 4 }, () => typed('pull_request.opened', 90)),
        typed('pull_request.opened', 30),
        typed('push', 30),
        typed('push', 30),
        typed(null, 30),
        // Not accepted: not counted by type.
        typed('push', 30, 'duplicate'),
        // Ten more types, one delivery each: two make the 8 series, the rest are "other".
        ...Array.from({ length: 10 }, (_, i) => typed(`t${i}`, 30)),
      ],
    });
    const fromLog = await deliveryStats(id, '24h', db, now);
    expect(fromLog.eventTypes.slice(0, 4)).toEqual([
      { type: 'pull_request.opened', count: 5 },
      { type: 'push', count: 2 },
      { type: '', count: 1 },
      { type: 't0', count: 1 },
    ]);
    expect(fromLog.eventTypes).toHaveLength(13);
    expect(fromLog.typeSeries).toEqual(['pull_request.opened', 'push', '', 't0', 't1', 't2', 't3', 't4']);
    const total = (stats: typeof fromLog) => stats.buckets.reduce((sum, b) => sum + b.types.reduce((a, n) => a + n, 0) + b.otherTypes, 0);
    expect(total(fromLog)).toBe(fromLog.totals.accepted);
    expect(fromLog.buckets.reduce((sum, b) => sum + b.otherTypes, 0)).toBe(5);
    await refreshRollups(db, now);
    const fromRollups = await deliveryStats(id, '24h', db, now);
    expect(fromRollups.eventTypes).toEqual(fromLog.eventTypes);
    expect(fromRollups.buckets).toEqual(fromLog.buckets);
  });

  it('catches up on a log without rollups in 6-hour chunks, and every chunk leaves the counts the log gives', async () => {
    const db = database.prisma;
    const { webhook } = await createWebhook(factoryId, { name: 'backlog' }, db);
    const id = await rowOf(webhook.uid);
    const now = new Date();
    const hoursAgo = (n: number) => new Date(now.getTime() - n * 3600_000);
    await db.delivery.createMany({
      data: [
        entry(id, 'accepted', hoursAgo(150)),
        entry(id, 'accepted', hoursAgo(100)),
        entry(id, 'rejected_auth', hoursAgo(50)),
        entry(id, 'refused', hoursAgo(20), 4),
        entry(id, 'accepted', hoursAgo(1)),
      ],
    });
    // As after an upgrade to rollups, or on a log filled before them: no rollups, no watermark.
    await forgetRollups(db);
    const fromLog = await deliveryStats(id, '7d', db, now);
    expect(fromLog.totals).toMatchObject({ accepted: 3, rejected_auth: 1, refused: 4 });

    // One chunk: the watermark moves 6 hours into the kept period, and readers see the same counts.
    const first = await refreshRollupChunk(db, now);
    const start = floorMinute(now.getTime() - ROLLUP_KEEP_MS);
    expect(first?.getTime()).toBe(start + CATCH_UP_CHUNK_MS);
    expect(await deliveryStats(id, '7d', db, now)).toEqual(fromLog);

    // The job goes on from there, chunk by chunk, up to the minute it runs in.
    const chunks = await refreshRollups(db, now);
    expect(chunks).toBeGreaterThan(20);
    expect((await rollupsUntil(db))?.getTime()).toBe(floorMinute(now.getTime()));
    const rolled = await db.deliveryRollup.groupBy({ by: ['status'], where: { webhookId: id }, _sum: { count: true } });
    expect(Object.fromEntries(rolled.map((row) => [row.status, row._sum.count]))).toEqual({ accepted: 3, rejected_auth: 1, refused: 4 });
    expect(await deliveryStats(id, '7d', db, now)).toEqual(fromLog);
    // Caught up: the next run is one chunk again.
    expect(await refreshRollups(db, now)).toBe(1);
  });

  it('classifies New, Healthy, Failing auth, Rejecting payloads, Rate limited and Silent', async () => {
    const db = database.prisma;
    const now = new Date();
    const minutesAgo = (n: number) => new Date(now.getTime() - n * 60_000);
    const make = async (name: string) => {
      const { webhook } = await createWebhook(factoryId, { name }, db);
      return { uid: webhook.uid, id: await rowOf(webhook.uid) };
    };
    const fresh = await make('fresh');
    const fine = await make('fine');
    const failing = await make('failing');
    const payloads = await make('payloads');
    const limited = await make('limited');
    const quiet = await make('quiet');
    await db.delivery.createMany({
      data: [
        entry(fine.id, 'accepted', minutesAgo(2)),
        entry(fine.id, 'rejected_auth', minutesAgo(1)),
        entry(failing.id, 'accepted', minutesAgo(30)),
        entry(failing.id, 'rejected_auth', minutesAgo(1.5)),
        entry(payloads.id, 'rejected_invalid_json', minutesAgo(1.6)),
        entry(payloads.id, 'accepted', minutesAgo(1.5)),
        entry(limited.id, 'refused', minutesAgo(1.7), 3),
        entry(quiet.id, 'accepted', minutesAgo(120)),
      ],
    });
    await setExpectedInterval(factoryId, quiet.uid, 3600, db);
    // Entries written with a past receivedAt after a rollup run are what a late commit looks like (within
    // RECOMPUTE_MS: a refused summary keeps counting until its minute ends): the next run counts them.
    await refreshRollups(db);
    const views = await db.webhook.findMany({ where: { factoryId }, select: { id: true, createdAt: true, expectedIntervalSeconds: true } });
    const health = await healthOf(views, db, now);
    expect(health.get(fresh.id)!.state).toBe('new');
    expect(health.get(fine.id)!.state).toBe('healthy');
    expect(health.get(failing.id)!.state).toBe('failing_auth');
    expect(health.get(failing.id)!.lastAcceptedAt).toEqual(minutesAgo(30));
    expect(health.get(payloads.id)!.state).toBe('rejecting_payloads');
    expect(health.get(limited.id)!.state).toBe('rate_limited');
    expect(health.get(quiet.id)!.state).toBe('silent');
    // The webhook's JSON view carries the same.
    expect((await getWebhook(factoryId, quiet.uid, db)).health.state).toBe('silent');
  });

  it('announces a burst of failed runs whole, a check at a time in order, each once', async () => {
    const db = database.prisma;
    const { webhook } = await createWebhook(factoryId, { name: 'flaky-source' }, db);
    const automation = await createAutomation(factoryId, { name: 'Flaky', prompt: 'Try', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid] } }] }, db);
    await checkFailedRuns(db);
    await db.instanceSetting.update({ where: { key: RUNS_WATERMARK_KEY }, data: { value: String(Date.now() - 60_000) } });
    // More than a check announces, all failed at the same millisecond (the order between them is by ID).
    const burst = FAILED_RUNS_PER_CHECK + 150;
    const failedAt = new Date(Date.now() - 30_000);
    await db.run.createMany({
      data: Array.from({ length: burst }, (_, i) => ({ id: `run_f${String(i).padStart(4, '0')}`, factoryId, automationId: automation.id, status: 'failed' as const, prompt: 'Try', envelope: {}, attempts: 1, finishedAt: failedAt })),
    });
    const announced = async () =>
      (await db.notification.findMany({ where: { type: 'run.failed' }, select: { payload: true } })).map((n) => (n.payload as { data: { run: { id: string } } }).data.run.id);
    await checkFailedRuns(db);
    expect(await announced()).toHaveLength(FAILED_RUNS_PER_CHECK);
    await checkFailedRuns(db);
    await checkFailedRuns(db);
    const ids = await announced();
    expect(ids).toHaveLength(burst);
    expect(new Set(ids).size).toBe(burst);
    // The tests after this one count the factory's notifications.
    await db.notification.deleteMany({ where: { type: 'run.failed' } });
    await db.run.deleteMany({ where: { automationId: automation.id } });
  });

  it('queues one notification per change of state, and none when the state holds', async () => {
    const db = database.prisma;
    await checkWebhookHealth(db);
    const first = await db.notification.findMany({ where: { factoryId }, select: { type: true, payload: true } });
    const types = first.map((n) => n.type).sort();
    // failing, limited and quiet start their conditions (payloads and new are not notified).
    expect(types).toEqual(['webhook.failing', 'webhook.rate_limited', 'webhook.silent']);
    await checkWebhookHealth(db);
    expect(await db.notification.count({ where: { factoryId } })).toBe(3);
    // A valid delivery ends Failing auth: one webhook.recovered.
    const failing = await db.webhook.findFirstOrThrow({ where: { factoryId, name: 'failing' } });
    await db.delivery.create({ data: entry(failing.id, 'accepted', new Date()) });
    await checkWebhookHealth(db);
    await checkWebhookHealth(db);
    const recovered = await db.notification.findMany({ where: { factoryId, type: 'webhook.recovered' }, select: { payload: true } });
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.payload).toMatchObject({ type: 'webhook.recovered', data: { webhook: { name: 'failing' }, previous: 'failing_auth', health: { state: 'healthy' } } });
  });

  it('writes the changes that send nothing for many webhooks at once: first states, then new to healthy, healthy to rejecting payloads', async () => {
    const db = database.prisma;
    const stateOf = async (id: string) => (await db.webhookHealth.findUnique({ where: { webhookId: id }, select: { state: true } }))?.state;
    // The classification test's webhooks, after the job's passes above.
    const named = async (name: string) => (await db.webhook.findFirstOrThrow({ where: { factoryId, name } })).id;
    expect(await stateOf(await named('fresh'))).toBe('new');
    expect(await stateOf(await named('fine'))).toBe('healthy');
    expect(await stateOf(await named('payloads'))).toBe('rejecting_payloads');

    // A factory of its own (at most 20 webhooks each), with a destination, so a notified change would show.
    const bulkId = (await createFactory(userId, { name: 'Bulk', slug: 'bulk' }, db)).id;
    await createDestination(bulkId, { name: 'receiver', kind: 'standard_webhooks', url: 'http://127.0.0.1:9/hook' }, db);
    // One after another: each creation is a transaction under the factory's lock, and twelve at once on
    // PGlite's one connection can wait past Prisma's 2 s to start one on a busy machine.
    const many: string[] = [];
    for (let i = 0; i < 12; i++) many.push(await rowOf((await createWebhook(bulkId, { name: `many-${i}` }, db)).webhook.uid));
    await checkWebhookHealth(db);
    expect(await Promise.all(many.map(stateOf))).toEqual(many.map(() => 'new'));
    const now = new Date();
    await db.delivery.createMany({ data: many.slice(0, 6).map((id) => entry(id, 'accepted', now)) });
    await checkWebhookHealth(db);
    expect(await Promise.all(many.map(stateOf))).toEqual([...many.slice(0, 6).map(() => 'healthy'), ...many.slice(6).map(() => 'new')]);
    await db.delivery.create({ data: entry(many[0]!, 'rejected_invalid_json', new Date()) });
    await checkWebhookHealth(db);
    expect(await stateOf(many[0]!)).toBe('rejecting_payloads');
    expect(await stateOf(many[1]!)).toBe('healthy');
    // None of these changes is one that notifies.
    expect(await db.notification.count({ where: { factoryId: bulkId } })).toBe(0);
  });

  it('notes when each delivery budget was seen spent, for webhooks with and without a state yet, and health reads it', async () => {
    const db = database.prisma;
    const bulkId = (await db.factory.findUniqueOrThrow({ where: { slug: 'bulk' } })).id;
    const withState = await rowOf((await createWebhook(bulkId, { name: 'spent-known' }, db)).webhook.uid);
    await checkWebhookHealth(db);
    const withoutState = await rowOf((await createWebhook(bulkId, { name: 'spent-unknown' }, db)).webhook.uid);
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 30_000);
    const earlier = new Date(at.getTime() - 60_000);
    await recordSpentBudgets([{ webhookId: withState, at }, { webhookId: withoutState, at: earlier }], db);
    const rows = await db.webhookHealth.findMany({ where: { webhookId: { in: [withState, withoutState] } }, select: { webhookId: true, state: true, rateLimitedAt: true } });
    expect(Object.fromEntries(rows.map((row) => [row.webhookId, { state: row.state, rateLimitedAt: row.rateLimitedAt }]))).toEqual({
      [withState]: { state: 'new', rateLimitedAt: at },
      [withoutState]: { state: 'healthy', rateLimitedAt: earlier },
    });
    const views = await db.webhook.findMany({ where: { id: { in: [withState, withoutState] } }, select: { id: true, createdAt: true, expectedIntervalSeconds: true } });
    const health = await healthOf(views, db);
    expect([health.get(withState)!.state, health.get(withoutState)!.state]).toEqual(['rate_limited', 'rate_limited']);
  });
});
