import { composeEnvelope } from '@/lib/domain/runs/envelope';
import { createFactory } from '@/lib/domain/factories/service';
import { createUser } from '@/lib/domain/users/service';
import type { TestDatabase } from '@/tests/support/databases';

// A factory with one automation and one webhook, and queued runs of it, each
// started by its own accepted delivery (whose body is the run's payload).

export type RunOwner = { factoryId: string; automationId: string; webhookId: string };

export async function runOwner(database: TestDatabase, name: string): Promise<RunOwner> {
  const user = await createUser({ email: `${name}@example.com`, password: 'a long enough password' }, database.prisma);
  const factoryId = (await createFactory(user.id, { name, slug: name }, database.prisma, 'everyone')).id;
  const automationId = (await database.prisma.automation.create({ data: { factoryId, name: 'Auto', prompt: 'Do it.' } })).id;
  const webhookId = (await database.prisma.webhook.create({ data: { factoryId, uid: `wh_${name}_${database.kind}`, name: 'hook', secretName: 'S' } })).id;
  return { factoryId, automationId, webhookId };
}

let serial = 0;

/** Queued runs, oldest first. */
export async function queueRuns(database: TestDatabase, owner: RunOwner, count: number, body = '{"n":1}'): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `run_test_${database.kind}_${process.pid}_${serial++}`);
  await database.prisma.delivery.createMany({
    data: ids.map((id) => ({ id: `dl_${id}`, webhookId: owner.webhookId, deliveryId: `d_${id}`, identitySource: 'service_header' as const, status: 'accepted' as const, size: Buffer.byteLength(body), body })),
  });
  const envelope = composeEnvelope({ webhookName: 'hook', webhookUid: 'wh_test', deliveryId: 'd1', eventType: 'pull_request.opened', body });
  const start = Date.now() - 10_000;
  await database.prisma.run.createMany({
    data: ids.map((id, i) => ({ id, factoryId: owner.factoryId, automationId: owner.automationId, deliveryId: `dl_${id}`, prompt: 'Do it.', envelope, createdAt: new Date(start + i) })),
  });
  return ids;
}
