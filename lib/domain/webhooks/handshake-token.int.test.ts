import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';
import { handshakeTokenState, revealHandshakeToken } from '@/lib/domain/webhooks/handshake-token';
import { captureHandshakeSecret, findLiveWebhook, notionTokenPendingDetail } from '@/lib/ingress/live';
import { createWebhook, getWebhook, updateWebhookTx } from '@/lib/domain/webhooks/service';
import { putSecret } from '@/lib/domain/secrets/service';
import { appError } from '@/tests/support/app-error';

// Secrets that arrive in a provider's handshake (Asana, Notion): stored only
// while the webhook waits for one, and Notion's token revealed exactly once.

describe.each(testDatabaseKinds())('handshake secrets on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const user = await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma);
    factoryId = (await createFactory(user.id, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  it('stores the first handshake secret of a waiting webhook, and refuses every later one', async () => {
    const db = database.prisma;
    const { webhook } = await createWebhook(factoryId, { name: 'asana-tasks', authMode: 'signature', signatureScheme: 'asana' }, db);
    expect(webhook.awaitingSecret).toBe(true);
    const row = await db.webhook.findUniqueOrThrow({ where: { uid: webhook.uid }, select: { id: true } });

    const racing = await Promise.all([captureHandshakeSecret(row.id, 'first-secret', db), captureHandshakeSecret(row.id, 'second-secret', db)]);
    expect(racing.filter(Boolean)).toHaveLength(1);
    const stored = (await findLiveWebhook(webhook.uid))?.credential;
    expect(['first-secret', 'second-secret']).toContain(stored);
    expect(await captureHandshakeSecret(row.id, 'attacker-secret', db)).toBe(false);
    expect((await findLiveWebhook(webhook.uid))?.credential).toBe(stored);
    expect((await getWebhook(factoryId, webhook.uid, db)).awaitingSecret).toBe(false);
  });

  it('reveals Notion’s token once, then only says when it was shown', async () => {
    const db = database.prisma;
    const { webhook } = await createWebhook(factoryId, { name: 'notion-pages', authMode: 'signature', signatureScheme: 'notion' }, db);
    const row = await db.webhook.findUniqueOrThrow({ where: { uid: webhook.uid }, select: { id: true } });
    expect(await handshakeTokenState(factoryId, webhook.uid, db)).toBeNull();

    expect(await captureHandshakeSecret(row.id, 'secret_notionToken', db)).toBe(true);
    await db.delivery.create({
      data: { webhookId: row.id, deliveryId: 'req_1', identitySource: 'request_id', status: 'handshake', size: 40, detail: notionTokenPendingDetail('secret_notionToken') },
    });
    expect(await handshakeTokenState(factoryId, webhook.uid, db)).toEqual({ state: 'pending' });

    const [first, second] = await Promise.all([revealHandshakeToken(factoryId, webhook.uid, db), revealHandshakeToken(factoryId, webhook.uid, db)]);
    expect([first, second].filter((token) => token !== null)).toEqual(['secret_notionToken']);
    expect(await revealHandshakeToken(factoryId, webhook.uid, db)).toBeNull();
    expect(await handshakeTokenState(factoryId, webhook.uid, db)).toMatchObject({ state: 'shown' });
    // Another factory sees nothing of it.
    expect(await revealHandshakeToken('another-factory', webhook.uid, db)).toBeNull();
  });

  it('never reveals another team secret that the webhook was pointed at after the handshake', async () => {
    const db = database.prisma;
    await putSecret(factoryId, 'PROD_DATABASE_PASSWORD', 'write-only value', db);
    const { webhook } = await createWebhook(factoryId, { name: 'notion-switch', authMode: 'signature', signatureScheme: 'notion' }, db);
    const row = await db.webhook.findUniqueOrThrow({ where: { uid: webhook.uid }, select: { id: true } });
    expect(await captureHandshakeSecret(row.id, 'secret_deliveredByNotion', db)).toBe(true);
    await db.delivery.create({
      data: { webhookId: row.id, deliveryId: 'req_2', identitySource: 'request_id', status: 'handshake', size: 40, detail: notionTokenPendingDetail('secret_deliveredByNotion') },
    });
    const original = (await getWebhook(factoryId, webhook.uid, db)).secretName;
    const pointAt = (secretName: string) =>
      db.$transaction((tx) => updateWebhookTx(tx, factoryId, webhook.uid, { name: 'notion-switch', authMode: 'signature', signatureScheme: 'notion', secretName, deliveryIdHeader: null, eventTypeHeader: null, eventTypePath: null, ipAllowlist: [], customResponse: null }));
    // What applying a definition file that names another secret does.
    await pointAt('PROD_DATABASE_PASSWORD');
    const refusal = await appError(revealHandshakeToken(factoryId, webhook.uid, db));
    expect(refusal.message).toMatch(/no longer the token Notion’s handshake delivered/);
    expect(refusal.message).not.toContain('write-only value');
    // Still pending: nothing was shown.
    expect(await handshakeTokenState(factoryId, webhook.uid, db)).toEqual({ state: 'pending' });
    // Pointed back at the secret the handshake filled, the delivered token is shown, once.
    await pointAt(original);
    expect(await revealHandshakeToken(factoryId, webhook.uid, db)).toBe('secret_deliveredByNotion');
    expect(await revealHandshakeToken(factoryId, webhook.uid, db)).toBeNull();
  });
});
