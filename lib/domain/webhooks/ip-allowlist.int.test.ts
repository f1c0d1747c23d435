import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { createFactory } from '@/lib/domain/factories/service';
import { readDefinitionFiles, setConfigSource } from '@/lib/domain/definitions/service';
import { createWebhook, getWebhook, setIpAllowlist } from '@/lib/domain/webhooks/service';
import { toAppError } from '@/lib/platform/http/errors';
import { testDatabaseKinds } from '@/tests/support/databases';
import { postJson, useFactoryDatabase } from '@/tests/support/factory-database';

// The IP allowlist through the service and the ingress, on both databases:
// stored canonically, checked for every caller, written to a managed
// factory's definition file, taken up by the ingress at once (the live cache
// entry is dropped), and a request from outside answered like an unknown
// webhook, logged as refused_address.

const ENTRY_MARK = Symbol.for('tripline.server-entry');

describe.each(testDatabaseKinds())('the IP allowlist on %s', (kind) => {
  const ctx = useFactoryDatabase(kind, 'Allow');
  beforeAll(() => {
    // As under the server entry: X-Forwarded-For holds the address it resolved.
    (globalThis as Record<symbol, unknown>)[ENTRY_MARK] = true;
  });
  afterAll(() => {
    delete (globalThis as Record<symbol, unknown>)[ENTRY_MARK];
  });

  const send = (uid: string, secret: string, address: string) => postJson(uid, { n: Math.random() }, { authorization: `Bearer ${secret}`, 'x-forwarded-for': address });

  it('stores ranges canonically, and the ingress takes a change at once', async () => {
    const created = await createWebhook(ctx.factoryId, { name: 'partners', authMode: 'token' }, ctx.database.prisma);
    const { uid } = created.webhook;
    const secret = created.secret!;
    expect((await send(uid, secret, '198.51.100.7')).status).toBe(202);

    const view = await setIpAllowlist(ctx.factoryId, uid, ['203.0.113.77/24', '2001:DB8:0:0::/32', '203.0.113.0/24'], ctx.database.prisma);
    expect(view.ipAllowlist).toEqual(['203.0.113.0/24', '2001:db8::/32']);
    const outside = await send(uid, secret, '198.51.100.7');
    const unknown = await postJson('wh_none', {});
    expect(outside.status).toBe(404);
    expect(await outside.text()).toBe(await unknown.text());
    expect((await send(uid, secret, '203.0.113.9')).status).toBe(202);
    expect((await send(uid, secret, '2001:db8:1::5')).status).toBe(202);

    const refused = await ctx.database.prisma.delivery.findMany({ where: { webhook: { uid }, status: 'refused_address' }, select: { remoteAddress: true, detail: true, body: true } });
    expect(refused).toEqual([{ remoteAddress: '198.51.100.7', detail: "the client address 198.51.100.7 is outside the webhook's IP allowlist", body: null }]);

    await setIpAllowlist(ctx.factoryId, uid, [], ctx.database.prisma);
    expect((await send(uid, secret, '198.51.100.7')).status).toBe(202);
  });

  it('refuses a bad list for every caller, naming the entry, and saves nothing', async () => {
    const { webhook } = await createWebhook(ctx.factoryId, { name: 'strict', authMode: 'token' }, ctx.database.prisma);
    await setIpAllowlist(ctx.factoryId, webhook.uid, ['10.0.0.0/8'], ctx.database.prisma);
    const refusal = async (list: string[]) => {
      const error = await setIpAllowlist(ctx.factoryId, webhook.uid, list, ctx.database.prisma).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(ZodError);
      return toAppError(error).fields;
    };
    expect(await refusal(['10.0.0.0/8', '10.0.0.0/33'])).toEqual({ 'ipAllowlist.1': '"10.0.0.0/33" has an invalid prefix length: an IPv4 range ends in /0 to /32' });
    expect(await refusal(Array.from({ length: 101 }, (_, i) => `10.${i}.0.0/16`))).toEqual({ ipAllowlist: 'An allowlist holds at most 100 ranges' });
    expect((await getWebhook(ctx.factoryId, webhook.uid, ctx.database.prisma)).ipAllowlist).toEqual(['10.0.0.0/8']);
  });

  it('writes the list into a managed factory’s definition file', async () => {
    const managed = (await createFactory(ctx.userId, { name: 'Managed allow', slug: 'managed-allow' }, ctx.database.prisma)).id;
    await setConfigSource(managed, 'managed', ctx.database.prisma);
    const { webhook } = await createWebhook(managed, { name: 'filed', authMode: 'token' }, ctx.database.prisma);
    await setIpAllowlist(managed, webhook.uid, ['192.0.2.0/24'], ctx.database.prisma);
    expect((await readDefinitionFiles(managed, ctx.database.prisma))['webhooks/filed.yaml']).toContain('ipAllowlist:\n  - 192.0.2.0/24\n');
    await setIpAllowlist(managed, webhook.uid, [], ctx.database.prisma);
    expect((await readDefinitionFiles(managed, ctx.database.prisma))['webhooks/filed.yaml']).not.toContain('ipAllowlist');
  });
});
