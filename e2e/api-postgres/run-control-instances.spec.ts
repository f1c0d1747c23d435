import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { budget } from '../../scripts/speed.mjs';
import { servers } from '../../playwright.config';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, type Created } from '../fixtures/ingress';
import { deltas, scrapeMetrics } from '../fixtures/metrics';
import { automationRuns, controlledAutomation, deliver, type RunJson } from '../fixtures/runs';

// Run control on two instances of one PostgreSQL, as behind a load balancer
// (issue 46): 200 deliveries on 10 keys, each key's deliveries alternating
// between the instances, to an automation with at most 2 runs in progress
// per key (queue-all). Both instances' schedulers decide and both
// instances' workers execute (the real command executor); by the times the
// server recorded, no key ever had more than 2 runs going at once, and each
// delivery has exactly one run, executed exactly once. Key 0's first two
// runs hold until the test releases them, so the limit is reached whatever
// the machine's speed: both run at once while key 0's later runs wait.

const KEYS = 10;
const PER_KEY = 20;
const LIMIT = 2;
let automation = '';
let holdDir = '';

test.afterEach(async ({ request, tokens }) => {
  // Lets any agent still holding (a failed test's) end; the folder stays for the post-mortem.
  if (holdDir) fs.writeFileSync(path.join(holdDir, 'release'), '');
  holdDir = '';
  if (automation) await request.delete(`/api/v1/factories/acme/automations/${automation}`, { headers: bearer(tokens.admin) });
  automation = '';
  await deleteCreatedWebhooks(request, tokens.admin);
});

/** The most runs of one key in progress at one time, from their recorded start and end. */
function mostAtOnce(runs: RunJson[]): number {
  const edges = runs.flatMap((run) => [
    { at: Date.parse(run.startedAt!), step: 1 },
    { at: Date.parse(run.finishedAt!), step: -1 },
  ]);
  // An end and a start at the same millisecond: the end first (the start was decided after the end was written).
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (now += edge.step));
  return most;
}

test('two instances on one PostgreSQL: 200 deliveries on 10 keys keep the concurrency limit, and each delivery has one run, executed once', async ({ request, tokens }) => {
  test.setTimeout(budget(120_000));
  // One webhook per key: each stays within the delivery rate limit (60 a minute per webhook).
  const hooks: Created[] = [];
  for (let key = 0; key < KEYS; key++) hooks.push(await createWebhook(request, tokens.admin, { name: `rc-instances-${key}` }));
  automation = await controlledAutomation(request, tokens.editor, hooks, { key: 'pull_request.number', concurrency: { limit: LIMIT, whenFull: 'queue-all' } });
  const instances = [servers.apiPostgres, servers.apiPostgresB];
  const started = 'tripline_run_control_outcomes_total{outcome="started"}';
  const before = await Promise.all(instances.map((url) => scrapeMetrics(request, url)));

  // Ten senders, one per key, side by side; each sends its key's deliveries one after the other, alternating instances.
  // Key 0's first two deliveries (one to each instance) start runs that hold until released.
  const stem = `rc-inst-${Date.now().toString(36)}`;
  holdDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-rc-instances-'));
  const held = [`${stem}-0-0`, `${stem}-0-1`];
  const sent: string[] = [];
  await Promise.all(
    hooks.map(async (hook, key) => {
      for (let n = 0; n < PER_KEY; n++) {
        const id = `${stem}-${key}-${n}`;
        await deliver(instances[(key + n) % 2]!, hook, id, { pull_request: { number: 1000 + key }, n, ...(held.includes(id) ? { holdDir } : { sleepMs: 100 }) });
        sent.push(id);
      }
    }),
  );

  // Both held runs are running at once (each program wrote its group), and none of key 0's other 18 has started.
  let runs: RunJson[] = [];
  const heldRuns = () => runs.filter((run) => held.includes(run.delivery!.deliveryId));
  await expect
    .poll(async () => {
      runs = await automationRuns(request, tokens.viewer, automation);
      return heldRuns().filter((run) => fs.existsSync(path.join(holdDir, `${run.id}.group`))).length;
    }, { message: 'both held runs of key 0 are running', timeout: budget(60_000) })
    .toBe(LIMIT);
  runs = await automationRuns(request, tokens.viewer, automation);
  const key0 = runs.filter((run) => run.delivery!.deliveryId.startsWith(`${stem}-0-`));
  expect(key0).toHaveLength(PER_KEY);
  expect(key0.filter((run) => run.startedAt).map((run) => run.delivery!.deliveryId).sort()).toEqual([...held].sort());
  fs.writeFileSync(path.join(holdDir, 'release'), '');

  await expect
    .poll(async () => (runs = await automationRuns(request, tokens.viewer, automation)).filter((run) => run.status === 'succeeded').length, { timeout: budget(90_000), intervals: [500] })
    .toBe(KEYS * PER_KEY);

  // Each delivery: exactly one run, and it succeeded.
  expect(runs).toHaveLength(KEYS * PER_KEY);
  expect(runs.map((run) => run.delivery!.deliveryId).sort()).toEqual([...sent].sort());

  // No key had more than LIMIT runs going at once; key 0 had LIMIT (its held runs).
  const perKey = new Map<string, RunJson[]>();
  for (const run of runs) perKey.set(run.controlKey!, [...(perKey.get(run.controlKey!) ?? []), run]);
  expect(perKey.size).toBe(KEYS);
  const most = [...perKey.entries()].map(([key, group]) => ({ key, most: mostAtOnce(group), runs: group.length }));
  for (const group of most) expect(group.most, `key ${group.key}`).toBeLessThanOrEqual(LIMIT);
  expect(most.find((group) => group.key === heldRuns()[0]!.controlKey)!.most).toBe(LIMIT);

  // Each run executed exactly once (the agent logs every execution with its worker), and both instances executed some.
  const executions = fs.readFileSync(process.env.E2E_AGENT_LOG!, 'utf8').split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]);
  const ours = new Set(runs.map((run) => run.id));
  const mine = executions.filter(([run]) => ours.has(run));
  expect(mine).toHaveLength(KEYS * PER_KEY);
  expect(new Set(mine.map(([run]) => run)).size).toBe(KEYS * PER_KEY);
  const workers = new Set(mine.map(([, worker]) => worker.split(':').slice(0, 2).join(':')));
  expect(workers.size, [...workers].join(', ')).toBe(2);

  // The schedulers of both instances together started each run once.
  const after = await Promise.all(instances.map((url) => scrapeMetrics(request, url)));
  const startedBy = instances.map((_, i) => deltas(before[i]!, after[i]!, [started])[started]!);
  expect(startedBy[0]! + startedBy[1]!).toBe(KEYS * PER_KEY);
  fs.rmSync(holdDir, { recursive: true, force: true });
  holdDir = '';
  test.info().annotations.push({ type: 'measured', description: `runs started by instance A's scheduler: ${startedBy[0]}, by B's: ${startedBy[1]}; most at once per key: ${most.map((group) => group.most).join(', ')}` });
});
