import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startConnectionIngress, type IngressServer } from '@/tests/support/ingress-server';
import { refuseWrites } from '@/tests/support/refuse-writes';
import { startGitHubFake, type GitHubFake } from '@/tests/support/fakes/github';

// Connections declared in definition files, applied against the fake GitHub
// (every request checked against GitHub's REST description) with the real
// ingress verifying GitHub's ping: plan shows each step, apply connects,
// connects again on a change, disconnects on removal, refuses bad files
// before writing anything, and leaves a failed step to the next apply. On
// both databases.

// The ingress URL Tripline gives GitHub is this test's server, and the fake listens on loopback.
const ingress: IngressServer = await startConnectionIngress();

const { testDatabaseKinds } = await import('@/tests/support/databases');
const { useFactoryDatabase } = await import('@/tests/support/factory-database');
const { applyDefinitions, INTERNAL_STEP_MESSAGE } = await import('@/lib/domain/definitions/apply');
const { planDefinitions, describeAction } = await import('@/lib/domain/definitions/plan');
const { formatProblem } = await import('@/lib/domain/definitions/schemas');
const { exportDefinitionFiles, getDefinitionsStatus, readDefinitionFiles, setConfigSource } = await import('@/lib/domain/definitions/service');
const { connectRepository, syncRepository } = await import('@/lib/domain/definitions/repository');
const { resetRepositoryBackoff, syncAllRepositories } = await import('@/lib/domain/definitions/repository-schedule');
const { env } = await import('@/lib/platform/env');
const { localRepository } = await import('@/tests/support/local-repository');
const { createFactory } = await import('@/lib/domain/factories/service');
const { createSecret } = await import('@/lib/domain/secrets/service');
const { listWebhooks, setIpAllowlist } = await import('@/lib/domain/webhooks/service');
const { connectWebhook, disconnectWebhook, getConnection } = await import('@/lib/domain/connections/service');

afterAll(() => ingress.close());

