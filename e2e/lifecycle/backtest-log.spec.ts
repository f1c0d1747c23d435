import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { METRICS_TOKEN, scrapeMetrics } from '../fixtures/metrics';
import { migratedDataDir, type RunningServer, seedWebhook, serverEnv, startServer } from '../servers';

// Backtest counts the whole retained log, not the latest 100: a server of its
// own (so the delivery rate limit can be raised, as an operator would) takes
// 150 deliveries over HTTP, and Backtest counts all of them, first before the
// housekeeping job has copied the bodies to jsonb (TypeScript) and again
// after (SQL), with the same answer.

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 7;
const DELIVERIES = 150;
// The examples Backtest lists are the newest deliveries, back to evt-135: from there on they are sent
// one at a time, in order, after the others, which four senders send side by side.
const IN_ORDER_FROM = 135;
const SENDERS = 4;
const actions = ['opened', 'closed', 'reopened'];

let server: RunningServer | undefined;
test.afterAll(async () => {
  await server?.stop();
});

test('Backtest counts every retained delivery of the webhook, more than the latest 100', async ({ request }) => {
  test.setTimeout(budget(120_000));
  const env = serverEnv(migratedDataDir('backtest'), `http://localhost:${port}`, { TRIPLINE_DELIVERY_RATE_LIMIT: '1000', TRIPLINE_METRICS_TOKEN: METRICS_TOKEN });
  const { token, uid, secret } = seedWebhook(env, 'log', 'github');
  server = await startServer('backtest-log', port, env);

  const send = async (i: number) => {
    const response = await fetch(`${server!.url}/webhooks/w/${uid}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', 'X-Service-Delivery-Id': `evt-${i}` },
      body: JSON.stringify({ action: actions[i % 3], number: i, pull_request: { draft: i % 2 === 0 } }),
    });
    expect(response.status).toBe(202);
  };
  const sendingStarted = Date.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, sender) => {
      for (let i = sender; i < IN_ORDER_FROM; i += SENDERS) await send(i);
    }),
  );
  for (let i = IN_ORDER_FROM; i < DELIVERIES; i++) await send(i);
  console.log(`${DELIVERIES} deliveries sent in ${Date.now() - sendingStarted} ms`);

  const backtest = async () => {
    const response = await fetch(`${server!.url}/api/v1/factories/log/automations/backtest`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ trigger: { provider: 'webhook', event: 'received', filter: { webhook_ids: [uid], payload: { action: 'opened', pull_request: { draft: false } } } }, limit: 3 }),
    });
    expect(response.status).toBe(200);
    return response.json();
  };
  // opened (i % 3 === 0) and not a draft (odd i): i % 6 === 3, 25 of 150.
  const both = ['path "action": expected "opened", got %s (different value)', 'path "pull_request.draft": expected false, got true (different value)'];
  const expected = {
    tested: DELIVERIES,
    wouldTrigger: 25,
    deliveries: [
      { deliveryId: 'evt-149', wouldTrigger: false, failures: [both[0]!.replace('%s', '"reopened"')] },
      { deliveryId: 'evt-148', wouldTrigger: false, failures: [both[0]!.replace('%s', '"closed"'), both[1]] },
      { deliveryId: 'evt-147', wouldTrigger: true, failures: [] },
      { deliveryId: 'evt-146', wouldTrigger: false, failures: [both[0]!.replace('%s', '"reopened"'), both[1]] },
      { deliveryId: 'evt-141', wouldTrigger: true, failures: [] },
      { deliveryId: 'evt-135', wouldTrigger: true, failures: [] },
    ],
  };
  const summary = (body: { tested: number; wouldTrigger: number; deliveries: { deliveryId: string; wouldTrigger: boolean; failures: string[] }[] }) => ({
    tested: body.tested,
    wouldTrigger: body.wouldTrigger,
    deliveries: body.deliveries.map(({ deliveryId, wouldTrigger, failures }) => ({ deliveryId, wouldTrigger, failures })),
  });
  expect(summary(await backtest())).toEqual(expected);
  // Then the count comes from SQL, once the housekeeping job (every 5 s) has copied every body to jsonb.
  await expect
    .poll(async () => (await scrapeMetrics(request, server!.url)).get('tripline_backtest_copies_total') ?? 0, { timeout: budget(30_000) })
    .toBeGreaterThanOrEqual(DELIVERIES);
  expect(summary(await backtest())).toEqual(expected);
});
