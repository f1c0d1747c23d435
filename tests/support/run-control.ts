import type { RunControlInput } from '@/lib/domain/run-control/config';
import { runControlSchema } from '@/lib/domain/run-control/config';
import { compileKey, groupOf } from '@/lib/domain/run-control/key';
import { composeEnvelope } from '@/lib/domain/runs/envelope';
import { finishRun } from '@/lib/domain/runs/worker';
import { recordAccepted } from '@/lib/ingress/record';
import { sql } from '@/lib/platform/db/sql';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { createTestDatabase, type TestDatabase, type TestDatabaseKind } from '@/tests/support/databases';

// Run control's integration tests: deliveries recorded by the ingress's own
// statement, and runs claimed and ended as the workers do, one run at a time.

export type Place = { factoryId: string; webhookId: string };

let serial = 0;

/** A fresh database made the process's, with a factory and a webhook (UID `wh_<slug>_<kind>`) for the deliveries. */
export async function runControlDatabase(kind: TestDatabaseKind, slug: string): Promise<{ database: TestDatabase; place: Place }> {
  const database = await createTestDatabase(kind);
  setDatabase(database);
  // The row without createUser's password hashing and first-run transaction: nobody signs in here, and a loaded machine's
  // PGlite can take longer than a transaction's default 5 s for them.
  const user = await database.prisma.user.create({ data: { email: `${slug}@example.com`, passwordHash: 'not a hash', instanceAdmin: true } });
  const factoryId = (await createFactory(user.id, { name: `Run control ${slug}`, slug }, database.prisma)).id;
  const webhookId = (await database.prisma.webhook.create({ data: { factoryId, uid: `wh_${slug}_${kind}`, name: 'hook', secretName: 'S' } })).id;
  return { database, place: { factoryId, webhookId } };
}

/** A new automation with these settings (null: none), so each test has groups of its own. */
export async function controlledAutomation(database: TestDatabase, place: Place, control: RunControlInput | null): Promise<string> {
  const runControl = control === null ? undefined : runControlSchema.parse(control);
  const automation = await database.prisma.automation.create({ data: { factoryId: place.factoryId, name: `rc-${serial++}`, prompt: 'Do it.', ...(runControl && { runControl }) } });
  return automation.id;
}

/** Records an accepted delivery with `body` that matches `automationId`; returns its Delivery row id. */
export async function arrive(place: Place, automationId: string, control: RunControlInput | null, body: unknown, deliveryId = `d-${serial++}`): Promise<string> {
  const text = JSON.stringify(body);
  const envelope = composeEnvelope({ webhookName: 'hook', webhookUid: 'wh_rc', deliveryId, body: text });
  const group = control === null ? undefined : groupOf(compileKey(runControlSchema.parse(control)), { body, eventType: null, headers: {} });
  const outcome = await recordAccepted({
    ...place,
    identity: { deliveryId, source: 'service_header' },
    size: text.length,
    body: text,
    headers: {},
    remoteAddress: null,
    runQueueLimit: 100_000,
    runs: [{ automationId, envelope, ...(group && { group }) }],
  });
  if (outcome.limited) throw new Error('rate limited');
  return outcome.id;
}

export type RunRow = {
  id: string;
  deliveryId: string;
  status: string;
  replay: boolean;
  controlKey: string | null;
  outcomeRunId: string | null;
  outcomeDeliveryId: string | null;
  outcomeDetail: string | null;
  notBefore: Date | null;
  cancelRequestedAt: Date | null;
  envelope: { deliveryId: string; deliveryIds?: string[]; text: string };
};

/** The automation's runs in arrival order. */
export function runsOf(database: TestDatabase, automationId: string): Promise<RunRow[]> {
  return database.prisma.run.findMany({ where: { automationId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }) as unknown as Promise<RunRow[]>;
}

/** Claims one queued run as a worker would (by id, so a test picks which). */
export async function claim(runId: string, worker = 'w'): Promise<boolean> {
  const rows = await sql(
    `UPDATE "Run" SET "status" = 'running', "lockedBy" = $2, "lockedUntil" = now() + interval '1 hour', "startedAt" = now(), "attempts" = "attempts" + 1
      WHERE "id" = $1 AND "status" = 'queued' RETURNING 1`,
    [runId, worker],
  );
  return rows.length === 1;
}

/** Ends a claimed run through the workers' own statement (which marks its group dirty). */
export function finish(runId: string, worker = 'w'): Promise<void> {
  return finishRun(worker, runId, { status: 'succeeded', output: '' });
}
