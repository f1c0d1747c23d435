import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startConnectionIngress, type IngressServer } from '@/tests/support/ingress-server';
import { startGitLabFake, type FakeHookEvent, type GitLabFake } from '@/tests/support/fakes/gitlab';
import { connectableWebhook, type ConnectableWebhook } from '@/tests/support/connectable-webhook';

// Connect and recover against the fake GitLab, whose every request and
// response is checked against the JSON Schemas written from GitLab's REST
// docs; its deliveries reach the real ingress over HTTP with X-Gitlab-Token
// and are verified there. The recovery pass runs at GitLab's pace (5 resends
// a minute, the module's own rate, not a test override) on the fake's clock:
// the pass's sleep moves that clock on, so no test waits a minute. On both
// databases.

const ingress: IngressServer = await startConnectionIngress();

const { testDatabaseKinds } = await import('@/tests/support/databases');
const { useFactoryDatabase } = await import('@/tests/support/factory-database');
const { createWebhook, rotateWebhookSecret } = await import('@/lib/domain/webhooks/service');
const { readSecretValue } = await import('@/lib/domain/secrets/service');
const { connectWebhook, getConnection } = await import('@/lib/domain/connections/service');
const { runRecoveryPass } = await import('@/lib/domain/connections/recover');
const { gitlabAdapter } = await import('@/lib/domain/connections/providers/gitlab');

afterAll(() => ingress.close());

