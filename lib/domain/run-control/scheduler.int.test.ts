import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, setDatabase, type Db, type Tx } from '@/lib/platform/db';
import { metrics } from '@/lib/platform/metrics';
import { failAbandonedRuns } from '@/lib/domain/runs/worker';
import { replayDelivery } from '@/lib/domain/runs/replay';
import type { RunControlInput } from '@/lib/domain/run-control/config';
import { forgetIdleGroups, pendingWork, schedulePass, startScheduler } from '@/lib/domain/run-control/scheduler';
import { wakeScheduler } from '@/lib/domain/run-control/wake';
import { pruneRuns } from '@/lib/domain/runs/retention';
import { budget } from '@/scripts/speed.mjs';
import { previewRunControl } from '@/lib/domain/run-control/preview';
import { testTrigger } from '@/lib/domain/automations/test-filter';
import { ACTIVE_RUN_STATUSES } from '@/lib/domain/run-status/statuses';
import { testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { arrive, claim, controlledAutomation, finish, runControlDatabase, runsOf, type Place } from '@/tests/support/run-control';

// The scheduler on both databases, one mode at a time: deliveries recorded by
// the ingress's statement, passes at times the test chooses, runs claimed and
// ended as the workers do.

const T0 = Date.parse('2026-11-28T12:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);

describe.each(testDatabaseKinds())('run control scheduler on %s', (kind) => {
  let database: TestDatabase;
  let place: Place;

  beforeAll(async () => {
    ({ database, place } = await runControlDatabase(kind, 'rc'));
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  /** An automation with `control`, and a function that records a delivery of `pr` to it. */
  async function setUp(control: RunControlInput | null) {
    const automationId = await controlledAutomation(database, place, control);
    return { automationId, send: (pr: number, deliveryId?: string) => arrive(place, automationId, control, { pull_request: { number: pr } }, deliveryId), runs: () => runsOf(database, automationId) };
  }
  const statuses = async (runs: () => Promise<{ status: string }[]>) => (await runs()).map((run) => run.status);

  it('inserts a controlled run pending with its key, in the delivery\'s statement, and the pass makes its group; without run control, queued', async () => {
    const plain = await setUp(null);
    await plain.send(1);
    expect(await plain.runs()).toMatchObject([{ status: 'queued', controlKey: null }]);

    const { automationId, send, runs } = await setUp({ key: 'pull_request.number', concurrency: {} });
    await send(7);
    await send(7);
    expect(await runs()).toMatchObject([
      { status: 'pending', controlKey: '[7]' },
      { status: 'pending', controlKey: '[7]' },
    ]);
    // The pending runs are the group's mark: the delivery's statement does not touch RunGroup.
    expect(await database.prisma.runGroup.findMany({ where: { automationId } })).toEqual([]);
    expect(await pendingWork(at(0), database.prisma)).toMatchObject({ ready: true });
    await schedulePass(at(0));
    expect(await database.prisma.runGroup.findMany({ where: { automationId } })).toMatchObject([{ key: '[7]', keyText: '7' }]);
    expect(await statuses(runs)).toEqual(['queued', 'waiting']);
    expect(await database.prisma.runGroup.findMany({ where: { automationId } })).toMatchObject([{ dirty: false, dueAt: null }]);
  });

  it('queue-newest: one in progress per key, the newest waits, the older waiting is superseded by the next', async () => {
    const { send, runs } = await setUp({ key: 'pull_request.number', concurrency: { limit: 1, whenFull: 'queue-newest' } });
    const first = await send(1);
    await schedulePass(at(0));
    const second = await send(1);
    await schedulePass(at(1));
    const third = await send(1);
    const other = await send(2);
    await schedulePass(at(2));
    const [a, b, c, d] = await runs();
    expect(a).toMatchObject({ deliveryId: first, status: 'queued' });
    expect(b).toMatchObject({ deliveryId: second, status: 'superseded', outcomeDeliveryId: third });
    expect(c).toMatchObject({ deliveryId: third, status: 'waiting', outcomeRunId: a!.id });
    // Another key is another group.
    expect(d).toMatchObject({ deliveryId: other, status: 'queued' });

    await claim(a!.id);
    await schedulePass(at(3));
    expect((await runs())[2]!.status).toBe('waiting');
    await finish(a!.id);
    await schedulePass(at(4));
    expect(await statuses(runs)).toEqual(['succeeded', 'superseded', 'queued', 'queued']);
  });

  it('a backlog of pending runs (no scheduler ran for a while) is decided as it arrived, a bounded number a pass, to the same end as all at once', async () => {
    const { send, runs } = await setUp({ key: 'pull_request.number', concurrency: { limit: 1, whenFull: 'queue-newest' } });
    const sent = [];
    for (let i = 0; i < 25; i++) sent.push(await send(1));
    const group = () => database.prisma.runGroup.findFirstOrThrow({ where: { key: '[1]' }, orderBy: { activeAt: 'desc' } });
    // 10 pending runs a pass: the first pass reads the oldest 10, starts the first and lets the tenth wait.
    expect(await schedulePass(at(0), database.prisma, 10)).toMatchObject({ groups: 1, truncated: 1, started: 1, changes: 10 });
    expect(await statuses(runs)).toEqual(['queued', ...Array(8).fill('superseded'), 'waiting', ...Array(15).fill('pending')]);
    expect(await group()).toMatchObject({ dirty: true });
    expect(await schedulePass(at(1), database.prisma, 10)).toMatchObject({ truncated: 1, started: 0, changes: 11 });
    expect(await schedulePass(at(2), database.prisma, 10)).toMatchObject({ truncated: 0, started: 0, changes: 6 });
    // The end a single pass over all 25 reaches: the first in progress, the newest waiting, every other superseded by the next.
    const rows = await runs();
    expect(rows.map((run) => run.status)).toEqual(['queued', ...Array(23).fill('superseded'), 'waiting']);
    expect(rows[24]).toMatchObject({ deliveryId: sent[24], outcomeRunId: rows[0]!.id });
    // Each superseded by the one that arrived after it, across the passes as within one.
    expect(rows[9]).toMatchObject({ outcomeDeliveryId: sent[10] });
    expect(rows[19]).toMatchObject({ outcomeDeliveryId: sent[20] });
    expect(await group()).toMatchObject({ dirty: false });
  });

  it('queue-all: waits in order up to the queue limit, past it skipped', async () => {
    const { send, runs } = await setUp({ concurrency: { limit: 2, whenFull: 'queue-all', queueLimit: 2 } });
    for (let i = 0; i < 5; i++) await send(i);
    await schedulePass(at(0));
    const rows = await runs();
    expect(rows.map((run) => run.status)).toEqual(['queued', 'queued', 'waiting', 'waiting', 'skipped']);
    expect(rows[4]!.outcomeDetail).toBe('the group is full and 2 deliveries already wait (the queue limit for this key)');
    await claim(rows[0]!.id);
    await finish(rows[0]!.id);
    await schedulePass(at(1));
    expect(await statuses(runs)).toEqual(['succeeded', 'queued', 'queued', 'waiting', 'skipped']);
  });

  it('skip: a delivery to a full group is skipped, and says why', async () => {
    const { send, runs } = await setUp({ concurrency: { whenFull: 'skip' } });
    await send(1);
    await send(2);
    await schedulePass(at(0));
    expect(await runs()).toMatchObject([
      { status: 'queued' },
      { status: 'skipped', outcomeDetail: 'the group is full: 1 run in progress for this key (concurrency limit 1)' },
    ]);
  });

  it('cancel-running: requests the cancel of the run in progress and waits for its slot; a queued run is cancelled at once', async () => {
    const { send, runs } = await setUp({ key: 'pull_request.number', concurrency: { whenFull: 'cancel-running' } });
    await send(1);
    await schedulePass(at(0));
    const [running] = await runs();
    await claim(running!.id);
    const newer = await send(1);
    await schedulePass(at(1));
    let rows = await runs();
    expect(rows[0]).toMatchObject({ status: 'running', cancelRequestedAt: at(1), outcomeDeliveryId: newer });
    expect(rows[1]).toMatchObject({ status: 'waiting', outcomeRunId: running!.id });
    // A third supersedes the waiting one (one waits per slot being freed); the run in progress is already being cancelled.
    const third = await send(1);
    await schedulePass(at(2));
    rows = await runs();
    expect(rows.map((run) => run.status)).toEqual(['running', 'superseded', 'waiting']);
    expect(rows[1]!.outcomeDeliveryId).toBe(third);

    // The worker stops it (issue 46's other part records cancelled); the slot frees and the newest starts.
    await finish(running!.id);
    await schedulePass(at(3));
    expect(await statuses(runs)).toEqual(['succeeded', 'superseded', 'queued']);
    // Queued, not yet claimed: cancelled at once, and the newer starts in the same pass.
    const fourth = await send(1);
    await schedulePass(at(4));
    rows = await runs();
    expect(rows[2]).toMatchObject({ status: 'cancelled', outcomeDeliveryId: fourth, cancelRequestedAt: at(4) });
    expect(rows[3]).toMatchObject({ status: 'queued' });
  });

  it('debounce: the burst\'s last delivery runs once the period passed since it, listing every delivery; the others are debounced into it', async () => {
    const { automationId, send, runs } = await setUp({ key: 'pull_request.number', debounce: { periodSeconds: 5 } });
    await send(1, 'burst-a');
    await schedulePass(at(0));
    await send(1, 'burst-b');
    await schedulePass(at(2));
    await send(1, 'burst-c');
    await schedulePass(at(4));
    let rows = await runs();
    expect(rows.map((run) => run.status)).toEqual(['debouncing', 'debouncing', 'debouncing']);
    expect(rows.map((run) => run.notBefore)).toEqual([at(9), at(9), at(9)]);
    expect(await database.prisma.runGroup.findFirst({ where: { automationId } })).toMatchObject({ dueAt: at(9), burstStartedAt: at(0), burstDueAt: at(9) });
    // Not yet due: a pass changes nothing (a due group is claimed by its dueAt, without being dirty).
    expect((await schedulePass(at(8.9))).groups).toBe(0);
    expect((await schedulePass(at(9))).started).toBe(1);
    rows = await runs();
    expect(rows.map((run) => run.status)).toEqual(['debounced', 'debounced', 'queued']);
    expect(rows[0]!.outcomeRunId).toBe(rows[2]!.id);
    expect(rows[2]!.envelope.deliveryIds).toEqual(['burst-a', 'burst-b', 'burst-c']);
    expect(rows[2]!.envelope.text).toContain('This run stands for 3 deliveries collapsed by debounce, oldest first: "burst-a", "burst-b", "burst-c"');
    expect(await database.prisma.runGroup.findFirst({ where: { automationId } })).toMatchObject({ dueAt: null, burstStartedAt: null, dirty: false });
  });

  it('debounce: the maximum wait makes a steady stream run', async () => {
    const { send, runs } = await setUp({ debounce: { periodSeconds: 5, maxWaitSeconds: 8 } });
    for (const second of [0, 3, 6]) {
      await send(1);
      await schedulePass(at(second));
    }
    expect((await runs()).every((run) => run.notBefore?.getTime() === at(8).getTime())).toBe(true);
    await schedulePass(at(8));
    expect(await statuses(runs)).toEqual(['debounced', 'debounced', 'queued']);
    // The next delivery opens a new burst.
    await send(1);
    await schedulePass(at(9));
    expect((await runs())[3]).toMatchObject({ status: 'debouncing', notBefore: at(14) });
  });

  it('throttle: at most N runs start per period; the excess waits its turn, in a bounded line', async () => {
    const { send, runs } = await setUp({ throttle: { limit: 2, periodSeconds: 60, queueLimit: 3 } });
    for (let i = 0; i < 6; i++) await send(i);
    await schedulePass(at(0));
    let rows = await runs();
    expect(rows.map((run) => run.status)).toEqual(['queued', 'queued', 'throttled', 'throttled', 'throttled', 'skipped']);
    expect(rows.slice(2, 5).map((run) => run.notBefore)).toEqual([at(60), at(60), at(120)]);
    expect(rows[2]!.outcomeDetail).toBe('throttle: 2 runs per 60 seconds for this key; starts at 2026-11-28T12:01:00.000Z');
    expect(rows[5]!.outcomeDetail).toMatch(/3 deliveries already wait their turn/);
    await schedulePass(at(59));
    expect(await statuses(runs)).toEqual(['queued', 'queued', 'throttled', 'throttled', 'throttled', 'skipped']);
    await schedulePass(at(60));
    rows = await runs();
    expect(rows.map((run) => run.status)).toEqual(['queued', 'queued', 'queued', 'queued', 'throttled', 'skipped']);
    expect(rows[4]!.notBefore).toEqual(at(120));
  });

  it('rate limit: the excess is skipped, and says when the next can start', async () => {
    const { send, runs } = await setUp({ rateLimit: { limit: 1, periodSeconds: 60 } });
    await send(1);
    await send(2);
    await schedulePass(at(0));
    expect(await runs()).toMatchObject([{ status: 'queued' }, { status: 'skipped', outcomeDetail: 'rate limit: 1 run per 60 seconds for this key; the next can start at 2026-11-28T12:01:00.000Z' }]);
    await send(3);
    await schedulePass(at(60));
    expect((await runs())[2]!.status).toBe('queued');
  });

  it('stages apply in order: a debounced run is throttled, then held by concurrency', async () => {
    const { send, runs } = await setUp({ debounce: { periodSeconds: 1 }, rateLimit: { limit: 1, periodSeconds: 3600 }, concurrency: {} });
    await send(1);
    await send(1);
    await schedulePass(at(0));
    await schedulePass(at(1));
    expect(await statuses(runs)).toEqual(['debounced', 'queued']);
    await send(1);
    await schedulePass(at(2));
    await schedulePass(at(3));
    expect(await statuses(runs)).toEqual(['debounced', 'queued', 'skipped']);
  });

  it('marks the group dirty when a run ends, also a run whose worker vanished', async () => {
    const { automationId, send, runs } = await setUp({ concurrency: {} });
    await send(1);
    await send(2);
    await schedulePass(at(0));
    const [first] = await runs();
    await claim(first!.id);
    await database.prisma.run.update({ where: { id: first!.id }, data: { lockedUntil: new Date(Date.now() - 1000) } });
    expect(await database.prisma.runGroup.findFirst({ where: { automationId } })).toMatchObject({ dirty: false });
    expect(await failAbandonedRuns()).toBe(1);
    expect(await database.prisma.runGroup.findFirst({ where: { automationId } })).toMatchObject({ dirty: true });
    await schedulePass(at(1));
    expect(await statuses(runs)).toEqual(['failed', 'queued']);
  });

  it('lets every waiting run go on when run control is turned off', async () => {
    const { automationId, send, runs } = await setUp({ debounce: { periodSeconds: 60 }, concurrency: {} });
    await send(1);
    await send(2);
    await schedulePass(at(0));
    expect(await statuses(runs)).toEqual(['debouncing', 'debouncing']);
    await database.prisma.$executeRawUnsafe(`UPDATE "Automation" SET "runControl" = NULL WHERE "id" = $1`, automationId);
    await database.prisma.$executeRawUnsafe(`UPDATE "RunGroup" SET "dirty" = true WHERE "automationId" = $1`, automationId);
    await schedulePass(at(1));
    expect(await statuses(runs)).toEqual(['queued', 'queued']);
  });

  it('forgets the groups idle longest past the bound per automation, never one with runs to decide', async () => {
    const { automationId, send, runs } = await setUp({ key: 'pull_request.number', concurrency: {} });
    for (let pr = 1; pr <= 4; pr++) await send(pr);
    await schedulePass(at(0));
    const [first] = await runs();
    await claim(first!.id);
    await finish(first!.id);
    await schedulePass(at(1));
    // PR 1's run ended (its group is idle); PRs 2-4 still have queued runs.
    expect(await forgetIdleGroups(database.prisma, 2)).toBe(1);
    const kept = await database.prisma.runGroup.findMany({ where: { automationId }, orderBy: { key: 'asc' } });
    expect(kept.map((group) => group.key)).toEqual(['[2]', '[3]', '[4]']);
  });

  // Two connections at once: PostgreSQL only (PGlite is one connection), defined only there, so nothing is skipped.
  if (kind === 'postgres') it('a pending run whose idle group was forgotten while its delivery was being recorded gets its group back, and is decided', async () => {
    const { automationId, send, runs } = await setUp({ key: 'pull_request.number', concurrency: {} });
    await send(1);
    await schedulePass(at(0));
    const [first] = await runs();
    await claim(first!.id);
    await finish(first!.id);
    await schedulePass(at(1));
    // PR 1's group is idle. A second delivery of PR 1 is being recorded: the ingress's statement (its pending run)
    // has run, and its transaction has not committed yet.
    const delivery = await database.prisma.delivery.create({
      data: { id: `dl_trim_${kind}`, webhookId: place.webhookId, deliveryId: 'trim-race', identitySource: 'service_header', status: 'accepted', size: 30, body: '{"pull_request":{"number":1}}' },
    });
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let recorded!: () => void;
    const statementRan = new Promise<void>((resolve) => (recorded = resolve));
    const recording = database.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(
          `INSERT INTO "Run" ("id", "factoryId", "automationId", "deliveryId", "status", "prompt", "envelope", "controlKey", "controlKeyText")
           SELECT 'run_trim_race', "factoryId", "automationId", $2, 'pending', "prompt", "envelope", "controlKey", "controlKeyText" FROM "Run" WHERE "id" = $1`,
          first!.id,
          delivery.id,
        );
        recorded();
        await committing;
      },
      { timeout: budget(30_000) },
    );
    await statementRan;
    // Another instance trims every idle group meanwhile: it cannot see the run, so the group goes.
    const other = openDatabase({ kind: 'postgres', url: database.url! }, { poolSize: 1 });
    try {
      expect(await forgetIdleGroups(other.prisma, 0)).toBe(1);
    } finally {
      commit();
      await recording;
      await other.close();
    }
    expect(await database.prisma.runGroup.count({ where: { automationId } })).toBe(0);
    // The next pass makes the group again from its pending run, with the key as the pages show it, and decides the run.
    await schedulePass(at(2));
    expect(await database.prisma.runGroup.findMany({ where: { automationId } })).toMatchObject([{ key: '[1]', keyText: '1' }]);
    expect(await statuses(runs)).toEqual(['succeeded', 'queued']);
  });

  it('replays through the same controls: the replayed run is pending in its group, then decided', async () => {
    const control = { key: 'pull_request.number', concurrency: { whenFull: 'skip' } } satisfies RunControlInput;
    const { automationId, send, runs } = await setUp(control);
    await database.prisma.webhookTrigger.create({ data: { automationId, position: 0, webhookUid: `wh_rc_${kind}` } });
    await send(5);
    await schedulePass(at(0));
    // Another automation's run of the same delivery is replayed alongside: only this one's group is involved.
    const delivery = await database.prisma.delivery.create({
      data: { id: `dl_replay_${kind}`, webhookId: place.webhookId, deliveryId: 'replayed', identitySource: 'service_header', status: 'accepted', size: 30, body: '{"pull_request":{"number":5}}' },
    });
    const result = await replayDelivery(place.factoryId, `wh_rc_${kind}`, delivery.id, { email: 'admin@example.com' }, database.prisma);
    expect(result.started).toMatchObject([{ automationId }]);
    expect((await runs())[1]).toMatchObject({ status: 'pending', controlKey: '[5]', deliveryId: delivery.id });
    // The pending run is its group's mark: the existing group's row is left as it was, and a pass has work.
    expect(await database.prisma.runGroup.findFirst({ where: { automationId } })).toMatchObject({ dirty: false });
    expect(await pendingWork(at(1), database.prisma)).toMatchObject({ ready: true });
    await schedulePass(at(1));
    expect(await runs()).toMatchObject([{ status: 'queued' }, { status: 'skipped', replay: true }]);
  });

  it('says what would happen now, for Test filter, without changing anything', async () => {
    const facts = (pr: number) => ({ body: { pull_request: { number: pr } }, eventType: null, headers: {} });
    const queue = await setUp({ key: 'pull_request.number', concurrency: {} });
    expect(await previewRunControl(queue.automationId, facts(1), database.prisma, at(0))).toEqual({ group: '1', outcome: 'start', summary: 'would start' });
    await queue.send(1);
    await schedulePass(at(0));
    const [running] = await queue.runs();
    expect(await previewRunControl(queue.automationId, facts(1), database.prisma, at(1))).toEqual({ group: '1', outcome: 'wait', summary: `would wait behind run ${running!.id}`, runId: running!.id });
    expect((await previewRunControl(queue.automationId, facts(2), database.prisma, at(1)))?.outcome).toBe('start');
    expect(await statuses(queue.runs)).toEqual(['queued']);

    const debounce = await setUp({ debounce: { periodSeconds: 30 } });
    expect(await previewRunControl(debounce.automationId, facts(1), database.prisma, at(0))).toMatchObject({ outcome: 'debounce', summary: 'would be debounced until 2026-11-28T12:00:30.000Z' });
    const skip = await setUp({ rateLimit: { limit: 1, periodSeconds: 60 } });
    await skip.send(1);
    await schedulePass(at(0));
    expect(await previewRunControl(skip.automationId, facts(1), database.prisma, at(1))).toMatchObject({ outcome: 'skip', summary: expect.stringMatching(/^would be skipped: rate limit: 1 run per 60 seconds/) });
    const none = await setUp(null);
    expect(await previewRunControl(none.automationId, facts(1), database.prisma)).toBeNull();
  });

  it("Test filter in the editor previews its own factory's automation, and refuses another factory's with an error, never its preview", async () => {
    const control = { key: 'pull_request.number', concurrency: {} };
    const automationId = await controlledAutomation(database, place, control);
    // A webhook of the factory with a UID a trigger takes.
    const hook = await database.prisma.webhook.create({ data: { factoryId: place.factoryId, uid: `wh_rcown${kind}`, name: 'own', secretName: 'S' } });
    const delivery = await arrive({ factoryId: place.factoryId, webhookId: hook.id }, automationId, control, { pull_request: { number: 5 } });
    await schedulePass(at(0));
    const [running] = await runsOf(database, automationId);
    const trigger = { provider: 'webhook' as const, event: 'received' as const, filter: { webhook_ids: [hook.uid] } };
    const input = { trigger, deliveryId: delivery, automationEnabled: true };
    expect((await testTrigger(place.factoryId, { ...input, automationId }, database.prisma)).runControl).toEqual({
      group: '5',
      outcome: 'wait',
      summary: `would wait behind run ${running!.id}`,
      runId: running!.id,
    });

    // The same automation asked for from another factory (whose member picked one of its own deliveries).
    const other = await database.prisma.factory.create({ data: { slug: `rc-other-${kind}`, name: 'Other' } });
    const otherHook = await database.prisma.webhook.create({ data: { factoryId: other.id, uid: `wh_rcother${kind}`, name: 'hook', secretName: 'S' } });
    const otherDelivery = await arrive({ factoryId: other.id, webhookId: otherHook.id }, await controlledAutomation(database, { factoryId: other.id, webhookId: otherHook.id }, null), null, { pull_request: { number: 5 } });
    const asked = testTrigger(
      other.id,
      { trigger: { ...trigger, filter: { webhook_ids: [otherHook.uid] } }, deliveryId: otherDelivery, automationEnabled: true, automationId },
      database.prisma,
    );
    await expect(asked).rejects.toMatchObject({ code: 'not_found', message: 'No automation with this id in this factory' });
    await expect(testTrigger(other.id, { trigger: { ...trigger, filter: { webhook_ids: [otherHook.uid] } }, deliveryId: otherDelivery, automationEnabled: true, automationId: 'no-such-automation' }, database.prisma)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('runs on its own once started: a pass at once, another when woken, and the workers told', async () => {
    const { send, runs } = await setUp({ concurrency: {} });
    let told = 0;
    // A poll longer than the test: only the start and the wake-up can decide.
    const scheduler = startScheduler({ pollMs: budget(600_000), onStarted: () => (told += 1) });
    try {
      await send(1);
      wakeScheduler();
      await expect.poll(() => statuses(runs)).toEqual(['queued']);
      expect(told).toBeGreaterThan(0);
    } finally {
      await scheduler.stop();
    }
  });

  it('idle, backs off, yet decides a group another process marked within its idle bound, and a debounce when it falls due', async () => {
    // A group marked dirty with no wake-up, as by a process without a scheduler: the idle look finds it (here within 300 ms).
    const marked = await setUp({ concurrency: {} });
    const scheduler = startScheduler({ pollMs: 50, idleMaxMs: 300 });
    try {
      await marked.send(1);
      await expect.poll(() => statuses(marked.runs), { timeout: budget(10_000) }).toEqual(['queued']);
    } finally {
      await scheduler.stop();
    }

    // An idle wait longer than the test: only the debounce's due time can wake it.
    const debounce = await setUp({ debounce: { periodSeconds: 1 } });
    const idle = startScheduler({ pollMs: 50, idleMaxMs: budget(600_000) });
    try {
      await debounce.send(1);
      wakeScheduler();
      await expect.poll(() => statuses(debounce.runs), { timeout: budget(10_000) }).toEqual(['debouncing']);
      // About time passing: the quiet period is 1 s, and nothing wakes the scheduler.
      await expect.poll(() => statuses(debounce.runs), { timeout: budget(10_000) }).toEqual(['queued']);
    } finally {
      await idle.stop();
    }
  });

  it('wakes this process\'s scheduler when a run of a group ends here, so the group\'s next run starts at once', async () => {
    const { send, runs } = await setUp({ concurrency: { limit: 1, whenFull: 'queue-all' } });
    await send(1);
    await send(1);
    await schedulePass(at(0));
    const [first] = await runs();
    await claim(first!.id);
    const scheduler = startScheduler({ pollMs: budget(600_000) });
    try {
      // Its first look finds nothing to do, then it waits longer than the test.
      await expect.poll(() => statuses(runs)).toEqual(['running', 'waiting']);
      await finish(first!.id);
      await expect.poll(() => statuses(runs), { timeout: budget(10_000) }).toEqual(['succeeded', 'queued']);
    } finally {
      await scheduler.stop();
    }
  });

  if (kind === 'postgres') it('a run in progress that a worker holds this moment is not made up for by a delivery recorded meanwhile: the group waits for the next pass', async () => {
    const { send, runs } = await setUp({ key: 'pull_request.number', concurrency: { limit: 1, whenFull: 'queue-all' } });
    await send(1);
    await schedulePass(at(0));
    const [first] = await runs();
    expect(first).toMatchObject({ status: 'queued' });
    // A delivery of the key: the next pass claims the group.
    await send(1);
    // Between the pass's list of the group's runs and its locked read of them: a worker takes the run in progress's
    // row lock (its claim, this moment), and a second delivery of the key is recorded. The locked read then skips the
    // one and finds the other: as many rows as listed, but not the same ones.
    const other = openDatabase({ kind: 'postgres', url: database.url! }, { poolSize: 1 });
    let release = () => {};
    let worker: Promise<unknown> | undefined;
    const between = async () => {
      let held = () => {};
      const holding = new Promise<void>((resolve) => (held = resolve));
      worker = other.prisma.$transaction(
        async (tx) => {
          await tx.$queryRawUnsafe('SELECT 1 FROM "Run" WHERE "id" = $1 FOR UPDATE', first!.id);
          held();
          await new Promise<void>((resolve) => (release = resolve));
        },
        { timeout: budget(30_000) },
      );
      await holding;
      await send(1);
    };
    try {
      const pass = await schedulePass(at(1), pausedAfter(database.prisma, /AS "more"/, between));
      expect(pass).toMatchObject({ groups: 1, deferred: 1, started: 0 });
      expect(await statuses(runs)).toEqual(['queued', 'pending', 'pending']);
    } finally {
      release();
      await worker;
      await other.close();
    }
    // The next pass holds every row of the group: the two deliveries wait behind the run in progress.
    await schedulePass(at(2));
    expect(await statuses(runs)).toEqual(['queued', 'waiting', 'waiting']);
  });

  it('a pass that waits for a connection decides at the time it read the groups, not when it began waiting', async () => {
    const { automationId, send, runs } = await setUp({ key: 'pull_request.number', throttle: { limit: 1, periodSeconds: 60 } });
    await send(1);
    // A client with one connection (PGlite has one), held by another transaction while the pass waits for it.
    const single = kind === 'postgres' ? openDatabase({ kind: 'postgres', url: database.url! }, { poolSize: 1 }) : database;
    let clock = at(0);
    let release = () => {};
    let held = () => {};
    const holding = new Promise<void>((resolve) => (held = resolve));
    const holder = single.prisma.$transaction(
      async (tx) => {
        await tx.$queryRawUnsafe('SELECT 1');
        held();
        await new Promise<void>((resolve) => (release = resolve));
      },
      { timeout: budget(30_000) },
    );
    try {
      await holding;
      const pass = schedulePass(() => clock, single.prisma);
      // Time passes while the pass waits: a throttle period opened at its start would lie 5 s in the past.
      clock = at(5);
      release();
      await holder;
      expect((await pass).started).toBe(1);
    } finally {
      release();
      if (single !== database) await single.close();
    }
    expect(await statuses(runs)).toEqual(['queued']);
    expect(await database.prisma.runGroup.findFirst({ where: { automationId } })).toMatchObject({ windowStartedAt: at(5), windowRuns: 1 });
  });

  it('prunes the runs run control ended with the finished ones, never those it holds', async () => {
    const { send, runs } = await setUp({ concurrency: { whenFull: 'skip' } });
    await send(1);
    await send(2);
    await schedulePass(at(0));
    const later = new Date(Date.now() + 100 * 24 * 60 * 60 * 1000);
    await pruneRuns(90, database.prisma, later);
    expect(await statuses(runs)).toEqual(['queued']);
  });

  it('reads a group\'s runs that have not ended from an index that holds only those, whatever the statuses not ended are', async () => {
    // A pass never walks a group's history: Run_active_group_idx (migration run_group_active_index) holds only runs
    // whose status is one of ACTIVE_RUN_STATUSES. A status added there and not to the index's predicate would leave
    // those runs out of the index, and the pass's look would fall back to an index that does not exist any more.
    const [index] = await database.prisma.$queryRawUnsafe<{ definition: string }[]>(`SELECT indexdef AS "definition" FROM pg_indexes WHERE indexname = 'Run_active_group_idx'`);
    const named = [...(index?.definition ?? '').matchAll(/'([a-z_]+)'::"RunStatus"/g)].map((match) => match[1]);
    expect(named.sort()).toEqual([...ACTIVE_RUN_STATUSES].sort());
    expect(index?.definition).toMatch(/"controlKey" IS NOT NULL/);
  });

  it('counts each outcome in /metrics', async () => {
    const counted = async (outcome: string) => (await metrics().runControlOutcomes.get()).values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
    const before = { started: await counted('started'), skipped: await counted('skipped') };
    const { send } = await setUp({ concurrency: { whenFull: 'skip' } });
    await send(1);
    await send(2);
    await schedulePass(at(0));
    expect(await counted('started')).toBe(before.started + 1);
    expect(await counted('skipped')).toBe(before.skipped + 1);
  });
});

/**
 * The client, but the transaction a pass runs in stops once, after its statement that matches
 * `statement`, for `between` to run before the pass goes on: a moment another process could act in.
 */
function pausedAfter(client: Db, statement: RegExp, between: () => Promise<void>): Db {
  let paused = false;
  const transaction = (work: (tx: Tx) => Promise<unknown>, options?: unknown) =>
    client.$transaction(async (tx) => {
      const inner = new Proxy(tx, {
        get(target, name) {
          const value = Reflect.get(target, name, target) as unknown;
          if (name !== '$queryRawUnsafe' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
          return async (sql: string, ...values: unknown[]) => {
            const rows = await (value as (sql: string, ...values: unknown[]) => Promise<unknown>).call(target, sql, ...values);
            if (!paused && statement.test(sql)) {
              paused = true;
              await between();
            }
            return rows;
          };
        },
      });
      return work(inner);
    }, options as never);
  return new Proxy(client, {
    get(target, name) {
      if (name === '$transaction') return transaction;
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
