import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { checkGitLabEventTypes, gitlab, gitlabAdapter, gitlabResendRate, parseGitLabTarget, type GitLabTarget } from '@/lib/domain/connections/providers/gitlab';
import { parseEnv as parseProcessEnv } from '@/lib/platform/env';
import { ProviderError } from '@/lib/domain/connections/provider';
import { startGitLabFake, type GitLabFake } from '@/tests/support/fakes/gitlab';
import { SCHEMAS } from '@/tests/support/fakes/gitlab-schema';

// The GitLab adapter (plain HTTP) against the fake GitLab, whose every
// request and response is checked against the JSON Schemas written from
// GitLab's REST documentation; the fake's own proof that it cannot drift from
// them; and those schemas against the documentation's example responses.

process.env.TRIPLINE_CONNECTION_ALLOW = 'http,private';

const bounds = () => ({ bytesLeft: 10_000_000, deadline: Date.now() + 60_000, requests: 0 });

describe('the GitLab adapter against the fake GitLab', () => {
  let fake: GitLabFake;
  let clock = Date.now();
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  let answer = 202;
  let projectId: number;

  beforeAll(async () => {
    fake = await startGitLabFake({ now: () => clock });
    fake.tokens.set('maintainer-token', 'maintainer');
    fake.tokens.set('developer-token', 'developer');
    projectId = fake.addProject('octo/tools/app');
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/w/wh_test`;
  });
  afterAll(async () => {
    await fake?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });
  afterEach(() => {
    expect(fake.problems).toEqual([]);
  });

  const byPath: GitLabTarget = { kind: 'path', path: 'octo/tools/app' };
  const adapter = (token = 'maintainer-token', target: GitLabTarget = byPath) => gitlabAdapter({ apiBaseUrl: fake.url, token, target, bounds: bounds() });
  const mr = (iid: number, action = 'open') => ({ object_kind: 'merge_request', event_type: 'merge_request', object_attributes: { iid, action } });

  it('creates a hook with the token and the event flags; GitLab sends the token back as X-Gitlab-Token', async () => {
    const hook = await adapter().createHook({ url: receiverUrl, secret: 's3cret-token', events: ['push', 'merge_request.merge', 'issue'] });
    expect(hook).toMatchObject({ url: receiverUrl, events: ['push', 'issue', 'merge_request'], active: true });
    const stored = fake.hooks.get(Number(hook.id))!;
    expect(stored).toMatchObject({ url: receiverUrl, token: 's3cret-token', enable_ssl_verification: true });
    expect(Object.entries(stored.flags).filter(([, on]) => on).map(([flag]) => flag).sort()).toEqual(['confidential_issues_events', 'issues_events', 'merge_requests_events', 'push_events']);
    // The project's path goes URL-encoded, as GitLab requires.
    expect(fake.requests).toContain('POST /api/v4/projects/octo%2Ftools%2Fapp/hooks');

    await fake.send(projectId, { object_kind: 'push', ref: 'refs/heads/main' });
    const push = received.at(-1)!;
    expect(push.headers).toMatchObject({ 'x-gitlab-token': 's3cret-token', 'x-gitlab-event': 'Push Hook' });
    expect(push.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    // Not subscribed: GitLab does not send it.
    expect(await fake.send(projectId, { object_kind: 'pipeline', object_attributes: { status: 'success' } })).toEqual([]);

    expect(await adapter().findHook(receiverUrl)).toMatchObject({ id: hook.id });
    expect(await adapter('maintainer-token', { kind: 'id', id: String(projectId) }).findHook(receiverUrl)).toMatchObject({ id: hook.id });
    expect(await adapter().findHook(`${receiverUrl}/other`)).toBeNull();
  });

  it('lists hook events newest first across pages, with the identity and event type the ingress records, and resends one with the same Idempotency-Key', async () => {
    const hook = (await adapter().findHook(receiverUrl))!;
    answer = 503;
    for (let i = 0; i < 130; i++) {
      clock += 1000;
      await fake.send(projectId, mr(i, i % 2 ? 'open' : 'close'));
    }
    answer = 202;
    const gl = adapter();
    const first = await gl.listDeliveries(hook.id, null);
    expect(first.deliveries).toHaveLength(20); // GitLab's most a page
    expect(first.next).toBe('2');
    const all = [...first.deliveries];
    for (let next = first.next, pages = 1; next; pages++) {
      expect(pages).toBeLessThan(7);
      const page = await gl.listDeliveries(hook.id, next);
      all.push(...page.deliveries);
      next = page.next;
    }
    expect(all).toHaveLength(131); // the push too
    for (let i = 1; i < all.length; i++) expect(all[i - 1]!.deliveredAt.getTime()).toBeGreaterThanOrEqual(all[i]!.deliveredAt.getTime());
    const failed = all.find((d) => d.eventType === 'merge_request.open')!;
    expect(failed).toMatchObject({ outcome: 'failure', redelivery: false, event: 'merge_request' });
    const recorded = fake.events.find((e) => String(e.id) === failed.attemptId)!;
    expect(failed.identity).toBe(recorded.idempotencyKey);
    expect(all.at(-1)).toMatchObject({ event: 'push', eventType: 'push', outcome: 'success' });

    const one = await gl.fetchDelivery(hook.id, failed.attemptId);
    expect(one.headers['Idempotency-Key']).toBe(failed.identity);
    expect(one.headers['X-Gitlab-Token']).toBe('[REDACTED]');
    expect(one.payload).toMatchObject({ object_kind: 'merge_request', object_attributes: { action: 'open' } });

    received.length = 0;
    await gl.redeliver(hook.id, failed.attemptId);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['idempotency-key']).toBe(failed.identity);
    // A new request to GitLab: a new X-Gitlab-Event-UUID, which is why the identity is the Idempotency-Key.
    expect(received[0]!.headers['x-gitlab-event-uuid']).not.toBe(recorded.request_headers['X-Gitlab-Event-UUID']);
    const again = adapter();
    const listed = [];
    for (let next: string | null = null, first = true; first || next; first = false) {
      const page = await again.listDeliveries(hook.id, next);
      listed.push(...page.deliveries);
      next = page.next;
    }
    expect(listed[0]).toMatchObject({ identity: failed.identity, outcome: 'success', redelivery: true });
    expect(listed.filter((d) => d.identity === failed.identity).map((d) => d.redelivery)).toEqual([true, false]);
  });

  it('a sixth resend within a minute gets GitLab’s 429, said in words with the wait; a minute later it goes through', async () => {
    const hook = (await adapter().findHook(receiverUrl))!;
    clock += 120_000;
    const failures = (await adapter().listDeliveries(hook.id, null)).deliveries.filter((d) => d.outcome === 'failure').slice(0, 6);
    for (const d of failures.slice(0, 5)) await adapter().redeliver(hook.id, d.attemptId);
    const limited = await adapter().redeliver(hook.id, failures[5]!.attemptId).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(ProviderError);
    expect(limited).toMatchObject({ status: 429, options: { retryAfterSeconds: 60 } });
    expect((limited as Error).message).toMatch(/5 resends a minute per hook/);
    clock += 60_000;
    await adapter().redeliver(hook.id, failures[5]!.attemptId);
  });

  it('updates the token and the events, then deletes the hook (deleting twice is no error)', async () => {
    const hook = (await adapter().findHook(receiverUrl))!;
    const updated = await adapter().updateHook(hook.id, { url: receiverUrl, secret: 'new-token', events: ['pipeline'] });
    expect(updated.events).toEqual(['pipeline']);
    expect(fake.hooks.get(Number(hook.id))).toMatchObject({ token: 'new-token', flags: expect.objectContaining({ push_events: false, pipeline_events: true }) });
    const all = await adapter().updateHook(hook.id, { url: receiverUrl, secret: 'new-token', events: [] });
    expect(all.events).toEqual(['*']);
    await adapter().deleteHook(hook.id);
    expect(fake.hooks.has(Number(hook.id))).toBe(false);
    await adapter().deleteHook(hook.id);
  });

  it('says in words what is wrong: a wrong token, a missing role or scope, a project it cannot see, a GitLab too old for hook events', async () => {
    const wrong = await adapter('no-such-token').findHook(receiverUrl).catch((error: unknown) => error);
    expect(wrong).toMatchObject({ status: 401, options: { permanent: true } });
    expect((wrong as Error).message).toMatch(/refused the API token \(HTTP 401\)/);
    await expect(adapter('developer-token').findHook(receiverUrl)).rejects.toThrow(/needs the `api` scope and the Maintainer role/);
    await expect(adapter('maintainer-token', { kind: 'path', path: 'octo/missing' }).findHook(receiverUrl)).rejects.toThrow(/the project octo\/missing does not exist, or the token cannot see it/);
    await expect(adapter('maintainer-token', { kind: 'id', id: '999999' }).createHook({ url: receiverUrl, secret: 'x', events: [] })).rejects.toThrow(/the project with ID 999999 does not exist/);
    const hook = await adapter().createHook({ url: receiverUrl, secret: 'x', events: ['push'] });
    fake.faults.push({ match: /\/events$/, status: 404, body: '{"error":"404 Not Found"}' });
    await expect(adapter().listDeliveries(hook.id, null)).rejects.toThrow(/deleted, or this GitLab is older than 17\.3/);
    fake.faults.push({ match: /\/resend$/, status: 404, body: '{"error":"404 Not Found"}' });
    await expect(adapter().redeliver(hook.id, '1')).rejects.toThrow(/older than 17\.4/);
    await adapter().deleteHook(hook.id);
  });

  it('says when GitLab answers garbage, and passes on Retry-After, RateLimit-Reset and server errors as retryable', async () => {
    fake.faults.push({ status: 200, body: '<html>not json' });
    await expect(adapter().listDeliveries('1', null)).rejects.toThrow(/not JSON/);
    fake.faults.push({ status: 200, body: '[{"id":"x"}]' });
    await expect(adapter().listDeliveries('1', null)).rejects.toThrow(/not a list of hook events/);
    fake.faults.push({ status: 200, body: '[]', headers: { 'x-next-page': 'forever' } });
    await expect(adapter().listDeliveries('1', null)).rejects.toThrow(/not a page number/);
    fake.faults.push({ status: 429, headers: { 'retry-after': '7' } });
    expect(await adapter().listDeliveries('1', null).catch((error: unknown) => error)).toMatchObject({ status: 429, options: { retryAfterSeconds: 7 } });
    fake.faults.push({ status: 429, headers: { 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 30) } });
    const reset = (await adapter().listDeliveries('1', null).catch((error: unknown) => error)) as ProviderError;
    expect(reset.options.retryAfterSeconds).toBeGreaterThanOrEqual(29);
    expect(reset.options.retryAfterSeconds).toBeLessThanOrEqual(31);
    fake.faults.push({ status: 502 });
    expect(await adapter().listDeliveries('1', null).catch((error: unknown) => error)).toMatchObject({ status: 502, options: { retryAfterSeconds: 0 } });
  });

  it('stops reading when a pass has read its bytes', async () => {
    const hook = await adapter().createHook({ url: receiverUrl, secret: 'x', events: ['push'] });
    await fake.send(projectId, { object_kind: 'push', padding: 'x'.repeat(2000) });
    const small = gitlabAdapter({ apiBaseUrl: fake.url, token: 'maintainer-token', target: byPath, bounds: { bytesLeft: 100, deadline: Date.now() + 60_000, requests: 0 } });
    await expect(small.listDeliveries(hook.id, null)).rejects.toThrow(/more than the pass may read/);
    await adapter().deleteHook(hook.id);
  });
});

describe('the GitLab module', () => {
  it('takes a numeric project ID or a full path, and nothing else', () => {
    expect(parseGitLabTarget('42')).toEqual({ kind: 'id', id: '42' });
    expect(parseGitLabTarget('group/sub/project.name')).toEqual({ kind: 'path', path: 'group/sub/project.name' });
    for (const bad of ['project', '0', '/group/project', 'group//project', 'group/project/', 'https://gitlab.com/group/project', 'group/../x', 'group/pro ject', 'group/project.git']) {
      expect(parseGitLabTarget(bad), bad).toBeNull();
    }
    expect(gitlab.checkTarget('gitlab_project', 'project')).toMatch(/numeric ID or its full path/);
  });

  it('names event types by GitLab’s object_kind, and says which when one is not', () => {
    expect(checkGitLabEventTypes(['push', 'merge_request.merge', 'build', '*'])).toBeNull();
    expect(checkGitLabEventTypes(['job'])).toMatch(/"job".*named build/);
    expect(checkGitLabEventTypes(['Push Hook'.toLowerCase()])).toMatch(/no event type "push hook"/);
  });

  it('links the hook’s page on gitlab.com and on a self-managed GitLab under a relative root', () => {
    expect(gitlab.hookPage('gitlab_project', 'https://gitlab.com/api/v4', 'group/app', '7')).toBe('https://gitlab.com/group/app/-/hooks/7/edit');
    expect(gitlab.hookPage('gitlab_project', 'https://git.example.com/gitlab/api/v4/', 'group/app', '7')).toBe('https://git.example.com/gitlab/group/app/-/hooks/7/edit');
    expect(gitlab.hookPage('gitlab_project', 'https://gitlab.com/api/v4', '42', '7')).toBe('https://gitlab.com/projects/42');
  });

  it('asks for redeliveries no faster than GitLab’s 5 a minute, or the limit TRIPLINE_GITLAB_RESEND_LIMIT names', () => {
    const parseEnv = (source: Record<string, string>) => parseProcessEnv(source as NodeJS.ProcessEnv);
    expect(gitlab.redeliveryRate?.()).toEqual({ burst: 1, perMinute: 4.5 });
    expect(parseEnv({}).gitlabResendLimit).toBe(5);
    expect(parseEnv({ TRIPLINE_GITLAB_RESEND_LIMIT: '60' }).gitlabResendLimit).toBe(60);
    expect(gitlabResendRate(60)).toEqual({ burst: 1, perMinute: 54 });
    // 0: the self-managed GitLab's limit is off; the pass's own pace applies.
    expect(gitlabResendRate(parseEnv({ TRIPLINE_GITLAB_RESEND_LIMIT: '0' }).gitlabResendLimit)).toBeUndefined();
    expect(() => parseEnv({ TRIPLINE_GITLAB_RESEND_LIMIT: '-1' })).toThrow(/TRIPLINE_GITLAB_RESEND_LIMIT/);
    expect(gitlab.retentionDays).toBe(7);
  });
});

describe('the fake GitLab cannot drift from GitLab’s documented shapes', () => {
  let fake: GitLabFake;
  beforeAll(async () => {
    fake = await startGitLabFake();
    fake.tokens.set('t', 'maintainer');
    fake.addProject('o/r');
  });
  afterAll(async () => fake?.close());

  it('records a response GitLab would never send', async () => {
    const gl = gitlabAdapter({ apiBaseUrl: fake.url, token: 't', target: { kind: 'path', path: 'o/r' }, bounds: bounds() });
    fake.drift = (template, body) => (template === '/projects/:id/hooks' && !Array.isArray(body) ? { ...(body as object), id: String((body as { id: number }).id) } : body);
    await gl.createHook({ url: 'http://127.0.0.1:9/x', secret: 's', events: ['push'] }).catch(() => undefined);
    expect(fake.problems.join('\n')).toMatch(/POST \/projects\/:id\/hooks: response 201: .*id.*must be integer/);
    fake.problems.length = 0;
    fake.drift = (template, body) => (template.endsWith('/events') && Array.isArray(body) ? body.map((e: object) => ({ ...e, response_status: 500 })) : body);
    const hookId = [...fake.hooks.keys()][0]!;
    await fake.send('o/r', { object_kind: 'push' });
    await gl.listDeliveries(String(hookId), null).catch(() => undefined);
    expect(fake.problems.join('\n')).toMatch(/events: response 200: .*response_status.*must be string/);
    fake.drift = null;
    fake.problems.length = 0;
  });

  it('refuses a request GitLab would refuse, with 400, and records it', async () => {
    const post = await fetch(`${fake.url}/projects/o%2Fr/hooks`, { method: 'POST', headers: { 'private-token': 't', 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://x.example', push_events: 'yes' }) });
    expect(post.status).toBe(400);
    expect(fake.problems.join('\n')).toMatch(/request body: .*push_events.*must be boolean/);
    fake.problems.length = 0;
    const typo = await fetch(`${fake.url}/projects/o%2Fr/hooks`, { method: 'POST', headers: { 'private-token': 't', 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://x.example', merge_request_events: true }) });
    expect(typo.status).toBe(400);
    expect(fake.problems.join('\n')).toMatch(/must NOT have additional properties/);
    fake.problems.length = 0;
    const big = await fetch(`${fake.url}/projects/o%2Fr/hooks/1/events?per_page=100`, { headers: { 'private-token': 't' } });
    expect(big.status).toBe(400);
    expect(fake.problems.join('\n')).toMatch(/query parameter per_page/);
    fake.problems.length = 0;
    const unencoded = await fetch(`${fake.url}/projects/o/r/hooks`, { headers: { 'private-token': 't' } });
    expect(unencoded.status).toBe(404);
    expect(fake.problems.join('\n')).toMatch(/no such operation/);
    fake.problems.length = 0;
  });
});

describe('the schemas the fake GitLab is checked against match GitLab’s documented examples', () => {
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

  // The example responses of doc/api/project_webhooks.md ("Get a project webhook", "Get a list of project webhook events"), trimmed to their fields.
  const documentedHook = {
    id: 1, url: 'http://example.com/hook', name: 'Hook name', description: 'Hook description', project_id: 3,
    push_events: true, push_events_branch_filter: '', issues_events: true, confidential_issues_events: true, merge_requests_events: true,
    tag_push_events: true, note_events: true, confidential_note_events: true, job_events: true, pipeline_events: true, wiki_page_events: true,
    deployment_events: true, releases_events: true, feature_flag_events: true, enable_ssl_verification: true, repository_update_events: false,
    alert_status: 'executable', disabled_until: null, url_variables: [], created_at: '2012-10-12T17:04:47Z', resource_access_token_events: true,
    custom_webhook_template: '{"event":"{{object_kind}}"}', custom_headers: [{ key: 'Authorization' }],
  };
  const documentedEvent = {
    id: 1, url: 'https://example.net/', trigger: 'push_hooks',
    request_headers: {
      'Content-Type': 'application/json', 'User-Agent': 'GitLab/17.1.0-pre', 'Idempotency-Key': '3a427872-00df-429c-9bc9-a9475de2efe4',
      'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Webhook-UUID': '3c5c0404-c866-44bc-a5f6-452bb1bfc76e', 'X-Gitlab-Instance': 'https://gitlab.example.com',
      'X-Gitlab-Event-UUID': '9cebe914-4827-408f-b014-cfa23a47a35f', 'X-Gitlab-Token': '[REDACTED]',
    },
    request_data: { object_kind: 'push', event_name: 'push', ref: 'refs/heads/master', project_id: 7 },
    response_headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': '16' },
    response_body: '{"success":true}', execution_duration: 1.0906479999999874, response_status: '200',
    // In API::Entities::WebHookLog, not in the page's example.
    created_at: '2024-05-26T03:03:17.000Z',
  };

  it('the documented hook and hook event validate; shapes the docs do not show do not', () => {
    expect(ajv.validate(SCHEMAS.hook, documentedHook), JSON.stringify(ajv.errors)).toBe(true);
    expect(ajv.validate(SCHEMAS.hookEvent, documentedEvent), JSON.stringify(ajv.errors)).toBe(true);
    expect(ajv.validate(SCHEMAS.hookEvent, { ...documentedEvent, response_status: 200 })).toBe(false);
    expect(ajv.validate(SCHEMAS.hook, { ...documentedHook, token: 'secret' })).toBe(false);
  });
});
