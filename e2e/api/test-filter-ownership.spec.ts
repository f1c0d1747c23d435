import type { Page } from '@playwright/test';
import { callServerAction, signIn } from '../browser/helpers';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, uniqueName } from '../fixtures/ingress';
import { DEFINITIONS_SECRET, seedUsers } from '../fixtures/seed';

// Issue 46 over real HTTP, on each API server: Test filter previews what run
// control would do with a delivery of the asking factory, and only for an
// automation of that factory. Asked by a member of Globex with an automation
// id of Acme (one Globex cannot see), both the API's test-filter and the
// editor's Test filter action answer "no such automation", the same answer as
// for an id that does not exist, and nothing of Acme's automation, its run
// control group or its runs is in the answer.

const acme = '/api/v1/factories/acme';
const globex = '/api/v1/factories/globex';
const refusal = 'No automation with this id in this factory';

test.afterEach(async ({ request, tokens }) => {
  await deleteCreatedWebhooks(request, tokens.admin);
});

test("Test filter refuses another factory's automation, in the API and in the editor's action, and tells nothing of it", async ({ request, tokens, browser, baseURL }) => {
  const acmeAdmin = bearer(tokens.admin);
  const globexAdmin = bearer(tokens.outsider);
  const payload = '{"pull_request":{"number":4711}}';

  // Acme: an automation with run control keyed on the pull request, and a run in its group "4711".
  const acmeHook = await createWebhook(request, tokens.admin, { name: 'owned' });
  const secretWords = { name: uniqueName('acme-private-review'), prompt: 'Acme private prompt: review the pull request.' };
  const createdAcme = await request.post(`${acme}/automations`, {
    headers: acmeAdmin,
    data: {
      ...secretWords,
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [acmeHook.uid] } }],
      runControl: { key: 'pull_request.number', concurrency: {} },
    },
  });
  expect(createdAcme.status(), await createdAcme.text()).toBe(201);
  const acmeAutomation = (await createdAcme.json()).automation as { id: string };

  // Globex: a webhook from its definition files (it is a managed factory) and an automation of its own on it.
  const applied = await request.post(`${globex}/definitions/apply`, {
    headers: globexAdmin,
    data: { files: { 'webhooks/ownership.yaml': 'authMode: token\nsecretName: ORDERS_TOKEN\n' } },
  });
  expect(applied.status(), await applied.text()).toBe(200);
  const globexHook = (await applied.json()).created[0] as { uid: string; ingressUrl: string };
  const createdGlobex = await request.post(`${globex}/automations`, {
    headers: globexAdmin,
    data: { name: uniqueName('globex-own'), prompt: 'p', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [globexHook.uid] } }] },
  });
  expect(createdGlobex.status(), await createdGlobex.text()).toBe(201);
  const globexAutomation = (await createdGlobex.json()).automation as { id: string };
  let page: Page | undefined;

  try {
    // The same payload to each factory's webhook.
    expect((await rawPost(baseURL!, acmeHook.url, { Authorization: `Bearer ${acmeHook.secret}` }, Buffer.from(payload))).status).toBe(202);
    expect((await rawPost(baseURL!, new URL(globexHook.ingressUrl).pathname, { Authorization: `Bearer ${DEFINITIONS_SECRET}` }, Buffer.from(payload))).status).toBe(202);
    const newestAccepted = async (base: string, uid: string, headers: Record<string, string>) =>
      ((await (await request.get(`${base}/webhooks/${uid}/deliveries?status=accepted&limit=1`, { headers })).json()).deliveries[0] as { id: string }).id;
    const acmeEntry = await newestAccepted(acme, acmeHook.uid, acmeAdmin);
    const globexEntry = await newestAccepted(globex, globexHook.uid, globexAdmin);
    const acmeRuns = ((await (await request.get(`${acme}/runs?automation=${acmeAutomation.id}`, { headers: acmeAdmin })).json()).runs as { id: string }[]).map((run) => run.id);
    expect(acmeRuns).toHaveLength(1);

    // In its own factory, Test filter previews the group: what a leak would carry.
    const own = await request.post(`${acme}/automations/${acmeAutomation.id}/test-filter`, { headers: bearer(tokens.viewer), data: { trigger: 0, deliveryId: acmeEntry } });
    expect(own.status()).toBe(200);
    expect((await own.json()).runControl).toMatchObject({ group: '4711', summary: expect.stringMatching(/^would /) });

    // Globex asks with its own delivery and its own automation: answered.
    const globexOwn = await request.post(`${globex}/automations/${globexAutomation.id}/test-filter`, { headers: globexAdmin, data: { trigger: 0, deliveryId: globexEntry } });
    expect(globexOwn.status()).toBe(200);
    expect((await globexOwn.json()).wouldTrigger).toBe(true);

    // The leak's words: anything of Acme's automation, group and runs beyond the id the caller sent.
    const leaks = (text: string) =>
      [secretWords.name, secretWords.prompt, acmeHook.uid, acmeEntry, '4711', 'would ', 'runControl', ...acmeRuns].filter((word) => text.includes(word));

    // The API: Globex's delivery with Acme's automation id in Globex's path, by a Globex admin.
    const asked = await request.post(`${globex}/automations/${acmeAutomation.id}/test-filter`, { headers: globexAdmin, data: { trigger: 0, deliveryId: globexEntry } });
    expect(asked.status()).toBe(404);
    const askedText = await asked.text();
    expect(JSON.parse(askedText)).toEqual({ error: { code: 'not_found', message: refusal } });
    expect(leaks(askedText)).toEqual([]);
    // The same answer as for an automation that does not exist.
    const missing = await request.post(`${globex}/automations/no-such-automation/test-filter`, { headers: globexAdmin, data: { trigger: 0, deliveryId: globexEntry } });
    expect(missing.status()).toBe(404);
    expect(await missing.json()).toEqual(JSON.parse(askedText));
    // Acme's path is not Globex's to use either.
    expect((await request.post(`${acme}/automations/${acmeAutomation.id}/test-filter`, { headers: globexAdmin, data: { trigger: 0, deliveryId: globexEntry } })).status()).toBe(404);

    // The editor's Test filter action, called as its form calls it, by the Globex admin signed in:
    // a trigger on Globex's webhook, Globex's delivery, and Acme's automation id for the preview.
    const outsider = seedUsers.find((user) => user.key === 'outsider')!;
    page = await (await browser.newContext({ baseURL })).newPage();
    await signIn(page, outsider.email, outsider.password);
    const trigger = { provider: 'webhook', event: 'received', filter: { webhook_ids: [globexHook.uid] } };
    const action = (automationId?: string) =>
      callServerAction(page!, `/f/globex/automations/${globexAutomation.id}`, 'testTriggerAction', [
        'globex',
        { trigger, deliveryId: globexEntry, automationEnabled: true, ...(automationId ? { automationId } : {}) },
      ]);
    // Without an automation id the same call is answered (so the refusal below is the id's).
    const answered = await action();
    expect(answered).toContain('"ok":true');
    expect(answered).toContain('"wouldTrigger":true');
    const refused = await action(acmeAutomation.id);
    expect(refused).toContain('"ok":false');
    expect(refused).toContain(refusal);
    expect(refused).not.toContain('"wouldTrigger"');
    expect(leaks(refused)).toEqual([]);
    // Its own automation's id is answered, with no preview (it has no run control).
    const ownAction = await action(globexAutomation.id);
    expect(ownAction).toContain('"ok":true');
    expect(ownAction).not.toContain('runControl');
  } finally {
    await page?.context().close();
    await request.delete(`${acme}/automations/${acmeAutomation.id}`, { headers: acmeAdmin });
    await request.delete(`${globex}/automations/${globexAutomation.id}`, { headers: globexAdmin });
    // Globex's definitions as the other specs expect them: none.
    expect((await request.post(`${globex}/definitions/apply`, { headers: globexAdmin, data: { files: {} } })).status()).toBe(200);
  }
});
