import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, uniqueName } from '../fixtures/ingress';

// Run control's settings over real HTTP, on embedded PGlite and on
// PostgreSQL: set on create, read back with their defaults, changed, left
// alone by a change that does not name them, cleared with null; a bad value
// is a 422 naming the field in the schema's words; the OpenAPI document
// describes them; a run's JSON carries its outcome.

const base = '/api/v1/factories/acme';
const created: string[] = [];

test.afterEach(async ({ request, tokens }) => {
  for (const id of created.splice(0)) await request.delete(`${base}/automations/${id}`, { headers: bearer(tokens.admin) });
  await deleteCreatedWebhooks(request, tokens.admin);
});

test('run control is set, read, changed, kept and cleared', async ({ request, tokens }) => {
  const headers = bearer(tokens.editor);
  const response = await request.post(`${base}/automations`, {
    headers,
    data: { name: uniqueName('rc'), prompt: 'Review it.', runControl: { key: ['repository.full_name', 'pull_request.number'], concurrency: { whenFull: 'cancel-running' } } },
  });
  expect(response.status(), await response.text()).toBe(201);
  const { automation } = await response.json();
  created.push(automation.id);
  expect(automation.runControl).toEqual({ key: ['repository.full_name', 'pull_request.number'], concurrency: { limit: 1, whenFull: 'cancel-running' } });

  const read = await request.get(`${base}/automations/${automation.id}`, { headers: bearer(tokens.viewer) });
  expect((await read.json()).automation.runControl).toEqual(automation.runControl);

  const changed = await request.patch(`${base}/automations/${automation.id}`, {
    headers,
    data: { runControl: { key: '$header.x-tenant', debounce: { periodSeconds: 60, maxWaitSeconds: 600 }, throttle: { limit: 10, periodSeconds: 60, queueLimit: 50 } } },
  });
  expect(changed.status(), await changed.text()).toBe(200);
  const settings = { key: '$header.x-tenant', debounce: { periodSeconds: 60, maxWaitSeconds: 600 }, throttle: { limit: 10, periodSeconds: 60, queueLimit: 50 } };
  expect((await changed.json()).automation.runControl).toEqual(settings);

  const renamed = await request.patch(`${base}/automations/${automation.id}`, { headers, data: { name: uniqueName('rc-renamed') } });
  expect((await renamed.json()).automation.runControl).toEqual(settings);

  const listed = await request.get(`${base}/automations?limit=100`, { headers });
  const inList = (await listed.json()).automations.find((a: { id: string }) => a.id === automation.id);
  expect(inList.runControl).toEqual(settings);

  const cleared = await request.patch(`${base}/automations/${automation.id}`, { headers, data: { runControl: null } });
  expect(cleared.status()).toBe(200);
  expect((await cleared.json()).automation.runControl).toBeNull();
  expect((await (await request.get(`${base}/automations/${automation.id}`, { headers })).json()).automation.runControl).toBeNull();
});

test('a bad setting is a 422 naming the field, and nothing changes', async ({ request, tokens }) => {
  const headers = bearer(tokens.editor);
  const response = await request.post(`${base}/automations`, { headers, data: { name: uniqueName('rc-bad'), prompt: 'p', runControl: { concurrency: { limit: 2 } } } });
  const { automation } = await response.json();
  created.push(automation.id);

  const cases: [unknown, string, string][] = [
    [{ concurrency: { limit: 101 } }, 'runControl.concurrency.limit', 'The concurrency limit is at most 100'],
    [{ concurrency: { whenFull: 'drop' } }, 'runControl.concurrency.whenFull', 'When the group is full, choose one of queue-newest, queue-all, cancel-running, skip'],
    [{ debounce: { periodSeconds: 0 } }, 'runControl.debounce.periodSeconds', 'The debounce period is at least 1 second'],
    [{ debounce: { periodSeconds: 60, maxWaitSeconds: 30 } }, 'runControl.debounce.maxWaitSeconds', 'The maximum wait cannot be shorter than the debounce period'],
    [{ rateLimit: { limit: 1, periodSeconds: 60, queueLimit: 5 } }, 'runControl.rateLimit', 'rate limit holds limit and periodSeconds'],
    [{ key: [], concurrency: {} }, 'runControl.key', 'List at least one key part'],
  ];
  for (const [runControl, field, message] of cases) {
    const bad = await request.patch(`${base}/automations/${automation.id}`, { headers, data: { runControl } });
    expect(bad.status(), JSON.stringify(runControl)).toBe(422);
    const { error } = await bad.json();
    expect(error.code).toBe('validation_failed');
    expect(error.fields[field], JSON.stringify(error.fields)).toContain(message);
  }
  const after = await request.get(`${base}/automations/${automation.id}`, { headers });
  expect((await after.json()).automation.runControl).toEqual({ concurrency: { limit: 2, whenFull: 'queue-newest' } });

  // A viewer cannot set it.
  const viewer = await request.patch(`${base}/automations/${automation.id}`, { headers: bearer(tokens.viewer), data: { runControl: null } });
  expect(viewer.status()).toBe(403);
});

