import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { rememberSecrets } from '../fixtures/secrets';
import { cli, migratedDataDir, serverEnv, startServer } from '../servers';
import { cliArgs } from '../../tests/support/bundle';

// A rolling deploy sends SIGTERM. `npm start`'s process must answer every
// request it has taken (no connection reset, so no sender is left unsure
// whether a delivery was recorded), let a run in progress finish within the
// grace period, and close the embedded database cleanly. A second signal
// exits at once.

const root = path.resolve(import.meta.dirname, '..', '..');
const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 52;
const base = `http://localhost:${port}`;
const agent = path.join(root, 'e2e', 'fixtures', 'agent.mjs');

type Setup = { env: Record<string, string>; token: string; hook: { uid: string; secret: string }; logFile: string };

function prepare(name: string, graceSeconds: number, runCommand = `"${process.execPath}" "${agent}"`): Setup {
  const dataDir = migratedDataDir(name);
  const env = serverEnv(dataDir, base, {
    TRIPLINE_RUN_COMMAND: runCommand,
    TRIPLINE_RUN_ENV: 'AGENT_LOG',
    TRIPLINE_SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
    TRIPLINE_DELIVERY_RATE_LIMIT: '1000000',
    TRIPLINE_LOG_FORMAT: 'json',
  });
  cli(env, ['setup', '--email', `${name}@example.test`, '--password-stdin', '--factory', 'drain', '--factory-name', 'Drain'], 'correct horse battery');
  const token = cli(env, ['token', 'create', '--email', `${name}@example.test`]);
  const created = cli(env, ['webhook', 'create', '--factory', 'drain', '--name', 'orders']);
  const uid = /^uid: (\S+)$/m.exec(created)![1]!;
  const secret = /^secret: (\S+)$/m.exec(created)![1]!;
  rememberSecrets(token, secret, env.TRIPLINE_SECRETS_KEY, env.TRIPLINE_AUTH_SECRET);
  return { env, token, hook: { uid, secret }, logFile: path.join(root, 'test-results', 'servers', `${name}.log`) };
}

