import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAutomation } from '@/lib/domain/automations/service';
import { setDatabase } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';
import { createFactory } from '@/lib/domain/factories/service';
import { REPLAY_JOB_MAX, replaySelectionSchema } from '@/lib/domain/replay-jobs/schemas';
import { cancelReplayJob, getReplayJob, previewSelection, startReplayJob } from '@/lib/domain/replay-jobs/service';
import { replayWakers } from '@/lib/domain/replay-jobs/wake';
import { claimReplayJob, replayNextItem, workReplayJobs } from '@/lib/domain/replay-jobs/worker';
import { appError } from '@/tests/support/app-error';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// Bulk replay over real databases: the selection (the log's filters and
// Backtest's evaluator), the bounds (maximum, one job per factory), and the
// worker's exactly-once replay across an interrupted holder, a lost lease,
// a full run queue and a cancel.

const COUNT = 40;
const start = Date.parse('2026-11-20T00:00:00Z');
const actor = { email: 'admin@example.com' };

describe.each(testDatabaseKinds())('bulk replay on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let automationId: string;
  const uid = `wh_replay${kind}`;

  const body = (i: number) => JSON.stringify({ action: i % 2 === 0 ? 'opened' : 'closed', number: i, note: i % 10 === 3 ? 'needle' : 'hay' });

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // Backtest's gate (a selection by automation) keeps its rate budget in the process's database.
    setDatabase(database);
    const db = database.prisma;
    const user = await createUser({ email: actor.email, password: 'a long enough password' }, db);
    factoryId = (await createFactory(user.id, { name: 'Factory', slug: `replay-${kind}` }, db)).id;
    const webhook = await db.webhook.create({ data: { factoryId, uid, name: 'github', secretName: 'S' }, select: { id: true } });
    const rows = [];
    for (let i = 0; i < COUNT; i++) {
      rows.push({
        id: `d-${String(i).padStart(4, '0')}`,
        webhookId: webhook.id,
        deliveryId: `evt-${i}`,
        identitySource: 'service_header' as const,
        status: 'accepted' as const,
        size: 10,
        receivedAt: new Date(start + i * 60_000),
        body: body(i),
        eventType: i % 4 === 0 ? 'pull_request.opened' : 'push',
      });
    }
    rows.push({ id: 'rejected', webhookId: webhook.id, deliveryId: 'evt-x', identitySource: 'service_header' as const, status: 'rejected_auth' as const, size: 10, receivedAt: new Date(start), body: null });
    await db.delivery.createMany({ data: rows });
    // Opened pull requests (every even delivery) start a run of this automation.
    automationId = (
      await createAutomation(
        factoryId,
        { name: 'On opened', prompt: 'Review', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid], payload: { action: 'opened' } } }] },
        db,
      )
    ).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  const runsOf = (deliveryId: string) => database.prisma.run.count({ where: { deliveryId, replay: true } });

  it('counts a selection by the log’s filters, Accepted entries only', async () => {
    const db = database.prisma;
    const all = await previewSelection(factoryId, { webhook: uid }, db);
    expect(all).toMatchObject({ count: COUNT, tooMany: false, max: REPLAY_JOB_MAX, webhook: { uid, name: 'github' } });
    expect(all.deliveries.map((d) => d.id)).toEqual(['d-0039', 'd-0038', 'd-0037', 'd-0036', 'd-0035', 'd-0034', 'd-0033', 'd-0032', 'd-0031', 'd-0030']);
    expect((await previewSelection(factoryId, { webhook: uid, q: 'needle' }, db)).count).toBe(4);
    expect((await previewSelection(factoryId, { webhook: uid, event: 'pull_request.*' }, db)).count).toBe(10);
    expect((await previewSelection(factoryId, { webhook: uid, event: 'push' }, db)).count).toBe(30);
    const range = await previewSelection(factoryId, { webhook: uid, from: new Date(start + 10 * 60_000).toISOString(), to: new Date(start + 20 * 60_000).toISOString() }, db);
    expect(range.count).toBe(10);
    expect(range.deliveries[0]!.id).toBe('d-0019');
    // A selection a route parsed already (its dates are Dates) reads the same.
    const parsed = replaySelectionSchema.parse({ webhook: uid, from: new Date(start + 10 * 60_000).toISOString(), to: '2026-11-20T00:20:00' });
    expect((await previewSelection(factoryId, parsed, db)).count).toBe(10);
  });

  it('selects by an automation’s trigger with Backtest’s evaluator', async () => {
    const preview = await previewSelection(factoryId, { automation: automationId }, database.prisma);
    expect(preview).toMatchObject({ count: COUNT / 2, untested: 0, webhook: { uid } });
    expect(preview.deliveries.every((d) => Number(d.id.slice(2)) % 2 === 0)).toBe(true);
  });

  it('refuses a bad selection with the field named', async () => {
    const db = database.prisma;
    await expect(previewSelection(factoryId, { webhook: uid, status: 'rejected_auth' as never }, db)).rejects.toThrow(/Only Accepted deliveries can be replayed/);
    await expect(previewSelection(factoryId, { automation: automationId, q: 'x' }, db)).rejects.toThrow(/not both/);
    await expect(previewSelection(factoryId, { webhook: uid, from: 'yesterday' }, db)).rejects.toThrow(/from must be a date and time/);
    // Only ISO 8601 in years a database holds: never Date.parse's reading of "0" as 2000-01-01.
    for (const from of ['0', '-271821-04-20T00:00:00Z', '2026-02-30T00:00:00Z']) {
      await expect(previewSelection(factoryId, { webhook: uid, from }, db), from).rejects.toThrow(/from must be a date and time in ISO 8601/);
    }
    expect(await appError(previewSelection(factoryId, { webhook: 'wh_nope' }, db))).toMatchObject({ code: 'validation_failed', fields: { webhook: 'No webhook with UID wh_nope in this factory' } });
    expect(await appError(previewSelection(factoryId, { automation: automationId, trigger: 3 }, db))).toMatchObject({ code: 'validation_failed', fields: { trigger: 'Use a trigger index from 0 to 0' } });
    expect(await appError(startReplayJob(factoryId, { webhook: uid, q: 'nothing-matches-this' }, actor, db))).toMatchObject({ code: 'validation_failed', fields: { selection: 'No Accepted delivery matches' } });
  });

  it('freezes the selection, replays each delivery once across an interrupted holder, and completes', async () => {
    const db = database.prisma;
    // A job started here wakes this instance's replay worker (the others poll); a refused one does not.
    const wakes: string[] = [];
    const waker = () => wakes.push('woken');
    replayWakers.add(waker);
    const job = await startReplayJob(factoryId, { webhook: uid, event: 'pull_request.opened' }, actor, db);
    expect(job).toMatchObject({ status: 'running', total: 10, done: 0, createdBy: actor.email, selection: { webhook: uid, status: 'accepted', event: 'pull_request.opened' } });
    expect(wakes).toEqual(['woken']);

    // A second job while this one runs: 409 naming it.
    const second = await appError(startReplayJob(factoryId, { webhook: uid }, actor, db));
    replayWakers.delete(waker);
    expect(wakes).toEqual(['woken']);
    expect(second).toMatchObject({ code: 'conflict', fields: { job: job.id } });
    expect(second.message).toContain(job.id);

    // Four instances claim at once: one gets the job. It replays three items and dies (its lease is left behind).
    const claims = await Promise.all(Array.from({ length: 4 }, () => claimReplayJob(db)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const first = claims.find(Boolean)!;
    expect(first.id).toBe(job.id);
    expect(await claimReplayJob(db)).toBeNull();
    for (let i = 0; i < 3; i++) expect(await replayNextItem(first, db)).toBe('replayed');
    // New deliveries that match do not join the frozen list.
    await db.delivery.create({
      data: { id: 'd-late', webhookId: (await db.webhook.findFirstOrThrow({ where: { uid } })).id, deliveryId: 'late', identitySource: 'service_header', status: 'accepted', size: 2, body: body(0), eventType: 'pull_request.opened' },
    });
    // The lease expires: the next holder takes over where the first stopped; the first one's next step is refused.
    await db.replayJob.update({ where: { id: job.id }, data: { leaseUntil: new Date(Date.now() - 1000) } });
    const next = (await claimReplayJob(db))!;
    expect(next.leaseToken).not.toBe(first.leaseToken);
    expect(await replayNextItem(first, db)).toBe('lost');
    const steps = [];
    for (let i = 0; i < 7; i++) steps.push(await replayNextItem(next, db));
    expect(steps).toEqual([...Array(6).fill('replayed'), 'finished']);

    const done = await getReplayJob(factoryId, job.id, db);
    expect(done).toMatchObject({ status: 'completed', total: 10, done: 10, skipped: 0, runsStarted: 10, waiting: null });
    expect(done.finishedAt).not.toBeNull();
    for (let i = 0; i < COUNT; i += 4) {
      const id = `d-${String(i).padStart(4, '0')}`;
      expect(await runsOf(id)).toBe(1);
      expect(await db.delivery.findUniqueOrThrow({ where: { id }, select: { replayCount: true, replayedBy: true } })).toEqual({ replayCount: 1, replayedBy: `${actor.email} (bulk replay ${job.id})` });
    }
    expect(await runsOf('d-late')).toBe(0);
    const items = await db.replayJobItem.findMany({ where: { jobId: job.id }, orderBy: { position: 'asc' } });
    expect(items.map((item) => item.deliveryId)).toEqual(['d-0000', 'd-0004', 'd-0008', 'd-0012', 'd-0016', 'd-0020', 'd-0024', 'd-0028', 'd-0032', 'd-0036']);
    expect(items.every((item) => item.outcome === 'replayed' && item.doneAt !== null)).toBe(true);
    // Nothing left to work.
    expect(await workReplayJobs({ db, rate: 1000 })).toBe(0);
  });

  it('skips what retention pruned meanwhile, and waits (never fails) while the run queue is full', async () => {
    const db = database.prisma;
    await db.run.deleteMany({});
    const job = await startReplayJob(factoryId, { automation: automationId, from: undefined }, actor, db);
    expect(job.total).toBe(COUNT / 2 + 1); // the late delivery matches too
    await db.delivery.delete({ where: { id: 'd-0002' } });
    const settings = env();
    const limit = settings.runQueueLimit;
    settings.runQueueLimit = 3;
    try {
      const holder = (await claimReplayJob(db))!;
      const steps = [];
      for (let i = 0; i < 6; i++) steps.push(await replayNextItem(holder, db));
      // d-0000, then d-0002 (pruned), then d-0004 and d-0006: three runs fill the queue, and d-0008 waits.
      expect(steps).toEqual(['replayed', 'skipped', 'replayed', 'replayed', 'waiting', 'waiting']);
      const waiting = await getReplayJob(factoryId, job.id, db);
      expect(waiting).toMatchObject({ status: 'running', done: 4, skipped: 1, runsStarted: 3, waiting: expect.stringMatching(/^Run queue full/) });
      expect(await db.run.count({ where: { status: 'queued' } })).toBe(3);
      // Runs finish: the job moves on by itself.
      await db.run.updateMany({ data: { status: 'succeeded' } });
      expect(await replayNextItem(holder, db)).toBe('replayed');
      expect((await getReplayJob(factoryId, job.id, db)).waiting).toBeNull();

      // Cancel: the holder's next step is refused, and nothing more is replayed.
      const cancelled = await cancelReplayJob(factoryId, job.id, { email: 'other@example.com' }, db);
      expect(cancelled).toMatchObject({ status: 'cancelled', done: 5, cancelledBy: 'other@example.com' });
      const runs = await db.run.count();
      expect(await replayNextItem(holder, db)).toBe('lost');
      expect(await workReplayJobs({ db, rate: 1000 })).toBe(0);
      expect(await db.run.count()).toBe(runs);
      // Cancelling again says so; a new job may start now.
      expect((await cancelReplayJob(factoryId, job.id, actor, db)).status).toBe('cancelled');
    } finally {
      settings.runQueueLimit = limit;
    }
  });

  it("takes turns between factories' jobs: a job handed back waits behind one never worked, and a job waiting for its run queue hands its turn on", async () => {
    const db = database.prisma;
    await db.run.deleteMany({});
    // Factory B, with deliveries of its own and a job started after A's.
    const owner = await db.user.findFirstOrThrow({ where: { email: actor.email } });
    const other = (await createFactory(owner.id, { name: 'Other', slug: `replay-other-${kind}` }, db)).id;
    const otherUid = `wh_replay_other${kind}`;
    const otherHook = await db.webhook.create({ data: { factoryId: other, uid: otherUid, name: 'other', secretName: 'S' }, select: { id: true } });
    await db.delivery.createMany({
      data: Array.from({ length: 3 }, (_, i) => ({ id: `o-${i}`, webhookId: otherHook.id, deliveryId: `o-${i}`, identitySource: 'service_header' as const, status: 'accepted' as const, size: 2, body: '{}' })),
    });
    // A's deliveries each start a run.
    const a = await startReplayJob(factoryId, { automation: automationId }, actor, db);
    const b = await startReplayJob(other, { webhook: otherUid }, actor, db);

    // A's turn ends (here after one item): the next claim is B's, though A is older.
    const first = (await claimReplayJob(db))!;
    expect(first.id).toBe(a.id);
    expect(await replayNextItem(first, db)).toBe('replayed');
    await db.replayJob.update({ where: { id: a.id }, data: { leaseToken: null, leaseUntil: new Date(Date.now() - 1000) } });
    const second = (await claimReplayJob(db))!;
    expect(second.id).toBe(b.id);
    await db.replayJob.update({ where: { id: b.id }, data: { leaseToken: null, leaseUntil: new Date() } });

    // A's run queue is full (its first item's run): one worker turn hands A back and finishes B's three deliveries.
    // The instance's clock is a minute behind the database's: A is still held for a while by the database's clock.
    const settings = env();
    const limit = settings.runQueueLimit;
    settings.runQueueLimit = 1;
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 60_000, shouldAdvanceTime: true });
    try {
      // The shutdown signal lives as long as the process: the pauses between items leave no listener on it.
      const shutdown = new AbortController();
      expect(await workReplayJobs({ db, rate: 1000, turnMs: 10_000, signal: shutdown.signal })).toBe(3);
      vi.useRealTimers();
      expect(getEventListeners(shutdown.signal, 'abort')).toEqual([]);
      expect(await getReplayJob(other, b.id, db)).toMatchObject({ status: 'completed', done: 3 });
      expect(await getReplayJob(factoryId, a.id, db)).toMatchObject({ status: 'running', done: 1, waiting: expect.stringMatching(/^Run queue full/) });
      expect(await claimReplayJob(db)).toBeNull();
    } finally {
      vi.useRealTimers();
      settings.runQueueLimit = limit;
    }
    await cancelReplayJob(factoryId, a.id, actor, db);
  });

  it('refuses a selection larger than a job, with its size', async () => {
    const db = database.prisma;
    const big = await db.webhook.create({ data: { factoryId, uid: `wh_big${kind}`, name: 'big', secretName: 'S' }, select: { id: true } });
    await db.delivery.createMany({
      data: Array.from({ length: REPLAY_JOB_MAX + 2 }, (_, i) => ({
        webhookId: big.id,
        deliveryId: `b-${i}`,
        identitySource: 'service_header' as const,
        status: 'accepted' as const,
        size: 2,
        receivedAt: new Date(start + i * 1000),
        body: '{}',
      })),
    });
    const preview = await previewSelection(factoryId, { webhook: `wh_big${kind}` }, db);
    expect(preview).toMatchObject({ count: REPLAY_JOB_MAX + 1, tooMany: true });
    const refused = await appError(startReplayJob(factoryId, { webhook: `wh_big${kind}` }, actor, db));
    expect(refused).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('more than 5,000') });
    // A time range narrows it to a job.
    const narrowed = await startReplayJob(factoryId, { webhook: `wh_big${kind}`, to: new Date(start + 5_000 * 1000).toISOString() }, actor, db);
    expect(narrowed.total).toBe(5_000);
    await cancelReplayJob(factoryId, narrowed.id, actor, db);
  });
});
