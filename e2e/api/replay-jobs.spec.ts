import type { APIRequestContext } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, uniqueName, type Created } from '../fixtures/ingress';

// Bulk replay over real HTTP, on embedded PGlite and on PostgreSQL: preview
// count, start, progress to completion with the runs it started, one job per
// factory (409), cancel midway (no run starts after it), bad input (422), and
// who may do what. The servers replay TRIPLINE_REPLAY_RATE (5) deliveries a second.

const base = '/api/v1/factories/acme';
const automations: string[] = [];

test.describe.configure({ mode: 'serial' });

test.afterAll(async ({ request, tokens }) => {
  // Leave no job running for other specs (one per factory).
  const { jobs } = await (await request.get(`${base}/replay-jobs`, { headers: bearer(tokens.admin) })).json();
  for (const job of jobs as { id: string; status: string }[]) {
    if (job.status === 'running') await request.post(`${base}/replay-jobs/${job.id}/cancel`, { headers: bearer(tokens.admin) });
  }
  for (const id of automations.splice(0)) await request.delete(`${base}/automations/${id}`, { headers: bearer(tokens.admin) });
  await deleteCreatedWebhooks(request, tokens.admin);
});

async function send(baseURL: string, hook: Created, bodies: string[]) {
  for (const body of bodies) {
    const response = await rawPost(baseURL, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json' }, Buffer.from(body));
    expect(response.status, response.body).toBe(202);
  }
}

type Job = { id: string; status: string; total: number; done: number; replayed: number; skipped: number; runsStarted: number; createdBy: string; selection: Record<string, unknown> };

async function job(request: APIRequestContext, token: string, id: string): Promise<Job> {
  const response = await request.get(`${base}/replay-jobs/${id}`, { headers: bearer(token) });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()) as Job;
}

async function replayRuns(request: APIRequestContext, token: string, automation: string) {
  const { runs } = await (await request.get(`${base}/runs?automation=${automation}&limit=200`, { headers: bearer(token) })).json();
  return (runs as { replay: boolean; delivery: { id: string } | null }[]).filter((run) => run.replay);
}

let hook: Created;
let automationId: string;

