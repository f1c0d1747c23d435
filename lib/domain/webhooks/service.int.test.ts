import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { AppError } from '@/lib/platform/http/errors';
import { createSecret, deleteSecret, listSecrets, MAX_SECRETS_PER_FACTORY, putSecret, replaceSecretValue } from '@/lib/domain/secrets/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { dumpDatabaseText } from '@/tests/support/dump';
import { createUser } from '@/lib/domain/users/service';
import {
  MAX_WEBHOOKS_PER_FACTORY,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  setCustomResponse,
  setEventTypeSetting,
  setProviderSecret,
  setWebhookEnabled,
} from '@/lib/domain/webhooks/service';
import { findLiveWebhook } from '@/lib/ingress/live';
import { appError } from '@/tests/support/app-error';

describe.each(testDatabaseKinds())('webhooks and team secrets on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let otherFactoryId: string;
  // Every secret value these tests create, to prove none is stored in clear.
  const clearSecrets: string[] = [];
  const remember = (secret: string | null) => {
    if (secret) clearSecrets.push(secret);
    return secret;
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // The ingress lookup runs on the process's database.
    setDatabase(database);
    const user = await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma);
    factoryId = (await createFactory(user.id, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
    otherFactoryId = (await createFactory(user.id, { name: 'Other', slug: 'other' }, database.prisma)).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  it('creates a bearer-token webhook with a generated secret, shown once and stored in a suggested team secret', async () => {
    const db = database.prisma;
    const result = await createWebhook(factoryId, { name: 'ci-events' }, db);
    remember(result.secret);
    expect(result.webhook).toMatchObject({ name: 'ci-events', authMode: 'token', enabled: true, state: 'enabled', secretName: 'CI_EVENTS_WEBHOOK_SECRET' });
    expect(result.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(result.webhook.uid).toMatch(/^wh_[A-Za-z0-9]{22}$/);
    expect(result.ingressUrl).toBe(`http://localhost:3000/webhooks/w/${result.webhook.uid}`);
    expect((await findLiveWebhook(result.webhook.uid))?.credential).toBe(result.secret);
    expect((await listSecrets(factoryId, db)).map((s) => s.name)).toContain('CI_EVENTS_WEBHOOK_SECRET');
  });

  it('puts a url_token secret in the URL once, then shows {token}', async () => {
    const db = database.prisma;
    const result = await createWebhook(factoryId, { name: 'cron', authMode: 'url_token' }, db);
    remember(result.secret);
    expect(result.ingressUrl).toBe(`http://localhost:3000/webhooks/w/${result.webhook.uid}/${result.secret}`);
    expect(result.webhook.ingressUrl).toBe(`http://localhost:3000/webhooks/w/${result.webhook.uid}/{token}`);
    expect((await getWebhook(factoryId, result.webhook.uid, db)).ingressUrl).toContain('/{token}');
  });

  it('uses a named existing team secret without revealing it, and refuses a non-URL-safe one for url_token', async () => {
    const db = database.prisma;
    await createSecret(factoryId, { name: 'SHARED_TOKEN', value: 'url-safe_value.123~' }, db);
    await createSecret(factoryId, { name: 'NOT_URL_SAFE', value: 'has/slash and space' }, db);
    remember('url-safe_value.123~');
    remember('has/slash and space');
    const shared = await createWebhook(factoryId, { name: 'shared', authMode: 'url_token', secretName: 'SHARED_TOKEN' }, db);
    expect(shared.secret).toBeNull();
    expect((await findLiveWebhook(shared.webhook.uid))?.credential).toBe('url-safe_value.123~');

    const before = await db.webhook.count();
    const refused = await appError(createWebhook(factoryId, { name: 'unsafe', authMode: 'url_token', secretName: 'NOT_URL_SAFE' }, db));
    expect(refused.code).toBe('validation_failed');
    expect(refused.fields?.secretName).toMatch(/not URL-safe/);
    expect(await db.webhook.count()).toBe(before);
  });

  it('generates a whsec_ secret for a Standard Webhooks sender left blank, and checks a provided one', async () => {
    const db = database.prisma;
    const generated = await createWebhook(factoryId, { name: 'svix-app', authMode: 'signature', signatureScheme: 'standard-webhooks' }, db);
    remember(generated.secret);
    expect(generated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const bad = await appError(
      createWebhook(factoryId, { name: 'svix-bad', authMode: 'signature', signatureScheme: 'standard-webhooks', providerSecret: 'not-a-whsec' }, db),
    );
    expect(bad.fields?.providerSecret).toMatch(/whsec_/);
  });

  it('validates fields with messages next to them', async () => {
    const db = database.prisma;
    const error = await createWebhook(factoryId, { name: 'Bad Name', authMode: 'signature' }, db).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ZodError' });
    const tokenWithScheme = await createWebhook(factoryId, { name: 'x', authMode: 'token', signatureScheme: 'github' }, db).catch((e: unknown) => e);
    expect(JSON.stringify(tokenWithScheme)).toMatch(/only applies to provider signature/);
  });

  it('waits for a provider-issued secret, refusing nothing silently, then applies it in a second step', async () => {
    const db = database.prisma;
    const stripe = await createWebhook(factoryId, { name: 'stripe', authMode: 'signature', signatureScheme: 'stripe' }, db);
    expect(stripe.secret).toBeNull();
    expect(stripe.webhook).toMatchObject({ state: 'awaiting_secret', awaitingSecret: true, secretName: 'STRIPE_WEBHOOK_SECRET' });
    expect((await findLiveWebhook(stripe.webhook.uid))?.credential).toBeNull();
    await expect(rotateWebhookSecret(factoryId, stripe.webhook.uid, db)).rejects.toThrow(/issues this webhook's secret/);

    const updated = await setProviderSecret(factoryId, stripe.webhook.uid, { secret: remember('whsec_stripe_issued_value')! }, db);
    expect(updated.state).toBe('enabled');
    expect((await findLiveWebhook(stripe.webhook.uid))?.credential).toBe('whsec_stripe_issued_value');
  });

  it('rotates at once with no overlap', async () => {
    const db = database.prisma;
    const created = await createWebhook(factoryId, { name: 'rotating' }, db);
    remember(created.secret);
    const rotated = await rotateWebhookSecret(factoryId, created.webhook.uid, db);
    remember(rotated.secret);
    expect(rotated.secret).not.toBe(created.secret);
    expect((await findLiveWebhook(created.webhook.uid))?.credential).toBe(rotated.secret);
  });

  it('takes up a changed team secret only when the definition applies again (Enabled off and on)', async () => {
    const db = database.prisma;
    const created = await createWebhook(factoryId, { name: 'uptake' }, db);
    remember(created.secret);
    await replaceSecretValue(factoryId, created.webhook.secretName, remember('replaced-value')!, db);
    expect((await findLiveWebhook(created.webhook.uid))?.credential).toBe(created.secret);
    expect((await getWebhook(factoryId, created.webhook.uid, db)).secretChangePending).toBe(true);

    await setWebhookEnabled(factoryId, created.webhook.uid, false, db);
    expect(await findLiveWebhook(created.webhook.uid)).toBeNull();
    const enabled = await setWebhookEnabled(factoryId, created.webhook.uid, true, db);
    expect(enabled.secretChangePending).toBe(false);
    expect((await findLiveWebhook(created.webhook.uid))?.credential).toBe('replaced-value');
  });

  it('deletes: the webhook is unknown at once, its name is free again, and its secret may then be deleted', async () => {
    const db = database.prisma;
    const created = await createWebhook(factoryId, { name: 'doomed' }, db);
    remember(created.secret);
    const refused = await appError(deleteSecret(factoryId, created.webhook.secretName, db));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toMatch(/used by the webhook doomed/);

    await deleteWebhook(factoryId, created.webhook.uid, db);
    expect(await findLiveWebhook(created.webhook.uid)).toBeNull();
    expect((await appError(getWebhook(factoryId, created.webhook.uid, db))).code).toBe('not_found');
    expect((await listWebhooks(factoryId, db)).map((w) => w.name)).not.toContain('doomed');
    await deleteSecret(factoryId, created.webhook.secretName, db);

    const again = await createWebhook(factoryId, { name: 'doomed' }, db);
    remember(again.secret);
    expect(again.webhook.uid).not.toBe(created.webhook.uid);
  });

  it('keeps factories apart', async () => {
    const db = database.prisma;
    const [mine] = await listWebhooks(factoryId, db);
    expect((await appError(getWebhook(otherFactoryId, mine!.uid, db))).code).toBe('not_found');
    expect(await listWebhooks(otherFactoryId, db)).toEqual([]);
    const sameName = await createWebhook(otherFactoryId, { name: 'ci-events' }, db);
    remember(sameName.secret);
    expect(sameName.webhook.secretName).toBe('CI_EVENTS_WEBHOOK_SECRET');
  });

  it(`allows at most ${MAX_WEBHOOKS_PER_FACTORY} webhooks per factory, even under concurrent creation`, async () => {
    const db = database.prisma;
    const existing = (await listWebhooks(factoryId, db)).length;
    const attempts = MAX_WEBHOOKS_PER_FACTORY - existing + 5;
    const results = await Promise.allSettled(
      Array.from({ length: attempts }, (_, i) => createWebhook(factoryId, { name: `bulk-${i}` }, db)),
    );
    for (const r of results) if (r.status === 'fulfilled') remember(r.value.secret);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as AppError);
    expect(refused).toHaveLength(5);
    expect(refused.every((e) => e.code === 'conflict' && /at most 20 webhooks/.test(e.message))).toBe(true);
    expect(await db.webhook.count({ where: { factoryId, deletedAt: null } })).toBe(MAX_WEBHOOKS_PER_FACTORY);
  });

  it(`keeps at most ${MAX_SECRETS_PER_FACTORY} team secrets in a factory; a value is still replaced past it`, async () => {
    const db = database.prisma;
    const owner = await db.factory.findUniqueOrThrow({ where: { id: otherFactoryId }, select: { id: true } });
    const existing = (await listSecrets(owner.id, db)).length;
    // Filled to one short of the bound directly (the value is never read here), then the last through the service.
    await db.teamSecret.createMany({ data: Array.from({ length: MAX_SECRETS_PER_FACTORY - existing - 1 }, (_, i) => ({ factoryId: owner.id, name: `BULK_${i}`, valueEncrypted: 'v1.x.y.z' })) });
    await putSecret(owner.id, `BULK_${MAX_SECRETS_PER_FACTORY - 1}`, 'value', db);
    const refused = [await appError(createSecret(owner.id, { name: 'ONE_MORE', value: 'x' }, db)), await appError(putSecret(owner.id, 'ONE_MORE', 'x', db))];
    expect(refused.map((error) => error.message)).toEqual(Array(2).fill(`A factory can have at most ${MAX_SECRETS_PER_FACTORY.toLocaleString('en-US')} team secrets. Delete one you no longer use to add another.`));
    expect((await putSecret(owner.id, `BULK_${MAX_SECRETS_PER_FACTORY - 1}`, 'new value', db)).created).toBe(false);
    expect(await db.teamSecret.count({ where: { factoryId: owner.id } })).toBe(MAX_SECRETS_PER_FACTORY);
    await db.teamSecret.deleteMany({ where: { factoryId: owner.id, name: { startsWith: 'BULK_' } } });
  });

  it('enabling a webhook while its settings change at the same time never deadlocks', async () => {
    // In the other factory: this one is full by now. Enabling writes the webhook's row twice (its credential, then enabled), and PostgreSQL checks
    // the factory key again on the second write; each setting locks the factory, then writes the row.
    const { webhook } = await createWebhook(otherFactoryId, { name: 'racing' }, database.prisma);
    const failures: string[] = [];
    for (let round = 0; round < 20; round++) {
      const outcomes = await Promise.allSettled([
        setWebhookEnabled(otherFactoryId, webhook.uid, true, database.prisma),
        setEventTypeSetting(otherFactoryId, webhook.uid, { eventTypePath: round % 2 ? 'type' : null }, database.prisma),
        setWebhookEnabled(otherFactoryId, webhook.uid, true, database.prisma),
        setCustomResponse(otherFactoryId, webhook.uid, round % 2 ? { status: 200, contentType: 'text/plain; charset=utf-8', body: 'ok' } : null, database.prisma),
      ]);
      for (const outcome of outcomes) if (outcome.status === 'rejected') failures.push(String((outcome.reason as Error).message).replace(/\s+/g, ' ').slice(0, 200));
    }
    expect(failures).toEqual([]);
    await deleteWebhook(otherFactoryId, webhook.uid, database.prisma);
  });

  it('never stores a secret in clear text', async () => {
    expect(clearSecrets.length).toBeGreaterThan(20);
    const dump = await dumpDatabaseText(database.prisma);
    expect(dump.length).toBeGreaterThan(1000);
    for (const secret of clearSecrets) expect(dump.includes(secret), `found a secret in the database dump`).toBe(false);
  });
});
