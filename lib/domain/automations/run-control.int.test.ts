import { beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { createAutomation, getAutomation, updateAutomation } from '@/lib/domain/automations/service';
import { explainDelivery } from '@/lib/domain/automations/why-not';
import { getRun, listRuns } from '@/lib/domain/runs/service';
import { createWebhook } from '@/lib/domain/webhooks/service';
import { testDatabaseKinds } from '@/tests/support/databases';
import { useFactoryDatabase } from '@/tests/support/factory-database';

// Run control's settings as the service stores them (validated, defaults
// filled in, null clears, absent leaves them), and the outcomes the runs
// views read back with what they name: the run, the delivery, the group's key.
// The scheduler that writes outcomes is elsewhere; rows are written here as it would.

describe.each(testDatabaseKinds())('run control surfaces on %s', (kind) => {
  const ctx = useFactoryDatabase(kind, 'Acme');
  let uid: string;

  beforeAll(async () => {
    uid = (await createWebhook(ctx.factoryId, { name: 'github' }, ctx.database.prisma)).webhook.uid;
  });

  const trigger = () => ({ provider: 'webhook' as const, event: 'received' as const, filter: { webhook_ids: [uid] } });

  it('stores the settings with their defaults, leaves them when absent and clears them with null', async () => {
    const db = ctx.database.prisma;
    const created = await createAutomation(
      ctx.factoryId,
      { name: 'review', prompt: 'Review it.', triggers: [trigger()], runControl: { key: ['pull_request.number'], concurrency: { whenFull: 'cancel-running' } } },
      db,
    );
    expect(created.runControl).toEqual({ key: ['pull_request.number'], concurrency: { limit: 1, whenFull: 'cancel-running' } });

    const renamed = await updateAutomation(ctx.factoryId, created.id, { name: 'review PRs' }, db);
    expect(renamed.runControl).toEqual(created.runControl);

    const debounced = await updateAutomation(ctx.factoryId, created.id, { runControl: { debounce: { periodSeconds: 60, maxWaitSeconds: 600 } } }, db);
    expect(debounced.runControl).toEqual({ debounce: { periodSeconds: 60, maxWaitSeconds: 600 } });

    const cleared = await updateAutomation(ctx.factoryId, created.id, { runControl: null }, db);
    expect(cleared.runControl).toBeNull();
    // SQL NULL, not JSON null: "no run control" has one representation for the scheduler to read.
    const raw = await db.$queryRawUnsafe<{ isNull: boolean }[]>(`SELECT "runControl" IS NULL AS "isNull" FROM "Automation" WHERE id = $1`, created.id);
    expect(raw[0]!.isNull).toBe(true);
    expect((await createAutomation(ctx.factoryId, { name: 'plain', prompt: 'p' }, db)).runControl).toBeNull();
  });

  it('refuses settings the schema refuses, naming the field, and changes nothing', async () => {
    const db = ctx.database.prisma;
    const automation = await createAutomation(ctx.factoryId, { name: 'strict', prompt: 'p', runControl: { rateLimit: { limit: 5, periodSeconds: 60 } } }, db);
    const attempts: [unknown, string, string][] = [
      [{ concurrency: { limit: 0 } }, 'runControl.concurrency.limit', 'The concurrency limit is at least 1'],
      [{ debounce: { periodSeconds: 90_000 } }, 'runControl.debounce.periodSeconds', 'The debounce period is at most 86,400 seconds (24 hours)'],
      [{ concurrency: { whenFull: 'newest' } }, 'runControl.concurrency.whenFull', 'When the group is full, choose one of queue-newest, queue-all, cancel-running, skip'],
      [{ throttle: { limit: 1, periodSeconds: 1 }, rateLimit: { limit: 1, periodSeconds: 1 } }, 'runControl.rateLimit', 'Choose a throttle'],
      [{ key: 'a' }, 'runControl', 'Run control needs at least one of concurrency, debounce, throttle or rate limit'],
      [{ concurency: { limit: 1 } }, 'runControl', 'Run control holds key, concurrency, debounce, throttle and rateLimit'],
    ];
    for (const [runControl, path, message] of attempts) {
      const error = await updateAutomation(ctx.factoryId, automation.id, { runControl: runControl as never }, db).catch((e: unknown) => e);
      expect(error, JSON.stringify(runControl)).toBeInstanceOf(ZodError);
      const issue = (error as ZodError).issues[0]!;
      expect(issue.path.join('.')).toBe(path);
      expect(issue.message).toContain(message);
    }
    expect((await getAutomation(ctx.factoryId, automation.id, db)).runControl).toEqual({ rateLimit: { limit: 5, periodSeconds: 60 } });
  });

  it('reads each run’s outcome with the run, delivery and key it names', async () => {
    const db = ctx.database.prisma;
    const automation = await createAutomation(ctx.factoryId, { name: 'outcomes', prompt: 'p', triggers: [trigger()], runControl: { key: 'pull_request.number', concurrency: {} } }, db);
    const webhook = await db.webhook.findUniqueOrThrow({ where: { uid }, select: { id: true } });
    const delivery = (n: number) =>
      db.delivery.create({
        data: { webhookId: webhook.id, deliveryId: `evt-${n}`, identitySource: 'service_header', status: 'accepted', size: 2, body: '{}', receivedAt: new Date(Date.UTC(2026, 10, 28, 12, n)) },
      });
    const [first, second, third] = [await delivery(1), await delivery(2), await delivery(3)];
    await db.runGroup.create({ data: { automationId: automation.id, key: 'k42', keyText: 'pull_request.number=42' } });
    const base = { factoryId: ctx.factoryId, automationId: automation.id, prompt: 'p', envelope: {}, controlKey: 'k42' };
    const running = await db.run.create({ data: { ...base, deliveryId: first.id, status: 'running', createdAt: new Date(Date.UTC(2026, 10, 28, 12, 1)) } });
    const superseded = await db.run.create({
      data: { ...base, deliveryId: second.id, status: 'superseded', outcomeDeliveryId: third.id, createdAt: new Date(Date.UTC(2026, 10, 28, 12, 2)) },
    });
    const waiting = await db.run.create({
      data: { ...base, deliveryId: third.id, status: 'waiting', outcomeRunId: running.id, controlKey: 'forgotten', createdAt: new Date(Date.UTC(2026, 10, 28, 12, 3)) },
    });

    const runs = await listRuns(ctx.factoryId, { automationId: automation.id }, db);
    expect(runs.map((run) => [run.id, run.outcome, run.controlKey])).toEqual([
      [waiting.id, { kind: 'waiting', runId: running.id }, 'forgotten'],
      [superseded.id, { kind: 'superseded', deliveryId: third.id }, 'pull_request.number=42'],
      [running.id, { kind: 'started' }, 'pull_request.number=42'],
    ]);
    expect(runs[0]!.outcomeRefs).toEqual({ run: { id: running.id, automationId: automation.id }, delivery: null });
    expect(runs[1]!.outcomeRefs.delivery).toEqual({ id: third.id, deliveryId: 'evt-3', webhookUid: uid, webhookName: 'github', webhookDeleted: false });
    expect((await getRun(ctx.factoryId, superseded.id, db)).outcome).toEqual({ kind: 'superseded', deliveryId: third.id });

    const why = await explainDelivery(ctx.factoryId, uid, second.id, db);
    const explained = why.automations.find((a) => a.automation.id === automation.id)!;
    expect(explained.summary).toBe(`Superseded by delivery ${third.id}`);
    expect(explained.run).toMatchObject({ id: superseded.id, status: 'superseded', outcome: { kind: 'superseded', deliveryId: third.id } });
    expect(explained.run!.outcomeRefs.delivery?.deliveryId).toBe('evt-3');
  });
});
