import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startConnectionIngress, type IngressServer } from '@/tests/support/ingress-server';
import { startGitHubFake, type FakeDelivery, type GitHubFake } from '@/tests/support/fakes/github';
import { budget } from '@/scripts/speed.mjs';
import { connectableWebhook, type ConnectableWebhook } from '@/tests/support/connectable-webhook';

// Connect and recover against the fake GitHub, whose every request and
// response is checked against GitHub's REST description; its deliveries
// reach the real ingress over HTTP, signed, and are verified there. On both
// databases.

// The ingress URL Tripline gives GitHub must reach this test's ingress server,
// and the fake listens on loopback: both set before the first env() read.
const ingress: IngressServer = await startConnectionIngress();

const { testDatabaseKinds } = await import('@/tests/support/databases');
const { useFactoryDatabase } = await import('@/tests/support/factory-database');
const { createWebhook, rotateWebhookSecret } = await import('@/lib/domain/webhooks/service');
const { readSecretValue, replaceSecretValue } = await import('@/lib/domain/secrets/service');
const { connectWebhook, disconnectWebhook, getConnection, requestCheck } = await import('@/lib/domain/connections/service');
const { runRecoveryPass, runDuePasses } = await import('@/lib/domain/connections/recover');
const { metrics } = await import('@/lib/platform/metrics');
const { createDestination } = await import('@/lib/domain/notifications/service');

afterAll(() => ingress.close());

const FAST = { redeliveryRate: { burst: 1000, perMinute: 60_000 } };