/** `npm start`, as an operator runs it (the build is current, so it serves at once). */
async function npmStart(setup: Setup): Promise<ChildProcess> {
  fs.mkdirSync(path.dirname(setup.logFile), { recursive: true });
  const log = fs.openSync(setup.logFile, 'w');
  // Its own process group, so that a failing test can stop npm and the server under it.
  const child = spawn('npm', ['start'], { cwd: root, env: { ...process.env, ...setup.env, PORT: String(port) }, stdio: ['ignore', log, log], detached: true });
  running.add(child);
  const deadline = Date.now() + budget(90_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited:\n${fs.readFileSync(setup.logFile, 'utf8')}`);
    const ready = await fetch(`${base}/readyz`).then((response) => response.ok, () => false);
    if (ready) return child;
    if (Date.now() > deadline) throw new Error(`npm start did not become ready:\n${fs.readFileSync(setup.logFile, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const running = new Set<ChildProcess>();
test.afterEach(() => {
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL'); // not a group leader (startServer), or already gone
    }
  }
  running.clear();
});

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

async function createAutomation(setup: Setup): Promise<void> {
  const response = await fetch(`${base}/api/v1/factories/drain/automations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${setup.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'slow', prompt: 'Take your time.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [setup.hook.uid], payload: { slow: true } } }] }),
  });
  expect(response.status, await response.text()).toBe(201);
}

const runStatuses = async (setup: Setup) =>
  ((await (await fetch(`${base}/api/v1/factories/drain/runs`, { headers: { Authorization: `Bearer ${setup.token}` } })).json()) as { runs: { status: string }[] }).runs.map((run) => run.status);

const deliver = (setup: Setup, body: unknown) =>
  fetch(`${base}/webhooks/w/${setup.hook.uid}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${setup.hook.secret}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * One sender on one keep-alive connection of its own (fetch's shared pool
 * would open extra connections at any moment). It opens a new connection only
 * after the server said `Connection: close`, so while draining, never into the
 * listener's accept queue in the instant it closes: that connection would be
 * reset by the kernel before Tripline ever saw it (docs/deploy.md).
 */
function ownConnection(setup: Setup) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body: unknown) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const request = http.request(
        `${base}/webhooks/w/${setup.hook.uid}`,
        { method: 'POST', agent, headers: { Authorization: `Bearer ${setup.hook.secret}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, text }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  return { post, close: () => agent.destroy() };
}

test('SIGTERM under load answers every request, and a run in progress finishes within the grace period', async () => {
  test.setTimeout(budget(180_000));
  const graceSeconds = 30;
  // A run of 10 s (the agent sleeps 5 s at most): long enough to be still going when the signal comes, on any machine.
  const setup = prepare('drain', graceSeconds, 'sleep 10');
  let server = await npmStart(setup);
  await createAutomation(setup);

  // Eight senders post as fast as they can, each on its own keep-alive connection.
  const accepted: string[] = [];
  let signalledAt = 0;
  const failures: string[] = [];
  let refused = 0;
  const sender = async (id: number) => {
    const until = Date.now() + budget(60_000);
    const connection = ownConnection(setup);
    for (let n = 0; Date.now() < until; n += 1) {
      try {
        const response = await connection.post({ sender: id, n, load: true });
        if (response.status === 202) accepted.push((JSON.parse(response.text) as { delivery_id: string }).delivery_id);
        else failures.push(`HTTP ${response.status}: ${response.text}`);
      } catch (error) {
        connection.close();
        const code = ((error as NodeJS.ErrnoException).code ?? (error as Error).message) as string;
        // The listener has closed: a load balancer (or the sender's retry) goes to another instance.
        if (code === 'ECONNREFUSED') {
          refused += 1;
          return;
        }
        failures.push(`${code} ${signalledAt ? `${Date.now() - signalledAt} ms after` : 'before'} the signal`);
        return;
      }
    }
    connection.close();
  };
  const senders = Array.from({ length: 8 }, (_, id) => sender(id));
  // Under load (more than 20 deliveries in), the slow run starts; the signal comes as soon as it is running.
  await expect.poll(() => accepted.length, { timeout: budget(30_000), intervals: [50] }).toBeGreaterThan(20);
  expect((await deliver(setup, { slow: true })).status).toBe(202);
  await expect.poll(() => runStatuses(setup), { timeout: budget(30_000), intervals: [100] }).toContain('running');
  const acceptedBeforeSignal = accepted.length;
  signalledAt = Date.now();
  server.kill('SIGTERM');
  await Promise.all(senders);
  const code = await exited(server);
  const shutdownMs = Date.now() - signalledAt;
  test.info().annotations.push({ type: 'measured', description: `SIGTERM to exit, waiting for the run: ${shutdownMs} ms (grace period ${graceSeconds} s)` });
  console.log(`SIGTERM to exit, waiting for the run: ${shutdownMs} ms (grace period ${graceSeconds} s)`);

  expect(failures, 'requests cut mid-flight or refused').toEqual([]);
  expect(acceptedBeforeSignal).toBeGreaterThan(20);
  expect(refused).toBe(8); // every sender ran until the listener closed
  expect(code).toBe(0);
  // The run ended within the grace period: it succeeded (at the end of the grace it would be stopped, and fail),
  // after the signal (so it was in progress when it came), and the server exited before the grace was over.
  expect(shutdownMs).toBeLessThan(graceSeconds * 1000);
  const log = fs.readFileSync(setup.logFile, 'utf8');
  expect(log).toMatch(/"msg":"shutting down: readiness is 503/);
  expect(log).toMatch(/"msg":"run succeeded"/);
  expect(log.indexOf('"msg":"run succeeded"')).toBeGreaterThan(log.indexOf('"msg":"shutting down: readiness is 503'));

  // After a restart: every delivery that got a 202 is in the log, and the slow run succeeded.
  server = await npmStart(setup);
  try {
    const logged = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = (await (
        await fetch(`${base}/api/v1/factories/drain/webhooks/${setup.hook.uid}/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
          headers: { Authorization: `Bearer ${setup.token}` },
        })
      ).json()) as { deliveries: { deliveryId: string }[]; nextCursor: string | null };
      for (const entry of page.deliveries) logged.add(entry.deliveryId);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(accepted.filter((id) => !logged.has(id))).toEqual([]);
    const statuses = await runStatuses(setup);
    expect(statuses).toContain('succeeded');
    expect(statuses.filter((status) => status === 'failed')).toEqual([]);
  } finally {
    server.kill('SIGTERM');
    await exited(server);
  }
});

