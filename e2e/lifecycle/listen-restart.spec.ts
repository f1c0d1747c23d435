import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { listener, receiver } from '../fixtures/listen';
import { cli, migratedDataDir, startServer, type RunningServer } from '../servers';

// `tripline listen` while its server restarts: SIGTERM ends the stream at
// once (it never holds the drain), the listener says it lost the connection,
// reconnects to the restarted server and forwards what arrived meanwhile,
// once, in order; so does one started "from now" that had forwarded nothing
// yet (it resumes from the second it began listening).

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 51;
// The server's grace period (TRIPLINE_SHUTDOWN_GRACE_SECONDS, its default): a stream that held the drain would keep it this long.
const GRACE_MS = 30_000;

test('a restart of the server ends the stream cleanly; the listener resumes and misses nothing', async () => {
  test.setTimeout(budget(180_000));
  const env = { TRIPLINE_DATA_DIR: migratedDataDir('listen-restart'), TRIPLINE_BASE_URL: `http://localhost:${port}`, TRIPLINE_SECRETS_KEY: '', TRIPLINE_AUTH_SECRET: '', TRIPLINE_SHUTDOWN_GRACE_SECONDS: String(GRACE_MS / 1000) };
  cli(env, ['setup', '--email', 'listen@example.test', '--password-stdin', '--factory', 'acme'], 'listen restart password');
  const token = cli(env, ['token', 'create', '--email', 'listen@example.test']);
  let server: RunningServer = await startServer('listen-restart-1', port, env);
  const local = await receiver();
  const fresh = await receiver();
  const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-listen-')), 'state.json');
  let running: ReturnType<typeof listener> | undefined;
  let fromNow: ReturnType<typeof listener> | undefined;
  try {
    const created = await (
      await fetch(`${server.url}/api/v1/factories/acme/webhooks`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'restart' }) })
    ).json();
    const send = async (n: number) => {
      const response = await fetch(`${server.url}${new URL(created.ingressUrl).pathname}`, { method: 'POST', headers: { Authorization: `Bearer ${created.secret}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ n }) });
      expect(response.status).toBe(202);
    };
    running = listener(['--url', server.url, '--token', token, '--factory', 'acme', '--webhook', created.webhook.uid, '--forward', local.url, '--since', '1h', '--state-file', stateFile]);
    await send(1);
    await send(2);
    await expect.poll(() => local.received.length, { timeout: budget(30_000) }).toBe(2);
    // A second listener "from now", started a whole second after deliveries 1 and 2 (its start is kept to the second).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    fromNow = listener(['--url', server.url, '--token', token, '--factory', 'acme', '--webhook', created.webhook.uid, '--forward', fresh.url, '--state-file', `${stateFile}.from-now`]);
    await expect.poll(() => fromNow!.output().stdout, { timeout: budget(20_000) }).toMatch(/Listening: .* from now/);
    // Paused through the restart and the next two deliveries: it reconnects only after they were accepted.
    fromNow.child.kill('SIGSTOP');

    // SIGTERM: the open stream must not hold the drain, which would then last the whole grace period.
    const stopping = Date.now();
    const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
    server.process.kill('SIGTERM');
    expect(await exited).toBe(0);
    const stopMs = Date.now() - stopping;
    test.info().annotations.push({ type: 'measured', description: `SIGTERM to exit with a log stream open: ${stopMs} ms (grace period ${GRACE_MS / 1000} s)` });
    console.log(`SIGTERM to exit with a log stream open: ${stopMs} ms (grace period ${GRACE_MS / 1000} s)`);
    expect(stopMs).toBeLessThan(GRACE_MS);
    await expect.poll(() => running!.output().stderr, { timeout: budget(20_000) }).toMatch(/Disconnected: the server ended the stream \(shutdown\)|Cannot reach/);

    server = await startServer('listen-restart-2', port, env);
    await send(3);
    await send(4);
    await expect.poll(() => local.received.length, { timeout: budget(60_000) }).toBe(4);
    fromNow.child.kill('SIGCONT');
    await expect.poll(() => fresh.received.length, { timeout: budget(60_000) }).toBe(2);
    // Proves nothing is forwarded twice: a duplicate would come within this window (longer on a slower machine).
    await new Promise((resolve) => setTimeout(resolve, budget(1_500)));
    expect(local.received.map((r) => JSON.parse(r.body.toString()).n)).toEqual([1, 2, 3, 4]);
    expect(running.output().stderr).toContain('Connected again.');
    // The one from now: what arrived while it was away, and nothing from before it began.
    expect(fresh.received.map((r) => JSON.parse(r.body.toString()).n)).toEqual([3, 4]);
  } finally {
    running?.child.kill('SIGTERM');
    fromNow?.child.kill('SIGCONT');
    fromNow?.child.kill('SIGTERM');
    await running?.exited;
    await fromNow?.exited;
    await local.close();
    await fresh.close();
    await server.stop();
  }
});
