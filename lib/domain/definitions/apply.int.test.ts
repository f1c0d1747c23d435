import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { setDatabase } from '@/lib/platform/db';
import { applyDefinitions, PLAN_CHANGED_MESSAGE, type ApplyOutcome } from '@/lib/domain/definitions/apply';
import { planDefinitions, planDigest } from '@/lib/domain/definitions/plan';
import { formatProblem } from '@/lib/domain/definitions/schemas';
import { readDefinitionFiles, setConfigSource } from '@/lib/domain/definitions/service';
import { createFactory } from '@/lib/domain/factories/service';
import { AppError } from '@/lib/platform/http/errors';
import { createSecret, replaceSecretValue } from '@/lib/domain/secrets/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';
import { findLiveWebhook } from '@/lib/ingress/live';
import { createWebhook, deleteWebhook, listWebhooks, setEventTypeSetting, setWebhookEnabled } from '@/lib/domain/webhooks/service';

const files = {
  'webhooks/github.yaml': 'authMode: signature\nsignatureScheme: github\nsecretName: GITHUB_SECRET\n',
  'webhooks/cron.yaml': 'authMode: url_token\nsecretName: CRON_TOKEN\ndeliveryIdHeader: X-Run-Id\n',
  'webhooks/.gitkeep': '',
};

function applied(outcome: ApplyOutcome) {
  if (!outcome.ok) throw new Error(`apply failed: ${outcome.plan.problems.map(formatProblem).join('; ')}`);
  return outcome;
}

