import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { budget } from '@/scripts/speed.mjs';
import { startConnectionIngress, type IngressServer } from '@/tests/support/ingress-server';
import { startGitHubFake, type GitHubFake } from '@/tests/support/fakes/github';
import { runCli, type CliResult } from '@/tests/support/cli-process';

// `tripline webhook connect | connection | check | disconnect` as real
// processes against the fake GitHub (which checks every request against
// GitHub's REST description), on PostgreSQL: the embedded database cannot be
// shared between this test, whose ingress verifies GitHub's ping, and the
// CLI's process. The command runs asynchronously: the fake and the ingress
// answer from this process while it waits.

// The ingress URL the CLI gives GitHub is this test's ingress server, and the fake listens on loopback.
const ingress: IngressServer = await startConnectionIngress();

const { testDatabaseKinds, createTestDatabase } = await import('@/tests/support/databases');
const { setDatabase } = await import('@/lib/platform/db');
const { createSecret } = await import('@/lib/domain/secrets/service');
const { createWebhook } = await import('@/lib/domain/webhooks/service');
const { runRecoveryPass } = await import('@/lib/domain/connections/recover');

type Result = CliResult;

describe.skipIf(!testDatabaseKinds().includes('postgres'))('tripline webhook connect, connection, check, disconnect', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let fake: GitHubFake;
  let uid: string;
  let tokenUid: string;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-connection-cli-'));

  const tripline = (...args: string[]) => command('webhook', ...args);
  const command = (...args: string[]) => runCli(args, { DATABASE_URL: database.url!, TRIPLINE_DATA_DIR: dataDir });
  const hook = () => [...fake.hooks.values()].find((h) => h.scope === 'repos/octo/app');
  const connect = (...extra: string[]) =>
    tripline('connect', '--factory', 'conn-cli', '--uid', uid, '--provider', 'github_repository', '--target', 'octo/app', '--credential-secret', 'GITHUB_TOKEN', '--api-base-url', fake.url, ...extra);
  /** A refusal is a message, never a stack trace. */
  const refused = (result: Result, status: number, message: string | RegExp) => {
    expect(result.status, result.stdout).toBe(status);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    setDatabase(database);
    const db = database.prisma;
    const factory = await db.factory.create({ data: { slug: 'conn-cli', name: 'Connections CLI' } });
    await db.factory.create({ data: { slug: 'conn-managed', name: 'Managed', configSource: 'managed' } });
    fake = await startGitHubFake();
    fake.tokens.set('admin-token', 'admin');
    fake.tokens.set('read-token', 'read');
    await createSecret(factory.id, { name: 'GITHUB_TOKEN', value: 'admin-token' }, db);
    await createSecret(factory.id, { name: 'READ_ONLY_TOKEN', value: 'read-token' }, db);
    uid = (await createWebhook(factory.id, { name: 'github-app', authMode: 'signature', signatureScheme: 'github' }, db)).webhook.uid;
    tokenUid = (await createWebhook(factory.id, { name: 'jobs' }, db)).webhook.uid;
  });
  afterEach(async () => {
    await fake.settled();
    expect(fake.problems).toEqual([]);
  });
  afterAll(async () => {
    await fake?.close();
    await ingress.close();
    setDatabase(undefined);
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('connect creates the hook with the events; GitHub’s ping verifies; connection shows the state; check makes a pass due', async () => {
    const connected = await connect('--event', 'push,issues', '--event', 'pull_request');
    expect(connected.status, connected.stderr).toBe(0);
    const created = hook()!;
    expect(created).toMatchObject({ events: ['push', 'issues', 'pull_request'], active: true, config: { url: `${ingress.url}/webhooks/w/${uid}`, content_type: 'json' } });
    expect(connected.stdout).toContain(`${uid}: connected to GitHub octo/app, hook ${created.id} ${fake.url}/octo/app/settings/hooks/${created.id}`);
    // Neither the generated secret nor the token is printed.
    expect(connected.stdout + connected.stderr).not.toContain(created.config.secret!);
    expect(connected.stdout + connected.stderr).not.toContain('admin-token');
    await fake.settled();
    expect(fake.deliveries.at(-1)).toMatchObject({ event: 'ping', status_code: 202 });

    const shown = await tripline('connection', '--factory', 'conn-cli', '--uid', uid);
    expect(shown.status, shown.stderr).toBe(0);
    const lines = shown.stdout.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'provider: github_repository (GitHub)',
        'target: octo/app',
        `api: ${fake.url}`,
        'credential: team secret GITHUB_TOKEN',
        'events: push, issues, pull_request',
        `hook: ${created.id} ${fake.url}/octo/app/settings/hooks/${created.id}`,
        'last pass: 0 missing, 0 recovered',
        'last error: none',
      ]),
    );
    expect(lines.find((l) => l.startsWith('next check: '))).toMatch(/^next check: \d{4}-\d\d-\d\dT/);

    const json = await tripline('connection', '--factory', 'conn-cli', '--uid', uid, '--json');
    expect(JSON.parse(json.stdout).connection).toMatchObject({ provider: 'github_repository', target: 'octo/app', providerHookId: String(created.id), checking: false });

    const later = new Date(Date.now() + 3_600_000);
    await database.prisma.webhookConnection.updateMany({ data: { nextCheckAt: later } });
    const check = await tripline('check', '--factory', 'conn-cli', '--uid', uid);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toContain(`${uid}: a check of GitHub octo/app is due now`);
    const row = await database.prisma.webhookConnection.findFirstOrThrow({ select: { id: true, nextCheckAt: true } });
    expect(row.nextCheckAt!.getTime()).toBeLessThan(later.getTime());

    // Two issues GitHub could not deliver, then the pass a server would run: connection shows what it recovered.
    ingress.down = true;
    for (let i = 0; i < 2; i++) await fake.send('repos/octo/app', 'issues', { action: 'opened', issue: { number: i } });
    ingress.down = false;
    expect(await runRecoveryPass(row.id, { redeliveryRate: { burst: 100, perMinute: 6000 } }, database.prisma)).toMatchObject({ outcome: 'ok', missing: 2, redelivered: 2 });
    const after = await tripline('connection', '--factory', 'conn-cli', '--uid', uid);
    expect(after.stdout).toContain('last pass: 2 missing, 2 recovered\n');
    expect(after.stdout).toMatch(/\nlast check: \d{4}-\d\d-\d\dT[^\n]*Z\n/);
  }, budget(600_000));

  it('refuses bad input with a message naming what is wrong and a non-zero exit, never a stack trace', async () => {
    // Each is its own process, and none depends on another: they run side by side.
    const base = ['--factory', 'conn-cli', '--provider', 'github_repository', '--api-base-url', fake.url];
    const cases: Array<[string[], number, RegExp]> = [
      [['connect', '--factory', 'conn-cli', '--uid', uid, '--provider', 'github_repository', '--credential-secret', 'GITHUB_TOKEN'], 2, /Missing --target/],
      [['connect', '--factory', 'conn-cli', '--uid', uid, '--provider', 'bitbucket', '--target', 'octo/app', '--credential-secret', 'GITHUB_TOKEN'], 1, /provider: Choose one of github_repository/],
      [['connect', ...base, '--uid', uid, '--target', 'octo/app', '--credential-secret', 'GITHUB_TOKEN', '--event', 'Push Events'], 1, /eventTypes\.0: Use event names such as push or issues/],
      [['connect', ...base, '--uid', uid, '--target', 'octo', '--credential-secret', 'GITHUB_TOKEN'], 1, /target: Enter the repository as owner\/repo/],
      [['connect', ...base, '--uid', uid, '--target', 'octo/app', '--credential-secret', 'NO_SUCH_SECRET'], 1, /credentialSecretName: No team secret is named NO_SUCH_SECRET/],
      [['connect', ...base, '--uid', uid, '--target', 'octo/app', '--credential-secret', 'READ_ONLY_TOKEN'], 1, /credentialSecretName: .*admin:repo_hook/],
      [['connect', ...base, '--uid', tokenUid, '--target', 'octo/app', '--credential-secret', 'GITHUB_TOKEN'], 1, /Only a webhook that verifies GitHub signatures/],
      [['connection', '--factory', 'conn-cli', '--uid', 'wh_nope'], 1, /Error: Webhook not found/],
      [['check', '--factory', 'conn-cli', '--uid', tokenUid], 1, /Error: This webhook is not connected/],
      [['disconnect', '--factory', 'conn-cli', '--uid', tokenUid], 1, /Error: This webhook is not connected/],
      [['connect', '--factory', 'conn-cli', '--uid', uid, '--events', 'push'], 2, /Unknown option '--events'/],
    ];
    const results = await Promise.all(cases.map(([args]) => tripline(...args)));
    cases.forEach(([, status, message], i) => refused(results[i]!, status, message));
    // The connection made in the first test is untouched by every refusal.
    expect(hook()!.events).toEqual(['push', 'issues', 'pull_request']);
  }, budget(600_000));

  it('a factory whose webhooks are definition files refuses: the connection belongs in the file', async () => {
    const managed = await database.prisma.factory.findUniqueOrThrow({ where: { slug: 'conn-managed' } });
    await createSecret(managed.id, { name: 'GITHUB_TOKEN', value: 'admin-token' }, database.prisma);
    const other = (await createWebhook(managed.id, { name: 'gh', authMode: 'signature', signatureScheme: 'github' }, database.prisma)).webhook.uid;
    const result = await tripline('connect', '--factory', 'conn-managed', '--uid', other, '--provider', 'github_repository', '--target', 'octo/managed', '--credential-secret', 'GITHUB_TOKEN', '--api-base-url', fake.url);
    refused(result, 1, /keeps its webhooks in definition files: add `connection:` to the webhook's definition file and apply it/);
    expect([...fake.hooks.values()].some((h) => h.scope === 'repos/octo/managed')).toBe(false);
  }, budget(300_000));

  it('disconnect leaves GitHub’s hook in place; connecting again adopts it; --delete-provider-hook deletes it', async () => {
    const id = hook()!.id;
    const kept = await tripline('disconnect', '--factory', 'conn-cli', '--uid', uid);
    expect(kept.status, kept.stderr).toBe(0);
    expect(kept.stdout.trim()).toBe(`${uid}: disconnected; GitHub's hook ${id} stays and keeps sending`);
    expect(fake.hooks.has(id)).toBe(true);
    expect((await tripline('connection', '--factory', 'conn-cli', '--uid', uid)).stdout.trim()).toBe(`${uid}: not connected`);
    expect(JSON.parse((await tripline('connection', '--factory', 'conn-cli', '--uid', uid, '--json')).stdout)).toEqual({ connection: null });

    const again = await connect();
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain(`hook ${id} `);
    expect(hook()!.events).toEqual(['*']);

    const deleted = await tripline('disconnect', '--factory', 'conn-cli', '--uid', uid, '--delete-provider-hook');
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(deleted.stdout.trim()).toBe(`${uid}: disconnected; GitHub's hook ${id} is deleted`);
    expect(fake.hooks.has(id)).toBe(false);
  }, budget(600_000));

  it('plan and apply of definition files with connection: print each step; a step the provider refuses exits 1 after the webhooks applied', async () => {
    const db = database.prisma;
    const managed = await db.factory.findUniqueOrThrow({ where: { slug: 'conn-managed' } });
    await createSecret(managed.id, { name: 'READ_ONLY_TOKEN', value: 'read-token' }, db);
    const webhook = await db.webhook.findFirstOrThrow({ where: { factoryId: managed.id, name: 'gh' } });
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-connection-defs-'));
    const write = (credential: string) => {
      fs.mkdirSync(path.join(folder, 'webhooks'), { recursive: true });
      fs.writeFileSync(
        path.join(folder, 'webhooks', 'gh.yaml'),
        `authMode: signature\nsignatureScheme: github\nsecretName: ${webhook.secretName}\nconnection:\n  provider: github_repository\n  target: octo/managed\n  credentialSecretName: ${credential}\n  apiBaseUrl: ${fake.url}\n`,
      );
    };
    try {
      write('GITHUB_TOKEN');
      const plan = await command('plan', '--factory', 'conn-managed', folder);
      expect(plan.status, plan.stderr).toBe(0);
      expect(plan.stdout).toContain(`~ update gh ${webhook.uid} (connect to GitHub octo/managed)`);
      // The plan ends with its digest; apply --plan applies that plan (and would refuse another).
      const digest = /^plan digest ([0-9a-f]{64}): .*apply --factory conn-managed \S+ --plan \1 applies exactly this plan, or nothing$/m.exec(plan.stdout)?.[1];
      expect(digest, plan.stdout).toBeDefined();
      const applied = await command('apply', '--factory', 'conn-managed', '--plan', digest!, folder);
      expect(applied.status, applied.stderr).toBe(0);
      const created = [...fake.hooks.values()].find((h) => h.scope === 'repos/octo/managed')!;
      expect(applied.stdout).toContain(`connected gh\t${webhook.uid}\t${fake.url}/octo/managed/settings/hooks/${created.id}`);

      write('READ_ONLY_TOKEN');
      const refusedApply = await command('apply', '--factory', 'conn-managed', folder);
      refused(refusedApply, 1, new RegExp(`could not connect gh ${webhook.uid}: .*admin:repo_hook`));
      expect(refusedApply.stdout).toContain('applied');
      expect(refusedApply.stderr).toContain('The webhooks applied; the connection steps that failed are tried again at the next apply');
      expect((await db.webhookConnection.findUniqueOrThrow({ where: { webhookId: webhook.id } })).credentialSecretName).toBe('GITHUB_TOKEN');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }, budget(600_000));
});
