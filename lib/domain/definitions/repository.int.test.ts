import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { redactUrl } from '@/lib/domain/definitions/redact-url';
import { planDigest } from '@/lib/domain/definitions/plan';
import { PLAN_CHANGED_MESSAGE } from '@/lib/domain/definitions/apply';
import { connectRepository, factoryCacheDir, fetchRepository, previewRepository, syncRepository } from '@/lib/domain/definitions/repository';
import { OPERATOR_ACCESS } from '@/lib/domain/definitions/repository-access';
import { formatProblem } from '@/lib/domain/definitions/schemas';
import { getDefinitionsStatus, readDefinitionFiles } from '@/lib/domain/definitions/service';
import { createFactory } from '@/lib/domain/factories/service';
import { createSecret, replaceSecretValue } from '@/lib/domain/secrets/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { localRepository } from '@/tests/support/local-repository';
import { createUser } from '@/lib/domain/users/service';
import { findLiveWebhook } from '@/lib/ingress/live';
import { createWebhook, deleteWebhook, listWebhooks, setWebhookEnabled } from '@/lib/domain/webhooks/service';

// These factories are connected the way the CLI connects them (the operator's
// own tool may use a folder on the server); the periodic sync keeps the
// operator's rules for a location the operator set.
const operator = { kind: 'operator' } as const;
const schedule = { by: { kind: 'schedule' } } as const;

