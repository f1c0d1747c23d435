import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, uniqueName } from '../fixtures/ingress';
import { automationRuns, controlledAutomation, debouncedIds, deliver, ENDED, fullRun, groupProcesses, promptOf, type RunJson } from '../fixtures/runs';

// Run control over real HTTP with the real command executor (the servers run
// e2e/fixtures/agent.mjs for every run), on embedded PGlite and on
// PostgreSQL (issue 46, "Done means"):
// - 10 pushes to one pull request under cancel-running leave one run
//   Succeeded, the last push's, and the others Cancelled or Superseded; `ps`
//   finds no live process in the group of any run that was stopped;
// - debounce collapses 20 deliveries into one run, and the program reads all
//   20 delivery IDs in its envelope, in order, with the last payload;
// - a throttle of 1 run per 2 s starts 4 runs no sooner than the periods
//   allow, by the times the server recorded.

const holdDirs: string[] = [];
const created: string[] = [];

test.afterEach(async ({ request, tokens }) => {
  for (const dir of holdDirs.splice(0)) {
    // Lets any agent still holding (a failed test's) end; the folder stays for the post-mortem.
    fs.writeFileSync(path.join(dir, 'release'), '');
  }
  for (const id of created.splice(0)) await request.delete(`/api/v1/factories/acme/automations/${id}`, { headers: bearer(tokens.admin) });
  await deleteCreatedWebhooks(request, tokens.admin);
});

const byDelivery = (runs: RunJson[]) => new Map(runs.map((run) => [run.delivery!.deliveryId, run]));

test('10 pushes to one pull request under cancel-running: the last push’s run succeeds, every other is cancelled or superseded, and no process of a stopped run is left', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'rc-pushes' });
  const automation = await controlledAutomation(request, tokens.editor, [hook], { key: 'pull_request.number', concurrency: { limit: 1, whenFull: 'cancel-running' } });
  created.push(automation);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-rc-hold-'));
  holdDirs.push(dir);
  const ids = Array.from({ length: 10 }, (_, n) => uniqueName(`push-${n + 1}`));
  const push = (n: number) => deliver(baseURL!, hook, ids[n - 1]!, { pull_request: { number: 46 }, push: n, holdDir: dir });
  const runs = () => automationRuns(request, tokens.viewer, automation);
  /** The process group of push n's run, once its program is running. */
  const running = async (n: number) => {
    let pgid = '';
    await expect
      .poll(async () => {
        const run = byDelivery(await runs()).get(ids[n - 1]!);
        const file = run && path.join(dir, `${run.id}.group`);
        return (pgid = file && fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split(' ')[0]! : '');
      }, { message: `push ${n}'s program runs` })
      .not.toBe('');
    return pgid;
  };

  // A review starts; four pushes arrive while it runs, then five more while the fifth push's review runs.
  await push(1);
  await running(1);
  for (let n = 2; n <= 5; n++) await push(n);
  await running(5);
  for (let n = 6; n <= 10; n++) await push(n);
  await running(10);
  await expect
    .poll(async () => (await runs()).filter((run) => !ENDED.includes(run.status)).map((run) => run.delivery!.deliveryId), { message: 'only the last push’s run is left going' })
    .toEqual([ids[9]]);

  // Every run whose program ran (it wrote its group) and was stopped: Cancelled by a newer push, its whole group gone.
  const before = byDelivery(await runs());
  expect([...before.keys()].sort()).toEqual([...ids].sort());
  const stopped = [...before.values()].filter((run) => run.delivery!.deliveryId !== ids[9] && fs.existsSync(path.join(dir, `${run.id}.group`)));
  expect(stopped.map((run) => run.delivery!.deliveryId)).toEqual(expect.arrayContaining([ids[0], ids[4]]));
  for (const run of stopped) {
    const pgid = fs.readFileSync(path.join(dir, `${run.id}.group`), 'utf8').split(' ')[0]!;
    expect(run.status, `run ${run.id} ran and was stopped`).toBe('cancelled');
    expect(groupProcesses(pgid), `process group ${pgid} of cancelled run ${run.id}`).toEqual([]);
    const full = await fullRun(request, tokens.viewer, run.id);
    expect(full.error).toMatch(/^The run was cancelled while the command ran: its process group received SIGTERM/);
    expect(full.cancel?.delivery?.id, 'the push that cancelled it').toBeTruthy();
  }
  // The others never ran: Superseded by a newer push, or Cancelled before they started.
  for (const run of before.values()) {
    if (run.delivery!.deliveryId === ids[9]) continue;
    expect(['cancelled', 'superseded'], `${run.delivery!.deliveryId}: ${run.status}`).toContain(run.status);
    if (run.status === 'superseded') expect(run.outcome.deliveryId).toBeTruthy();
  }

  // The last push's review finishes on its own: the only run that succeeds.
  const lastGroup = await running(10);
  fs.writeFileSync(path.join(dir, 'release'), '');
  await expect.poll(async () => byDelivery(await runs()).get(ids[9]!)!.status).toBe('succeeded');
  const after = await runs();
  expect(after.filter((run) => run.status === 'succeeded').map((run) => run.delivery!.deliveryId)).toEqual([ids[9]]);
  expect(after.filter((run) => run.status !== 'succeeded').every((run) => ['cancelled', 'superseded'].includes(run.status))).toBe(true);
  expect((await fullRun(request, tokens.viewer, byDelivery(after).get(ids[9]!)!.id)).output).toContain('agent: released');
  await expect.poll(() => groupProcesses(lastGroup)).toEqual([]);
  holdDirs.splice(holdDirs.indexOf(dir), 1);
  fs.rmSync(dir, { recursive: true, force: true });
  test.info().annotations.push({ type: 'measured', description: `${stopped.length} runs stopped while running, ${after.filter((run) => run.status === 'superseded').length} superseded, ${after.filter((run) => run.status === 'cancelled').length - stopped.length} cancelled before they started` });
});

