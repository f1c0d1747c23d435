import { bearer, expect, test } from '../fixtures/api';
import { cli } from '../servers';

// `tripline webhook allow` against the PostgreSQL server's database while it
// runs, as an operator would: the running server refuses addresses outside
// the new list at once, a bad range is refused with the API's message, and no
// --range admits every address again.

test('the CLI sets and clears a webhook’s IP allowlist, and the running server follows', async ({ request, tokens }) => {
  const env = JSON.parse(process.env.E2E_API_POSTGRES_CLI_ENV!) as Record<string, string>;
  const tripline = (...args: string[]) => cli(env, ['webhook', ...args, '--factory', 'acme']);

  const created = tripline('create', '--name', `cli-allow-${Date.now().toString(36)}`);
  const line = (label: string) => new RegExp(`^${label}: (\\S+)$`, 'm').exec(created)?.[1] ?? '';
  const [uid, secret] = [line('uid'), line('secret')];
  const ingressUrl = new URL(line('ingress URL')).pathname;
  const send = async () => (await request.post(ingressUrl, { data: { n: Math.random() }, headers: { Authorization: `Bearer ${secret}` } })).status();

  expect(await send()).toBe(202);
  expect(tripline('allow', '--uid', uid, '--range', '192.0.2.9/24', '--range', '2001:DB8::/32')).toMatch(/: admits 192\.0\.2\.0\/24, 2001:db8::\/32$/);
  expect(await send()).toBe(404);
  expect(() => tripline('allow', '--uid', uid, '--range', '10.0.0.0/33')).toThrow(/ipAllowlist\.0: "10\.0\.0\.0\/33" has an invalid prefix length/);
  const webhook = (await (await request.get(`/api/v1/factories/acme/webhooks/${uid}`, { headers: bearer(tokens.admin) })).json()).webhook;
  expect(webhook.ipAllowlist).toEqual(['192.0.2.0/24', '2001:db8::/32']);

  expect(tripline('allow', '--uid', uid)).toMatch(/: admits every address$/);
  expect(await send()).toBe(202);
  tripline('delete', '--uid', uid);
});
