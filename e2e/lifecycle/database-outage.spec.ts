import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { newDataDir, type RunningServer, seedWebhook, serverEnv, startServer } from '../servers';

// A database outage is not the sender's fault: while PostgreSQL is down, the
// ingress and the API answer 503 with Retry-After in their JSON error shape
// (a 500 would tell a sender that its request failed), the server logs the
// outage once rather than once per request, and it serves again as soon as
// the database is back. The database is a PostgreSQL cluster of the test's
// own, stopped with an immediate shutdown, as a crash or a failover does.

const portBase = Number(process.env.E2E_PORT_BASE ?? 3210);
const port = portBase + 40;
const pgPort = portBase + 41;
const base = `http://localhost:${port}`;

function postgresBin(): string {
  const versions = fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b)) : [];
  const bin = versions.length ? `/usr/lib/postgresql/${versions.at(-1)}/bin` : '';
  if (!bin || !fs.existsSync(path.join(bin, 'initdb'))) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) are not installed: .ci/run installs postgresql');
  return bin;
}

/** Runs a PostgreSQL binary as the `postgres` user when we are root (initdb and postgres refuse root). */
function asPostgres(command: string, args: string[]): string[] {
  return process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', command, ...args] : [command, ...args];
}

function run(argv: string[]): string {
  return execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

class Cluster {
  private process: ChildProcess | undefined;
  constructor(
    private readonly bin: string,
    readonly dir: string,
  ) {}

  static create(): Cluster {
    const bin = postgresBin();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-outage-pg-'));
    if (process.getuid?.() === 0) run(['chown', 'postgres', dir]);
    run(asPostgres(path.join(bin, 'initdb'), ['-D', dir, '--auth=trust', '-U', 'postgres', '--no-sync']));
    return new Cluster(bin, dir);
  }

  async start(): Promise<void> {
    const argv = asPostgres(path.join(this.bin, 'postgres'), ['-D', this.dir, '-p', String(pgPort), '-k', this.dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']);
    this.process = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
    const deadline = Date.now() + budget(15_000);
    for (;;) {
      try {
        run(asPostgres(path.join(this.bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(pgPort)]));
        return;
      } catch {
        if (Date.now() > deadline) throw new Error('the test PostgreSQL did not start');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** An immediate shutdown: every backend is killed, no checkpoint, like a crash. */
  async stopImmediately(): Promise<void> {
    run(asPostgres(path.join(this.bin, 'pg_ctl'), ['-D', this.dir, '-m', 'immediate', '-w', 'stop']));
    await new Promise<void>((resolve) => (this.process?.exitCode !== null ? resolve() : this.process.once('exit', () => resolve())));
  }

  remove(): void {
    try {
      if (this.process && this.process.exitCode === null) run(asPostgres(path.join(this.bin, 'pg_ctl'), ['-D', this.dir, '-m', 'immediate', 'stop']));
    } catch {
      // already stopped
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

test('with PostgreSQL down, the ingress and the API answer 503 with Retry-After, log it once, and recover', async () => {
  test.setTimeout(budget(180_000));
  const cluster = Cluster.create();
  let server: RunningServer | undefined;
  try {
    await cluster.start();
    run(asPostgres(path.join(postgresBin(), 'createdb'), ['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'postgres', 'tripline']));
    const env = serverEnv(newDataDir('outage'), base, {
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${pgPort}/tripline`,
      TRIPLINE_DELIVERY_RATE_LIMIT: '100000',
    });
    const { token, uid, secret } = seedWebhook(env, 'outage', 'orders');
    server = await startServer('database-outage', port, env);

    const deliver = (n: number) =>
      fetch(`${base}/webhooks/w/${uid}`, { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'X-Service-Delivery-Id': `outage-${n}` }, body: JSON.stringify({ n }) });
    const api = () => fetch(`${base}/api/v1/factories/outage/webhooks/${uid}/deliveries`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await deliver(0)).status).toBe(202);

    await cluster.stopImmediately();
    const statuses: number[] = [];
    for (let n = 1; n <= 20; n += 1) {
      const response = await deliver(n);
      statuses.push(response.status);
      if (response.status === 503) {
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await response.json()).toEqual({ error: { code: 'unavailable', message: 'Temporarily unavailable: retry later' } });
      }
    }
    expect(statuses.filter((status) => status !== 503)).toEqual([]);
    const listed = await api();
    expect(listed.status).toBe(503);
    expect(listed.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await listed.json()).error.code).toBe('unavailable');

    // One log line for the outage, not one per request.
    const lines = fs.readFileSync(server.logFile, 'utf8').split('\n');
    expect(lines.filter((line) => line.includes('database unreachable'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('"status":500') || line.includes('unexpected error'))).toEqual([]);

    // Back: the same deliveries are accepted (the senders' retries), and the API answers.
    await cluster.start();
    await expect.poll(async () => (await deliver(1)).status, { timeout: budget(30_000), intervals: [200] }).toBe(202);
    const after = await api();
    expect(after.status).toBe(200);
    const { deliveries } = (await after.json()) as { deliveries: { deliveryId: string; status: string }[] };
    expect(deliveries.map((entry) => `${entry.deliveryId} ${entry.status}`)).toEqual(['outage-1 accepted', 'outage-0 accepted']);
  } finally {
    await server?.stop();
    cluster.remove();
  }
});