test('previews a selection: its count and newest entries, Accepted only', async ({ request, tokens, baseURL }) => {
  hook = await createWebhook(request, tokens.admin, { name: uniqueName('replay') });
  // Created after the deliveries, so none of them started a run on arrival: only the replay starts them.
  await send(baseURL!, hook, Array.from({ length: 30 }, (_, i) => JSON.stringify({ kind: i % 3 === 0 ? 'order' : 'ping', n: i })));
  const rejected = await rawPost(baseURL!, hook.url, { Authorization: 'Bearer wrong' }, Buffer.from('{}'));
  expect(rejected.status).toBe(401);
  const automation = await request.post(`${base}/automations`, {
    headers: bearer(tokens.admin),
    data: { name: uniqueName('replayed'), prompt: 'Handle it.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [hook.uid], payload: { kind: 'order' } } }] },
  });
  expect(automation.status(), await automation.text()).toBe(201);
  automationId = (await automation.json()).automation.id;
  automations.push(automationId);

  const all = await request.post(`${base}/replay-jobs/preview`, { headers: bearer(tokens.admin), data: { selection: { webhook: hook.uid } } });
  expect(all.status(), await all.text()).toBe(200);
  const preview = await all.json();
  expect(preview).toMatchObject({ count: 30, tooMany: false, max: 5000, webhook: { uid: hook.uid } });
  expect(preview.deliveries).toHaveLength(10);

  const searched = await (await request.post(`${base}/replay-jobs/preview`, { headers: bearer(tokens.admin), data: { selection: { webhook: hook.uid, q: 'order' } } })).json();
  expect(searched.count).toBe(10);
  const byTrigger = await (await request.post(`${base}/replay-jobs/preview`, { headers: bearer(tokens.admin), data: { selection: { automation: automationId } } })).json();
  expect(byTrigger).toMatchObject({ count: 10, untested: 0 });
  const future = await request.post(`${base}/replay-jobs/preview`, { headers: bearer(tokens.admin), data: { selection: { webhook: hook.uid, from: '2099-01-01T00:00:00Z' } } });
  expect(future.status(), await future.text()).toBe(200);
  expect((await future.json()).count).toBe(0);
});

test('refuses bad input with 422 naming the field, and a start by non-admins with 403', async ({ request, tokens }) => {
  const cases: [unknown, string][] = [
    [{ selection: {} }, 'selection.webhook'],
    [{ selection: { webhook: hook.uid, status: 'duplicate' } }, 'selection.status'],
    [{ selection: { webhook: hook.uid, from: 'yesterday' } }, 'selection.from'],
    [{ selection: { webhook: hook.uid, event: 'a..b' } }, 'selection.event'],
    [{ selection: { webhook: hook.uid, q: 'x'.repeat(201) } }, 'selection.q'],
    [{ selection: { webhook: hook.uid, surprise: true } }, 'selection'],
    [{ selection: { automation: automationId, q: 'order' } }, 'selection.automation'],
    [{ selection: { webhook: 'wh_doesnotexist' } }, 'webhook'],
    [{ selection: { webhook: hook.uid, q: 'no-such-text-anywhere' } }, 'selection'],
  ];
  for (const [data, field] of cases) {
    const response = await request.post(`${base}/replay-jobs`, { headers: bearer(tokens.admin), data });
    expect(response.status(), JSON.stringify(data)).toBe(422);
    const { error } = await response.json();
    expect(Object.keys(error.fields ?? {}), JSON.stringify(data)).toContain(field);
  }
  const notJson = await request.post(`${base}/replay-jobs`, { headers: { ...bearer(tokens.admin), 'Content-Type': 'application/json' }, data: Buffer.from('{') });
  expect(notJson.status()).toBe(400);
  for (const token of [tokens.editor, tokens.viewer]) {
    expect((await request.post(`${base}/replay-jobs`, { headers: bearer(token), data: { selection: { webhook: hook.uid } } })).status()).toBe(403);
  }
  // Any member may count a selection, as any member may run Backtest.
  expect((await request.post(`${base}/replay-jobs/preview`, { headers: bearer(tokens.viewer), data: { selection: { webhook: hook.uid } } })).status()).toBe(200);
  expect((await request.get(`${base}/replay-jobs/rpl_nope`, { headers: bearer(tokens.viewer) })).status()).toBe(404);
});

test('starts a job that shows progress, completes, and starts each matching run once; a second start is a 409 naming it', async ({ request, tokens }) => {
  const started = await request.post(`${base}/replay-jobs`, { headers: bearer(tokens.admin), data: { selection: { automation: automationId } } });
  expect(started.status(), await started.text()).toBe(201);
  const created = (await started.json()) as Job;
  expect(created).toMatchObject({ status: 'running', total: 10, createdBy: 'admin@acme.test', selection: { webhook: hook.uid, automation: automationId, trigger: 0 } });

  const second = await request.post(`${base}/replay-jobs`, { headers: bearer(tokens.admin), data: { selection: { webhook: hook.uid } } });
  expect(second.status()).toBe(409);
  const conflict = (await second.json()).error;
  expect(conflict.message).toContain(created.id);
  expect(conflict.fields).toEqual({ job: created.id });

  await expect.poll(async () => (await job(request, tokens.viewer, created.id)).status, { timeout: budget(30_000) }).toBe('completed');
  const done = await job(request, tokens.viewer, created.id);
  expect(done).toMatchObject({ total: 10, done: 10, replayed: 10, skipped: 0, runsStarted: 10 });
  const runs = await replayRuns(request, tokens.admin, automationId);
  expect(runs).toHaveLength(10);
  expect(new Set(runs.map((run) => run.delivery!.id)).size).toBe(10);
  const { jobs } = await (await request.get(`${base}/replay-jobs`, { headers: bearer(tokens.viewer) })).json();
  expect(jobs[0]).toMatchObject({ id: created.id, status: 'completed' });
  // A finished job cannot be cancelled.
  expect((await request.post(`${base}/replay-jobs/${created.id}/cancel`, { headers: bearer(tokens.admin) })).status()).toBe(409);
});

test('cancels a job midway: no run starts after the cancel is acknowledged', async ({ request, tokens, baseURL }) => {
  // A webhook of its own (each takes 60 deliveries a minute), and an automation created after they arrived: only the replay starts runs.
  const other = await createWebhook(request, tokens.admin, { name: uniqueName('replay-cancel') });
  await send(baseURL!, other, Array.from({ length: 55 }, (_, i) => JSON.stringify({ kind: 'order', n: 100 + i })));
  const automation = await request.post(`${base}/automations`, {
    headers: bearer(tokens.admin),
    data: { name: uniqueName('cancelled'), prompt: 'Handle it.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [other.uid] } }] },
  });
  expect(automation.status(), await automation.text()).toBe(201);
  const cancelledAutomation = (await automation.json()).automation.id as string;
  automations.push(cancelledAutomation);

  const started = await request.post(`${base}/replay-jobs`, { headers: bearer(tokens.admin), data: { selection: { webhook: other.uid, q: 'order' } } });
  expect(started.status(), await started.text()).toBe(201);
  const { id, total } = (await started.json()) as Job;
  expect(total).toBe(55);
  await expect.poll(async () => (await job(request, tokens.viewer, id)).done, { timeout: budget(20_000) }).toBeGreaterThan(5);
  // Only admins cancel.
  expect((await request.post(`${base}/replay-jobs/${id}/cancel`, { headers: bearer(tokens.editor) })).status()).toBe(403);
  const cancel = await request.post(`${base}/replay-jobs/${id}/cancel`, { headers: bearer(tokens.admin) });
  expect(cancel.status()).toBe(200);
  const cancelled = (await cancel.json()) as Job & { cancelledBy: string };
  expect(cancelled).toMatchObject({ status: 'cancelled', cancelledBy: 'admin@acme.test' });
  expect(cancelled.done).toBeLessThan(total);
  // Each delivery replayed before the cancel started its run; none after.
  expect(cancelled.runsStarted).toBe(cancelled.done);
  const runsAtCancel = (await replayRuns(request, tokens.admin, cancelledAutomation)).length;
  expect(runsAtCancel).toBe(cancelled.runsStarted);
  // About time passing: at 5 a second, a job still running would start several runs in this while; a slower machine watches longer.
  await new Promise((resolve) => setTimeout(resolve, budget(1_500)));
  expect((await replayRuns(request, tokens.admin, cancelledAutomation)).length).toBe(runsAtCancel);
  expect(await job(request, tokens.viewer, id)).toMatchObject({ status: 'cancelled', done: cancelled.done });
});

test('is in the OpenAPI document', async ({ request }) => {
  const doc = await (await request.get('/api/v1/openapi.json')).json();
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining(['/factories/{factory}/replay-jobs', '/factories/{factory}/replay-jobs/preview', '/factories/{factory}/replay-jobs/{id}', '/factories/{factory}/replay-jobs/{id}/cancel']),
  );
});