describe.each(testDatabaseKinds())('connections to GitLab on %s', (kind) => {
  const state = useFactoryDatabase(kind, `GitLab connections ${kind}`);
  let fake: GitLabFake;
  // The fake's clock runs with the real one, plus what the pass slept: the pass's pacing sees time pass as GitLab does.
  let offset = 0;
  let slept: number[] = [];
  const pace = { sleep: async (ms: number) => void (slept.push(ms), (offset += ms)) };
  let liveKey = '';
  let webhook: ConnectableWebhook;
  let uid: string;
  let webhookId: string;
  let projectId: number;

  beforeAll(async () => {
    fake = await startGitLabFake({ now: () => Date.now() + offset });
    fake.tokens.set('maintainer-token', 'maintainer');
    fake.tokens.set('developer-token', 'developer');
    projectId = fake.addProject('octo/app');
    webhook = await connectableWebhook(state, {
      name: 'gitlab-app',
      scheme: 'gitlab',
      secrets: { GITLAB_TOKEN: 'maintainer-token', DEVELOPER_TOKEN: 'developer-token' },
      automation: { name: 'On merge requests', prompt: 'Review', filter: { payload: { object_kind: 'merge_request' } } },
    });
    ({ uid, webhookId } = webhook);
  });
  afterAll(async () => fake?.close());
  afterEach(async () => {
    ingress.down = false;
    await fake.settled();
    expect(fake.problems).toEqual([]);
  });

  const connectionId = () => webhook.connectionId();
  const accepted = (eventType?: string) => webhook.accepted(eventType);
  const hook = () => [...fake.hooks.values()].find((h) => h.projectId === projectId)!;
  const connect = (extra: Record<string, unknown> = {}) =>
    connectWebhook(state.factoryId, uid, { provider: 'gitlab_project', apiBaseUrl: fake.url, credentialSecretName: 'GITLAB_TOKEN', target: 'octo/app', eventTypes: ['merge_request', 'push'], ...extra }, state.database.prisma);
  const mr = (iid: number, action = 'open') => ({ object_kind: 'merge_request', event_type: 'merge_request', object_attributes: { iid, action } });
  const secretOf = async () => {
    const { secretName } = await state.database.prisma.webhook.findUniqueOrThrow({ where: { uid } });
    return (await readSecretValue(state.database.prisma, state.factoryId, secretName))!.value;
  };

  it('connect creates the hook with the ingress URL, a new token and the events’ flags; the next delivery verifies at the ingress', async () => {
    const view = await connect();
    const token = await secretOf();
    expect(JSON.stringify(view)).not.toContain(token);
    expect(view).toMatchObject({ provider: 'gitlab_project', target: 'octo/app', eventTypes: ['merge_request', 'push'], providerHookId: String(hook().id), lastError: null });
    expect(view.providerHookUrl).toBe(`${new URL(fake.url).origin}/octo/app/-/hooks/${hook().id}/edit`);
    expect(hook()).toMatchObject({ url: `${ingress.url}/webhooks/w/${uid}`, token, enable_ssl_verification: true });
    expect(Object.entries(hook().flags).filter(([, on]) => on).map(([flag]) => flag).sort()).toEqual(['merge_requests_events', 'push_events']);

    const [sent] = await fake.send(projectId, mr(1));
    expect(sent).toMatchObject({ response_status: '202' });
    expect((await accepted('merge_request.open')).map((d) => d.deliveryId)).toEqual([sent!.idempotencyKey]);
    liveKey = sent!.idempotencyKey;
    // A token that is not the hook's is refused at the ingress (the next pass asks GitLab to send it again, with the right one).
    hook().token = 'not-the-token';
    expect((await fake.send(projectId, mr(2)))[0]).toMatchObject({ response_status: '401' });
    hook().token = token;
  });

  it('refuses event types GitLab does not have, naming the ones it has', async () => {
    await expect(connect({ eventTypes: ['job'] })).rejects.toMatchObject({ code: 'validation_failed', fields: { eventTypes: expect.stringMatching(/named build/) } });
    await expect(connect({ target: 'not a project' })).rejects.toMatchObject({ code: 'validation_failed', fields: { target: expect.stringMatching(/numeric ID or its full path/) } });
  });

  it('rotating the secret sets the hook’s token in the same step; a token without the Maintainer role leaves both sides as they were', async () => {
    const { secret } = await rotateWebhookSecret(state.factoryId, uid, state.database.prisma);
    expect(hook().token).toBe(secret);
    expect((await fake.send(projectId, mr(3)))[0]).toMatchObject({ response_status: '202' });

    await state.database.prisma.webhookConnection.update({ where: { webhookId }, data: { credentialSecretName: 'DEVELOPER_TOKEN' } });
    await expect(rotateWebhookSecret(state.factoryId, uid, state.database.prisma)).rejects.toThrow(/the `api` scope and the Maintainer role/);
    expect(hook().token).toBe(secret);
    expect((await fake.send(projectId, mr(4)))[0]).toMatchObject({ response_status: '202' });
    await state.database.prisma.webhookConnection.update({ where: { webhookId }, data: { credentialSecretName: 'GITLAB_TOKEN' } });
  });

  it('recovers 50 deliveries sent while Tripline was unreachable, at 5 resends a minute: each in the log once, with one run each', async () => {
    await connect({ eventTypes: ['merge_request'] });
    // The delivery refused for a wrong token comes back, with the hook's token.
    expect(await runRecoveryPass(await connectionId(), pace, state.database.prisma)).toMatchObject({ outcome: 'ok', missing: 1, redelivered: 1 });
    const runsBefore = await state.database.prisma.run.count({ where: { factoryId: state.factoryId } });
    ingress.down = true;
    const sent: FakeHookEvent[] = [];
    for (let i = 0; i < 50; i++) sent.push(...(await fake.send(projectId, mr(100 + i, i % 3 ? 'open' : 'update'))));
    // An event the connection does not subscribe to is not recovered (GitLab would not send it; here it failed too).
    hook().flags.pipeline_events = true;
    for (let i = 0; i < 5; i++) await fake.send(projectId, { object_kind: 'pipeline', object_attributes: { id: i, status: 'failed' } });
    ingress.down = false;
    expect(sent.every((d) => d.response_status === 'internal error')).toBe(true);

    slept = [];
    const limitedBefore = fake.limited;
    const result = await runRecoveryPass(await connectionId(), pace, state.database.prisma);
    expect(result).toMatchObject({ outcome: 'ok', missing: 50, redelivered: 50, error: null });
    const keys = sent.map((d) => d.idempotencyKey);
    // GitLab's pace: one resend every 13.3 s on GitLab's clock, so never a 429 (about eleven minutes for 50).
    expect(fake.limited).toBe(limitedBefore);
    const resent = fake.events.filter((e) => keys.includes(e.idempotencyKey) && !sent.includes(e)).map((e) => Date.parse(e.created_at)).sort((a, b) => a - b);
    expect(resent).toHaveLength(50);
    for (let i = 1; i < resent.length; i++) expect(resent[i]! - resent[i - 1]!).toBeGreaterThanOrEqual(13_000);
    expect(slept.length).toBeGreaterThanOrEqual(50);

    const log = await state.database.prisma.delivery.findMany({ where: { webhookId, deliveryId: { in: keys } }, select: { deliveryId: true, status: true } });
    expect(log.map((d) => d.deliveryId).sort()).toEqual([...keys].sort());
    expect(log.every((d) => d.status === 'accepted')).toBe(true);
    expect(await state.database.prisma.delivery.count({ where: { webhookId, eventType: 'pipeline' } })).toBe(0);
    expect(await state.database.prisma.run.count({ where: { factoryId: state.factoryId } })).toBe(runsBefore + 50);

    // The next pass finds nothing missing and marks what came back by GitLab's resend.
    const again = await runRecoveryPass(await connectionId(), pace, state.database.prisma);
    expect(again).toMatchObject({ outcome: 'ok', missing: 0, redelivered: 0 });
    const marked = await state.database.prisma.delivery.findMany({ where: { webhookId, deliveryId: { in: keys } }, select: { origin: true } });
    expect(marked.map((d) => d.origin)).toEqual(keys.map(() => 'provider_redelivery'));
    expect((await accepted('merge_request.open')).find((d) => d.deliveryId === liveKey)).toMatchObject({ origin: null });
    expect(await getConnection(state.factoryId, uid, state.database.prisma)).toMatchObject({ lastMissing: 0, consecutiveFailures: 0, lastError: null });
  });

  it('when another client used the hook’s resends this minute, GitLab’s 429 is waited out and nothing is missing or doubled', async () => {
    ingress.down = true;
    const sent: FakeHookEvent[] = [];
    for (let i = 0; i < 8; i++) sent.push(...(await fake.send(projectId, mr(200 + i))));
    ingress.down = false;
    const others: FakeHookEvent[] = [];
    for (let i = 0; i < 5; i++) others.push(...(await fake.send(projectId, mr(300 + i))));
    const gl = gitlabAdapter({ apiBaseUrl: fake.url, token: 'maintainer-token', target: { kind: 'path', path: 'octo/app' }, bounds: { bytesLeft: 1e7, deadline: Date.now() + 60_000, requests: 0 } });
    // A minute after the last pass's resends, and while this pass waits for its first, the same token
    // resends 5 others (through the adapter itself): GitLab's minute is used up.
    offset += 60_000;
    let interloper: (() => Promise<void>) | null = async () => {
      for (const event of others) await gl.redeliver(String(hook().id), String(event.id));
    };
    const crowded = {
      sleep: async (ms: number) => {
        await pace.sleep(ms);
        const run = interloper;
        interloper = null;
        await run?.();
      },
    };

    slept = [];
    const limitedBefore = fake.limited;
    const result = await runRecoveryPass(await connectionId(), crowded, state.database.prisma);
    expect(result).toMatchObject({ outcome: 'ok', missing: 8, redelivered: 8 });
    expect(fake.limited).toBe(limitedBefore + 1);
    expect(slept).toContain(60_000);
    for (const d of sent) expect(await state.database.prisma.delivery.count({ where: { webhookId, deliveryId: d.idempotencyKey } })).toBe(1);
  });

  it('rides out 500 and 429 with Retry-After part-way through a pass, with nothing missing and nothing doubled', async () => {
    ingress.down = true;
    const sent: FakeHookEvent[] = [];
    for (let i = 0; i < 6; i++) sent.push(...(await fake.send(projectId, mr(400 + i))));
    ingress.down = false;
    fake.faults.push({ match: /\/events$/, status: 500 });
    fake.faults.push({ match: /\/resend$/, status: 429, headers: { 'retry-after': '30' }, times: 2 });
    fake.faults.push({ match: /\/resend$/, status: 502 });
    const result = await runRecoveryPass(await connectionId(), pace, state.database.prisma);
    expect(result).toMatchObject({ outcome: 'ok', missing: 6, redelivered: 6 });
    for (const d of sent) expect(await state.database.prisma.delivery.count({ where: { webhookId, deliveryId: d.idempotencyKey } })).toBe(1);
  });

  it('a token without the Maintainer role: the pass fails saying so, and keeps the watermark', async () => {
    const id = await connectionId();
    const before = (await state.database.prisma.webhookConnection.findUniqueOrThrow({ where: { id } })).watermark;
    await state.database.prisma.webhookConnection.update({ where: { id }, data: { credentialSecretName: 'DEVELOPER_TOKEN' } });
    const result = await runRecoveryPass(id, pace, state.database.prisma);
    expect(result).toMatchObject({ outcome: 'failed' });
    expect(result.error).toMatch(/needs the `api` scope and the Maintainer role/);
    expect(await state.database.prisma.webhookConnection.findUniqueOrThrow({ where: { id } })).toMatchObject({ watermark: before, consecutiveFailures: 1 });
    await state.database.prisma.webhookConnection.update({ where: { id }, data: { credentialSecretName: 'GITLAB_TOKEN' } });
  });

  it('a project named by its numeric ID works the same, and links the project’s page', async () => {
    const other = await createWebhook(state.factoryId, { name: 'gitlab-by-id', authMode: 'signature', signatureScheme: 'gitlab' }, state.database.prisma);
    const view = await connectWebhook(state.factoryId, other.webhook.uid, { provider: 'gitlab_project', apiBaseUrl: fake.url, credentialSecretName: 'GITLAB_TOKEN', target: String(projectId), eventTypes: ['push'] }, state.database.prisma);
    expect(view.providerHookUrl).toBe(`${new URL(fake.url).origin}/projects/${projectId}`);
    const sent = (await fake.send(projectId, { object_kind: 'push', ref: 'refs/heads/main' })).find((e) => e.url.endsWith(other.webhook.uid));
    expect(sent).toMatchObject({ response_status: '202' });
  });
});
