import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { budget } from '@/scripts/speed.mjs';
import { cliArgs } from '@/tests/support/bundle';

// `tripline automation` as docs/cli.md shows it, on PostgreSQL (the embedded
// database cannot be shared between this test and the CLI's process): run
// control set with flags and with --json, shown, refused in the schema's
// words, and cleared.

const root = path.resolve(import.meta.dirname, '..');

describe.skipIf(!testDatabaseKinds().includes('postgres'))('tripline automation', () => {
  let database: TestDatabase;
  let id: string;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-automation-cli-'));
  const keys = { TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'), TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url') };
  const env = () => ({ ...process.env, ...keys, DATABASE_URL: database.url!, TRIPLINE_DATA_DIR: dataDir });
  const tripline = (...args: string[]) =>
    spawnSync(process.execPath, cliArgs(['automation', ...args]), { cwd: root, env: env(), encoding: 'utf8', timeout: budget(120_000) });

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const db = database.prisma;
    const factory = await db.factory.create({ data: { slug: 'cli', name: 'CLI' } });
    id = (await db.automation.create({ data: { factoryId: factory.id, name: 'review', prompt: 'Review the pull request.' } })).id;
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('sets run control with flags, shows it, and clears it', () => {
    const set = tripline(
      'run-control', '--factory', 'cli', '--id', id,
      '--key', 'repository.full_name', '--key', 'pull_request.number',
      '--concurrency', '1', '--when-full', 'cancel-running', '--debounce', '30s', '--max-wait', '10m', '--throttle', '10/1h',
    );
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout.trim()).toBe(
      'review: key [repository.full_name, pull_request.number]; debounce 30 s (max wait 10 min); throttle 10 per 1 h (queue 100); concurrency 1, when full: cancel running',
    );

    const show = tripline('show', '--factory', 'cli', '--id', id);
    expect(show.status, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout).runControl).toEqual({
      key: ['repository.full_name', 'pull_request.number'],
      concurrency: { limit: 1, whenFull: 'cancel-running' },
      debounce: { periodSeconds: 30, maxWaitSeconds: 600 },
      throttle: { limit: 10, periodSeconds: 3600 },
    });

    const list = tripline('list', '--factory', 'cli');
    expect(list.stdout.trim()).toBe(`${id}\treview\tenabled\t0 triggers\tkey [repository.full_name, pull_request.number]; debounce 30 s (max wait 10 min); throttle 10 per 1 h (queue 100); concurrency 1, when full: cancel running`);

    const json = tripline('run-control', '--factory', 'cli', '--id', id, '--json', '{"key": "$event", "rateLimit": {"limit": 5, "periodSeconds": 60}}');
    expect(json.status, json.stderr).toBe(0);
    expect(json.stdout.trim()).toBe('review: key [$event]; rate limit 5 per 1 min');

    const clear = tripline('run-control', '--factory', 'cli', '--id', id, '--clear');
    expect(clear.status, clear.stderr).toBe(0);
    expect(clear.stdout.trim()).toBe('review: no run control');
    expect(JSON.parse(tripline('show', '--factory', 'cli', '--id', id).stdout).runControl).toBeNull();
  });

  it('refuses bad settings in the API’s words, and bad usage with the usage', () => {
    const bad = tripline('run-control', '--factory', 'cli', '--id', id, '--concurrency', '0');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('runControl.concurrency.limit: The concurrency limit is at least 1');
    const period = tripline('run-control', '--factory', 'cli', '--id', id, '--debounce', 'soon');
    expect(period.status).toBe(1);
    expect(period.stderr).toContain('runControl.debounce.periodSeconds: The debounce period is a number of seconds');
    const both = tripline('run-control', '--factory', 'cli', '--id', id, '--clear', '--concurrency', '1');
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('Give --json, --clear or the setting flags, one of them');
    const json = tripline('run-control', '--factory', 'cli', '--id', id, '--json', '{oops');
    expect(json.status).toBe(2);
    expect(json.stderr).toContain('--json is not valid JSON');
  });
});
