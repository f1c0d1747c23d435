import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeEnvelope } from '@/lib/domain/runs/envelope';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createPostgresDatabase } from '@/tests/support/postgres';
import { setDatabase } from '@/lib/platform/db';
import { arrive, controlledAutomation, runsOf } from '@/tests/support/run-control';
import { budget } from '@/scripts/speed.mjs';
import { groupAlive, signalGroup } from '@/lib/domain/runs/executors/process-group';
import { cliArgs } from '@/tests/support/bundle';

// `tripline worker` as docs/security.md describes it: a separate process
// (another OS user or host) that holds DATABASE_URL and the executor's
// settings, and nothing else of the server's: no secrets key, no auth
// secret, no data folder. The programs it starts see none of it either.

const root = path.resolve(import.meta.dirname, '..');

const workerArgs = cliArgs(['worker', '--slots', '1']);
// Only what the operator gives the worker: not this process's environment.
function only(env: Record<string, string>): NodeJS.ProcessEnv {
  const given: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env };
  return given as NodeJS.ProcessEnv;
}

function worker(env: Record<string, string>) {
  return spawnSync(process.execPath, [...workerArgs, '--drain'], { cwd: root, env: only(env), encoding: 'utf8', timeout: budget(120_000) });
}

describe.skipIf(!testDatabaseKinds().includes('postgres'))('tripline worker on its own', () => {
  let database: TestDatabase;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-worker-data-'));
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // The deliveries of the run control tests are recorded by the ingress's own statement, in this process.
    setDatabase(database);
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('executes queued runs with only DATABASE_URL and the executor configured, and passes neither on', async () => {
    const db = database.prisma;
    const factory = await db.factory.create({ data: { slug: 'solo', name: 'Solo' } });
    const automation = await db.automation.create({ data: { factoryId: factory.id, name: 'A', prompt: 'Do it.' } });
    const webhook = await db.webhook.create({ data: { factoryId: factory.id, uid: 'wh_solo', name: 'hook', secretName: 'S' } });
    const body = '{"from": "the sender"}';
    await db.delivery.create({ data: { id: 'dl_solo', webhookId: webhook.id, deliveryId: 'evt', identitySource: 'service_header', status: 'accepted', size: body.length, body } });
    const envelope = composeEnvelope({ webhookName: 'hook', webhookUid: 'wh_solo', deliveryId: 'evt', body });
    await db.run.create({ data: { id: 'run_solo', factoryId: factory.id, automationId: automation.id, deliveryId: 'dl_solo', prompt: 'Do it.', envelope } });

    const result = worker({
      DATABASE_URL: database.url!,
      TRIPLINE_DATA_DIR: dataDir,
      TRIPLINE_RUN_COMMAND: 'cat event-payload.json; echo; env',
      WORKER_HOST_SECRET: 'worker-canary',
    });
    expect(result.status, result.stderr).toBe(0);
    const run = await db.run.findUniqueOrThrow({ where: { id: 'run_solo' } });
    expect(run.status, run.error ?? '').toBe('succeeded');
    expect(run.output).toContain(body);
    expect(run.output).not.toContain('DATABASE_URL');
    expect(run.output).not.toContain(database.url!);
    expect(run.output).not.toContain('worker-canary');
    // It neither needed nor generated the server's keys.
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  it("works with a database role limited to the tables docs/security.md lists", async () => {
    const db = database.prisma;
    const factory = await db.factory.findUniqueOrThrow({ where: { slug: 'solo' } });
    const automation = await db.automation.create({ data: { factoryId: factory.id, name: 'B', prompt: 'Again.' } });
    const envelope = composeEnvelope({ webhookName: 'hook', webhookUid: 'wh_solo', deliveryId: 'evt', body: '{"from": "the sender"}' });
    await db.run.create({ data: { id: 'run_limited', factoryId: factory.id, automationId: automation.id, deliveryId: 'dl_solo', prompt: 'Again.', envelope } });
    const role = `tripline_runs_${Date.now().toString(36)}`;
    const grants = [
      `CREATE ROLE ${role} LOGIN`,
      `GRANT SELECT, UPDATE ON "Run" TO ${role}`,
      `GRANT SELECT, INSERT, UPDATE ON "RunGroup" TO ${role}`,
      `GRANT SELECT ("id", "name", "runControl") ON "Automation" TO ${role}`,
      `GRANT SELECT ("id", "body") ON "Delivery" TO ${role}`,
      `GRANT SELECT ON "_prisma_migrations" TO ${role}`,
    ];
    for (const statement of grants) await db.$executeRawUnsafe(statement);
    try {
      const url = new URL(database.url!);
      url.username = role;
      url.password = '';
      const result = worker({ DATABASE_URL: url.toString(), TRIPLINE_DATA_DIR: dataDir, TRIPLINE_RUN_COMMAND: 'cat event-payload.json' });
      expect(result.status, result.stderr).toBe(0);
      expect(await db.run.findUniqueOrThrow({ where: { id: 'run_limited' } })).toMatchObject({ status: 'succeeded', output: '{"from": "the sender"}' });
      // And nothing more: the role cannot read users, tokens or secrets.
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        for (const table of ['User', 'ApiToken', 'TeamSecret', 'Session']) {
          await expect(client.query(`SELECT 1 FROM "${table}"`), table).rejects.toThrow(/permission denied/);
        }
      } finally {
        await client.end();
      }
    } finally {
      await db.$executeRawUnsafe(`DROP OWNED BY ${role}`);
      await db.$executeRawUnsafe(`DROP ROLE ${role}`);
    }
  });

  it('runs run control\'s scheduler: --drain executes a group\'s runs one after another, with no server running', async () => {
    const factory = await database.prisma.factory.findUniqueOrThrow({ where: { slug: 'solo' } });
    const webhook = await database.prisma.webhook.findUniqueOrThrow({ where: { uid: 'wh_solo' } });
    const place = { factoryId: factory.id, webhookId: webhook.id };
    const control = { key: 'pull_request.number', concurrency: { limit: 1, whenFull: 'queue-all' as const } };
    const automationId = await controlledAutomation(database, place, control);
    for (let push = 1; push <= 3; push++) await arrive(place, automationId, control, { pull_request: { number: 9 }, push });
    expect((await runsOf(database, automationId)).map((run) => run.status)).toEqual(['pending', 'pending', 'pending']);

    const result = worker({ DATABASE_URL: database.url!, TRIPLINE_DATA_DIR: dataDir, TRIPLINE_RUN_COMMAND: 'cat event-payload.json' });
    expect(result.status, result.stderr).toBe(0);
    const runs = await database.prisma.run.findMany({ where: { automationId }, orderBy: { createdAt: 'asc' } });
    expect(runs.map((run) => [run.status, run.output])).toEqual([1, 2, 3].map((push) => ['succeeded', JSON.stringify({ pull_request: { number: 9 }, push })]));
    // One at a time, as the group's limit says: each started after the one before it ended.
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.finishedAt!.getTime());
  });

  it('starts a debounced run once its quiet period is over, while it waits for runs', async () => {
    const factory = await database.prisma.factory.findUniqueOrThrow({ where: { slug: 'solo' } });
    const webhook = await database.prisma.webhook.findUniqueOrThrow({ where: { uid: 'wh_solo' } });
    const place = { factoryId: factory.id, webhookId: webhook.id };
    const control = { debounce: { periodSeconds: 1 } };
    const automationId = await controlledAutomation(database, place, control);
    const child = spawn(process.execPath, workerArgs, {
      cwd: root,
      env: only({ DATABASE_URL: database.url!, TRIPLINE_DATA_DIR: dataDir, TRIPLINE_RUN_COMMAND: 'cat event-payload.json' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      for (let push = 1; push <= 3; push++) await arrive(place, automationId, control, { push });
      const statuses = async () => (await runsOf(database, automationId)).map((run) => run.status);
      await expect.poll(statuses, { timeout: budget(60_000) }).toEqual(['debounced', 'debounced', 'succeeded']);
      const [run] = await database.prisma.run.findMany({ where: { automationId, status: 'succeeded' } });
      expect(run!.output).toBe(JSON.stringify({ push: 3 }));
      expect((run!.envelope as { deliveryIds: string[] }).deliveryIds).toHaveLength(3);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(0);
  });

  it('--drain stopped by a signal stops its runs within the grace and leaves no process of theirs behind', async () => {
    const db = database.prisma;
    const factory = await db.factory.findUniqueOrThrow({ where: { slug: 'solo' } });
    const automation = await db.automation.create({ data: { factoryId: factory.id, name: 'Long', prompt: 'Do it.' } });
    const envelope = composeEnvelope({ webhookName: 'hook', webhookUid: 'wh_solo', deliveryId: 'evt', body: '{}' });
    await db.run.create({ data: { id: 'run_long', factoryId: factory.id, automationId: automation.id, deliveryId: 'dl_solo', prompt: 'Do it.', envelope } });
    const pgidFile = path.join(dataDir, 'long-pgid');
    const child = spawn(process.execPath, [...workerArgs, '--drain'], {
      cwd: root,
      env: only({ DATABASE_URL: database.url!, TRIPLINE_DATA_DIR: dataDir, TRIPLINE_SHUTDOWN_GRACE_SECONDS: '1', TRIPLINE_RUN_COMMAND: `echo $$ > '${pgidFile}'; sleep 300 & sleep 300; wait` }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let pgid = 0;
    try {
      await expect.poll(() => (pgid = Number(fs.readFileSync(pgidFile, { encoding: 'utf8', flag: 'a+' }).trim() || 0)), { timeout: budget(60_000) }).toBeGreaterThan(0);
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(1);
      expect(stderr).toMatch(/SIGINT: finishing running runs \(up to 1 s\)/);
      // No process of the run's group is left (the old --drain died at once, leaving both sleeps running).
      await expect.poll(() => groupAlive(pgid), { timeout: budget(10_000) }).toBe(false);
      expect(await db.run.findUniqueOrThrow({ where: { id: 'run_long' } })).toMatchObject({ status: 'failed' });
    } finally {
      child.kill('SIGKILL');
      if (pgid) signalGroup(pgid, 'SIGKILL');
    }
  });

  it('refuses a database that is not migrated instead of migrating it', async () => {
    const empty = await createPostgresDatabase();
    try {
      const result = worker({ DATABASE_URL: empty.url, TRIPLINE_DATA_DIR: dataDir, TRIPLINE_RUN_COMMAND: 'true' });
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/The database is not ready for this worker: \d+ pending migration\(s\)/);
    } finally {
      await empty.drop();
    }
  });
});
