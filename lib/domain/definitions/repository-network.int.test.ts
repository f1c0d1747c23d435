import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { connectRepository, fetchRepository, previewRepository, syncRepository } from '@/lib/domain/definitions/repository';
import { OPERATOR_ACCESS } from '@/lib/domain/definitions/repository-access';
import { decryptRepositoryCredential, moveRepositoryCredentials } from '@/lib/domain/definitions/repository-credentials';
import { REPOSITORY_CHECKS_PER_MINUTE } from '@/lib/domain/definitions/repository-limits';
import { getDefinitionsStatus } from '@/lib/domain/definitions/service';
import { createFactory } from '@/lib/domain/factories/service';
import { createSecret } from '@/lib/domain/secrets/service';
import { startGitHttpServer, type GitHttpServer } from '@/tests/support/git-http';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// Repository fetches against real listeners on 127.0.0.1: what a dashboard
// or API user enters never reaches an internal address (not one
// connection), git connects only to the address that was checked and
// follows no redirect, a credential travels only in git's environment and
// is stored encrypted, one sync runs at a time per factory, and each user
// has a budget of checks. docs/security.md, "Repository URLs".

const TOKEN = 'tok3n-s3cret-value';

/** A bare repository `defs.git` under a served root, with one webhook definition on main. */
function servedRepository() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tripline-served-'));
  const work = path.join(root, 'work');
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' }).trim();
  mkdirSync(path.join(work, 'webhooks'), { recursive: true });
  git(work, 'init', '--quiet', '--initial-branch=main');
  writeFileSync(path.join(work, 'webhooks', 'deploys.yaml'), 'secretName: DEPLOY_TOKEN\n');
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', 'Definitions');
  const commit = git(work, 'rev-parse', 'HEAD');
  // Branch "big": a blob over the definition limit, left out by the fetch's filter and never read.
  git(work, 'checkout', '--quiet', '-b', 'big');
  writeFileSync(path.join(work, 'webhooks', 'huge.yaml'), `# ${'x'.repeat(40_000)}\n`);
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', 'Too large');
  git(root, 'clone', '--quiet', '--bare', work, path.join(root, 'defs.git'));
  return { root, commit, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

describe('what git connects to', () => {
  let served: ReturnType<typeof servedRepository>;
  beforeAll(() => {
    served = servedRepository();
  });
  afterAll(() => served.cleanup());

  it('connects to the checked address whatever the name resolves to later, sends the credential as a header, and reads only small blobs', async () => {
    const server = await startGitHttpServer({ root: served.root, basicAuth: { username: 'deploy', password: TOKEN } });
    try {
      // pinned.invalid exists in no DNS: git can only reach the server through the pinned address.
      const target = { url: `http://pinned.invalid:${server.port}/defs.git`, branch: 'big', credential: { username: 'deploy', password: TOKEN }, access: OPERATOR_ACCESS };
      const snapshot = await fetchRepository('pin-test', target, { lookup: async () => ['127.0.0.1'] });
      expect(snapshot.files['webhooks/deploys.yaml']).toBe('secretName: DEPLOY_TOKEN\n');
      expect(snapshot.files['webhooks/huge.yaml']!.length).toBeGreaterThan(16 * 1024); // the parser's "too large" stand-in
      expect(server.requests.every((request) => request.headers.host === `pinned.invalid:${server.port}`)).toBe(true);
      expect(server.requests.every((request) => !request.url.includes(TOKEN))).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('follows no redirect', async () => {
    const elsewhere = await startGitHttpServer({ root: served.root });
    const redirecting = await startGitHttpServer({ redirectTo: `http://127.0.0.1:${elsewhere.port}/defs.git/info/refs?service=git-upload-pack` });
    try {
      const target = { url: `http://127.0.0.1:${redirecting.port}/defs.git`, branch: 'main', credential: null, access: OPERATOR_ACCESS };
      await expect(fetchRepository('redirect-test', target)).rejects.toMatchObject({ category: 'connect' });
      expect(redirecting.requests.length).toBeGreaterThan(0);
      expect(elsewhere.connections).toBe(0);
    } finally {
      await Promise.all([elsewhere.close(), redirecting.close()]);
    }
  });

  it('ignores the server’s own git configuration (HOME, GIT_CONFIG_GLOBAL)', async () => {
    const server = await startGitHttpServer({ root: served.root });
    const home = mkdtempSync(path.join(os.tmpdir(), 'tripline-server-home-'));
    // Were it read, this configuration would send the fetch elsewhere.
    writeFileSync(path.join(home, '.gitconfig'), `[url "http://127.0.0.1:9/"]\n\tinsteadOf = http://127.0.0.1:${server.port}/\n`);
    const saved = { HOME: process.env.HOME, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL };
    process.env.HOME = home;
    process.env.GIT_CONFIG_GLOBAL = path.join(home, '.gitconfig');
    try {
      const target = { url: `http://127.0.0.1:${server.port}/defs.git`, branch: 'main', credential: null, access: OPERATOR_ACCESS };
      await expect(fetchRepository('home-test', target)).resolves.toMatchObject({ commit: served.commit });
    } finally {
      process.env.HOME = saved.HOME;
      if (saved.GIT_CONFIG_GLOBAL === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved.GIT_CONFIG_GLOBAL;
      rmSync(home, { recursive: true, force: true });
      await server.close();
    }
  });
});

describe.each(testDatabaseKinds())('repository URLs from users on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let userId: string;
  let served: ReturnType<typeof servedRepository>;
  let listener: GitHttpServer;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    userId = (await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma)).id;
    factoryId = (await createFactory(userId, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
    await createSecret(factoryId, { name: 'DEPLOY_TOKEN', value: 'deploy-token-1' }, database.prisma);
    served = servedRepository();
    listener = await startGitHttpServer({ root: served.root });
  });
  afterAll(async () => {
    setDatabase(undefined);
    await listener?.close();
    await database?.drop();
    served?.cleanup();
  });

  it('never connects to an internal listener a user enters, in any spelling', async () => {
    const port = listener.port;
    const urls = [
      `http://127.0.0.1:${port}/defs.git`,
      `https://127.0.0.1:${port}/defs.git`,
      `https://localhost:${port}/defs.git`,
      `https://[::1]:${port}/defs.git`,
      `https://[::ffff:127.0.0.1]:${port}/defs.git`,
      `https://2130706433:${port}/defs.git`,
      `https://0x7f.1:${port}/defs.git`,
      `ssh://git@127.0.0.1:${port}/defs.git`,
      `git://127.0.0.1:${port}/defs.git`,
      `file://${served.root}/defs.git`,
      path.join(served.root, 'defs.git'),
    ];
    // Two admins, so the checks stay within each one's budget.
    const second = (await createUser({ email: 'second@example.com', password: 'a long enough password' }, database.prisma)).id;
    for (const [index, url] of urls.entries()) {
      const user = { kind: 'user', userId: index < 6 ? userId : second } as const;
      const error = await previewRepository(factoryId, { url, branch: 'main' }, user).catch((e: unknown) => e);
      expect(error, url).toMatchObject({ code: 'validation_failed', fields: { url: expect.stringMatching(/^Refused: (private address|scheme not allowed)/) } });
    }
    await expect(connectRepository(factoryId, { url: urls[0]!, branch: 'main' }, { kind: 'user', userId: second })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(listener.connections).toBe(0);
    expect((await getDefinitionsStatus(factoryId)).configSource).toBe('dashboard');
  });

  it('re-checks a stored URL at every sync, unless the operator set it with the CLI', async () => {
    await database.prisma.factory.update({
      where: { id: factoryId },
      data: { configSource: 'repository', repoUrl: `http://127.0.0.1:${listener.port}/defs.git`, repoSetByOperator: false },
    });
    const result = await syncRepository(factoryId, { by: { kind: 'schedule' } });
    expect(result).toMatchObject({ status: 'failed', failure: { message: expect.stringMatching(/^Refused: scheme not allowed/) } });
    expect(listener.connections).toBe(0);

    // The same URL, connected by the operator: allowed, and kept so by the periodic sync.
    const connected = await connectRepository(factoryId, { url: `http://127.0.0.1:${listener.port}/defs.git`, branch: 'main' }, { kind: 'operator' });
    expect(connected.commit).toBe(served.commit);
    expect(await syncRepository(factoryId, { by: { kind: 'schedule' } })).toMatchObject({ status: 'up_to_date' });
    expect(listener.connections).toBeGreaterThan(0);
  });

  it('stores a credential from the URL encrypted, never shows it, sends it only to its host, and can remove it', async () => {
    const guarded = await startGitHttpServer({ root: served.root, basicAuth: { username: 'deploy', password: TOKEN } });
    const operator = { kind: 'operator' } as const;
    try {
      const url = `http://127.0.0.1:${guarded.port}/defs.git`;
      await expect(connectRepository(factoryId, { url, branch: 'main' }, operator)).rejects.toMatchObject({
        fields: { url: expect.stringMatching(/^Authentication required/) },
      });
      await connectRepository(factoryId, { url: `http://deploy:${TOKEN}@127.0.0.1:${guarded.port}/defs.git`, branch: 'main' }, operator);
      const row = await database.prisma.factory.findUniqueOrThrow({ where: { id: factoryId } });
      expect(row.repoUrl).toBe(url);
      expect(row.repoCredentialEncrypted).not.toContain(TOKEN);
      expect(decryptRepositoryCredential(factoryId, row.repoCredentialEncrypted!)).toEqual({ username: 'deploy', password: TOKEN });
      const status = await getDefinitionsStatus(factoryId);
      expect(status).toMatchObject({ repoUrl: url, repoCredentialStored: true });
      expect(JSON.stringify(status)).not.toContain(TOKEN);

      // The periodic sync and a check without a credential in the URL use the stored one (same host).
      expect(await syncRepository(factoryId, { by: { kind: 'schedule' }, force: true })).toMatchObject({ status: 'applied' });
      await expect(previewRepository(factoryId, { url, branch: 'main' }, operator)).resolves.toMatchObject({ commit: served.commit });
      // Another host (here another port) never gets it.
      const other = await startGitHttpServer({ root: served.root });
      await previewRepository(factoryId, { url: `http://127.0.0.1:${other.port}/defs.git`, branch: 'main' }, operator);
      expect(other.requests.some((request) => request.headers.authorization)).toBe(false);
      await other.close();
      // Removed: the host asks for credentials again.
      await expect(previewRepository(factoryId, { url, branch: 'main', removeCredential: true }, operator)).rejects.toMatchObject({
        fields: { url: expect.stringMatching(/^Authentication required/) },
      });
    } finally {
      await guarded.close();
    }
  });

  it('moves a credential left in a stored URL into the encrypted column, once', async () => {
    const other = await createFactory(userId, { name: 'Old', slug: 'old' }, database.prisma);
    await database.prisma.factory.update({
      where: { id: other.id },
      data: { configSource: 'repository', repoUrl: `https://deploy:${encodeURIComponent('p@ss/word')}@git.example.com/old.git`, repoCredentialEncrypted: null },
    });
    expect(await moveRepositoryCredentials(database.prisma)).toBe(1);
    const row = await database.prisma.factory.findUniqueOrThrow({ where: { id: other.id } });
    expect(row.repoUrl).toBe('https://git.example.com/old.git');
    expect(decryptRepositoryCredential(other.id, row.repoCredentialEncrypted!)).toEqual({ username: 'deploy', password: 'p@ss/word' });
    expect(await moveRepositoryCredentials(database.prisma)).toBe(0);
  });

  it('runs one sync at a time per factory, in this process and across instances', async () => {
    const schedule = { by: { kind: 'schedule' } } as const;
    const [first, second] = await Promise.allSettled([syncRepository(factoryId, schedule), syncRepository(factoryId, schedule)]);
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({ status: 'rejected', reason: { code: 'conflict', message: expect.stringMatching(/already running/) } });

    // Another instance holds the lease: refused until it ends or runs out.
    await database.prisma.factory.update({ where: { id: factoryId }, data: { repoSyncLeaseUntil: new Date(Date.now() + 60_000) } });
    await expect(syncRepository(factoryId, schedule)).rejects.toMatchObject({ message: expect.stringMatching(/already running/) });
    await database.prisma.factory.update({ where: { id: factoryId }, data: { repoSyncLeaseUntil: new Date(Date.now() - 1000) } });
    await expect(syncRepository(factoryId, schedule)).resolves.toHaveProperty('status');
    expect((await database.prisma.factory.findUniqueOrThrow({ where: { id: factoryId } })).repoSyncLeaseUntil).toBeNull();
  });

  it(`allows each user ${REPOSITORY_CHECKS_PER_MINUTE} checks a minute`, async () => {
    const other = (await createUser({ email: 'busy@example.com', password: 'a long enough password' }, database.prisma)).id;
    const busy = { kind: 'user', userId: other } as const;
    const url = 'https://127.0.0.1/defs.git';
    for (let i = 0; i < REPOSITORY_CHECKS_PER_MINUTE; i++) {
      await expect(previewRepository(factoryId, { url, branch: 'main' }, busy)).rejects.toMatchObject({ code: 'validation_failed' });
    }
    await expect(previewRepository(factoryId, { url, branch: 'main' }, busy)).rejects.toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/^Too many repository checks: at most 10 a minute\. Try again in \d+ seconds\.$/),
    });
    // The CLI and the periodic sync are not users: no budget.
    await expect(syncRepository(factoryId, { by: { kind: 'schedule' } })).resolves.toBeTruthy();
  });
});