test('a second signal exits at once, even with a run in progress, and takes the run with it', async () => {
  test.setTimeout(budget(120_000));
  const graceSeconds = 60;
  // The run outlasts the grace period: without the second signal, the server would keep draining for a minute.
  // The run's program writes its process ID, so the test can stop it: the server exits without it.
  const pidFile = path.join(root, 'test-results', 'servers', 'second-signal.run.pid');
  fs.rmSync(pidFile, { force: true });
  const setup = prepare('second-signal', graceSeconds, `echo $$ > "${pidFile}"; exec sleep 120`);
  const server = await startServer('second-signal', port, setup.env);
  running.add(server.process);
  try {
    await createAutomation(setup);
    expect((await deliver(setup, { slow: true })).status).toBe(202);
    await expect.poll(() => runStatuses(setup), { timeout: budget(30_000) }).toContain('running');
    server.process.kill('SIGTERM');
    // The second signal comes once the first one's drain is under way.
    await expect.poll(() => fs.readFileSync(server.logFile, 'utf8'), { timeout: budget(10_000) }).toMatch(/"msg":"shutting down: readiness is 503/);
    const signalledAt = Date.now();
    server.process.kill('SIGTERM');
    expect(await exited(server.process)).toBe(1);
    const exitMs = Date.now() - signalledAt;
    test.info().annotations.push({ type: 'measured', description: `second SIGTERM to exit: ${exitMs} ms (grace period ${graceSeconds} s, run 120 s)` });
    console.log(`second SIGTERM to exit: ${exitMs} ms (grace period ${graceSeconds} s, run 120 s)`);
    // At once: not after the grace period, nor after the run (which is still going).
    expect(exitMs).toBeLessThan((graceSeconds * 1000) / 2);
    expect(fs.readFileSync(server.logFile, 'utf8')).toMatch(/"msg":"second signal: exiting at once"/);
    expect(fs.existsSync(pidFile), 'the run was in progress').toBe(true);
    // Its program went with the server (killed in the exit), not left running without its time limit.
    const runPid = Number(fs.readFileSync(pidFile, 'utf8'));
    const alive = () => {
      try {
        process.kill(runPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: budget(5_000) }).toBe(false);
  } finally {
    const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
    try {
      if (pid > 0) process.kill(-pid, 'SIGKILL');
    } catch {
      // it has ended
    }
  }
});

test('Ctrl-C on `tripline start` in a clone drains once: the server gets one SIGINT, not two (the second would exit at once)', async () => {
  test.setTimeout(budget(120_000));
  const setup = prepare('cli-start', 5);
  fs.mkdirSync(path.dirname(setup.logFile), { recursive: true });
  const log = fs.openSync(setup.logFile, 'w');
  // As a terminal runs it: its own process group, which Ctrl-C signals whole.
  const child = spawn(process.execPath, cliArgs(['start']), { cwd: root, env: { ...process.env, ...setup.env, PORT: String(port) }, stdio: ['ignore', log, log], detached: true });
  running.add(child);
  await expect
    .poll(async () => (child.exitCode !== null ? `exited ${child.exitCode}` : await fetch(`${base}/readyz`).then((response) => response.ok, () => false)), { timeout: budget(90_000), intervals: [250] })
    .toBe(true);
  process.kill(-child.pid!, 'SIGINT');
  expect(await exited(child), fs.readFileSync(setup.logFile, 'utf8')).toBe(0);
  const written = fs.readFileSync(setup.logFile, 'utf8');
  expect(written).toMatch(/"msg":"stopped"/);
  expect(written).not.toMatch(/second signal/);
});

test('while it drains, /readyz answers 503 and requests are still served until the listener closes', async () => {
  test.setTimeout(budget(120_000));
  const setup = prepare('drain-delay', 10);
  const server = await startServer('drain-delay', port, { ...setup.env, TRIPLINE_SHUTDOWN_DELAY_SECONDS: '3' });
  running.add(server.process);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
  server.process.kill('SIGTERM');
  const readyz = async () => {
    const response = await fetch(`${base}/readyz`);
    return { status: response.status, text: await response.text() };
  };
  await expect.poll(readyz, { timeout: budget(10_000) }).toEqual({ status: 503, text: 'not ready: shutting down\n' });
  // Still serving during the delay, so a load balancer has time to notice.
  expect((await deliver(setup, { during: 'delay' })).status).toBe(202);
  expect(await exited(server.process)).toBe(0);
});
