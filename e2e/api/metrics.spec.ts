import { randomBytes } from 'node:crypto';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, signedHeaders } from '../fixtures/ingress';
import { deltas, METRICS_TOKEN, scrapeMetrics } from '../fixtures/metrics';

// /metrics after a journey through the ingress shows exactly the counts that
// journey produced, labelled by outcome, auth mode and scheme, never by UID.

test.afterEach(async ({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

test('/metrics is closed without the token', async ({ request }) => {
  expect((await request.get('/metrics')).status()).toBe(401);
  expect((await request.get('/metrics', { headers: { Authorization: 'Bearer wrong-token-wrong-token' } })).status()).toBe(401);
  const response = await request.get('/metrics', { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toContain('text/plain');
});

test('an ingress journey is counted by outcome, auth mode and scheme', async ({ request, tokens, baseURL }) => {
  const token = await createWebhook(request, tokens.admin, { name: 'metrics-token', authMode: 'token' });
  const github = await createWebhook(request, tokens.admin, { name: 'metrics-github', authMode: 'signature', signatureScheme: 'github' });
  const before = await scrapeMetrics(request);

  const auth = { Authorization: `Bearer ${token.secret}`, 'Content-Type': 'application/json' };
  const body = JSON.stringify({ metrics: randomBytes(6).toString('hex') });
  expect((await rawPost(baseURL!, token.url, auth, Buffer.from(body))).status).toBe(202);
  expect((await rawPost(baseURL!, token.url, auth, Buffer.from(body))).status).toBe(202); // duplicate
  expect((await rawPost(baseURL!, token.url, { ...auth, Authorization: 'Bearer wrong' }, Buffer.from(body))).status).toBe(401);
  expect((await rawPost(baseURL!, token.url, auth, Buffer.from('{not json'))).status).toBe(400);
  expect((await rawPost(baseURL!, token.url, auth, Buffer.alloc(300 * 1024, 'a'))).status).toBe(413);
  expect((await request.get(token.url)).status()).toBe(405);
  expect((await rawPost(baseURL!, '/webhooks/w/wh_doesNotExist00000000000', auth, Buffer.from(body))).status).toBe(404);
  const signed = JSON.stringify({ action: 'opened', n: randomBytes(4).toString('hex') });
  expect((await rawPost(baseURL!, github.url, { ...signedHeaders('github', github.secret!, signed), 'X-GitHub-Delivery': randomBytes(8).toString('hex') }, Buffer.from(signed))).status).toBe(202);

  const after = await scrapeMetrics(request);
  const counter = (outcome: string, authMode: string, scheme = 'none') =>
    `tripline_ingress_requests_total{outcome="${outcome}",auth_mode="${authMode}",scheme="${scheme}"}`;
  expect(
    deltas(before, after, [
      counter('accepted', 'token'),
      counter('duplicate', 'token'),
      counter('rejected_auth', 'token'),
      counter('rejected_invalid_json', 'token'),
      counter('rejected_too_large', 'token'),
      counter('method_not_allowed', 'token'),
      counter('not_found', 'unknown'),
      counter('accepted', 'signature', 'github'),
    ]),
  ).toEqual({
    [counter('accepted', 'token')]: 1,
    [counter('duplicate', 'token')]: 1,
    [counter('rejected_auth', 'token')]: 1,
    [counter('rejected_invalid_json', 'token')]: 1,
    [counter('rejected_too_large', 'token')]: 1,
    [counter('method_not_allowed', 'token')]: 1,
    [counter('not_found', 'unknown')]: 1,
    [counter('accepted', 'signature', 'github')]: 1,
  });
  expect(deltas(before, after, ['tripline_ingress_request_duration_seconds_count{outcome="accepted"}'])).toEqual({
    'tripline_ingress_request_duration_seconds_count{outcome="accepted"}': 2,
  });
  // Bounded cardinality: no series names a webhook.
  expect([...after.keys()].filter((key) => key.includes(token.uid) || key.includes(github.uid))).toEqual([]);
  for (const gauge of ['tripline_run_queue_depth', 'tripline_run_queue_oldest_age_seconds', 'tripline_process_resident_memory_bytes']) {
    expect(after.has(gauge), gauge).toBe(true);
  }
  // The API token is not the metrics token.
  expect((await request.get('/metrics', { headers: bearer(tokens.admin) })).status()).toBe(401);
});
