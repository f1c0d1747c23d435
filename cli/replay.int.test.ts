import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { budget } from '@/scripts/speed.mjs';
import { cliArgs } from '@/tests/support/bundle';

// `tripline replay` as docs/cli.md shows it, on PostgreSQL (the embedded
// database cannot be shared between this test and the CLI's process):
// preview, start, a second start refused naming the first, status, cancel,
// and a bad selection.

const root = path.resolve(import.meta.dirname, '..');

describe.skipIf(!testDatabaseKinds().includes('postgres'))('tripline replay', () => {
  let database: TestDatabase;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-replay-cli-'));
  const keys = { TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'), TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url') };
  const env = () => ({ ...process.env, ...keys, DATABASE_URL: database.url!, TRIPLINE_DATA_DIR: dataDir });
  const tripline = (...args: string[]) =>
    spawnSync(process.execPath, cliArgs(['replay', ...args]), { cwd: root, env: env(), encoding: 'utf8', timeout: budget(120_000) });

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const db = database.prisma;
    const factory = await db.factory.create({ data: { slug: 'cli', name: 'CLI' } });
    const webhook = await db.webhook.create({ data: { factoryId: factory.id, uid: 'wh_cli', name: 'hook', secretName: 'S' } });
    await db.delivery.createMany({
      data: Array.from({ length: 12 }, (_, i) => ({
        id: `dl_${i}`,
        webhookId: webhook.id,
        deliveryId: `evt-${i}`,
        identitySource: 'service_header' as const,
        status: 'accepted' as const,
        size: 2,
        body: JSON.stringify({ i }),
        eventType: i < 5 ? 'invoice.paid' : 'invoice.created',
        receivedAt: new Date(Date.UTC(2026, 10, 20, 0, i)),
      })),
    });
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('previews, starts, refuses a second job, shows progress and cancels', () => {
    const preview = tripline('preview', '--factory', 'cli', '--webhook', 'wh_cli', '--event', 'invoice.paid');
    expect(preview.status, preview.stderr).toBe(0);
    expect(preview.stdout.split('\n')[0]).toBe('5 deliveries of hook (wh_cli)');
    expect(preview.stdout).toContain('dl_4\tevt-4\tinvoice.paid\t2026-11-20T00:04:00.000Z');

    const start = tripline('start', '--factory', 'cli', '--webhook', 'wh_cli', '--to', '2026-11-20T00:10:00');
    expect(start.status, start.stderr).toBe(0);
    const id = /^started (rpl_\S+): 10 deliveries/.exec(start.stdout)?.[1];
    expect(id, start.stdout).toBeDefined();

    const second = tripline('start', '--factory', 'cli', '--webhook', 'wh_cli');
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`Error: Replay job ${id} is running (0 of 10)`);

    const status = tripline('status', '--factory', 'cli', '--job', id!);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^${id}\\trunning\\t0/10 \\(0%\\)\\t0 runs started\\twebhook hook\\tby operator \\(CLI\\) at `));

    const cancel = tripline('cancel', '--factory', 'cli', '--job', id!);
    expect(cancel.status, cancel.stderr).toBe(0);
    expect(cancel.stdout.trim()).toBe(`cancelled ${id} after 0 of 10`);
  });

  it('says what is wrong with a selection', () => {
    const bad = tripline('start', '--factory', 'cli', '--webhook', 'wh_cli', '--from', 'last tuesday');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('from: from must be a date and time');
    const none = tripline('preview', '--factory', 'cli');
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('webhook: Name the webhook whose deliveries to replay');
    const usage = tripline('launch', '--factory', 'cli');
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('Unknown subcommand "launch"');
  });
});
