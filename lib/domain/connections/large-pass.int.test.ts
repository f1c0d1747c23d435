import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectionIngress, type IngressServer } from '@/tests/support/ingress-server';
import { startGitHubFake, type FakeDelivery, type GitHubFake } from '@/tests/support/fakes/github';

// A pass over a large delivery list: 10,000 deliveries in GitHub's log, of
// which 500 failed. One pass reads the 100 pages, asks for the 500 again and
// nothing else, and each arrives in the log once. Prints its time and calls.

const ingress: IngressServer = await startConnectionIngress();

const { testDatabaseKinds } = await import('@/tests/support/databases');
const { useFactoryDatabase } = await import('@/tests/support/factory-database');
const { createWebhook } = await import('@/lib/domain/webhooks/service');
const { createSecret } = await import('@/lib/domain/secrets/service');
const { connectWebhook } = await import('@/lib/domain/connections/service');
const { runRecoveryPass } = await import('@/lib/domain/connections/recover');

afterAll(() => ingress.close());

describe.each(testDatabaseKinds())('a recovery pass over 10,000 deliveries on %s', (kind) => {
  const state = useFactoryDatabase(kind, `Large pass ${kind}`);
  let fake: GitHubFake;
  beforeAll(async () => {
    fake = await startGitHubFake();
    fake.tokens.set('admin-token', 'admin');
  });
  afterAll(async () => fake?.close());

  it('reads 100 pages, redelivers the 500 that failed and nothing else; each is in the log once', async () => {
    const db = state.database.prisma;
    await createSecret(state.factoryId, { name: 'GITHUB_TOKEN', value: 'admin-token' }, db);
    const { webhook } = await createWebhook(state.factoryId, { name: 'large', authMode: 'signature', signatureScheme: 'github' }, db);
    const connection = await connectWebhook(state.factoryId, webhook.uid, { provider: 'github_repository', apiBaseUrl: fake.url, credentialSecretName: 'GITHUB_TOKEN', target: 'octo/large', eventTypes: ['issues'] }, db);
    await fake.settled();
    const hook = fake.hooks.get(Number(connection.providerHookId))!;

    // GitHub's log as an outage leaves it (with the ping, 10,000): 9,499 answered 202 by Tripline, 500 that could not connect.
    const start = Date.now() - 60 * 60_000;
    const failed: FakeDelivery[] = [];
    for (let i = 0; i < 9_999; i++) {
      const missing = i % 20 === 7;
      const payload = { action: 'opened', issue: { number: i } };
      const delivery: FakeDelivery = {
        id: 900_000 + i, hookId: hook.id, guid: randomUUID(), delivered_at: new Date(start + i * 300).toISOString().replace(/\.\d{3}Z$/, 'Z'), redelivery: false,
        duration: 0.01, status: missing ? 'failed to connect' : 'OK', status_code: missing ? 0 : 202, event: 'issues', action: 'opened',
        request: { headers: { 'x-github-event': 'issues' }, payload }, response: { headers: {}, payload: null },
      };
      fake.deliveries.push(delivery);
      if (missing) failed.push(delivery);
    }
    const row = await db.webhookConnection.findFirstOrThrow({ where: { factoryId: state.factoryId } });
    const before = fake.requests.length;
    const began = performance.now();
    const result = await runRecoveryPass(row.id, { redeliveryRate: { burst: 1000, perMinute: 600_000 } }, db);
    const ms = performance.now() - began;
    await fake.settled();
    const calls = fake.requests.slice(before);
    console.log(`[measured] ${kind}: a pass over ${result.listed} deliveries with ${result.missing} missing took ${Math.round(ms)} ms and ${calls.length} API calls (${calls.filter((c) => c.endsWith('/deliveries')).length} pages, ${calls.filter((c) => c.endsWith('/attempts')).length} redeliveries)`);

    expect(result).toMatchObject({ outcome: 'ok', missing: 500, redelivered: 500 });
    expect(calls.filter((c) => c.endsWith('/deliveries'))).toHaveLength(100);
    expect(calls.filter((c) => c.endsWith('/attempts'))).toHaveLength(500);
    const logged = await db.delivery.groupBy({ by: ['deliveryId'], where: { webhookId: row.webhookId, deliveryId: { in: failed.map((d) => d.guid) }, status: 'accepted' }, _count: true });
    expect(logged).toHaveLength(500);
    expect(logged.every((entry) => entry._count === 1)).toBe(true);
    expect(fake.problems).toEqual([]);
  });
});
