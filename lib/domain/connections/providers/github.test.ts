import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '@octokit/webhooks-methods';
import { githubAdapter } from '@/lib/domain/connections/providers/github';
import { ProviderError } from '@/lib/domain/connections/provider';
import { startReceiver, type Receiver } from '@/tests/support/fakes/receiver';
import { startGitHubFake, type GitHubFake } from '@/tests/support/fakes/github';

// The GitHub adapter (Octokit) against the fake GitHub, whose every request
// and response is checked against GitHub's published REST description; and
// the fake's own proof that it cannot drift from that description.

process.env.TRIPLINE_CONNECTION_ALLOW = 'http,private';

const bounds = () => ({ bytesLeft: 10_000_000, deadline: Date.now() + 60_000, requests: 0 });

describe('the GitHub adapter against the fake GitHub', () => {
  let fake: GitHubFake;
  let receiver: Receiver;
  let receiverUrl: string;

  beforeAll(async () => {
    fake = await startGitHubFake();
    fake.tokens.set('admin-token', 'admin');
    fake.tokens.set('read-token', 'read');
    receiver = await startReceiver(202);
    receiverUrl = receiver.url;
  });
  afterAll(async () => {
    await fake?.close();
    await receiver?.close();
  });
  afterEach(() => {
    expect(fake.problems).toEqual([]);
  });

  const adapter = (token = 'admin-token', target = { kind: 'repository' as const, owner: 'octo', repo: 'app' }) =>
    githubAdapter({ apiBaseUrl: fake.url, token, target, bounds: bounds() });

  it('creates a hook with JSON content, the secret and the events; GitHub pings it, signed', async () => {
    const hook = await adapter().createHook({ url: receiverUrl, secret: 's3cret-value', events: ['issues', 'push'] });
    expect(hook).toMatchObject({ url: receiverUrl, events: ['issues', 'push'], active: true });
    const stored = fake.hooks.get(Number(hook.id))!;
    expect(stored.config).toMatchObject({ url: receiverUrl, content_type: 'json', secret: 's3cret-value' });
    await fake.settled();
    const ping = receiver.received.find((r) => r.headers['x-github-event'] === 'ping')!;
    expect(await verify('s3cret-value', ping.body, ping.headers['x-hub-signature-256'] as string)).toBe(true);
    expect(await adapter().findHook(receiverUrl)).toMatchObject({ id: hook.id });
    expect(await adapter().findHook(`${receiverUrl}/other`)).toBeNull();
  });

  it('lists deliveries newest first across pages, fetches one, and redelivers a failed one with the same GUID', async () => {
    const hook = (await adapter().findHook(receiverUrl))!;
    receiver.answer = 503;
    for (let i = 0; i < 130; i++) await fake.send('repos/octo/app', 'issues', { action: i % 2 ? 'opened' : 'closed', number: i });
    receiver.answer = 202;
    const github = adapter();
    const first = await github.listDeliveries(hook.id, null);
    expect(first.deliveries).toHaveLength(100);
    expect(first.next).not.toBeNull();
    const second = await github.listDeliveries(hook.id, first.next);
    expect(second.next).toBeNull();
    const all = [...first.deliveries, ...second.deliveries];
    expect(all).toHaveLength(131); // the ping too
    expect(all[0]!.deliveredAt.getTime()).toBeGreaterThanOrEqual(all[130]!.deliveredAt.getTime());
    const failed = all.find((d) => d.eventType === 'issues.opened')!;
    expect(failed).toMatchObject({ outcome: 'failure', redelivery: false, event: 'issues' });
    const one = await github.fetchDelivery(hook.id, failed.attemptId);
    expect(one.headers['x-github-delivery']).toBe(failed.identity);
    expect(one.payload).toMatchObject({ action: 'opened' });

    receiver.received.length = 0;
    await github.redeliver(hook.id, failed.attemptId);
    await fake.settled();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers['x-github-delivery']).toBe(failed.identity);
    const again = (await github.listDeliveries(hook.id, null)).deliveries[0]!;
    expect(again).toMatchObject({ identity: failed.identity, redelivery: true, outcome: 'success' });
  });

  it('updates the secret and events, then deletes the hook (deleting twice is no error)', async () => {
    const hook = (await adapter().findHook(receiverUrl))!;
    const updated = await adapter().updateHook(hook.id, { url: receiverUrl, secret: 'new-secret', events: ['push'] });
    expect(updated.events).toEqual(['push']);
    expect(fake.hooks.get(Number(hook.id))!.config.secret).toBe('new-secret');
    await adapter().deleteHook(hook.id);
    expect(fake.hooks.has(Number(hook.id))).toBe(false);
    await adapter().deleteHook(hook.id);
  });

  it('organization hooks go through the orgs endpoints', async () => {
    const org = githubAdapter({ apiBaseUrl: fake.url, token: 'admin-token', target: { kind: 'organization', org: 'octo-org' }, bounds: bounds() });
    const hook = await org.createHook({ url: receiverUrl, secret: 'org-secret', events: [] });
    expect(fake.hooks.get(Number(hook.id))).toMatchObject({ scope: 'orgs/octo-org', events: ['*'] });
    expect(fake.requests).toContain('POST /orgs/octo-org/hooks');
    await org.deleteHook(hook.id);
  });

  it('names the missing permission when the token may not manage hooks, and says a wrong token is wrong', async () => {
    await expect(adapter('read-token').findHook(receiverUrl)).rejects.toThrow(/lacks the `admin:repo_hook` permission/);
    const org = githubAdapter({ apiBaseUrl: fake.url, token: 'read-token', target: { kind: 'organization', org: 'octo-org' }, bounds: bounds() });
    await expect(org.findHook(receiverUrl)).rejects.toThrow(/lacks the `admin:org_hook` permission/);
    const wrong = await adapter('no-such-token').findHook(receiverUrl).catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(ProviderError);
    expect((wrong as ProviderError).message).toMatch(/refused the API token \(HTTP 401\)/);
    expect((wrong as ProviderError).options.permanent).toBe(true);
  });

  it('says when GitHub answers garbage, and passes on Retry-After', async () => {
    fake.faults.push({ status: 200, body: '<html>not json' });
    await expect(adapter().listDeliveries('1', null)).rejects.toThrow(/not JSON|not a list of deliveries/);
    fake.faults.push({ status: 200, body: '[{"id":"x"}]' });
    await expect(adapter().listDeliveries('1', null)).rejects.toThrow(/not a list of deliveries/);
    fake.faults.push({ status: 429, headers: { 'retry-after': '7' } });
    const limited = await adapter().listDeliveries('1', null).catch((error: unknown) => error);
    expect(limited).toMatchObject({ status: 429, options: { retryAfterSeconds: 7 } });
    // A hostile API base's reset years away, or a Retry-After of no number: an hour at most, never an invalid wait.
    fake.faults.push({ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '9999999999999' } });
    expect(await adapter().listDeliveries('1', null).catch((error: unknown) => error)).toMatchObject({ status: 403, options: { retryAfterSeconds: 3_600 } });
    fake.faults.push({ status: 503, headers: { 'retry-after': '1e400' } });
    expect(await adapter().listDeliveries('1', null).catch((error: unknown) => error)).toMatchObject({ status: 503, options: { retryAfterSeconds: 0 } });
  });

  it('stops reading when a pass has read its bytes', async () => {
    const hook = await adapter().createHook({ url: receiverUrl, secret: 'x', events: ['issues'] });
    await fake.send('repos/octo/app', 'issues', { action: 'opened', padding: 'x'.repeat(2000) });
    const small = githubAdapter({ apiBaseUrl: fake.url, token: 'admin-token', target: { kind: 'repository', owner: 'octo', repo: 'app' }, bounds: { bytesLeft: 100, deadline: Date.now() + 60_000, requests: 0 } });
    await expect(small.listDeliveries(hook.id, null)).rejects.toThrow(/more than the pass may read/);
    await adapter().deleteHook(hook.id);
  });
});

