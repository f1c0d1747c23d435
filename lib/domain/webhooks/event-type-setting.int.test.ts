import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { handleIngress } from '@/lib/ingress/pipeline';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';
import { findLiveWebhook } from '@/lib/ingress/live';
import { createWebhook, setEventTypeSetting } from '@/lib/domain/webhooks/service';

// The Event type setting of webhooks without a provider scheme: the ingress
// stores each delivery's type from the configured header or body path, and
// null when the delivery names none or an unreadable one (never a rejection).

describe.each(testDatabaseKinds())('the Event type setting at the ingress on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const user = await createUser({ email: 'event-types@example.com', password: 'a long enough password' }, database.prisma);
    factoryId = (await createFactory(user.id, { name: 'Types', slug: 'types' }, database.prisma)).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  async function send(uid: string, auth: { bearer?: string; token?: string }, body: unknown, headers: Record<string, string> = {}) {
    const response = await handleIngress(
      new Request(`http://localhost/webhooks/w/${uid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth.bearer ? { authorization: `Bearer ${auth.bearer}` } : {}), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
      { uid, ...(auth.token ? { token: auth.token } : {}) },
    );
    expect(response.status).toBe(202);
    const row = await database.prisma.delivery.findFirstOrThrow({
      where: { webhook: { uid } },
      orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
      select: { status: true, eventType: true },
    });
    expect(row.status).toBe('accepted');
    return row.eventType;
  }

  it('takes a bearer webhook’s type from its header, case-insensitively, and null when it is missing or unreadable', async () => {
    const created = await createWebhook(factoryId, { name: 'jobs', eventTypeHeader: 'X-Job-Kind' }, database.prisma);
    expect(created.webhook).toMatchObject({ eventTypeHeader: 'x-job-kind', eventTypePath: null });
    const { uid } = created.webhook;
    const bearer = created.secret!;
    expect((await findLiveWebhook(uid))?.eventTypeSource).toMatchObject({ kind: 'rules', rules: [{ parts: [{ header: 'x-job-kind' }] }] });

    expect(await send(uid, { bearer }, { n: 1 }, { 'X-JOB-KIND': 'nightly.build' })).toBe('nightly.build');
    expect(await send(uid, { bearer }, { n: 2 })).toBeNull();
    expect(await send(uid, { bearer }, { n: 3 }, { 'x-job-kind': 'x'.repeat(201) })).toBeNull();
    // The body is not where this webhook's type lives.
    expect(await send(uid, { bearer }, { n: 4, type: 'in.the.body' })).toBeNull();
  });

  it('takes a URL token webhook’s type from its body path, an array position included', async () => {
    const created = await createWebhook(factoryId, { name: 'orders', authMode: 'url_token', eventTypePath: 'data.events.0.type' }, database.prisma);
    expect(created.webhook).toMatchObject({ eventTypeHeader: null, eventTypePath: 'data.events.0.type' });
    const { uid } = created.webhook;
    const token = created.secret!;

    expect(await send(uid, { token }, { data: { events: [{ type: 'order.paid' }, { type: 'order.shipped' }] } })).toBe('order.paid');
    expect(await send(uid, { token }, { data: { events: [] } })).toBeNull();
    expect(await send(uid, { token }, { data: { events: [{ type: { nested: true } }] } })).toBeNull();
    expect(await send(uid, { token }, { data: { events: [{ type: 'bad\u0007type' }] } })).toBeNull();
    expect(await send(uid, { token }, [1, 2, 3])).toBeNull();
  });

  it('stores null for a type the body names with a bidirectional or zero-width character', async () => {
    const created = await createWebhook(factoryId, { name: 'invisible', authMode: 'url_token', eventTypePath: 'kind' }, database.prisma);
    const { uid } = created.webhook;
    const token = created.secret!;
    // U+202E shows "invoice.paid" for this text; U+200B makes a "push" that is not push.
    expect(await send(uid, { token }, { kind: 'invoice.\u202Ediap' })).toBeNull();
    expect(await send(uid, { token }, { kind: 'pu\u200Bsh' })).toBeNull();
    expect(await send(uid, { token }, { kind: '\u2066push\u2069' })).toBeNull();
    expect(await send(uid, { token }, { kind: 'push' })).toBe('push');
  });

  it('never takes the type from a credential header: refused when set, ignored when stored before the refusal', async () => {
    const created = await createWebhook(factoryId, { name: 'bearer-typed', eventTypeHeader: 'X-Job-Kind' }, database.prisma);
    const { uid } = created.webhook;
    const bearer = created.secret!;
    await expect(setEventTypeSetting(factoryId, uid, { eventTypeHeader: 'Authorization' }, database.prisma)).rejects.toThrow(/cannot be the event type header/);
    await expect(createWebhook(factoryId, { name: 'bearer-leak', eventTypeHeader: 'Authorization' }, database.prisma)).rejects.toThrow(/cannot be the event type header/);

    // As a setting saved before the schemas refused it would be (the row trigger tells the live cache).
    await database.prisma.webhook.update({ where: { uid }, data: { eventTypeHeader: 'authorization' } });
    expect((await findLiveWebhook(uid))?.eventTypeSource).toBeNull();
    expect(await send(uid, { bearer }, { n: 1 }, { 'X-Job-Kind': 'nightly.build' })).toBeNull();
    const stored = await database.prisma.delivery.findMany({ where: { webhook: { uid } }, select: { eventType: true } });
    expect(stored.map((row) => row.eventType)).toEqual([null]);
    const leaked = await database.prisma.delivery.count({ where: { eventType: { contains: bearer } } });
    expect(leaked).toBe(0);
  });

  it('stores null for a bearer webhook without the setting', async () => {
    const created = await createWebhook(factoryId, { name: 'plain' }, database.prisma);
    expect((await findLiveWebhook(created.webhook.uid))?.eventTypeSource).toBeNull();
    expect(await send(created.webhook.uid, { bearer: created.secret! }, { type: 'ignored' }, { 'x-event-type': 'ignored' })).toBeNull();
  });
});