describe.each(testDatabaseKinds())('a repository-backed factory on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let repo: ReturnType<typeof localRepository>;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // The repository functions run on the process's database, as the server's periodic check does.
    setDatabase(database);
    const user = await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma);
    factoryId = (await createFactory(user.id, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
    await createSecret(factoryId, { name: 'DEPLOY_TOKEN', value: 'deploy-token-1' }, database.prisma);
    repo = localRepository();
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
    repo?.cleanup();
  });

  it('shows the plan of the branch, then applies it when connected', async () => {
    // A webhook made in the dashboard before: the repository does not define it, so it goes.
    const old = await createWebhook(factoryId, { name: 'old' }, database.prisma);
    repo.write('webhooks/deploys.yaml', 'secretName: DEPLOY_TOKEN\ndeliveryIdHeader: X-Deploy-Id\n');
    repo.write('webhooks/.gitkeep', '');
    repo.write('README.md', 'Webhooks of Acme\n');
    const first = repo.commit('Add the deploys webhook');

    const preview = await previewRepository(factoryId, { url: repo.dir, branch: 'main' }, operator);
    expect(preview.commit).toBe(first);
    expect(preview.plan.actions.map((a) => `${a.action} ${a.name}`)).toEqual(['delete old', 'create deploys']);
    expect((await getDefinitionsStatus(factoryId)).configSource).toBe('dashboard');

    // Another admin makes a webhook in the dashboard after the check: applying the plan shown would delete it unannounced.
    const late = await createWebhook(factoryId, { name: 'late' }, database.prisma);
    await expect(connectRepository(factoryId, { url: repo.dir, branch: 'main' }, operator, { commit: first, plan: planDigest(preview.plan) })).rejects.toMatchObject({
      code: 'conflict',
      message: PLAN_CHANGED_MESSAGE,
    });
    expect((await getDefinitionsStatus(factoryId)).configSource).toBe('dashboard');
    expect(await findLiveWebhook(late.webhook.uid)).not.toBeNull();
    const again = await previewRepository(factoryId, { url: repo.dir, branch: 'main' }, operator);
    expect(again.plan.actions.map((a) => `${a.action} ${a.name}`)).toEqual(['delete late', 'delete old', 'create deploys']);

    const connected = await connectRepository(factoryId, { url: repo.dir, branch: 'main' }, operator, { commit: first, plan: planDigest(again.plan) });
    expect(connected.ok).toBe(true);
    expect(await findLiveWebhook(late.webhook.uid)).toBeNull();
    const status = await getDefinitionsStatus(factoryId);
    expect(status).toMatchObject({ configSource: 'repository', repoUrl: repo.dir, repoBranch: 'main', appliedCommit: first, lastFailure: null });
    expect(status.appliedAt).toBeInstanceOf(Date);
    expect(await findLiveWebhook(old.webhook.uid)).toBeNull();
    expect(await readDefinitionFiles(factoryId)).toEqual({ 'webhooks/deploys.yaml': 'secretName: DEPLOY_TOKEN\ndeliveryIdHeader: X-Deploy-Id\n' });
  });

  it('does nothing while the branch stays on the applied commit, and keeps the dashboard read-only but for Enabled', async () => {
    expect(await syncRepository(factoryId, schedule)).toMatchObject({ status: 'up_to_date' });
    const [deploys] = await listWebhooks(factoryId);
    await expect(createWebhook(factoryId, { name: 'another' })).rejects.toThrow(/defined in its git repository/);
    await expect(deleteWebhook(factoryId, deploys!.uid)).rejects.toThrow(/defined in its git repository/);
    await setWebhookEnabled(factoryId, deploys!.uid, false);
    await setWebhookEnabled(factoryId, deploys!.uid, true);
  });

  it('keeps serving the previous state when a broken commit fails to apply, and applies the fix', async () => {
    const [deploys] = await listWebhooks(factoryId);
    const before = await findLiveWebhook(deploys!.uid);
    repo.write('webhooks/deploys.yaml', 'secretName: DEPLOY_TOKEN\nauthmode: url_token\n');
    repo.write('webhooks/stripe.yaml', 'authMode: signature\nsignatureScheme: stripe\nsecretName: STRIPE_SECRET\n');
    const broken = repo.commit('Break it');

    const result = await syncRepository(factoryId, schedule);
    expect(result.status).toBe('failed');
    const status = await getDefinitionsStatus(factoryId);
    expect(status.appliedCommit).not.toBe(broken);
    expect(status.lastFailure).toMatchObject({ commit: broken, message: expect.stringContaining('2 problems') });
    expect(status.lastFailure!.problems.map(formatProblem)).toEqual([
      'webhooks/deploys.yaml: unknown key "authmode" (allowed: authMode, signatureScheme, secretName, deliveryIdHeader, eventTypeHeader, eventTypePath, ipAllowlist, customResponse, connection)',
      'webhooks/stripe.yaml: secretName: names no team secret: create STRIPE_SECRET on the Secrets page (or with `tripline secret put`) first',
    ]);
    expect(await findLiveWebhook(deploys!.uid)).toEqual(before);
    expect((await listWebhooks(factoryId)).map((w) => w.name)).toEqual(['deploys']);

    repo.write('webhooks/deploys.yaml', 'secretName: DEPLOY_TOKEN\nauthMode: url_token\n');
    repo.remove('webhooks/stripe.yaml');
    const fixed = repo.commit('Fix it');
    const applied = await syncRepository(factoryId, schedule);
    expect(applied).toMatchObject({ status: 'applied', commit: fixed });
    expect(await getDefinitionsStatus(factoryId)).toMatchObject({ appliedCommit: fixed, lastFailure: null });
    expect(await findLiveWebhook(deploys!.uid)).toMatchObject({ uid: deploys!.uid, authMode: 'url_token', deliveryIdHeader: null });
  });

  it('takes up a changed team secret when a change to the branch applies', async () => {
    const [deploys] = await listWebhooks(factoryId);
    await replaceSecretValue(factoryId, 'DEPLOY_TOKEN', 'deploy-token-2');
    expect(await syncRepository(factoryId, schedule)).toMatchObject({ status: 'up_to_date' });
    expect((await findLiveWebhook(deploys!.uid))?.credential).toBe('deploy-token-1');
    repo.write('README.md', 'Webhooks of Acme, now with a new token\n');
    repo.commit('Roll the deploy token');
    expect(await syncRepository(factoryId, schedule)).toMatchObject({ status: 'applied' });
    expect((await findLiveWebhook(deploys!.uid))?.credential).toBe('deploy-token-2');
  });

  it('fetches a branch whose name has the last one\'s as a folder (release, then release/prod)', async () => {
    const renamed = localRepository();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: renamed.dir, encoding: 'utf8' });
    try {
      renamed.write('webhooks/deploys.yaml', 'secretName: DEPLOY_TOKEN\n');
      const first = renamed.commit('On release');
      git('branch', '-m', 'release');
      const target = { url: renamed.dir, branch: 'release', credential: null, access: OPERATOR_ACCESS };
      expect((await fetchRepository('renamed-branch', target)).commit).toBe(first);
      // The team renames the branch: git cannot hold release and release/prod at once, in their repository or in a cache.
      git('branch', '-m', 'release', 'release/prod');
      const second = renamed.commit('On release/prod');
      // The old cache kept refs/tripline/release, which blocked refs/tripline/release/prod: "Could not connect".
      expect((await fetchRepository('renamed-branch', { ...target, branch: 'release/prod' })).commit).toBe(second);
    } finally {
      renamed.cleanup();
    }
  });

  it('records a branch that cannot be fetched, without touching the webhooks', async () => {
    const missing = { url: path.join(repo.dir, 'nowhere'), branch: 'main' };
    await expect(previewRepository(factoryId, missing, operator)).rejects.toThrow(/^Could not connect/);
    await database.prisma.factory.update({ where: { id: factoryId }, data: { repoBranch: 'no-such-branch' } });
    const result = await syncRepository(factoryId, schedule);
    expect(result).toMatchObject({ status: 'failed', commit: null });
    expect((await getDefinitionsStatus(factoryId)).lastFailure?.message).toMatch(/^Branch not found: the repository has no branch no-such-branch/);
    expect((await listWebhooks(factoryId)).map((w) => w.name)).toEqual(['deploys']);
    await database.prisma.factory.update({ where: { id: factoryId }, data: { repoBranch: 'main' } });
    expect(await syncRepository(factoryId, schedule)).toMatchObject({ status: 'up_to_date' });
    expect((await getDefinitionsStatus(factoryId)).lastFailure).toBeNull();
  });

  it("keeps one repository cache per factory, its current location's, and none after a failed fetch", async () => {
    const caches = () => (fs.existsSync(factoryCacheDir(factoryId)) ? fs.readdirSync(factoryCacheDir(factoryId)) : []);
    await previewRepository(factoryId, { url: repo.dir, branch: 'main' }, operator);
    const [first] = caches();
    expect(caches()).toEqual([first]);
    // Another location: its cache replaces the first's (an admin checking one location after another keeps one).
    const other = localRepository();
    try {
      other.write('webhooks/other.yaml', 'secretName: DEPLOY_TOKEN\n');
      other.commit('Another location');
      await previewRepository(factoryId, { url: other.dir, branch: 'main' }, operator);
      expect(caches()).toHaveLength(1);
      expect(caches()).not.toEqual([first]);
      // A fetch that fails leaves no cache behind (nor a half-written pack).
      await expect(previewRepository(factoryId, { url: other.dir, branch: 'no-such-branch' }, operator)).rejects.toThrow(/^Branch not found/);
      expect(caches()).toEqual([]);
    } finally {
      other.cleanup();
    }
  });

  it('refuses URLs that are options or commands, and hides credentials', async () => {
    await expect(previewRepository(factoryId, { url: '--upload-pack=touch /tmp/x', branch: 'main' }, operator)).rejects.toThrow();
    await expect(previewRepository(factoryId, { url: 'ext::sh -c touch% /tmp/x', branch: 'main' }, operator)).rejects.toThrow();
    await expect(previewRepository(factoryId, { url: repo.dir, branch: '-b' }, operator)).rejects.toThrow();
    expect(redactUrl('fatal: https://user:tok3n@example.com/x.git not found')).toBe('fatal: https://***@example.com/x.git not found');
  });
});