describe('the fake GitHub cannot drift from GitHub’s description', () => {
  let fake: GitHubFake;
  beforeAll(async () => {
    fake = await startGitHubFake();
    fake.tokens.set('t', 'admin');
  });
  afterAll(async () => fake?.close());

  it('records a response that GitHub would never send', async () => {
    const github = githubAdapter({ apiBaseUrl: fake.url, token: 't', target: { kind: 'repository', owner: 'o', repo: 'r' }, bounds: bounds() });
    // The drift: hooks without their required ping_url, deliveries with a numeric GUID.
    fake.drift = (template, body) =>
      template.endsWith('/hooks') && !Array.isArray(body) ? { ...(body as object), ping_url: undefined } : body;
    await github.createHook({ url: 'http://127.0.0.1:9/x', secret: 's', events: ['push'] }).catch(() => undefined);
    expect(fake.problems.join('\n')).toMatch(/POST \/repos\/\{owner\}\/\{repo\}\/hooks: response 201: .*ping_url/);
    fake.problems.length = 0;
    fake.drift = (template, body) => (template.endsWith('/deliveries') && Array.isArray(body) ? body.map((d: object) => ({ ...d, guid: 42 })) : body);
    await fake.settled();
    await github.listDeliveries([...fake.hooks.keys()][0]!.toString(), null).catch(() => undefined);
    expect(fake.problems.join('\n')).toMatch(/deliveries: response 200: .*guid.*must be string/);
  });

  it('refuses a request GitHub would refuse, with 422, and records it', async () => {
    fake.problems.length = 0;
    const response = await fetch(`${fake.url}/repos/o/r/hooks`, { method: 'POST', headers: { authorization: 'token t', 'content-type': 'application/json' }, body: JSON.stringify({ events: 'push', config: { url: 'http://x' } }) });
    expect(response.status).toBe(422);
    expect(fake.problems.join('\n')).toMatch(/request body: .*events.*must be array/);
    fake.problems.length = 0;
    const unknown = await fetch(`${fake.url}/repos/o/r/hooks/1/deliveries?status=pending`, { headers: { authorization: 'token t' } });
    expect(unknown.status).toBe(422);
    expect(fake.problems.join('\n')).toMatch(/query parameter status/);
  });
});