describe.each(testDatabaseKinds())('applying definition files on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let userId: string;

  /** Every row an apply could write, to prove that one wrote nothing. */
  const snapshot = async () => {
    const db = database.prisma;
    return JSON.stringify([
      await db.webhook.findMany({ where: { factoryId }, orderBy: { uid: 'asc' } }),
      await db.definitionFile.findMany({ where: { factoryId }, orderBy: { path: 'asc' } }),
      await db.factory.findUnique({ where: { id: factoryId } }),
      await db.teamSecret.findMany({ where: { factoryId }, orderBy: { name: 'asc' } }),
    ]);
  };
  const uids = async () => Object.fromEntries((await listWebhooks(factoryId, database.prisma)).map((w) => [w.name, w.uid]));
  const apply = (f: Record<string, string>) => applyDefinitions(factoryId, f, { source: 'managed', db: database.prisma });

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    userId = (await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma)).id;
    factoryId = (await createFactory(userId, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
    await createSecret(factoryId, { name: 'GITHUB_SECRET', value: 'github-signing-secret' }, database.prisma);
    await createSecret(factoryId, { name: 'CRON_TOKEN', value: 'cron-token-1' }, database.prisma);
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  it('refuses files on a dashboard factory until it is switched to managed', async () => {
    await expect(apply(files)).rejects.toThrow(/managed in the dashboard/);
    await setConfigSource(factoryId, 'managed', database.prisma);
  });

  it('assigns UIDs on the first apply and keeps the files', async () => {
    const plan = await planDefinitions(factoryId, files, database.prisma);
    expect(plan.actions.map((a) => `${a.action} ${a.name}`)).toEqual(['create cron', 'create github']);
    const outcome = applied(await apply(files));
    expect(outcome.created.map((c) => c.name)).toEqual(['cron', 'github']);
    const byName = await uids();
    expect(outcome.created.map((c) => c.uid)).toEqual([byName.cron, byName.github]);
    expect(outcome.created[0]!.ingressUrl).toBe(`http://localhost:3000/webhooks/w/${byName.cron}/{token}`);
    expect(await readDefinitionFiles(factoryId, database.prisma)).toEqual({
      'webhooks/cron.yaml': files['webhooks/cron.yaml'],
      'webhooks/github.yaml': files['webhooks/github.yaml'],
    });
    const cron = await findLiveWebhook(byName.cron!);
    expect(cron).toMatchObject({ name: 'cron', authMode: 'url_token', deliveryIdHeader: 'x-run-id', credential: 'cron-token-1' });
  });

  it('changes nothing when the same files apply again: no new UIDs, no writes', async () => {
    const before = await snapshot();
    const uidsBefore = await uids();
    const outcome = applied(await apply(files));
    expect(outcome).toMatchObject({ changed: false, created: [] });
    expect(outcome.plan.actions).toEqual([]);
    expect(outcome.plan.unchanged).toEqual(['cron', 'github']);
    expect(await uids()).toEqual(uidsBefore);
    expect(await snapshot()).toBe(before);
  });

  it('updates a changed file in place, keeping its UID', async () => {
    const uidsBefore = await uids();
    const changed = { ...files, 'webhooks/github.yaml': 'authMode: signature\nsignatureScheme: github\nsecretName: GITHUB_SECRET\ndeliveryIdHeader: X-Hook\n' };
    const outcome = applied(await apply(changed));
    expect(outcome.plan.actions).toMatchObject([{ action: 'update', name: 'github', changes: ['deliveryIdHeader: (none) → x-hook'] }]);
    expect(await uids()).toEqual(uidsBefore);
    expect((await findLiveWebhook(uidsBefore.github!))?.deliveryIdHeader).toBe('x-hook');
    applied(await apply(files));
  });

  it('takes up a changed team secret when the definition applies again, not before', async () => {
    const { cron } = await uids();
    await replaceSecretValue(factoryId, 'CRON_TOKEN', 'cron-token-2', database.prisma);
    // Not before: the webhook keeps the applied credential and shows the pending change.
    expect((await findLiveWebhook(cron!))?.credential).toBe('cron-token-1');
    expect((await listWebhooks(factoryId, database.prisma)).find((w) => w.name === 'cron')?.secretChangePending).toBe(true);
    // Re-applying the same files takes it up, as an update.
    const outcome = applied(await apply(files));
    expect(outcome.plan.actions).toMatchObject([{ action: 'update', name: 'cron', changes: ['takes up the changed value of CRON_TOKEN'] }]);
    expect((await findLiveWebhook(cron!))?.credential).toBe('cron-token-2');
    // So does toggling Enabled off and on.
    await replaceSecretValue(factoryId, 'CRON_TOKEN', 'cron-token-3', database.prisma);
    await setWebhookEnabled(factoryId, cron!, false, database.prisma);
    await setWebhookEnabled(factoryId, cron!, true, database.prisma);
    expect((await findLiveWebhook(cron!))?.credential).toBe('cron-token-3');
  });

  it('fails the whole apply, changing nothing, when a secret is missing or a url_token secret is not URL-safe', async () => {
    await createSecret(factoryId, { name: 'NOT_URL_SAFE', value: 'has/slash' }, database.prisma);
    const before = await snapshot();
    const broken = {
      // A removal and a new webhook that would apply fine on their own...
      'webhooks/github.yaml': files['webhooks/github.yaml'],
      'webhooks/fresh.yaml': 'secretName: GITHUB_SECRET\n',
      // ...and two files that cannot apply.
      'webhooks/stripe.yaml': 'authMode: signature\nsignatureScheme: stripe\nsecretName: STRIPE_SECRET\n',
      'webhooks/cron.yaml': 'authMode: url_token\nsecretName: NOT_URL_SAFE\n',
    };
    const outcome = await apply(broken);
    expect(outcome.ok).toBe(false);
    expect(outcome.plan.problems.map(formatProblem)).toEqual([
      'webhooks/cron.yaml: secretName: the value of NOT_URL_SAFE is not URL-safe (only letters, digits and - . _ ~), so it cannot be a URL token',
      'webhooks/stripe.yaml: secretName: names no team secret: create STRIPE_SECRET on the Secrets page (or with `tripline secret put`) first',
    ]);
    expect(await snapshot()).toBe(before);
  });

  it('refuses more definitions than a factory holds before reading a secret for each', async () => {
    const before = await snapshot();
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`webhooks/w${i}.yaml`, 'secretName: NO_SUCH_SECRET\n']));
    const outcome = await apply(many);
    expect(outcome.ok).toBe(false);
    // One problem: not 21 more about the missing secret, which the old plan looked up once a definition.
    expect(outcome.plan.problems.map(formatProblem)).toEqual(['webhooks/: 21 webhooks are defined, but a factory can have at most 20']);
    expect(outcome.plan.actions).toEqual([]);
    expect(await snapshot()).toBe(before);
  });

  it('deletes the webhook whose file is gone, and a broken file does not count as gone', async () => {
    const { cron, github } = await uids();
    const plan = await planDefinitions(factoryId, { 'webhooks/github.yaml': 'secretName: [', 'webhooks/cron.yaml': files['webhooks/cron.yaml'] }, database.prisma);
    expect(plan.actions).toEqual([]);
    expect(plan.problems).toHaveLength(1);

    const outcome = applied(await apply({ 'webhooks/github.yaml': files['webhooks/github.yaml'] }));
    expect(outcome.plan.actions).toMatchObject([{ action: 'delete', name: 'cron', uid: cron }]);
    expect(await uids()).toEqual({ github });
    expect(await findLiveWebhook(cron!)).toBeNull();
    expect(Object.keys(await readDefinitionFiles(factoryId, database.prisma))).toEqual(['webhooks/github.yaml']);
  });

  it('writes and removes files when the dashboard creates and deletes webhooks of a managed factory', async () => {
    const created = await createWebhook(factoryId, { name: 'deploys', deliveryIdHeader: 'X-Deploy-Id' }, database.prisma);
    expect((await readDefinitionFiles(factoryId, database.prisma))['webhooks/deploys.yaml']).toBe(
      'authMode: token\nsecretName: DEPLOYS_WEBHOOK_SECRET\ndeliveryIdHeader: x-deploy-id\n',
    );
    expect((await findLiveWebhook(created.webhook.uid))?.credential).toBe(created.secret);
    // The files now describe the factory exactly: applying them changes nothing.
    expect((await planDefinitions(factoryId, await readDefinitionFiles(factoryId, database.prisma), database.prisma)).actions).toEqual([]);

    const error = await createWebhook(factoryId, { name: 'stripe', authMode: 'signature', signatureScheme: 'stripe' }, database.prisma).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).fields?.providerSecret).toMatch(/definition files/);

    await deleteWebhook(factoryId, created.webhook.uid, database.prisma);
    expect(Object.keys(await readDefinitionFiles(factoryId, database.prisma))).toEqual(['webhooks/github.yaml']);
  });

  it('applies a plan given by its digest only while the plan made now is that one', async () => {
    const next = { 'webhooks/github.yaml': files['webhooks/github.yaml'], 'webhooks/cron.yaml': files['webhooks/cron.yaml'] };
    const applyAsShown = (digest: string) => applyDefinitions(factoryId, next, { source: 'managed', expectedPlan: digest, db: database.prisma });
    const actions = (plan: Awaited<ReturnType<typeof planDefinitions>>) => plan.actions.map((a) => `${a.action} ${a.name}`);
    const shown = await planDefinitions(factoryId, next, database.prisma);
    expect(actions(shown)).toEqual(['create cron']);

    // Meanwhile an admin creates a webhook in the dashboard: the same files would now delete it, which the plan shown did not say.
    await createWebhook(factoryId, { name: 'stray' }, database.prisma);
    const before = await snapshot();
    await expect(applyAsShown(planDigest(shown))).rejects.toMatchObject({ code: 'conflict', message: PLAN_CHANGED_MESSAGE });
    expect(await snapshot()).toBe(before);

    // The plan made now says so, and its digest applies it.
    const now = await planDefinitions(factoryId, next, database.prisma);
    expect(actions(now)).toEqual(['delete stray', 'create cron']);
    expect(applied(await applyAsShown(planDigest(now))).plan.actions).toHaveLength(2);
    expect(Object.keys(await uids()).sort()).toEqual(['cron', 'github']);

    // A team secret's new value changes the plan too (a webhook would take it up).
    const unchanged = await planDefinitions(factoryId, next, database.prisma);
    expect(actions(unchanged)).toEqual([]);
    await replaceSecretValue(factoryId, 'CRON_TOKEN', 'cron-token-4', database.prisma);
    await expect(applyAsShown(planDigest(unchanged))).rejects.toMatchObject({ code: 'conflict' });
    expect(applied(await applyAsShown(planDigest(await planDefinitions(factoryId, next, database.prisma)))).plan.actions).toMatchObject([
      { action: 'update', name: 'cron', changes: ['takes up the changed value of CRON_TOKEN'] },
    ]);
    // Files with a problem report the problem, whatever digest comes with them.
    expect((await applyDefinitions(factoryId, { 'webhooks/x.yaml': 'secretName: NOPE\n' }, { source: 'managed', expectedPlan: planDigest(unchanged), db: database.prisma })).ok).toBe(false);
  });

  it('switching to managed writes the live webhooks as files, and back to the dashboard drops them', async () => {
    const other = (await createFactory(userId, { name: 'Other', slug: 'other' }, database.prisma)).id;
    const created = await createWebhook(other, { name: 'hooks' }, database.prisma);
    await setConfigSource(other, 'managed', database.prisma);
    expect(await readDefinitionFiles(other, database.prisma)).toEqual({ 'webhooks/hooks.yaml': 'authMode: token\nsecretName: HOOKS_WEBHOOK_SECRET\n' });
    expect((await planDefinitions(other, await readDefinitionFiles(other, database.prisma), database.prisma)).actions).toEqual([]);
    await setConfigSource(other, 'dashboard', database.prisma);
    expect(await readDefinitionFiles(other, database.prisma)).toEqual({});
    expect((await listWebhooks(other, database.prisma)).map((w) => w.uid)).toEqual([created.webhook.uid]);
  });

  it('carries the Event type setting through the export, a change in the dashboard and a plan', async () => {
    const typed = (await createFactory(userId, { name: 'Typed', slug: 'typed' }, database.prisma)).id;
    const created = await createWebhook(typed, { name: 'jobs', eventTypeHeader: 'X-Job-Kind' }, database.prisma);
    await setConfigSource(typed, 'managed', database.prisma);
    const read = async () => (await readDefinitionFiles(typed, database.prisma))['webhooks/jobs.yaml'];
    expect(await read()).toBe('authMode: token\nsecretName: JOBS_WEBHOOK_SECRET\neventTypeHeader: x-job-kind\n');

    // A change in the dashboard or the API rewrites the file in the same transaction.
    await setEventTypeSetting(typed, created.webhook.uid, { eventTypeHeader: null, eventTypePath: 'data.kind' }, database.prisma);
    expect(await read()).toBe('authMode: token\nsecretName: JOBS_WEBHOOK_SECRET\neventTypePath: data.kind\n');
    expect((await findLiveWebhook(created.webhook.uid))?.eventTypeSource).toMatchObject({ rules: [{ parts: [{ body: 'data.kind' }] }] });

    const plan = await planDefinitions(typed, { 'webhooks/jobs.yaml': 'secretName: JOBS_WEBHOOK_SECRET\neventTypeHeader: X-Kind\n' }, database.prisma);
    expect(plan.actions).toMatchObject([{ action: 'update', name: 'jobs', changes: ['eventTypeHeader: (none) → x-kind', 'eventTypePath: data.kind → (none)'] }]);

    const refused = await setEventTypeSetting(typed, created.webhook.uid, { eventTypeHeader: 'X-Kind' }, database.prisma).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ZodError);
    expect((refused as ZodError).issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([['eventTypePath', 'Set a header or a body path for the event type, not both']]);
    await setConfigSource(typed, 'dashboard', database.prisma);
  });
});