describe.each(testDatabaseKinds())('connections to GitHub on %s', (kind) => {
  const state = useFactoryDatabase(kind, `Connections ${kind}`);
  let fake: GitHubFake;
  let webhook: ConnectableWebhook;
  let uid: string;
  let webhookId: string;

  beforeAll(async () => {
    fake = await startGitHubFake();
    fake.tokens.set('admin-token', 'admin');
    fake.tokens.set('read-token', 'read');
    webhook = await connectableWebhook(state, {
      name: 'github-app',
      scheme: 'github',
      secrets: { GITHUB_TOKEN: 'admin-token', READ_ONLY_TOKEN: 'read-token' },
      automation: { name: 'On opened issues', prompt: 'Triage', filter: { payload: { action: 'opened' } } },
    });
    ({ uid, webhookId } = webhook);
    await createDestination(state.factoryId, { name: 'team', kind: 'standard_webhooks', url: 'https://example.com/tripline-events' }, state.database.prisma);
  });
  afterAll(async () => fake?.close());
  afterEach(async () => {
    ingress.down = false;
    await fake.settled();
    expect(fake.problems).toEqual([]);
  });

  const connectionId = () => webhook.connectionId();
  const accepted = (eventType?: string) => webhook.accepted(eventType);
  const notifications = async (type: string) =>
    (await state.database.prisma.notification.findMany({ where: { factoryId: state.factoryId, type }, select: { payload: true } })).map((n) => (n.payload as { data: { connection: unknown; webhook: { uid: string } } }).data);
  const hook = () => [...fake.hooks.values()].find((h) => h.scope === 'repos/octo/app')!;
  /** `count` issues opened (numbers from `first`) while the ingress is down: GitHub's failed deliveries. */
  const missedWhileDown = async (count: number, first: number) => {
    ingress.down = true;
    const sent: FakeDelivery[] = [];
    for (let i = 0; i < count; i++) sent.push(...(await fake.send('repos/octo/app', 'issues', { action: 'opened', issue: { number: first + i } })));
    ingress.down = false;
    return sent;
  };
  const connect = (extra: Record<string, unknown> = {}) =>
    connectWebhook(state.factoryId, uid, { provider: 'github_repository', apiBaseUrl: fake.url, credentialSecretName: 'GITHUB_TOKEN', target: 'octo/app', eventTypes: ['issues', 'push'], ...extra }, state.database.prisma);

  it('connect creates the hook with the ingress URL, JSON content, a new secret and the events; its ping and next delivery verify at the ingress', async () => {
    const before = (await readSecretValue(state.database.prisma, state.factoryId, (await state.database.prisma.webhook.findUniqueOrThrow({ where: { uid } })).secretName))?.value;
    const view = await connect();
    const secretName = (await state.database.prisma.webhook.findUniqueOrThrow({ where: { uid } })).secretName;
    const secret = (await readSecretValue(state.database.prisma, state.factoryId, secretName))!.value;
    expect(secret).not.toBe(before);
    expect(JSON.stringify(view)).not.toContain(secret);
    expect(view).toMatchObject({ provider: 'github_repository', target: 'octo/app', eventTypes: ['issues', 'push'], providerHookId: String(hook().id), lastError: null });
    expect(view.providerHookUrl).toBe(`https://127.0.0.1:${new URL(fake.url).port}/octo/app/settings/hooks/${hook().id}`.replace('https:', 'http:'));
    expect(hook()).toMatchObject({ events: ['issues', 'push'], active: true, config: { url: `${ingress.url}/webhooks/w/${uid}`, content_type: 'json', secret } });

    await fake.settled();
    expect(fake.deliveries.at(-1)).toMatchObject({ event: 'ping', status_code: 202 });
    expect(await accepted('ping')).toHaveLength(1);
    const [sent] = await fake.send('repos/octo/app', 'issues', { action: 'opened', issue: { number: 1 } });
    expect(sent).toMatchObject({ status_code: 202 });
    expect((await accepted('issues.opened')).map((d) => d.deliveryId)).toEqual([sent!.guid]);
  });

  it('connecting again adopts the hook that already points at the ingress, with a new secret and the new events', async () => {
    const hooks = fake.hooks.size;
    const id = hook().id;
    const view = await connect({ eventTypes: ['issues'] });
    expect(fake.hooks.size).toBe(hooks);
    expect(view.providerHookId).toBe(String(id));
    expect(hook().events).toEqual(['issues']);
    const [sent] = await fake.send('repos/octo/app', 'issues', { action: 'closed' });
    expect(sent).toMatchObject({ status_code: 202 });
  });

  it('rotating the secret sets it on the hook in the same step; a provider that refuses leaves both sides as they were', async () => {
    const { secret } = await rotateWebhookSecret(state.factoryId, uid, state.database.prisma);
    expect(hook().config.secret).toBe(secret);
    expect((await fake.send('repos/octo/app', 'issues', { action: 'edited' }))[0]).toMatchObject({ status_code: 202 });

    // The token may no longer manage hooks: the rotation fails, and the secret in use stays.
    await state.database.prisma.webhookConnection.update({ where: { webhookId }, data: { credentialSecretName: 'READ_ONLY_TOKEN' } });
    await expect(rotateWebhookSecret(state.factoryId, uid, state.database.prisma)).rejects.toThrow(/admin:repo_hook/);
    expect(hook().config.secret).toBe(secret);
    expect((await fake.send('repos/octo/app', 'issues', { action: 'labeled' }))[0]).toMatchObject({ status_code: 202 });
    await state.database.prisma.webhookConnection.update({ where: { webhookId }, data: { credentialSecretName: 'GITHUB_TOKEN' } });

    // A factory whose webhooks come from its repository refuses the rotation before the provider hears of it.
    const requests = fake.requests.length;
    await state.database.prisma.factory.update({ where: { id: state.factoryId }, data: { configSource: 'repository' } });
    try {
      await expect(rotateWebhookSecret(state.factoryId, uid, state.database.prisma)).rejects.toThrow(/defined in its git repository/);
    } finally {
      await state.database.prisma.factory.update({ where: { id: state.factoryId }, data: { configSource: 'dashboard' } });
    }
    expect(fake.requests.slice(requests)).toEqual([]);
    expect(hook().config.secret).toBe(secret);
  });

  it('recovers 50 deliveries sent while Tripline was unreachable: each in the log once, with one run each', async () => {
    await connect({ eventTypes: ['issues'] });
    // Settle what came before, so this pass is about the outage alone.
    expect(await runRecoveryPass(await connectionId(), FAST, state.database.prisma)).toMatchObject({ outcome: 'ok', missing: 0 });
    const runsBefore = await state.database.prisma.run.count({ where: { factoryId: state.factoryId } });
    ingress.down = true;
    const sent: FakeDelivery[] = [];
    for (let i = 0; i < 50; i++) sent.push(...(await fake.send('repos/octo/app', 'issues', { action: 'opened', issue: { number: 100 + i } })));
    // Events the connection does not subscribe to are not recovered (GitHub would not send them; here they failed too).
    hook().events.push('star');
    for (let i = 0; i < 5; i++) await fake.send('repos/octo/app', 'star', { action: 'created' });
    ingress.down = false;
    expect(sent.every((d) => d.status_code === 0)).toBe(true);

    const passes = () => metrics().connectionRecoveries.get().then((m) => m.values.reduce((sum, v) => sum + v.value, 0));
    const recoveredBefore = await passes();
    const requestsBefore = fake.requests.length;
    const result = await runRecoveryPass(await connectionId(), FAST, state.database.prisma);
    expect(result).toMatchObject({ outcome: 'ok', missing: 50, redelivered: 50, error: null });
    // Listing filtered by event before anything else: no delivery's payload was fetched.
    expect(fake.requests.slice(requestsBefore).filter((r) => /\/deliveries\/\d+$/.test(r))).toEqual([]);
    await fake.settled();
    expect(await passes()).toBe(recoveredBefore + 50);
    // The factory's notification destinations hear of it, without any secret.
    expect((await notifications('connection.missed_deliveries')).at(-1)).toMatchObject({ webhook: { uid }, connection: { missing: 50, redelivered: 50 } });

    const log = await accepted('issues.opened');
    const guids = sent.map((d) => d.guid);
    expect(log.filter((d) => guids.includes(d.deliveryId)).map((d) => d.deliveryId).sort()).toEqual([...guids].sort());
    expect(await state.database.prisma.delivery.count({ where: { webhookId, eventType: 'star.created' } })).toBe(0);
    expect(await state.database.prisma.run.count({ where: { factoryId: state.factoryId } })).toBe(runsBefore + 50);

    // The next pass finds nothing missing, marks what came back by redelivery, and moves the watermark past what it settled.
    const again = await runRecoveryPass(await connectionId(), FAST, state.database.prisma);
    expect(again).toMatchObject({ outcome: 'ok', missing: 0, redelivered: 0 });
    const marked = await state.database.prisma.delivery.findMany({ where: { webhookId, deliveryId: { in: guids } }, select: { origin: true } });
    expect(marked.map((d) => d.origin)).toEqual(guids.map(() => 'provider_redelivery'));
    const live = await state.database.prisma.delivery.findMany({ where: { webhookId, eventType: 'ping' }, select: { origin: true } });
    expect(live.map((d) => d.origin)).toEqual([null]);
    const view = (await getConnection(state.factoryId, uid, state.database.prisma))!;
    expect(view).toMatchObject({ lastMissing: 0, lastRecovered: 0, consecutiveFailures: 0, lastError: null, checking: false, recoveredLast7Days: guids.length });
    expect(view.watermark!.getTime()).toBeGreaterThan(Date.now() - 3 * 86_400_000);
    // Only the last 7 days count: an entry recovered 8 days ago no longer does.
    await state.database.prisma.delivery.updateMany({ where: { webhookId, deliveryId: guids[0] }, data: { receivedAt: new Date(Date.now() - 8 * 86_400_000) } });
    expect((await getConnection(state.factoryId, uid, state.database.prisma))!.recoveredLast7Days).toBe(guids.length - 1);
  });

  it('a pass cut part-way, and one whose lease holder died, go on without doubles; a held lease keeps a second pass out', async () => {
    const sent = await missedWhileDown(12, 200);
    const id = await connectionId();
    const cut = await runRecoveryPass(id, { ...FAST, limits: { maxRedeliveries: 5 } }, state.database.prisma);
    expect(cut).toMatchObject({ outcome: 'cut', redelivered: 5 });
    await fake.settled();

    // Another instance holds the lease: no second pass at once.
    await state.database.prisma.webhookConnection.update({ where: { id }, data: { leaseOwner: 'other', leaseUntil: new Date(Date.now() + 60_000) } });
    expect(await runRecoveryPass(id, FAST, state.database.prisma)).toMatchObject({ outcome: 'busy' });
    // It died: its lease expires, and the next pass takes over.
    await state.database.prisma.webhookConnection.update({ where: { id }, data: { leaseUntil: new Date(Date.now() - 1000) } });
    expect(await runRecoveryPass(id, FAST, state.database.prisma)).toMatchObject({ outcome: 'ok', missing: 7, redelivered: 7 });
    await fake.settled();
    const log = await accepted('issues.opened');
    for (const d of sent) expect(log.filter((e) => e.deliveryId === d.guid)).toHaveLength(1);
  });

  it('two passes started together on one database: one runs, the other finds the lease taken', async () => {
    const id = await connectionId();
    const results = await Promise.all([runRecoveryPass(id, FAST, state.database.prisma), runRecoveryPass(id, FAST, state.database.prisma)]);
    expect(results.map((r) => r.outcome).sort()).toEqual(['busy', 'ok']);
  });

  it('a pass renews its lease while it waits between redeliveries; one whose lease another instance took stops before its next', async () => {
    const sent = await missedWhileDown(3, 260);
    const id = await connectionId();
    const leaseUntil = async () => (await state.database.prisma.webhookConnection.findUniqueOrThrow({ where: { id } })).leaseUntil?.getTime() ?? 0;
    const redeliveries = () => fake.requests.filter((r) => /\/attempts$/.test(r)).length;
    const before = redeliveries();
    // One redelivery every 5 s, and a 1 s lease: only the heartbeat (every 1/3 s) keeps it while the pass waits.
    const pass = runRecoveryPass(id, { redeliveryRate: { burst: 1, perMinute: 12 }, leaseSeconds: 1 }, state.database.prisma);
    await expect.poll(redeliveries, { timeout: budget(10_000) }).toBe(before + 1);
    const first = await leaseUntil();
    await expect.poll(leaseUntil, { timeout: budget(10_000) }).toBeGreaterThan(first);
    expect(await runRecoveryPass(id, FAST, state.database.prisma)).toMatchObject({ outcome: 'busy' });

    // Another instance takes the lease (as if this one had stalled): the pass stops, and asks for nothing more.
    await state.database.prisma.webhookConnection.update({ where: { id }, data: { leaseOwner: 'other', leaseUntil: new Date(Date.now() + 60_000) } });
    expect(await pass).toMatchObject({ outcome: 'lost' });
    expect(redeliveries()).toBeLessThan(before + 3);
    expect(await state.database.prisma.webhookConnection.findUniqueOrThrow({ where: { id } })).toMatchObject({ leaseOwner: 'other' });

    // The other instance's pass (here: the lease released) recovers the rest, each once.
    await state.database.prisma.webhookConnection.update({ where: { id }, data: { leaseOwner: null, leaseUntil: null } });
    await fake.settled();
    expect(await runRecoveryPass(id, FAST, state.database.prisma)).toMatchObject({ outcome: 'ok' });
    await fake.settled();
    const log = await accepted('issues.opened');
    for (const d of sent) expect(log.filter((e) => e.deliveryId === d.guid)).toHaveLength(1);
  });

  it('rides out 500 and 429 with Retry-After part-way through a pass, with nothing missing and nothing doubled', async () => {
    const sent = await missedWhileDown(10, 300);
    fake.faults.push({ match: /\/deliveries$/, status: 500 });
    fake.faults.push({ match: /\/attempts$/, status: 429, headers: { 'retry-after': '1' }, times: 2 });
    fake.faults.push({ match: /\/attempts$/, status: 502 });
    const result = await runRecoveryPass(await connectionId(), FAST, state.database.prisma);
    expect(result).toMatchObject({ outcome: 'ok', missing: 10, redelivered: 10 });
    await fake.settled();
    const log = await accepted('issues.opened');
    for (const d of sent) expect(log.filter((e) => e.deliveryId === d.guid)).toHaveLength(1);
  });

  it('garbage from the provider fails the pass in words, keeps the watermark, and backs off; the next pass recovers', async () => {
    const id = await connectionId();
    const before = (await state.database.prisma.webhookConnection.findUniqueOrThrow({ where: { id } })).watermark;
    ingress.down = true;
    const [lost] = await fake.send('repos/octo/app', 'issues', { action: 'opened', issue: { number: 400 } });
    ingress.down = false;
    fake.faults.push({ match: /\/deliveries$/, status: 200, body: '{"this is": "not a list"' });
    const failed = await runRecoveryPass(id, FAST, state.database.prisma);
    expect(failed).toMatchObject({ outcome: 'failed', error: 'GitHub answered something that is not a list of deliveries' });
    const row = await state.database.prisma.webhookConnection.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ watermark: before, consecutiveFailures: 1, lastError: 'GitHub answered something that is not a list of deliveries', leaseOwner: null });
    expect(row.nextCheckAt!.getTime()).toBeGreaterThan(Date.now());

    // "Check now" makes it due at once; the loop's turn runs it.
    await requestCheck(state.factoryId, uid, state.database.prisma);
    const turn = await runDuePasses(FAST, state.database.prisma);
    expect(turn).toEqual([expect.objectContaining({ outcome: 'ok', missing: 1, redelivered: 1 })]);
    await fake.settled();
    expect((await accepted('issues.opened')).filter((d) => d.deliveryId === lost!.guid)).toHaveLength(1);
    expect(await state.database.prisma.webhookConnection.findUniqueOrThrow({ where: { id } })).toMatchObject({ consecutiveFailures: 0, lastError: null });
  });

  it('a connect while a pass runs takes its lease: the pass stops and its state (its error, its back-off) never lands on the connection as connected anew', async () => {
    const id = await connectionId();
    const db = state.database.prisma;
    // The pass's listing of deliveries is garbage, which it would record as its failure; while GitHub answers it, an
    // admin connects the webhook again with other events.
    fake.faults.push({ match: /\/deliveries$/, status: 200, body: '{"this is": "not a list"', before: () => connect({ eventTypes: ['issues'] }).then(() => {}) });
    const started = Date.now();
    const pass = await runRecoveryPass(id, FAST, db);
    expect(pass).toMatchObject({ outcome: 'lost', error: expect.stringContaining('by a connect') });
    const row = await db.webhookConnection.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ eventTypes: ['issues'], lastError: null, consecutiveFailures: 0, leaseOwner: null });
    // Due at once, as the connect left it: not backed off by the old connection's failure.
    expect(row.nextCheckAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(row.nextCheckAt!.getTime()).toBeGreaterThanOrEqual(started - 1000);
    await connect();
  });

  it('a token without the hook permission: the pass fails naming admin:repo_hook, three times running', async () => {
    const id = await connectionId();
    await state.database.prisma.webhookConnection.update({ where: { id }, data: { credentialSecretName: 'READ_ONLY_TOKEN' } });
    for (let i = 1; i <= 3; i++) {
      const result = await runRecoveryPass(id, FAST, state.database.prisma);
      expect(result.error).toMatch(/lacks the `admin:repo_hook` permission/);
      expect(await state.database.prisma.webhookConnection.findUniqueOrThrow({ where: { id } })).toMatchObject({ consecutiveFailures: i });
      // Notified once, at the third failure in a row.
      expect(await notifications('connection.failing')).toHaveLength(i < 3 ? 0 : 1);
    }
    expect((await notifications('connection.failing'))[0]).toMatchObject({ webhook: { uid }, connection: { failures: 3, error: expect.stringMatching(/admin:repo_hook/) } });
    await state.database.prisma.webhookConnection.update({ where: { id }, data: { credentialSecretName: 'GITHUB_TOKEN' } });
  });

  it('connect refuses a token without the permission, and puts the webhook’s secret back', async () => {
    const other = await createWebhook(state.factoryId, { name: 'other', authMode: 'signature', signatureScheme: 'github' }, state.database.prisma);
    await expect(
      connectWebhook(state.factoryId, other.webhook.uid, { provider: 'github_repository', apiBaseUrl: fake.url, credentialSecretName: 'READ_ONLY_TOKEN', target: 'octo/other', eventTypes: [] }, state.database.prisma),
    ).rejects.toMatchObject({ code: 'validation_failed', fields: { credentialSecretName: expect.stringMatching(/admin:repo_hook/) } });
    const secretName = other.webhook.secretName;
    expect((await readSecretValue(state.database.prisma, state.factoryId, secretName))!.value).toBe(other.secret);
    expect(await getConnection(state.factoryId, other.webhook.uid, state.database.prisma)).toBeNull();
    // Webhooks of another scheme cannot be connected to GitHub.
    const stripe = await createWebhook(state.factoryId, { name: 'stripe', authMode: 'signature', signatureScheme: 'stripe', providerSecret: 'whsec_abcdefghijklmnop' }, state.database.prisma);
    await expect(connectWebhook(state.factoryId, stripe.webhook.uid, { provider: 'github_repository', apiBaseUrl: fake.url, credentialSecretName: 'GITHUB_TOKEN', target: 'octo/app' }, state.database.prisma)).rejects.toThrow(/verifies GitHub signatures/);
  });

  it('a connect that fails puts its secret back only while it is still its own: one that connected meanwhile keeps its secret', async () => {
    const db = state.database.prisma;
    const raced = await createWebhook(state.factoryId, { name: 'raced', authMode: 'signature', signatureScheme: 'github' }, db);
    const secretName = raced.webhook.secretName;
    // While this connect waits on GitHub, another apply (another instance) connects the same webhook: its
    // secret is the team secret's value now, and the one on GitHub's hook. Then GitHub fails this one.
    fake.faults.push({ match: /^\/repos\/octo\/raced\/hooks$/, status: 500, times: 20, before: () => replaceSecretValue(state.factoryId, secretName, 'the-secret-of-the-connect-that-won', db).then(() => {}) });
    await expect(
      connectWebhook(state.factoryId, raced.webhook.uid, { provider: 'github_repository', apiBaseUrl: fake.url, credentialSecretName: 'GITHUB_TOKEN', target: 'octo/raced', eventTypes: [] }, db),
    ).rejects.toBeTruthy();
    // Before, the failed connect wrote the secret it had replaced over the winner's: GitHub signed with one Tripline no longer checked.
    expect((await readSecretValue(db, state.factoryId, secretName))!.value).toBe('the-secret-of-the-connect-that-won');
  });

  it('connecting again after the hook was deleted on GitHub creates a new one', async () => {
    const old = hook().id;
    fake.hooks.delete(old);
    const view = await connect();
    expect(hook().id).not.toBe(old);
    expect(view.providerHookId).toBe(String(hook().id));
    await fake.settled();
    expect(fake.deliveries.at(-1)).toMatchObject({ hookId: hook().id, event: 'ping', status_code: 202 });
  });

  it('disconnect keeps the provider’s hook unless asked to delete it', async () => {
    const id = hook().id;
    await disconnectWebhook(state.factoryId, uid, {}, state.database.prisma);
    expect(fake.hooks.has(id)).toBe(true);
    expect(await getConnection(state.factoryId, uid, state.database.prisma)).toBeNull();
    await connect();
    await disconnectWebhook(state.factoryId, uid, { deleteProviderHook: true }, state.database.prisma);
    expect(fake.hooks.has(id)).toBe(false);
  });
});
