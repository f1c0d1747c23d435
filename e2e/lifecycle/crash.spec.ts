import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { rememberSecrets } from '../fixtures/secrets';
import { cli, lifecycleDatabase, queryDatabase, serverEnv, startServer, type RunningServer } from '../servers';

// A 202 means the delivery and its runs are committed (the ingress's group
// commit shares statements and commits between concurrent deliveries, and
// answers each only after its commit). Proof: under concurrent load, the
// server is killed with SIGKILL (no drain, no clean close); every delivery
// that got a 202 is then in the log, read through a restarted server, with
// its run, read in the database; on PostgreSQL and on the embedded database.

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 50;
const base = `http://localhost:${port}`;
const adminUrl = process.env.TEST_DATABASE_URL;

type Kind = 'pglite' | 'postgres';

for (const kind of ['pglite', 'postgres'] as Kind[]) {
  test(`every delivery answered 202 survives a SIGKILL under load, with its run (${kind})`, async () => {
    test.skip(kind === 'postgres' && !adminUrl, 'needs TEST_DATABASE_URL (always set under CI)');
    test.setTimeout(budget(180_000));
    const { dataDir, env: databaseEnv, databaseUrl, drop } = await lifecycleDatabase(kind, 'crash');
    const env = serverEnv(dataDir, base, {
      TRIPLINE_DELIVERY_RATE_LIMIT: '1000000',
      // Every accepted delivery starts its run (no executor: runs stay queued, so none is lost to a crash mid-run).
      TRIPLINE_RUN_QUEUE_LIMIT: '1000000',
      ...databaseEnv,
    });
    let server: RunningServer | undefined;
    try {
      cli(env, ['setup', '--email', `crash-${kind}@example.test`, '--password-stdin', '--factory', 'crash', '--factory-name', 'Crash'], 'correct horse battery');
      const token = cli(env, ['token', 'create', '--email', `crash-${kind}@example.test`]);
      const created = cli(env, ['webhook', 'create', '--factory', 'crash', '--name', 'orders']);
      const uid = /^uid: (\S+)$/m.exec(created)![1]!;
      const secret = /^secret: (\S+)$/m.exec(created)![1]!;
      rememberSecrets(token, secret, env.TRIPLINE_SECRETS_KEY, env.TRIPLINE_AUTH_SECRET);

      server = await startServer(`crash-${kind}`, port, env);
      const automation = await fetch(`${base}/api/v1/factories/crash/automations`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'every', prompt: 'Handle it.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid] } }] }),
      });
      expect(automation.status, await automation.text()).toBe(201);

      // Sixteen senders post as fast as they can, each delivery with its own ID.
      const accepted: string[] = [];
      let killed = false;
      let cut = 0;
      const sender = async (id: number) => {
        for (let n = 0; !killed || n === 0; n += 1) {
          const deliveryId = `crash-${id}-${n}`;
          try {
            const response = await fetch(`${base}/webhooks/w/${uid}`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', 'X-Service-Delivery-Id': deliveryId },
              body: JSON.stringify({ sender: id, n, items: [1, 2, 3] }),
            });
            if (response.status === 202) accepted.push(deliveryId);
            else throw new Error(`HTTP ${response.status}: ${await response.text()}`);
          } catch (error) {
            if (!killed) throw error;
            cut += 1; // the server died under this request: the sender does not know, and would retry
            return;
          }
        }
      };
      const senders = Array.from({ length: 16 }, (_, id) => sender(id));
      // Kill it once the load has run for a while, mid-flight.
      const deadline = Date.now() + budget(30_000);
      while (accepted.length < 400 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      killed = true;
      server.process.kill('SIGKILL');
      await Promise.all(senders);
      await new Promise<void>((resolve) => (server!.process.exitCode !== null || server!.process.signalCode !== null ? resolve() : server!.process.once('exit', () => resolve())));
      expect(accepted.length).toBeGreaterThanOrEqual(400);
      // The kill did cut requests in flight (otherwise this proves nothing about them).
      expect(cut).toBeGreaterThan(0);

      // A restarted server serves the log: every delivery that got a 202 is in it, accepted.
      server = await startServer(`crash-${kind}-restarted`, port, env);
      const logged = new Map<string, string>();
      let cursor: string | undefined;
      do {
        const response = await fetch(`${base}/api/v1/factories/crash/webhooks/${uid}/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        expect(response.status).toBe(200);
        const page = (await response.json()) as { deliveries: { deliveryId: string; status: string }[]; nextCursor: string | null };
        for (const entry of page.deliveries) logged.set(entry.deliveryId, entry.status);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(accepted.filter((id) => logged.get(id) !== 'accepted')).toEqual([]);
      await server.stop();
      server = undefined;

      // And each has its run, in the database itself.
      const query = 'SELECT d."deliveryId", count(r."id")::int AS "runs" FROM "Delivery" d LEFT JOIN "Run" r ON r."deliveryId" = d."id" WHERE d."status" = \'accepted\' GROUP BY d."deliveryId"';
      const rows = await queryDatabase<{ deliveryId: string; runs: number }>({ databaseUrl, dataDir }, query);
      const runs = new Map(rows.map((row) => [row.deliveryId, row.runs]));
      expect(accepted.filter((id) => runs.get(id) !== 1)).toEqual([]);
    } finally {
      if (server) server.process.kill('SIGKILL');
      await drop();
    }
  });
}
