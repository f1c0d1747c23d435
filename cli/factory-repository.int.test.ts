import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budget } from '@/scripts/speed.mjs';
import { runCli } from '@/tests/support/cli-process';
import { localRepository } from '@/tests/support/local-repository';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { setDatabase } from '@/lib/platform/db';
import { createSecret } from '@/lib/domain/secrets/service';
import { createWebhook } from '@/lib/domain/webhooks/service';

// `tripline factory use-repository`: the branch replaces the factory's webhooks (one with no
// file is deleted), so the command shows the plan of the branch's newest commit and changes
// nothing until it is run again with that commit (or --yes). On PostgreSQL: the command is a
// process of its own, and the embedded database has one.

describe.skipIf(!testDatabaseKinds().includes('postgres'))('tripline factory use-repository', () => {
  let database: TestDatabase;
  let factoryId: string;
  const repo = localRepository();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-use-repository-'));
  const tripline = (...args: string[]) => runCli(['factory', ...args], { DATABASE_URL: database.url!, TRIPLINE_DATA_DIR: dataDir });
  const withInput = (input: string, ...args: string[]) => runCli(['factory', ...args], { DATABASE_URL: database.url!, TRIPLINE_DATA_DIR: dataDir }, input);
  const webhookNames = async () => (await database.prisma.webhook.findMany({ where: { factoryId, deletedAt: null }, select: { name: true }, orderBy: { name: 'asc' } })).map((w) => w.name);
  const source = async () => (await database.prisma.factory.findUniqueOrThrow({ where: { id: factoryId }, select: { configSource: true } })).configSource;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    setDatabase(database);
    factoryId = (await database.prisma.factory.create({ data: { slug: 'repo-cli', name: 'Repository CLI' } })).id;
    await createSecret(factoryId, { name: 'JOBS_SECRET', value: 'a-url-safe-secret-value-0123456789' }, database.prisma);
    for (const name of ['billing', 'deploys']) await createWebhook(factoryId, { name }, database.prisma);
    repo.write('webhooks/jobs.yaml', 'secretName: JOBS_SECRET\n');
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
    repo.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the plan and changes nothing; --commit of that plan applies it; a moved branch, or with --plan a changed plan, is refused', async () => {
    const first = repo.commit('one webhook');
    const shown = await tripline('use-repository', '--factory', 'repo-cli', '--repo', repo.dir);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('repo-cli: 3 changes, 0 unchanged');
    expect(shown.stdout).toMatch(/^ {2}- delete billing wh_/m);
    expect(shown.stdout).toMatch(/^ {2}- delete deploys wh_/m);
    expect(shown.stdout).toMatch(/^ {2}\+ create jobs/m);
    expect(shown.stdout).toContain(`run this again with --commit ${first}`);
    expect(await webhookNames()).toEqual(['billing', 'deploys']);
    expect(await source()).toBe('dashboard');

    // The branch moves after the plan was read: the plan's commit no longer applies.
    repo.write('webhooks/more.yaml', 'secretName: JOBS_SECRET\n');
    const second = repo.commit('two webhooks');
    const moved = await tripline('use-repository', '--factory', 'repo-cli', '--repo', repo.dir, '--commit', first);
    expect(moved.status).toBe(1);
    expect(moved.stderr).toContain(`The branch moved to ${second.slice(0, 12)} since you looked`);
    expect(await webhookNames()).toEqual(['billing', 'deploys']);

    // The plan printed carries its digest; with --plan, a change to the factory since (a webhook made in the dashboard) is refused.
    const planned = await tripline('use-repository', '--factory', 'repo-cli', '--repo', repo.dir);
    const digest = /^plan digest ([0-9a-f]{64}): use-repository --commit (\w+) --plan \1 applies exactly this plan, or nothing$/m.exec(planned.stdout);
    expect(digest?.[2], planned.stdout).toBe(second);
    await createWebhook(factoryId, { name: 'late' }, database.prisma);
    const drifted = await tripline('use-repository', '--factory', 'repo-cli', '--repo', repo.dir, '--commit', second, '--plan', digest![1]!);
    expect(drifted.status).toBe(1);
    expect(drifted.stderr).toContain('The plan changed since it was shown');
    expect(await webhookNames()).toEqual(['billing', 'deploys', 'late']);
    const malformed = await tripline('use-repository', '--factory', 'repo-cli', '--repo', repo.dir, '--commit', second, '--plan', 'abc');
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toContain('--plan must be the digest a plan printed');

    const applied = await tripline('use-repository', '--factory', 'repo-cli', '--repo', repo.dir, '--commit', second);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`repo-cli: applied ${second} of main`);
    expect(await webhookNames()).toEqual(['jobs', 'more']);
    expect(await source()).toBe('repository');
  }, budget(120_000));

  it('reads the URL from standard input with --repo-stdin, and warns where --repo carries a credential', async () => {
    const head = repo.commit('head');
    const read = await withInput(`${repo.dir}\n`, 'use-repository', '--factory', 'repo-cli', '--repo-stdin');
    expect(read.status, read.stderr).toBe(0);
    expect(read.stdout).toContain(`run this again with --commit ${head}`);
    expect(read.stderr).not.toContain('warning');

    const both = await withInput(repo.dir, 'use-repository', '--factory', 'repo-cli', '--repo-stdin', '--repo', repo.dir);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('Give --repo or --repo-stdin, not both');

    // Nothing listens on port 9: the fetch fails, after the warning, and the token is printed nowhere.
    const inArgs = await tripline('use-repository', '--factory', 'repo-cli', '--repo', 'https://ci:tok3n-in-args@127.0.0.1:9/hooks.git');
    expect(inArgs.status).not.toBe(0);
    expect(inArgs.stderr).toContain('warning: the repository URL carries a credential, which every user of this machine could read in the process list');
    expect(inArgs.stderr + inArgs.stdout).not.toContain('tok3n-in-args');
    // A token given as the user name alone is a credential as well.
    const tokenOnly = await tripline('use-repository', '--factory', 'repo-cli', '--repo', 'https://tok3n-as-user@127.0.0.1:9/hooks.git');
    expect(tokenOnly.stderr).toContain('warning: the repository URL carries a credential');
    expect(tokenOnly.stderr + tokenOnly.stdout).not.toContain('tok3n-as-user');
  }, budget(120_000));

  it('refuses --yes with --commit as wrong usage', async () => {
    const both = await tripline('use-repository', '--factory', 'repo-cli', '--repo', repo.dir, '--yes', '--commit', 'abc');
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('Give --yes or --commit, not both');
  });
});
