import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { serverEnv, startServer } from '../servers';

// /readyz follows the database: a real PostgreSQL server of this test's own
// (so stopping it disturbs no other test) is stopped and started again, and
// readiness turns 503 and back to 200 while /healthz keeps answering.

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 6;
const pgPort = 5400 + (Number(process.env.E2E_PORT_BASE ?? 3210) % 90);

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(a) - Number(b)) : [];
  const bin = versions.length ? path.join(root, versions.at(-1)!, 'bin') : '';
  if (!bin || !fs.existsSync(path.join(bin, 'pg_ctl'))) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (Debian package postgresql)');
  return bin;
}

// initdb and postgres refuse to run as root: run them as the postgres user then.
function asPostgres(program: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? 'runuser' : program;
  const argv = asRoot ? ['-u', 'postgres', '--', program, ...args] : args;
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${program} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
}

async function readyz(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: await response.text() };
}

async function eventually(url: string, status: number): Promise<{ status: number; body: string }> {
  const deadline = Date.now() + budget(20_000);
  for (;;) {
    const answer = await readyz(url);
    if (answer.status === status || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test('/readyz turns 503 while PostgreSQL is stopped and 200 when it is back', async () => {
  test.setTimeout(budget(120_000));
  const bin = postgresBin();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-readyz-pg-'));
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  asPostgres(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const pgctl = (action: string) =>
    asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-w', '-l', path.join(dir, 'postgres.log'), '-o', `-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1`, action, ...(action === 'stop' ? ['-m', 'fast'] : [])]);
  pgctl('start');
  const server = await startServer('readiness', port, serverEnv(path.join(dir, 'tripline'), `http://localhost:${port}`, { DATABASE_URL: `postgresql://postgres@127.0.0.1:${pgPort}/postgres` }));
  try {
    expect(await readyz(server.url)).toEqual({ status: 200, body: 'ready\n' });

    pgctl('stop');
    const down = await eventually(server.url, 503);
    expect(down).toEqual({ status: 503, body: 'not ready: database unavailable\n' });
    // Liveness does not depend on the database: the process is fine, only out of rotation.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    pgctl('start');
    expect(await eventually(server.url, 200)).toEqual({ status: 200, body: 'ready\n' });
    // The database detail went to the operator's log, not to the answer.
    expect(fs.readFileSync(server.logFile, 'utf8')).toMatch(/"msg":"not ready: the database did not answer"/);
  } finally {
    await server.stop();
    try {
      pgctl('stop');
    } catch {
      // already stopped
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
