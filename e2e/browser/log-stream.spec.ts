import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { completeFirstRunIfNeeded, createWebhook, setUpFactory } from './helpers';

// The stream of a webhook's log read with the dashboard's session cookie, no
// API token: an EventSource in a signed-in page hears a delivery, and a
// session, like a token, holds at most five streams.

const admin = { name: 'Sol Stream', email: 'sol@log-stream.test', password: 'sol password 1234' };
const viewer = { name: 'Ves Viewer', email: 'ves@log-stream.test', password: 'ves password 1234' };
const factory = { name: 'Stream Desk', slug: 'stream-desk' };

test('a signed-in page reads the log stream with its session, within the session’s limit', async ({ browser, request }) => {
  test.setTimeout(budget(120_000));
  await completeFirstRunIfNeeded(browser);
  const page = await setUpFactory(browser, { admin, factory, member: viewer, role: 'viewer' });
  const hook = await createWebhook(page, factory.slug, 'streamed');
  const streamPath = `/api/v1/factories/${factory.slug}/webhooks/${hook.uid}/deliveries/stream`;

  await page.evaluate((path) => {
    const w = window as unknown as { events: string[]; source: EventSource };
    w.events = [];
    w.source = new EventSource(path);
    w.source.addEventListener('delivery', (event) => w.events.push((event as MessageEvent<string>).data));
  }, streamPath);
  await expect.poll(() => page.evaluate(() => (window as unknown as { source: EventSource }).source.readyState)).toBe(1);
  const response = await request.post(hook.url, { headers: { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json' }, data: Buffer.from('{"from":"the browser test"}') });
  expect(response.status()).toBe(202);
  await expect.poll(() => page.evaluate(() => (window as unknown as { events: string[] }).events.length), { timeout: budget(15_000) }).toBe(1);
  const entry = JSON.parse(await page.evaluate(() => (window as unknown as { events: string[] }).events[0]!));
  expect(entry).toMatchObject({ status: 'accepted', body: '{"from":"the browser test"}', headers: { authorization: '[redacted]' } });

  // Four more streams fill the session's five; the sixth is refused with a message.
  const refused = await page.evaluate(async (path) => {
    const controllers = [];
    for (let i = 0; i < 4; i++) {
      const controller = new AbortController();
      const opened = await fetch(path, { signal: controller.signal });
      if (opened.status !== 200) return { status: opened.status, message: 'an earlier stream was refused' };
      controllers.push(controller);
    }
    const sixth = await fetch(path);
    const result = { status: sixth.status, message: ((await sixth.json()) as { error: { message: string } }).error.message };
    for (const controller of controllers) controller.abort();
    return result;
  }, streamPath);
  expect(refused).toEqual({ status: 429, message: expect.stringMatching(/^This browser session already has 5 open streams/) });

  // Without a session or a token: 401.
  expect((await request.get(streamPath)).status()).toBe(401);
  await page.evaluate(() => (window as unknown as { source: EventSource }).source.close());
  await page.context().close();
});
