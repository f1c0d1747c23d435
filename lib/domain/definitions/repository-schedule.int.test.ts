import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { Prisma } from '@/lib/generated/prisma/client';
import { connectRepository } from '@/lib/domain/definitions/repository';
import { resetRepositoryBackoff, SYNC_CONCURRENCY, syncAllRepositories } from '@/lib/domain/definitions/repository-schedule';
import { getDefinitionsStatus } from '@/lib/domain/definitions/service';
import { createFactory } from '@/lib/domain/factories/service';
import { createSecret } from '@/lib/domain/secrets/service';
import { createUser } from '@/lib/domain/users/service';
import { budget } from '@/scripts/speed.mjs';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { localRepository } from '@/tests/support/local-repository';

// The periodic check over many factories: a repository that never answers
// holds one of the check's turns, not the other factories' checks, and one
// that keeps failing is checked less and less often.

/** A listener that accepts git's connections and never answers; once released, it drops each at once. Counts them. */
async function silentListener() {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let silent = true;
  const server = net.createServer((socket) => {
    connections++;
    if (!silent) return void socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/defs.git`,
    open: () => sockets.size,
    connections: () => connections,
    release: () => {
      silent = false;
      for (const socket of sockets) socket.destroy();
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const MINUTE = 60_000;

describe.each(testDatabaseKinds())('the periodic repository check on %s', (kind) => {
  let database: TestDatabase;
  let userId: string;
  const repo = localRepository();

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    userId = (await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma)).id;
    resetRepositoryBackoff();
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
    repo.cleanup();
  });

  afterAll(() => listener?.close());
  let listener: Awaited<ReturnType<typeof silentListener>> | undefined;

  it('a repository that never answers holds one turn: the next factory’s new commit applies meanwhile; a failing one is checked less often until it works', async () => {
    const silent = (listener = await silentListener());
    // Factories whose repositories never answer, made first: a check one after another would reach them first.
    const stuck: string[] = [];
    for (let i = 0; i < SYNC_CONCURRENCY - 1; i++) {
      const { id } = await createFactory(userId, { name: `Stuck ${i}`, slug: `stuck-${i}` }, database.prisma);
      await database.prisma.factory.update({ where: { id }, data: { configSource: 'repository', repoUrl: silent.url, repoBranch: 'main', repoSetByOperator: true } });
      stuck.push(id);
    }
    const quick = (await createFactory(userId, { name: 'Quick', slug: 'quick' }, database.prisma)).id;
    for (const id of [quick, stuck[0]!]) await createSecret(id, { name: 'DEPLOY_TOKEN', value: 'deploy-token-1' }, database.prisma);
    repo.write('webhooks/.gitkeep', '');
    const first = repo.commit('No webhooks yet');
    expect(await connectRepository(quick, { url: repo.dir, branch: 'main' }, { kind: 'operator' }, { commit: first })).toMatchObject({ ok: true });
    repo.write('webhooks/deploys.yaml', 'secretName: DEPLOY_TOKEN\n');
    const second = repo.commit('Add the deploys webhook');

    let now = Date.now();
    const lines: string[] = [];
    const check = syncAllRepositories((line) => lines.push(line), () => now);
    try {
      await expect.poll(async () => (await getDefinitionsStatus(quick)).appliedCommit, { timeout: budget(10_000) }).toBe(second);
      // Applied while every stuck repository holds (or is about to hold) its connection, which it keeps until released.
      await expect.poll(() => silent.open(), { timeout: budget(10_000) }).toBe(SYNC_CONCURRENCY - 1);
    } finally {
      silent.release();
    }
    await check;
    expect(lines).toContain(`quick: applied ${second.slice(0, 12)}`);
    for (const [i] of stuck.entries()) expect(lines.some((line) => line.startsWith(`stuck-${i}: `))).toBe(true);
    const tried = () => silent.connections();
    const after = tried();

    // Failed once: checked again one interval later, not before.
    await syncAllRepositories(() => {}, () => now);
    expect(tried()).toBe(after);
    now += MINUTE;
    await syncAllRepositories(() => {}, () => now);
    expect(tried()).toBeGreaterThanOrEqual(after + stuck.length);
    // Failed twice: two intervals.
    const twice = tried();
    now += MINUTE;
    await syncAllRepositories(() => {}, () => now);
    expect(tried()).toBe(twice);
    now += MINUTE;
    await syncAllRepositories(() => {}, () => now);
    expect(tried()).toBeGreaterThan(twice);

    // A fetch that worked elsewhere (an admin's Sync now, another instance) cleared the stored failure: due at once.
    const waiting = tried();
    await syncAllRepositories(() => {}, () => now);
    expect(tried()).toBe(waiting);
    await database.prisma.factory.update({ where: { id: stuck[1] }, data: { lastApplyError: Prisma.DbNull } });
    await syncAllRepositories(() => {}, () => now);
    expect(tried()).toBeGreaterThan(waiting);

    // A repository that works again is checked every interval once more.
    await database.prisma.factory.update({ where: { id: stuck[0] }, data: { repoUrl: repo.dir } });
    now += 4 * MINUTE;
    await syncAllRepositories(() => {}, () => now);
    expect((await getDefinitionsStatus(stuck[0]!)).appliedCommit).toBe(second);
    const moved = await database.prisma.factory.update({ where: { id: stuck[0] }, data: { appliedCommit: null } });
    expect(moved.appliedCommit).toBeNull();
    await syncAllRepositories(() => {}, () => now);
    expect((await getDefinitionsStatus(stuck[0]!)).appliedCommit).toBe(second);
  });
});
