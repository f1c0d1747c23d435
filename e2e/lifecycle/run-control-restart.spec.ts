import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { automationRuns, controlledAutomation, debouncedIds, deliver, fullRun, promptOf, type RunJson } from '../fixtures/runs';
import { lifecycleDatabase, queryDatabase, seedWebhook, serverEnv, startServer, type RunningServer } from '../servers';

// A waiting run and a debouncing run still start after the server is killed
// with SIGKILL and started again (issue 46), on the embedded database and on
// PostgreSQL. The first server executes nothing (TRIPLINE_RUN_WORKERS=0, as
// when workers run elsewhere), so its runs stay where run control put them:
// one queued with one waiting behind it (concurrency 1), and a burst
// debouncing. After the kill the database holds them so; the restarted
// server, with workers and the real command executor, runs the queued one,
// then the waiting one (never both at once), and the debounced one once its
// period is over, not sooner, with both deliveries in its envelope.

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 47;
const base = `http://localhost:${port}`;
const adminUrl = process.env.TEST_DATABASE_URL;
const root = path.resolve(import.meta.dirname, '..', '..');
// Long enough that the server is surely killed before it ends (a test about time passing).
const DEBOUNCE_MS = 20_000;

type Kind = 'pglite' | 'postgres';

for (const kind of ['pglite', 'postgres'] as Kind[]) {
  test(`a waiting and a debouncing run start after a SIGKILL and restart (${kind})`, async ({ request }) => {
    test.skip(kind === 'postgres' && !adminUrl, 'needs TEST_DATABASE_URL (always set under CI)');
    test.setTimeout(budget(180_000) + DEBOUNCE_MS);
    const { dataDir, env: databaseEnv, databaseUrl, drop } = await lifecycleDatabase(kind, 'rc-restart');
    fs.mkdirSync(dataDir, { recursive: true });
    const env = serverEnv(dataDir, base, {
      TRIPLINE_RUN_COMMAND: `"${process.execPath}" "${path.join(root, 'e2e', 'fixtures', 'agent.mjs')}"`,
      TRIPLINE_RUN_ENV: 'AGENT_LOG',
      AGENT_LOG: path.join(dataDir, 'agent.log'),
      ...databaseEnv,
    });
    let server: RunningServer | undefined;
    try {
      const { token, uid, secret } = seedWebhook(env, 'rc', 'pulls');
      const hook = { uid, secret, url: `/webhooks/w/${uid}`, secretName: '' };
      server = await startServer(`rc-restart-${kind}`, port, { ...env, TRIPLINE_RUN_WORKERS: '0' });
      const waiting = await controlledAutomation(request, token, [hook], { key: 'pull_request.number', concurrency: { limit: 1, whenFull: 'queue-all' } }, base, 'rc');
      const debounced = await controlledAutomation(request, token, [hook], { key: 'pull_request.number', debounce: { periodSeconds: DEBOUNCE_MS / 1000 } }, base, 'rc');
      const ids = [`rc-restart-${kind}-1`, `rc-restart-${kind}-2`];
      for (const [n, id] of ids.entries()) await deliver(base, hook, id, { pull_request: { number: 12 }, n, printPrompt: true });

      const statuses = async (automation: string) => (await automationRuns(request, token, automation, base, 'rc')).map((run) => run.status);
      await expect.poll(() => statuses(waiting)).toEqual(['queued', 'waiting']);
      await expect.poll(() => statuses(debounced)).toEqual(['debouncing', 'debouncing']);
      const due = Date.parse((await automationRuns(request, token, debounced, base, 'rc'))[1]!.outcome.at!);

      server.process.kill('SIGKILL');
      await new Promise<void>((resolve) => (server!.process.exitCode !== null || server!.process.signalCode !== null ? resolve() : server!.process.once('exit', () => resolve())));
      server = undefined;

      // What the database holds after the kill: the runs as run control left them.
      const query = `SELECT a."name", r."status"::text AS "status" FROM "Run" r JOIN "Automation" a ON a."id" = r."automationId" ORDER BY a."name", r."createdAt"`;
      const rows = await queryDatabase<{ name: string; status: string }>({ databaseUrl, dataDir }, query);
      expect(rows.map((row) => row.status).sort()).toEqual(['debouncing', 'debouncing', 'queued', 'waiting']);

      server = await startServer(`rc-restart-${kind}-restarted`, port, env);
      let queue: RunJson[] = [];
      await expect
        .poll(async () => (queue = await automationRuns(request, token, waiting, base, 'rc')).map((run) => run.status))
        .toEqual(['succeeded', 'succeeded']);
      // The waiting run started only once the one before it had ended.
      expect(Date.parse(queue[1]!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(queue[0]!.finishedAt!));

      let burst: RunJson[] = [];
      // The debounce period must pass (a test about time passing), beyond the usual wait.
      await expect
        .poll(async () => (burst = await automationRuns(request, token, debounced, base, 'rc')).map((run) => run.status), { timeout: budget(30_000) + DEBOUNCE_MS })
        .toEqual(['debounced', 'succeeded']);
      expect(burst[0]!.outcome).toMatchObject({ kind: 'debounced', runId: burst[1]!.id });
      // Not before its period was over, and with both deliveries in the envelope its program read.
      expect(Date.parse(burst[1]!.startedAt!)).toBeGreaterThanOrEqual(due);
      expect(debouncedIds(promptOf((await fullRun(request, token, burst[1]!.id, base, 'rc')).output!))).toEqual(ids);

      // Each run executed once, all by the restarted server.
      const executed = fs.readFileSync(env.AGENT_LOG!, 'utf8').split('\n').filter(Boolean);
      expect(executed).toHaveLength(3);
      await server.stop();
      server = undefined;
    } finally {
      if (server) server.process.kill('SIGKILL');
      await drop();
    }
  });
}
