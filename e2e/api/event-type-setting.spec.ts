import type { APIResponse } from '@playwright/test';
import { bearer, expect, test } from '../fixtures/api';

// The Event type setting of a bearer or URL token webhook over real HTTP, on
// each API server: set through the API, read by the ingress (the type is in
// the delivery log), changed with PATCH, and refused at the field when wrong.

const base = '/api/v1/factories/acme';
const run = Date.now().toString(36);
const name = (stem: string) => `${stem}-${run}`;

test.describe.configure({ mode: 'serial' });

test('a bearer webhook’s deliveries carry the type its Event type setting names; PATCH changes where it is read', async ({ request, tokens }) => {
  const admin = bearer(tokens.admin);
  const created = await request.post(`${base}/webhooks`, { headers: admin, data: { name: name('typed'), eventTypeHeader: 'X-Job-Kind' } });
  expect(created.status()).toBe(201);
  const { webhook, secret, ingressUrl } = await created.json();
  expect(webhook).toMatchObject({ authMode: 'token', eventTypeHeader: 'x-job-kind', eventTypePath: null });
  const send = async (data: unknown, headers: Record<string, string> = {}) =>
    expect((await request.post(ingressUrl, { data, headers: { Authorization: `Bearer ${secret}`, ...headers } })).status()).toBe(202);
  const types = async () => {
    const response = await request.get(`${base}/webhooks/${webhook.uid}/deliveries`, { headers: admin });
    expect(response.status()).toBe(200);
    return ((await response.json()).deliveries as { eventType: string | null }[]).map((entry) => entry.eventType);
  };

  await send({ n: 1 }, { 'X-Job-Kind': 'build.finished' });
  await send({ n: 2 }, { 'x-job-kind': 'deploy.started' });
  await send({ n: 3 });
  expect(await types()).toEqual([null, 'deploy.started', 'build.finished']);

  const patched = await request.patch(`${base}/webhooks/${webhook.uid}`, { headers: admin, data: { eventTypeHeader: null, eventTypePath: 'data.kind' } });
  expect(patched.status()).toBe(200);
  expect((await patched.json()).webhook).toMatchObject({ eventTypeHeader: null, eventTypePath: 'data.kind' });
  await send({ data: { kind: 'nightly' } }, { 'X-Job-Kind': 'ignored.now' });
  expect((await types())[0]).toBe('nightly');
  // A type the body names with a control character, or one that is not text, is stored as none: never a rejection.
  await send({ data: { kind: 'night\u0000ly' } });
  expect((await types())[0]).toBeNull();
  await send({ data: { kind: { nested: true } } });
  expect((await types())[0]).toBeNull();
  await send({ data: { kind: 'k'.repeat(10_240) } });
  expect((await types())[0]).toBeNull();

  expect((await request.delete(`${base}/webhooks/${webhook.uid}`, { headers: admin })).status()).toBe(204);
});

test('bad Event type settings get 422 with the field named', async ({ request, tokens }) => {
  const admin = bearer(tokens.admin);
  const fieldsOf = async (response: APIResponse) => {
    expect(response.status()).toBe(422);
    return (await response.json()).error.fields as Record<string, string>;
  };
  const create = (data: Record<string, unknown>) => request.post(`${base}/webhooks`, { headers: admin, data: { name: name('bad'), ...data } });

  expect(await fieldsOf(await create({ eventTypePath: 'data..kind' }))).toEqual({ eventTypePath: expect.stringMatching(/single dots/) });
  expect(await fieldsOf(await create({ eventTypeHeader: 'X-Kind: build' }))).toEqual({ eventTypeHeader: expect.stringMatching(/header name/) });
  expect(await fieldsOf(await create({ eventTypeHeader: 'X-Kind', eventTypePath: 'kind' }))).toEqual({ eventTypePath: expect.stringMatching(/not both/) });
  expect(await fieldsOf(await create({ authMode: 'signature', signatureScheme: 'github', providerSecret: 's', eventTypeHeader: 'X-GitHub-Event' }))).toEqual({
    eventTypeHeader: expect.stringMatching(/provider scheme/),
  });

  const github = await request.post(`${base}/webhooks`, { headers: admin, data: { name: name('gh-typed'), authMode: 'signature', signatureScheme: 'github', providerSecret: 's' } });
  expect(github.status()).toBe(201);
  const uid = (await github.json()).webhook.uid;
  expect(await fieldsOf(await request.patch(`${base}/webhooks/${uid}`, { headers: admin, data: { eventTypePath: 'action' } }))).toEqual({
    eventTypePath: expect.stringMatching(/provider scheme/),
  });
  expect(await fieldsOf(await request.patch(`${base}/webhooks/${uid}`, { headers: admin, data: { eventTypePath: '$.action' } }))).toEqual({
    eventTypePath: expect.stringMatching(/leading \$/),
  });
  expect((await request.delete(`${base}/webhooks/${uid}`, { headers: admin })).status()).toBe(204);
});
