import fs from 'node:fs';
import path from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { screenshot, signIn } from '../browser/helpers';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, uniqueName } from '../fixtures/ingress';
import { groupProcesses } from '../fixtures/runs';
import { seedUsers } from '../fixtures/seed';

// Cancelling a run over real HTTP, with the real command executor: the
// servers run e2e/fixtures/agent.mjs, which for {"sleeper": true} starts a
// child that sleeps (holding none of the run's pipes) and works until
// stopped. Cancelled through the API, and with the run page's button, the
// run ends Cancelled, and `ps` finds no live process of its group: neither
// the agent nor its child.

const base = '/api/v1/factories/acme';
const editor = seedUsers.find((user) => user.key === 'editor')!;
const created: string[] = [];

test.afterEach(async ({ request, tokens }) => {
  for (const id of created.splice(0)) await request.delete(`${base}/automations/${id}`, { headers: bearer(tokens.admin) });
  await deleteCreatedWebhooks(request, tokens.admin);
});

/** Starts a sleeper run; once its agent and child are up, its ID and process group. */
async function startSleeper(request: APIRequestContext, tokens: { admin: string; editor: string }, baseURL: string) {
  const hook = await createWebhook(request, tokens.admin, { name: uniqueName('cancel') });
  const response = await request.post(`${base}/automations`, {
    headers: bearer(tokens.editor),
    data: { name: uniqueName('sleeper'), prompt: 'Work until stopped.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [hook.uid] } }] },
  });
  expect(response.status()).toBe(201);
  const { automation } = (await response.json()) as { automation: { id: string } };
  created.push(automation.id);
  const sent = await rawPost(baseURL, hook.url, { Authorization: `Bearer ${hook.secret}` }, Buffer.from('{"sleeper": true}'));
  expect(sent.status, sent.body).toBe(202);

  let runId = '';
  await expect.poll(async () => (runId = (await (await request.get(`${base}/runs?automation=${automation.id}`, { headers: bearer(tokens.editor) })).json()).runs[0]?.id ?? '')).not.toBe('');
  const groups = path.join(path.dirname(process.env.E2E_AGENT_LOG!), 'groups.log');
  let pgid = '';
  await expect
    .poll(() => {
      const line = fs.existsSync(groups) ? fs.readFileSync(groups, 'utf8').split('\n').find((entry) => entry.startsWith(`${runId} `)) : undefined;
      return (pgid = line?.split(' ')[1] ?? '');
    })
    .not.toBe('');
  // The shell, the agent and its sleeping child.
  await expect.poll(() => groupProcesses(pgid).length).toBeGreaterThanOrEqual(2);
  return { runId, pgid, automationId: automation.id };
}

type RunJson = { status: string; output: string | null; error: string | null; cancel: { requestedAt: string; delivery: unknown; by: string | null } | null };

async function cancelledRun(request: APIRequestContext, token: string, id: string): Promise<RunJson> {
  let run: RunJson | undefined;
  await expect.poll(async () => (run = (await (await request.get(`${base}/runs/${id}`, { headers: bearer(token) })).json()).run as RunJson).status).toBe('cancelled');
  return run!;
}

test('a run cancelled through the API stops its program and every process of its group, and says so', async ({ request, tokens, baseURL }) => {
  const { runId, pgid } = await startSleeper(request, tokens, baseURL!);

  // Viewers read runs but cannot cancel them; another factory's member does not find it.
  expect((await request.post(`${base}/runs/${runId}/cancel`, { headers: bearer(tokens.viewer) })).status()).toBe(403);
  expect((await request.post(`${base}/runs/${runId}/cancel`, { headers: bearer(tokens.outsider) })).status()).toBe(404);

  const response = await request.post(`${base}/runs/${runId}/cancel`, { headers: bearer(tokens.editor) });
  expect(response.status()).toBe(200);
  expect((await response.json()).run).toMatchObject({ id: runId, cancel: { by: editor.email, delivery: null, requestedAt: expect.any(String) } });

  const run = await cancelledRun(request, tokens.viewer, runId);
  expect(run.output).toContain(`agent: working until stopped; process group ${pgid}`);
  expect(run.error).toBe('The run was cancelled while the command ran: its process group received SIGTERM and ended within the grace period');
  expect(groupProcesses(pgid)).toEqual([]);

  // Again: nothing changes, the first canceller stays on record.
  const again = await request.post(`${base}/runs/${runId}/cancel`, { headers: bearer(tokens.admin) });
  expect(again.status()).toBe(200);
  expect((await again.json()).run).toMatchObject({ status: 'cancelled', cancel: { by: editor.email } });
});

test('Cancel run on the run page asks first, then the page explains the Cancelled run', async ({ request, tokens, baseURL, page }) => {
  const { runId, pgid, automationId } = await startSleeper(request, tokens, baseURL!);
  await signIn(page, editor.email, editor.password);
  await page.goto(`/f/acme/automations/${automationId}/runs/${runId}`);
  await page.getByRole('button', { name: 'Cancel run' }).click();
  const dialog = page.locator('dialog[open]');
  await expect(dialog).toContainText('SIGTERM');
  await dialog.getByRole('button', { name: 'Cancel run' }).click();

  const outcome = page.getByRole('region', { name: 'Outcome' });
  await expect(outcome.getByText('The run was cancelled', { exact: true })).toBeVisible();
  await expect(outcome).toContainText(`Cancelled by ${editor.email}. The worker stopped the agent`);
  await expect(page.getByText('Cancelled', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
  await screenshot(page, `run-cancelled-${test.info().project.name}`);
  expect((await cancelledRun(request, tokens.viewer, runId)).cancel).toMatchObject({ by: editor.email });
  expect(groupProcesses(pgid)).toEqual([]);
});