test('debounce collapses 20 deliveries into one run, whose program reads all 20 delivery IDs in its envelope', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'rc-debounce' });
  // The period only needs to exceed the gap between two deliveries sent one after the other.
  const periodMs = 5_000;
  const automation = await controlledAutomation(request, tokens.editor, [hook], { key: 'pull_request.number', debounce: { periodSeconds: periodMs / 1000, maxWaitSeconds: 3600 } });
  created.push(automation);
  const ids = Array.from({ length: 20 }, (_, n) => uniqueName(`debounce-${n + 1}`));
  for (const [n, id] of ids.entries()) await deliver(baseURL!, hook, id, { pull_request: { number: 7 }, n, printPrompt: true });

  let runs: RunJson[] = [];
  await expect
    .poll(async () => (runs = await automationRuns(request, tokens.viewer, automation)).map((run) => run.status).sort(), { timeout: budget(10_000) + periodMs })
    .toEqual([...Array(19).fill('debounced'), 'succeeded']);
  // The burst was one: no two deliveries arrived a period apart (by the server's clock).
  const arrivals = runs.map((run) => Date.parse(run.createdAt));
  expect(Math.max(...arrivals.slice(1).map((at, i) => at - arrivals[i]!))).toBeLessThan(periodMs);

  const ran = runs.find((run) => run.status === 'succeeded')!;
  expect(ran.delivery!.deliveryId).toBe(ids[19]);
  for (const run of runs) if (run !== ran) expect(run.outcome).toMatchObject({ kind: 'debounced', runId: ran.id });

  // What the program read on stdin and in event-payload.json.
  const output = (await fullRun(request, tokens.viewer, ran.id)).output!;
  const prompt = promptOf(output);
  expect(prompt).toContain('This run stands for 20 deliveries collapsed by debounce');
  expect(debouncedIds(prompt)).toEqual(ids);
  expect(prompt).toContain(`Delivery ID: ${JSON.stringify(ids[19])}`);
  expect(output).toContain(`agent: event-payload.json = ${JSON.stringify({ pull_request: { number: 7 }, n: 19, printPrompt: true })}`);
});

test('a throttle of 1 run per 2 s spreads 4 runs over the periods, by the times the server recorded', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'rc-throttle' });
  const periodMs = 2_000;
  const automation = await controlledAutomation(request, tokens.editor, [hook], { key: 'pull_request.number', throttle: { limit: 1, periodSeconds: periodMs / 1000 } });
  created.push(automation);
  const ids = Array.from({ length: 4 }, (_, n) => uniqueName(`throttle-${n + 1}`));
  for (const [n, id] of ids.entries()) await deliver(baseURL!, hook, id, { pull_request: { number: 9 }, n });

  // While they wait, each later one says when it starts: a period after the one before.
  await expect.poll(async () => (await automationRuns(request, tokens.viewer, automation)).map((run) => run.outcome.kind)).not.toContain('pending');
  const waiting = (await automationRuns(request, tokens.viewer, automation)).filter((run) => run.outcome.kind === 'throttled');
  const planned = waiting.map((run) => Date.parse(run.outcome.at!));
  for (let i = 1; i < planned.length; i++) expect(planned[i]! - planned[i - 1]!).toBe(periodMs);

  let runs: RunJson[] = [];
  // Three periods must pass (a test about time passing) beyond the usual wait.
  await expect
    .poll(async () => (runs = await automationRuns(request, tokens.viewer, automation)).map((run) => run.status), { timeout: budget(10_000) + 3 * periodMs })
    .toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
  expect(runs.map((run) => run.delivery!.deliveryId)).toEqual(ids);
  const started = runs.map((run) => Date.parse(run.startedAt!));
  const first = Date.parse(runs[0]!.createdAt);
  // In order of arrival; the k-th run no sooner than k periods after the first was let go (which was after it arrived).
  for (let k = 1; k < runs.length; k++) {
    expect(started[k]!, `run ${k + 1} started after run ${k}`).toBeGreaterThan(started[k - 1]!);
    expect(started[k]! - first, `run ${k + 1}: ${started[k]! - first} ms after the first delivery`).toBeGreaterThanOrEqual(k * periodMs);
  }
  test.info().annotations.push({ type: 'measured', description: `starts after the first delivery (ms): ${started.map((at) => at - first).join(', ')}; gaps: ${started.slice(1).map((at, i) => at - started[i]!).join(', ')}` });
});
