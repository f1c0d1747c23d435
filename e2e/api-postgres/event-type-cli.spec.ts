import { bearer, expect, test } from '../fixtures/api';
import { cli } from '../servers';

// `tripline webhook event-type` against the PostgreSQL server's database while
// it runs, as an operator would: the server reads the new setting on the next
// delivery, a wrong path is refused with the same message the API gives, and
// the setting is removed with neither option.

test('the CLI sets, changes and removes a webhook’s Event type setting, and the running server follows', async ({ request, tokens }) => {
  const env = JSON.parse(process.env.E2E_API_POSTGRES_CLI_ENV!) as Record<string, string>;
  const admin = bearer(tokens.admin);
  const base = '/api/v1/factories/acme';
  const tripline = (...args: string[]) => cli(env, ['webhook', ...args, '--factory', 'acme']);

  const created = tripline('create', '--name', `cli-typed-${Date.now().toString(36)}`, '--event-type-header', 'X-Job-Kind');
  const line = (label: string) => new RegExp(`^${label}: (\\S+)$`, 'm').exec(created)?.[1] ?? '';
  const [uid, secret] = [line('uid'), line('secret')];
  const ingressUrl = new URL(line('ingress URL')).pathname;
  const send = async (data: unknown, headers: Record<string, string> = {}) =>
    expect((await request.post(ingressUrl, { data, headers: { Authorization: `Bearer ${secret}`, ...headers } })).status()).toBe(202);
  const newestType = async () => {
    const response = await request.get(`${base}/webhooks/${uid}/deliveries?limit=1`, { headers: admin });
    expect(response.status()).toBe(200);
    return (await response.json()).deliveries[0].eventType as string | null;
  };

  await send({ kind: 'from.body' }, { 'X-Job-Kind': 'from.header' });
  expect(await newestType()).toBe('from.header');

  expect(tripline('event-type', '--uid', uid, '--event-type-path', 'kind')).toMatch(/: event type from body path kind$/);
  await send({ kind: 'from.body' }, { 'X-Job-Kind': 'from.header' });
  expect(await newestType()).toBe('from.body');

  expect(() => tripline('event-type', '--uid', uid, '--event-type-path', 'kind..nested')).toThrow(/single dots/);
  expect(() => tripline('event-type', '--uid', uid, '--event-type-header', 'X-Kind', '--event-type-path', 'kind')).toThrow(/not both/);

  expect(tripline('event-type', '--uid', uid)).toMatch(/: no event type setting$/);
  await send({ kind: 'from.body' }, { 'X-Job-Kind': 'from.header' });
  expect(await newestType()).toBeNull();

  const webhook = (await (await request.get(`${base}/webhooks/${uid}`, { headers: admin })).json()).webhook;
  expect(webhook).toMatchObject({ eventTypeHeader: null, eventTypePath: null });
  tripline('delete', '--uid', uid);
});
