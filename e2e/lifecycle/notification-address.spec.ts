import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { startReceiver } from '../fixtures/receiver';
import { cli, migratedDataDir, serverEnv, startServer, type RunningServer } from '../servers';

// A notification destination is checked again at every send, not only when it
// is saved. An operator who allowed private addresses, saved a destination at
// an IP address on the server's network, then took the allowance back must see
// its notifications refused from the next send on. Node makes no DNS lookup for
// an address literal such as 127.0.0.1, so the check cannot live in the lookup.

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 8;

test('a destination at a private IP address saved while allowed is refused at send once the allowance is gone', async ({ request }) => {
  const base = serverEnv(migratedDataDir('notification-address'), `http://localhost:${port}`, { TRIPLINE_HEALTH_INTERVAL: '1' });
  const receiver = await startReceiver();
  cli(base, ['setup', '--email', 'ops@example.test', '--password-stdin', '--factory', 'ops', '--factory-name', 'Ops'], `pw-${randomBytes(6).toString('hex')}`);
  const auth = { Authorization: `Bearer ${cli(base, ['token', 'create', '--email', 'ops@example.test'])}` };
  const destinations = '/api/v1/factories/ops/notifications/destinations';
  let server: RunningServer = await startServer('notification-address-1', port, { ...base, TRIPLINE_NOTIFICATION_ALLOW: 'http,private' });
  let id: string;
  try {
    // receiver.url is http://127.0.0.1:<port>: an address literal.
    const created = await request.post(`${server.url}${destinations}`, { headers: auth, data: { name: 'on the LAN', kind: 'slack', url: `${receiver.url}/hook` } });
    expect(created.status(), await created.text()).toBe(201);
    id = (await created.json()).destination.id;
    expect((await request.post(`${server.url}${destinations}/${id}/test`, { headers: auth })).status()).toBe(202);
    await expect.poll(() => receiver.received.length, { timeout: budget(30_000) }).toBe(1);
  } finally {
    await server.stop();
  }

  server = await startServer('notification-address-2', port, { ...base, TRIPLINE_NOTIFICATION_ALLOW: 'http' });
  try {
    const test = await request.post(`${server.url}${destinations}/${id}/test`, { headers: auth });
    expect(test.status()).toBe(202);
    const { eventId } = await test.json();
    const outcome = async () => {
      const { notifications } = await (await request.get(`${server.url}/api/v1/factories/ops/notifications`, { headers: auth })).json();
      return notifications.find((n: { eventId: string }) => n.eventId === eventId) as { status: string; error: string | null; attempts: number };
    };
    await expect.poll(async () => (await outcome())?.error ?? null, { timeout: budget(30_000) }).toMatch(/^Refused: private address/);
    expect(await outcome()).toMatchObject({ status: 'pending' });
    expect(receiver.received).toHaveLength(1);
  } finally {
    await server.stop();
    await receiver.close();
  }
});
