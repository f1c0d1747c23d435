import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { queueRuns, runOwner, type RunOwner } from '@/tests/support/runs';
import { budget } from '@/scripts/speed.mjs';
import { cliArgs } from '@/tests/support/bundle';

// `tripline run cancel` as docs/cli.md shows it, on PostgreSQL (the embedded
// database cannot be shared between this test and the CLI's process): a
// queued run ends Cancelled, by the operator; a running one keeps running,
// with the request its worker acts on; usage and conflicts are explained.

const root = path.resolve(import.meta.dirname, '..');

describe.skipIf(!testDatabaseKinds().includes('postgres'))('tripline run cancel', () => {
  let database: TestDatabase;
  let owner: RunOwner;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-run-cli-'));
  const keys = { TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'), TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url') };
  const tripline = (...args: string[]) =>
    spawnSync(process.execPath, cliArgs(['run', ...args]), {
      cwd: root,
      env: { ...process.env, ...keys, DATABASE_URL: database.url!, TRIPLINE_DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: budget(120_000),
    });

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    owner = await runOwner(database, 'cli');
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('cancels a queued run at once and asks the worker to stop a running one', async () => {
    const [queued, running, done] = await queueRuns(database, owner, 3);
    await database.prisma.run.update({ where: { id: running }, data: { status: 'running', lockedBy: 'elsewhere', startedAt: new Date() } });
    await database.prisma.run.update({ where: { id: done }, data: { status: 'succeeded', finishedAt: new Date() } });

    const first = tripline('cancel', queued!, '--factory', 'cli');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(`cancelled ${queued}`);
    expect(await database.prisma.run.findUniqueOrThrow({ where: { id: queued } })).toMatchObject({ status: 'cancelled', outcomeDetail: 'operator (CLI)' });

    const second = tripline('cancel', running!, '--factory', 'cli');
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe(`cancelling ${running}: its worker stops the run within seconds`);
    expect(await database.prisma.run.findUniqueOrThrow({ where: { id: running } })).toMatchObject({ status: 'running', cancelRequestedAt: expect.any(Date) });

    const ended = tripline('cancel', done!, '--factory', 'cli');
    expect(ended.status).toBe(1);
    expect(ended.stderr).toContain(`Error: Run ${done} is succeeded: only a run that has not ended can be cancelled`);

    const usage = tripline('cancel', '--factory', 'cli');
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('Missing the run id');
  });
});
