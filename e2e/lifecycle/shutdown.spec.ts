import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { rememberSecrets } from '../fixtures/secrets';
import { cli, migratedDataDir, serverEnv, startServer } from '../servers';

// A rolling deploy sends SIGTERM. `npm start`'s process must answer every
// request it has taken (no connection reset, so no sender is left unsure
// whether a delivery was recorded), let a run in progress finish within the
// grace period, and close the embedded database cleanly. A second signal
// exits at once.

const root = path.resolve(import.meta.dirname, '..', '..');
const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 5;
const base = `http://localhost:${port}`;
const agent = path.join(root, 'e2e', 'fixtures', 'agent.mjs');

type Setup = { env: Record<string, string>; token: string; hook: { uid: string; secret: string }; logFile: string };

function prepare(name: string, graceSeconds: number): Setup {
  const dataDir = migratedDataDir(name);
  const env = serverEnv(dataDir, base, {
    TRIPLINE_RUN_COMMAND: `"${process.execPath}" "${agent}"`,
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
  const deadline = Date.now() + 90_000;
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
  test.setTimeout(180_000);
  const setup = prepare('drain', 20);
  let server = await npmStart(setup);
  await createAutomation(setup);

  // A run that takes 4 s starts just before the signal.
  const slow = await deliver(setup, { sleepMs: 4_000, slow: true });
  expect(slow.status).toBe(202);

  // Eight senders post as fast as they can, each on its own keep-alive connection.
  const accepted: string[] = [];
  let signalledAt = 0;
  const failures: string[] = [];
  let refused = 0;
  const sender = async (id: number) => {
    const until = Date.now() + 60_000;
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
  // Under load: the signal comes once more than 20 deliveries are in (about 1 s on a quiet machine,
  // longer on a slow one), and while the slow run still has time left.
  const loadedBy = Date.now() + 3_000;
  while (accepted.length <= 20 && Date.now() < loadedBy) await new Promise((resolve) => setTimeout(resolve, 50));
  const acceptedBeforeSignal = accepted.length;
  signalledAt = Date.now();
  server.kill('SIGTERM');
  await Promise.all(senders);
  const code = await exited(server);
  const shutdownSeconds = (Date.now() - signalledAt) / 1000;

  expect(failures, 'requests cut mid-flight or refused').toEqual([]);
  expect(acceptedBeforeSignal).toBeGreaterThan(20);
  expect(refused).toBe(8); // every sender ran until the listener closed
  expect(code).toBe(0);
  // The run had about 4 s left; the grace is 20 s.
  expect(shutdownSeconds).toBeLessThan(20);
  const log = fs.readFileSync(setup.logFile, 'utf8');
  expect(log).toMatch(/"msg":"shutting down: readiness is 503/);
  expect(log).toMatch(/"msg":"run succeeded"/);

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
    const runs = (await (await fetch(`${base}/api/v1/factories/drain/runs`, { headers: { Authorization: `Bearer ${setup.token}` } })).json()) as {
      runs: { status: string }[];
    };
    expect(runs.runs.map((run) => run.status)).toContain('succeeded');
    expect(runs.runs.filter((run) => run.status === 'failed')).toEqual([]);
  } finally {
    server.kill('SIGTERM');
    await exited(server);
  }
});

test('a second signal exits at once, even with a run in progress', async () => {
  test.setTimeout(120_000);
  const setup = prepare('second-signal', 60);
  const server = await startServer('second-signal', port, setup.env);
  running.add(server.process);
  await createAutomation(setup);
  expect((await deliver(setup, { sleepMs: 5_000, slow: true })).status).toBe(202);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  server.process.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const signalledAt = Date.now();
  server.process.kill('SIGTERM');
  expect(await exited(server.process)).toBe(1);
  expect(Date.now() - signalledAt).toBeLessThan(1_500);
});

test('while it drains, /readyz answers 503 and requests are still served until the listener closes', async () => {
  test.setTimeout(120_000);
  const setup = prepare('drain-delay', 10);
  const server = await startServer('drain-delay', port, { ...setup.env, TRIPLINE_SHUTDOWN_DELAY_SECONDS: '3' });
  running.add(server.process);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
  server.process.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  const readyz = await fetch(`${base}/readyz`);
  expect(readyz.status).toBe(503);
  expect(await readyz.text()).toBe('not ready: shutting down\n');
  // Still serving during the delay, so a load balancer has time to notice.
  expect((await deliver(setup, { during: 'delay' })).status).toBe(202);
  expect(await exited(server.process)).toBe(0);
});
