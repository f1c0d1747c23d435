import { servers } from '../../playwright.config';
import { expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost } from '../fixtures/ingress';
import { openStream } from '../fixtures/listen';

// Two instances on one PostgreSQL database, as behind a load balancer: a
// delivery the second accepts reaches a log stream open on the first.

const base = '/api/v1/factories/acme';

test.afterEach(async ({ request, tokens }) => {
  await deleteCreatedWebhooks(request, tokens.admin);
});

test('a delivery accepted by the second instance reaches a stream on the first', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'instances' });
  const opened = Date.now();
  const stream = await openStream(`${baseURL}${base}/webhooks/${hook.uid}/deliveries/stream`, tokens.admin);
  const sent = Date.now();
  const response = await rawPost(servers.apiPostgresB, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json' }, Buffer.from('{"via":"instance b"}'));
  expect(response.status, response.body).toBe(202);
  const [event] = await stream.take(1);
  expect(JSON.parse(event!.data)).toMatchObject({ status: 'accepted', body: '{"via":"instance b"}', headers: { authorization: '[redacted]' } });
  const heard = Date.now();
  test.info().annotations.push({ type: 'measured', description: `heard on the first instance ${heard - sent} ms after it was sent to the second` });
  // Heard through the first instance's poll of the log (every second), not at its first heartbeat (15 s after the
  // stream opened, lib/domain/deliveries/stream.ts), after which a stream reads the log whether it polls or not.
  const sinceOpened = heard - opened;
  expect(sinceOpened).toBeLessThan(15_000);
  await stream.close();
});