test('the OpenAPI document describes run control and outcomes', async ({ request }) => {
  const document = await (await request.get('/api/v1/openapi.json')).json();
  const control = document.components.schemas.RunControl;
  expect(control.additionalProperties).toBe(false);
  expect(control.properties.concurrency.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 1 });
  expect(control.properties.concurrency.properties.whenFull).toMatchObject({ enum: ['queue-newest', 'queue-all', 'cancel-running', 'skip'], default: 'queue-newest' });
  expect(control.properties.debounce.properties.periodSeconds).toMatchObject({ minimum: 1, maximum: 86400 });
  for (const [name, property] of Object.entries(control.properties as Record<string, { description?: string }>)) expect(property.description, name).toBeTruthy();
  expect(control.examples.length).toBeGreaterThan(0);
  const create = document.paths['/factories/{factory}/automations'].post.requestBody.content['application/json'].schema;
  expect(create.properties.runControl.anyOf).toEqual([{ $ref: '#/components/schemas/RunControl' }, { type: 'null' }]);
  expect(document.components.schemas.RunOutcome.properties.kind.enum).toContain('superseded');
  expect(document.components.schemas.RunSummary.properties.outcome).toEqual({ $ref: '#/components/schemas/RunOutcome' });
});

test('a run’s JSON, in the list, on its own and in Why not, carries its outcome', async ({ request, tokens, baseURL }) => {
  const headers = bearer(tokens.admin);
  const hook = await createWebhook(request, tokens.admin, { name: 'rc-outcome' });
  const response = await request.post(`${base}/automations`, {
    headers,
    data: { name: uniqueName('rc-run'), prompt: 'p', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [hook.uid] } }] },
  });
  const { automation } = await response.json();
  created.push(automation.id);
  const posted = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}` }, Buffer.from('{"n":1}'));
  expect(posted.status, posted.body).toBe(202);

  // The server executes runs: once this one has ended, the three views cannot read it at different moments.
  const list = async () => (await (await request.get(`${base}/runs?automation=${automation.id}`, { headers })).json()).runs;
  await expect.poll(async () => (await list()).map((r: { status: string }) => r.status), { timeout: budget(30_000) }).toEqual(['succeeded']);
  const runs = await list();
  expect(runs[0].outcome).toEqual({ kind: 'started', text: 'Started a run' });
  expect(runs[0].controlKey).toBeNull();
  const { run } = await (await request.get(`${base}/runs/${runs[0].id}`, { headers })).json();
  expect(run).toMatchObject({ status: 'succeeded', outcome: { kind: 'started', text: 'Started a run' } });

  const why = await (await request.get(`${base}/webhooks/${hook.uid}/deliveries/${runs[0].delivery.id}/automations`, { headers })).json();
  const explained = why.automations.find((a: { automation: { id: string } }) => a.automation.id === automation.id);
  expect(explained.run).toEqual({ id: run.id, status: run.status, replay: false, outcome: { kind: 'started', text: 'Started a run' } });
});
