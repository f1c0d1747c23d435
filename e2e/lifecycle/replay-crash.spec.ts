import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { rememberSecrets } from '../fixtures/secrets';
import { cli, lifecycleDatabase, queryDatabase, serverEnv, startServer, type RunningServer } from '../servers';

// A bulk replay of 400 deliveries survives a SIGKILL of the server in the
// middle of the job: the restarted server resumes it once the dead
// instance's lease expires, and it completes with every delivery replayed
// exactly once (one replayed run each, a replay count of 1 on each log
// entry), on the embedded database and on PostgreSQL. A second job over the
// same deliveries is cancelled midway: nothing is replayed after the cancel
// is answered.

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 42;
const base = `http://localhost:${port}`;
const adminUrl = process.env.TEST_DATABASE_URL;
// Enough for the kill and the cancel to land midway at the replay's 200 a second (the job takes 2 s),
// whatever the machine's speed: the kill comes past 100, the cancel past 50.
const COUNT = 400;

type Kind = 'pglite' | 'postgres';
type Job = { id: string; status: string; total: number; done: number; runsStarted: number; skipped: number };

for (const kind of ['pglite', 'postgres'] as Kind[]) {
  test(`a replay job killed midway resumes after a restart and replays each delivery once (${kind})`, async () => {
    test.skip(kind === 'postgres' && !adminUrl, 'needs TEST_DATABASE_URL (always set under CI)');
    test.setTimeout(budget(300_000));
    const { dataDir, env: databaseEnv, databaseUrl, drop } = await lifecycleDatabase(kind, 'replay-crash');
    const env = serverEnv(dataDir, base, {
      TRIPLINE_DELIVERY_RATE_LIMIT: '1000000',
      // No executor: runs stay queued, and the queue has room for all of them.
      TRIPLINE_RUN_QUEUE_LIMIT: '1000000',
      // Faster than the default 20/s, so that 400 take seconds, not half a minute.
      TRIPLINE_REPLAY_RATE: '200',
      ...databaseEnv,
    });
    let server: RunningServer | undefined;
    let atCancel: Job | undefined;
    try {
      cli(env, ['setup', '--email', `replay-${kind}@example.test`, '--password-stdin', '--factory', 'replay', '--factory-name', 'Replay'], 'correct horse battery');
      const token = cli(env, ['token', 'create', '--email', `replay-${kind}@example.test`]);
      const created = cli(env, ['webhook', 'create', '--factory', 'replay', '--name', 'orders']);
      const uid = /^uid: (\S+)$/m.exec(created)![1]!;
      const secret = /^secret: (\S+)$/m.exec(created)![1]!;
      rememberSecrets(token, secret, env.TRIPLINE_SECRETS_KEY, env.TRIPLINE_AUTH_SECRET);
      const api = (pathname: string, init: RequestInit = {}) =>
        fetch(`${base}/api/v1/factories/replay${pathname}`, { ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } });

      server = await startServer(`replay-crash-${kind}`, port, env);
      // The deliveries arrive before the automation exists: only the replay starts their runs.
      for (let sender = 0; sender < COUNT; sender += 50) {
        await Promise.all(
          Array.from({ length: 50 }, async (_, i) => {
            const response = await fetch(`${base}/webhooks/w/${uid}`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', 'X-Service-Delivery-Id': `order-${sender + i}` },
              body: JSON.stringify({ n: sender + i }),
            });
            expect(response.status).toBe(202);
          }),
        );
      }
      const automation = await api('/automations', {
        method: 'POST',
        body: JSON.stringify({ name: 'every', prompt: 'Handle it.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid] } }] }),
      });
      expect(automation.status, await automation.text()).toBe(201);

      const started = await api('/replay-jobs', { method: 'POST', body: JSON.stringify({ selection: { webhook: uid } }) });
      const text = await started.text();
      expect(started.status, text).toBe(201);
      const { id, total } = JSON.parse(text) as Job;
      expect(total).toBe(COUNT);
      const job = async () => (await (await api(`/replay-jobs/${id}`)).json()) as Job;

      // Kill the server mid-job: no drain, no lease handed back.
      await expect.poll(async () => (await job()).done, { timeout: budget(60_000), intervals: [250] }).toBeGreaterThan(100);
      server.process.kill('SIGKILL');
      await new Promise<void>((resolve) => (server!.process.exitCode !== null || server!.process.signalCode !== null ? resolve() : server!.process.once('exit', () => resolve())));
      server = await startServer(`replay-crash-${kind}-restarted`, port, env);
      const resumedFrom = (await job()).done;
      expect(resumedFrom).toBeGreaterThan(100);
      expect(resumedFrom).toBeLessThan(COUNT);

      await expect.poll(async () => (await job()).status, { timeout: budget(120_000), intervals: [1000] }).toBe('completed');
      expect(await job()).toMatchObject({ total: COUNT, done: COUNT, skipped: 0, runsStarted: COUNT });

      // A second job over the same 400, for an automation created since (a replay starts only
      // runs an automation has not had for the delivery), cancelled midway: once the cancel is
      // answered, no delivery is replayed and no run starts.
      const another = await api('/automations', {
        method: 'POST',
        body: JSON.stringify({ name: 'another', prompt: 'Handle it too.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid] } }] }),
      });
      expect(another.status, await another.text()).toBe(201);
      const second = await api('/replay-jobs', { method: 'POST', body: JSON.stringify({ selection: { webhook: uid } }) });
      expect(second.status, await second.clone().text()).toBe(201);
      const secondId = ((await second.json()) as Job).id;
      const secondJob = async () => (await (await api(`/replay-jobs/${secondId}`)).json()) as Job;
      await expect.poll(async () => (await secondJob()).done, { timeout: budget(60_000), intervals: [200] }).toBeGreaterThan(50);
      const cancel = await api(`/replay-jobs/${secondId}/cancel`, { method: 'POST' });
      expect(cancel.status).toBe(200);
      atCancel = (await cancel.json()) as Job;
      expect(atCancel.status).toBe('cancelled');
      expect(atCancel.done).toBeLessThan(COUNT);
      expect(atCancel.runsStarted).toBe(atCancel.done);
      // Proves nothing happens after the cancel: a replay still under way would show within this window (longer on a slower machine).
      await new Promise((resolve) => setTimeout(resolve, budget(3_000)));
      expect(await secondJob()).toMatchObject({ status: 'cancelled', done: atCancel.done, runsStarted: atCancel.runsStarted });
      await server.stop();
      server = undefined;

      // In the database: one replayed run per delivery, and each log entry replayed once.
      const query = `SELECT d."deliveryId", d."replayCount" AS "replays", count(r."id")::int AS "runs" FROM "Delivery" d
                       LEFT JOIN "Run" r ON r."deliveryId" = d."id" AND r."replay" WHERE d."status" = 'accepted' GROUP BY d."id"`;
      const rows = await queryDatabase<{ deliveryId: string; replays: number; runs: number }>({ databaseUrl, dataDir }, query);
      // The first job replayed every delivery once (one run of 'every'); the cancelled one replayed
      // exactly the deliveries it counted (one run of 'another' each), and nothing after.
      expect(rows).toHaveLength(COUNT);
      expect(rows.filter((row) => row.runs !== row.replays || row.replays < 1 || row.replays > 2)).toEqual([]);
      expect(rows.filter((row) => row.replays === 2)).toHaveLength(atCancel!.done);
    } finally {
      if (server) server.process.kill('SIGKILL');
      await drop();
    }
  });
}