describe.each(testDatabaseKinds())('connections in definition files on %s', (kind) => {
  const state = useFactoryDatabase(kind, `Definition connections ${kind}`);
  let fake: GitHubFake;

  const app = (connection: string) =>
    `authMode: signature\nsignatureScheme: github\nsecretName: APP_SECRET\n${connection ? `connection:\n${connection}` : ''}`;
  const connection = (extra = '') => `  provider: github_repository\n  target: octo/app\n  credentialSecretName: GITHUB_TOKEN\n  apiBaseUrl: ${fake.url}\n${extra}`;
  const apply = (files: Record<string, string>) => applyDefinitions(state.factoryId, files, { source: 'managed', db: state.database.prisma });
  const plan = async (files: Record<string, string>) => (await planDefinitions(state.factoryId, files, state.database.prisma)).actions.map(describeAction);
  const uidOf = async (name: string) => (await listWebhooks(state.factoryId, state.database.prisma)).find((w) => w.name === name)!.uid;
  const hook = () => [...fake.hooks.values()].find((h) => h.scope === 'repos/octo/app');

  beforeAll(async () => {
    fake = await startGitHubFake();
    fake.tokens.set('admin-token', 'admin');
    fake.tokens.set('read-token', 'read');
    const db = state.database.prisma;
    // A definition applies only when its team secret exists: any value will do, connecting replaces it.
    await createSecret(state.factoryId, { name: 'APP_SECRET', value: 'placeholder' }, db);
    await createSecret(state.factoryId, { name: 'GITHUB_TOKEN', value: 'admin-token' }, db);
    await createSecret(state.factoryId, { name: 'READ_TOKEN', value: 'read-token' }, db);
    await createSecret(state.factoryId, { name: 'JOBS', value: 'jobs-token' }, db);
    await setConfigSource(state.factoryId, 'managed', db);
  });
  afterAll(async () => fake?.close());
  afterEach(async () => {
    await fake.settled();
    expect(fake.problems).toEqual([]);
  });

  it('plan shows the connection; apply creates the webhook and connects it; GitHub’s ping verifies; a second plan has nothing to do', async () => {
    const files = { 'webhooks/app.yaml': app(connection('  eventTypes: [issues]\n')) };
    expect(await plan(files)).toEqual(['create app (connect to GitHub octo/app)']);

    const outcome = await apply(files);
    if (!outcome.ok) throw new Error(outcome.plan.problems.map(formatProblem).join('; '));
    const uid = await uidOf('app');
    expect(outcome.connections).toEqual([{ name: 'app', uid, step: 'connect', ok: true, hookUrl: `${fake.url}/octo/app/settings/hooks/${hook()!.id}` }]);
    expect(hook()).toMatchObject({ events: ['issues'], active: true, config: { url: `${ingress.url}/webhooks/w/${uid}`, content_type: 'json' } });
    expect(hook()!.config.secret).not.toBe('placeholder');
    await fake.settled();
    expect(fake.deliveries.at(-1)).toMatchObject({ event: 'ping', status_code: 202 });
    expect((await fake.send('repos/octo/app', 'issues', { action: 'opened' }))[0]).toMatchObject({ status_code: 202 });

    expect(await plan(files)).toEqual([]);
    const again = await apply(files);
    expect(again.ok && again.connections).toEqual([]);
  });

  it('a changed connection connects again (same hook, new settings); the export and a dashboard edit keep it in the file', async () => {
    const id = hook()!.id;
    const files = { 'webhooks/app.yaml': app(connection('  eventTypes: [issues, push]\n')) };
    expect(await plan(files)).toEqual([`update app ${await uidOf('app')} (connect again to GitHub octo/app (eventTypes: issues → issues, push))`]);
    const outcome = await apply(files);
    expect(outcome.ok && outcome.connections.map((c) => c.ok)).toEqual([true]);
    expect(hook()).toMatchObject({ id, events: ['issues', 'push'] });

    // The files a managed factory keeps, and their export, carry the connection: written back, they plan nothing.
    const exported = await exportDefinitionFiles(state.factoryId, state.database.prisma);
    expect(exported['webhooks/app.yaml']).toContain('connection:\n  provider: github_repository\n  target: octo/app\n  credentialSecretName: GITHUB_TOKEN\n');
    expect(await plan(exported)).toEqual([]);
    await setIpAllowlist(state.factoryId, await uidOf('app'), ['192.0.2.0/24'], state.database.prisma);
    const kept = await readDefinitionFiles(state.factoryId, state.database.prisma);
    expect(kept['webhooks/app.yaml']).toContain('ipAllowlist:\n  - 192.0.2.0/24\nconnection:\n');
    expect(await plan(kept)).toEqual([]);
    // Outside the files, a managed factory refuses: the files decide.
    await expect(disconnectWebhook(state.factoryId, await uidOf('app'), {}, state.database.prisma)).rejects.toThrow(/keeps its webhooks in definition files: remove `connection:`/);
    await expect(
      connectWebhook(state.factoryId, await uidOf('app'), { provider: 'github_repository', target: 'octo/app', credentialSecretName: 'GITHUB_TOKEN', apiBaseUrl: fake.url }, state.database.prisma),
    ).rejects.toThrow(/keeps its webhooks in definition files: add `connection:`/);
  });

  it('refuses files whose connection cannot be made, naming the file and key, and writes nothing', async () => {
    const before = await readDefinitionFiles(state.factoryId, state.database.prisma);
    const hooks = fake.hooks.size;
    const outcome = await apply({
      'webhooks/app.yaml': app(connection().replace('GITHUB_TOKEN', 'NO_SUCH_TOKEN')),
      'webhooks/jobs.yaml': `secretName: JOBS\nconnection:\n${connection().replace('octo/app', 'octo/jobs')}`,
      'webhooks/shared.yaml': app(connection().replace('octo/app', 'octo/shared')),
      'webhooks/inline.yaml': app('  provider: github_repository\n  target: octo/inline\n  token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n'),
      'webhooks/own.yaml': `authMode: signature\nsignatureScheme: github\nsecretName: GITHUB_TOKEN\nconnection:\n${connection()}`,
    });
    expect(outcome.ok).toBe(false);
    const problems = outcome.plan.problems.map(formatProblem);
    expect(problems).toEqual(
      expect.arrayContaining([
        'webhooks/inline.yaml: connection: "token": a definition file never holds the API token; keep it in a team secret and name that secret in credentialSecretName',
        'webhooks/app.yaml: secretName: is also the team secret of shared: a connection sets a new value in its webhook\'s team secret, so give this webhook a team secret of its own',
        'webhooks/jobs.yaml: connection: Only a webhook that verifies GitHub signatures can be connected to GitHub',
        'webhooks/own.yaml: connection.credentialSecretName: GITHUB_TOKEN is the webhook\'s own signing secret: keep the API token in a team secret of its own',
      ]),
    );
    expect(problems.join('\n')).not.toContain('ghp_abc');
    expect(fake.hooks.size).toBe(hooks);
    expect(await readDefinitionFiles(state.factoryId, state.database.prisma)).toEqual(before);

    const missing = await planDefinitions(state.factoryId, { 'webhooks/app.yaml': app(connection().replace('GITHUB_TOKEN', 'NO_SUCH_TOKEN')) }, state.database.prisma);
    expect(missing.problems.map(formatProblem)).toEqual(['webhooks/app.yaml: connection.credentialSecretName: No team secret is named NO_SUCH_TOKEN: create it on the Secrets page with the API token']);
  });

  it('a step the provider refuses leaves the webhooks applied and the connection as it was; the next apply tries again', async () => {
    const uid = await uidOf('app');
    const refused = { 'webhooks/app.yaml': app(connection().replace('GITHUB_TOKEN', 'READ_TOKEN')) };
    const outcome = await apply(refused);
    if (!outcome.ok) throw new Error(outcome.plan.problems.map(formatProblem).join('; '));
    expect(outcome.connections).toEqual([{ name: 'app', uid, step: 'connect', ok: false, message: expect.stringContaining('admin:repo_hook') }]);
    expect((await getConnection(state.factoryId, uid, state.database.prisma))?.credentialSecretName).toBe('GITHUB_TOKEN');
    // The secret in use stays: GitHub's deliveries still verify.
    expect((await fake.send('repos/octo/app', 'issues', { action: 'edited' }))[0]).toMatchObject({ status_code: 202 });
    expect(await plan(refused)).toEqual([`update app ${uid} (connect again to GitHub octo/app (credentialSecretName: GITHUB_TOKEN → READ_TOKEN; eventTypes: issues, push → (none)))`]);

    fake.tokens.set('read-token', 'admin');
    const retried = await apply(refused);
    expect(retried.ok && retried.connections.map((c) => c.ok)).toEqual([true]);
    expect((await getConnection(state.factoryId, uid, state.database.prisma))?.credentialSecretName).toBe('READ_TOKEN');
    expect(hook()!.events).toEqual(['*']);
  });

  it('removing the connection disconnects and leaves GitHub’s hook in place', async () => {
    const uid = await uidOf('app');
    const id = hook()!.id;
    const files = { 'webhooks/app.yaml': app('') };
    expect(await plan(files)).toEqual([`update app ${uid} (disconnect from GitHub octo/app (the provider's hook stays))`]);
    const outcome = await apply(files);
    expect(outcome.ok && outcome.connections).toEqual([{ name: 'app', uid, step: 'disconnect', ok: true, hookUrl: null }]);
    expect(await getConnection(state.factoryId, uid, state.database.prisma)).toBeNull();
    expect(fake.hooks.has(id)).toBe(true);
    expect(await plan(files)).toEqual([]);
  });

  it('a step that fails on Tripline’s side is that step’s failure, not an error for the whole apply: the webhooks applied, the next apply connects', async () => {
    const db = state.database.prisma;
    const uid = await uidOf('app');
    const files = { 'webhooks/app.yaml': app(connection()), 'webhooks/jobs.yaml': 'secretName: JOBS\ndeliveryIdHeader: X-Job\n' };
    // A real failure of the database mid-step, after the webhooks' transaction committed: it refuses the connection's row.
    const allowWrites = await refuseWrites(db, 'WebhookConnection');
    try {
      const outcome = await apply(files);
      if (!outcome.ok) throw new Error(outcome.plan.problems.map(formatProblem).join('; '));
      expect(outcome.connections).toEqual([{ name: 'app', uid, step: 'connect', ok: false, message: expect.stringContaining(INTERNAL_STEP_MESSAGE) }]);
      expect(outcome.connections[0]!.ok === false && outcome.connections[0]!.message).not.toContain('refused by the test');
      expect(outcome.created.map((c) => c.name)).toEqual(['jobs']);
      expect(await getConnection(state.factoryId, uid, db)).toBeNull();
    } finally {
      await allowWrites();
    }
    expect(await plan(files)).toEqual([`update app ${uid} (connect to GitHub octo/app)`]);
    const retried = await apply(files);
    expect(retried.ok && retried.connections.map((c) => [c.step, c.ok])).toEqual([['connect', true]]);
    expect((await getConnection(state.factoryId, uid, db))?.providerHookId).toBe(String(hook()!.id));
    expect((await fake.send('repos/octo/app', 'issues', { action: 'closed' }))[0]).toMatchObject({ status_code: 202 });
  });

  it('on a repository-backed factory the branch connects; a step GitHub refuses fails the sync, which the next check retries', async () => {
    const db = state.database.prisma;
    const factoryId = (await createFactory(state.userId, { name: `Repo ${kind}`, slug: `repo-${kind}` }, db)).id;
    await createSecret(factoryId, { name: 'APP_SECRET', value: 'placeholder' }, db);
    await createSecret(factoryId, { name: 'GITHUB_TOKEN', value: 'admin-token' }, db);
    await createSecret(factoryId, { name: 'REPO_READ_TOKEN', value: 'repo-read-token' }, db);
    fake.tokens.set('repo-read-token', 'read');
    const repo = localRepository();
    try {
      repo.write('webhooks/repo-app.yaml', app(connection().replace('octo/app', 'octo/repo')));
      const first = repo.commit('a connected webhook');
      const connected = await connectRepository(factoryId, { url: repo.dir, branch: 'main' }, { kind: 'operator' });
      expect(connected.ok && connected.connections.map((c) => [c.name, c.step, c.ok])).toEqual([['repo-app', 'connect', true]]);
      const uid = (await listWebhooks(factoryId, db))[0]!.uid;
      expect([...fake.hooks.values()].find((h) => h.scope === 'repos/octo/repo')?.config.url).toBe(`${ingress.url}/webhooks/w/${uid}`);
      expect((await getDefinitionsStatus(factoryId, db)).appliedCommit).toBe(first);
      // Only the branch changes it.
      await expect(disconnectWebhook(factoryId, uid, {}, db)).rejects.toThrow(/defined in its git repository.*remove `connection:` from the webhook's definition file there/);

      // The branch moves to a token GitHub refuses: the webhooks apply, the step fails, the sync says so.
      repo.write('webhooks/repo-app.yaml', app(connection().replace('octo/app', 'octo/repo').replace('GITHUB_TOKEN', 'REPO_READ_TOKEN')));
      const second = repo.commit('a token without the permission');
      const failed = await syncRepository(factoryId, { by: { kind: 'schedule' } });
      expect(failed).toMatchObject({ status: 'failed', commit: second });
      const status = await getDefinitionsStatus(factoryId, db);
      expect(status.appliedCommit).toBe(second);
      expect(status.lastFailure).toMatchObject({ commit: second, message: expect.stringContaining('applied, but 1 connection did not') });
      expect(status.lastFailure!.problems).toEqual([{ file: 'webhooks/repo-app.yaml', key: 'connection', message: expect.stringContaining('admin:repo_hook') }]);
      expect((await getConnection(factoryId, uid, db))?.credentialSecretName).toBe('GITHUB_TOKEN');

      // The periodic check retries the commit less and less often while its step fails: each retry asks
      // GitHub and puts a new secret on the webhook for the moment of the call (the old check did so every interval).
      resetRepositoryBackoff();
      const interval = env().repositorySyncInterval * 1000;
      let now = Date.now();
      await syncAllRepositories(() => {}, () => now);
      const asked = fake.requests.length;
      await syncAllRepositories(() => {}, () => now);
      expect(fake.requests.length).toBe(asked);
      now += interval;
      await syncAllRepositories(() => {}, () => now);
      expect(fake.requests.length).toBeGreaterThan(asked);
      resetRepositoryBackoff();

      // The next periodic check applies the same commit again, and the step goes through once the token may.
      fake.tokens.set('repo-read-token', 'admin');
      expect(await syncRepository(factoryId, { by: { kind: 'schedule' } })).toMatchObject({ status: 'applied', commit: second });
      expect((await getConnection(factoryId, uid, db))?.credentialSecretName).toBe('REPO_READ_TOKEN');
      expect((await getDefinitionsStatus(factoryId, db)).lastFailure).toBeNull();
      expect(await syncRepository(factoryId, { by: { kind: 'schedule' } })).toMatchObject({ status: 'up_to_date' });
    } finally {
      repo.cleanup();
    }
  });
});
