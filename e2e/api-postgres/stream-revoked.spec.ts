import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';
import { openStream } from '../fixtures/listen';
import { rememberSecrets } from '../fixtures/secrets';
import { cli } from '../servers';

// An open stream of the log checks its caller again while it is open (every
// 15 s, lib/domain/deliveries/stream-response.ts): an account the operator
// disables with the CLI, on the PostgreSQL server's database while the server
// runs, loses its open stream at the next check, as its next request would
// be refused.

test.afterEach(async ({ request, tokens }) => {
  await deleteCreatedWebhooks(request, tokens.admin);
});

test('an open stream whose account is disabled ends as revoked at its next check, and a reconnect is refused', async ({ request, tokens, baseURL }) => {
  test.setTimeout(budget(150_000));
  const env = JSON.parse(process.env.E2E_API_POSTGRES_CLI_ENV!) as Record<string, string>;
  const email = `revoked-${Date.now().toString(36)}@example.test`;
  const password = 'revoked password 1234';
  rememberSecrets(password);
  cli(env, ['user', 'create', '--email', email, '--password-stdin'], password);
  cli(env, ['member', 'add', '--factory', 'acme', '--email', email, '--role', 'viewer']);
  const token = cli(env, ['token', 'create', '--email', email]);
  rememberSecrets(token);

  const hook = await createWebhook(request, tokens.admin, { name: 'revoked-stream' });
  const streamUrl = `${baseURL}/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/stream`;
  const send = async (n: number) => expect((await request.post(hook.url, { headers: bearer(hook.secret!), data: { n } })).status()).toBe(202);
  const stream = await openStream(streamUrl, token);
  try {
    expect(stream.response.status).toBe(200);
    await send(1);
    expect(await stream.take(1)).toHaveLength(1);

    cli(env, ['user', 'disable', '--email', email]);
    // Deliveries keep coming; the stream ends at its next check (15 s at most after the last).
    for (let n = 2; n <= 3; n++) await send(n);
    expect(await stream.end(budget(60_000))).toBe('{"reason":"revoked"}');
    // A reconnect is refused like any request of the disabled account.
    const again = await request.get(streamUrl, { headers: bearer(token) });
    expect(again.status()).toBe(401);
  } finally {
    await stream.close();
  }
});
