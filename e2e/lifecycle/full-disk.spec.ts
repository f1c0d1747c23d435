import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { migratedDataDir, type RunningServer, seedWebhook, serverEnv, startServer } from '../servers';

// The embedded database's disk fills up: a 96 MB tmpfs the test mounts holds
// the data folder, and a filler file takes every byte left. The ingress then
// answers 503 with Retry-After (never a 500, never a crash), the server logs
// one clear line, /readyz reports it; once the filler is removed the same
// process accepts again without a restart, and after a restart every
// delivery that was answered 202 is in the log.
//
// Mounting needs root, which CI has (.ci/run runs as root on its machine).

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 43;
const base = `http://localhost:${port}`;

function mountTmpfs(dir: string, size: string): void {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
}

/** Writes a file until the filesystem refuses (ENOSPC). */
function fill(file: string): number {
  const chunk = Buffer.alloc(1024 * 1024);
  const fd = fs.openSync(file, 'w');
  let written = 0;
  try {
    for (;;) written += fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

test('a full disk under the embedded database: 503 with Retry-After, one log line, /readyz says so; freed space is used without a restart, and nothing acknowledged is lost', async () => {
  test.skip(process.getuid?.() !== 0 && process.env.CI !== 'true', 'mounting a small filesystem needs root (CI runs as root)');
  test.setTimeout(budget(180_000));
  const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-full-disk-'));
  mountTmpfs(mount, '96m');
  let server: RunningServer | undefined;
  try {
    // The migrated template (about 40 MB), copied onto the small filesystem.
    const template = migratedDataDir('full-disk');
    const dataDir = path.join(mount, 'data');
    fs.cpSync(template, dataDir, { recursive: true });
    fs.rmSync(template, { recursive: true, force: true });
    const env = serverEnv(dataDir, base, { TRIPLINE_DELIVERY_RATE_LIMIT: '100000' });
    const { token, uid, secret } = seedWebhook(env, 'disk', 'orders');
    server = await startServer('full-disk-1', port, env);

    const padding = 'x'.repeat(4_000);
    const acknowledged: number[] = [];
    const deliver = async (n: number) => {
      const response = await fetch(`${base}/webhooks/w/${uid}`, { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ n, padding }) });
      if (response.status === 202) acknowledged.push(n);
      return response;
    };
    for (let n = 0; n < 5; n += 1) expect((await deliver(n)).status).toBe(202);

    // The disk fills.
    const filler = path.join(mount, 'filler');
    const filled = fill(filler);
    console.log(`full disk: filler of ${(filled / 1024 / 1024).toFixed(0)} MB`);

    // Every answer is 202 (the database still had room in files it had already made) or 503 with
    // Retry-After, until the refusals come; never a 500.
    const statuses: number[] = [];
    let n = 5;
    for (; n < 400 && statuses.filter((status) => status === 503).length < 10; n += 1) {
      const response = await deliver(n);
      statuses.push(response.status);
      expect([202, 503], `delivery ${n}: ${response.status} ${await response.clone().text()}`).toContain(response.status);
      if (response.status === 503) {
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await response.json()).toEqual({ error: { code: 'unavailable', message: 'Temporarily unavailable: retry later' } });
      }
    }
    console.log(`full disk: ${statuses.filter((status) => status === 202).length} accepted after the filler, then ${statuses.filter((status) => status === 503).length} × 503`);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThanOrEqual(10);
    // The API answers writes the same way; reads still work.
    const write = await fetch(`${base}/api/v1/factories/disk/webhooks`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'while-full' }) });
    expect([201, 503]).toContain(write.status);
    if (write.status === 503) expect((await write.json()).error.message).toMatch(/no disk space left/);
    expect((await fetch(`${base}/api/v1/factories/disk/webhooks/${uid}`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);

    // /readyz says why; the process is alive; one clear log line, no 500.
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/^not ready: the database's disk is full/);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const lines = fs.readFileSync(server.logFile, 'utf8').split('\n');
    expect(lines.filter((line) => line.includes("the database's disk is full: answering 503"))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('"status":500') || line.includes('unexpected error'))).toEqual([]);

    // Space is freed: the same process accepts again, and /readyz is ready.
    fs.rmSync(filler);
    await expect.poll(async () => (await deliver(n++)).status, { timeout: budget(30_000), intervals: [500] }).toBe(202);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(fs.readFileSync(server.logFile, 'utf8')).toContain("the database's disk has room again");

    // After a restart the log holds every delivery answered 202, and nothing else.
    await server.stop();
    server = await startServer('full-disk-2', port, env);
    const logged: number[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (
        await fetch(`${base}/api/v1/factories/disk/webhooks/${uid}/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { Authorization: `Bearer ${token}` } })
      ).json()) as { deliveries: { id: string; status: string }[]; nextCursor: string | null };
      for (const entry of page.deliveries.filter((delivery) => delivery.status === 'accepted')) {
        const detail = (await (await fetch(`${base}/api/v1/factories/disk/webhooks/${uid}/deliveries/${entry.id}`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
          delivery: { payload: { n: number } };
        };
        logged.push(detail.delivery.payload.n);
      }
      cursor = page.nextCursor;
    } while (cursor);
    expect(logged.sort((a, b) => a - b)).toEqual([...acknowledged].sort((a, b) => a - b));
    console.log(`full disk: ${acknowledged.length} deliveries answered 202, all ${logged.length} in the log after a restart`);
  } finally {
    await server?.stop();
    execFileSync('umount', ['-l', mount]);
    fs.rmSync(mount, { recursive: true, force: true });
  }
});
