import pg from 'pg';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';

// The ingress's waiting budget (lib/ingress/limits.ts, INGRESS_WAITING) over
// real HTTP: while another session holds a lock that stops every insert into
// the log, the deliveries the database already holds wait for it, and those
// queued behind them are answered 503 with Retry-After after 10 s instead of
// piling up in the server's memory. Nothing of a refused delivery is written,
// so the sender's retry is accepted once the database answers again.

test.afterEach(async ({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

test('deliveries queued behind a stuck database get 503 with Retry-After after 10 s; the held ones are written, and a retry is accepted', async ({
  request,
  tokens,
}) => {
  test.setTimeout(budget(90_000));
  const hook = await createWebhook(request, tokens.admin, { name: 'waiting' });
  const send = (n: number) => request.post(hook.url, { data: { n }, headers: { Authorization: `Bearer ${hook.secret}`, 'X-Service-Delivery-Id': `wait-${n}` }, timeout: budget(60_000) });
  const client = new pg.Client({ connectionString: process.env.E2E_API_POSTGRES_DATABASE_URL });
  await client.connect();
  try {
    await client.query('BEGIN');
    // Reads go on (the log, the dashboard); every insert into the log waits.
    await client.query('LOCK TABLE "Delivery" IN EXCLUSIVE MODE');
    // The ingress writes three batches at once on PostgreSQL: these three are taken at once and
    // held by the lock, each an accepting statement waiting on it...
    const held = [1, 2, 3].map(send);
    const blocked = `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO "DeliveryIdentity"%'`;
    const heldStatements = async () => {
      // pg_stat_activity lists the sessions as they were at its first read in a transaction: read them anew.
      await client.query('SELECT pg_stat_clear_snapshot()');
      return (await client.query(blocked)).rows[0].n;
    };
    await expect.poll(heldStatements).toBe(3);
    // ...and these two wait in the server's queue behind them.
    const started = Date.now();
    const queued = await Promise.all([4, 5].map(send));
    const waited = Date.now() - started;
    for (const response of queued) {
      expect(response.status()).toBe(503);
      expect(response.headers()['retry-after']).toBe('5');
      expect((await response.json()).error).toEqual({ code: 'unavailable', message: 'Temporarily unavailable: retry later' });
    }
    expect(waited).toBeGreaterThanOrEqual(9_500);
    await client.query('ROLLBACK');
    for (const response of await Promise.all(held)) expect(response.status()).toBe(202);
  } finally {
    await client.end();
  }
  // The sender retries the refused two: accepted, each once.
  for (const n of [4, 5]) expect((await send(n)).status()).toBe(202);
  const { deliveries } = await (await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries`, { headers: bearer(tokens.admin) })).json();
  expect(deliveries.map((d: { deliveryId: string; status: string }) => `${d.deliveryId} ${d.status}`).sort()).toEqual(
    [1, 2, 3, 4, 5].map((n) => `wait-${n} accepted`),
  );
});
