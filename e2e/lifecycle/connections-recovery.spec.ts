import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { startGitHubFake, type FakeDelivery, type GitHubFake } from '../../tests/support/fakes/github';
import { startGitLabFake, type FakeHookEvent, type GitLabFake } from '../../tests/support/fakes/gitlab';
import { startStripeFake, type StripeFake } from '../../tests/support/fakes/stripe';
import { rememberSecrets } from '../fixtures/secrets';
import { lifecycleDatabase, seedWebhook, serverEnv, startServer, type RunningServer } from '../servers';

// Recovering what the senders could not deliver, over real HTTP with the real
// server process, on the embedded database and on PostgreSQL (issue 45):
// - while Tripline is stopped, the fake GitHub, GitLab and Stripe each fail
//   to deliver 50 events; Tripline starts, and after its pass at start every
//   one is in the log once and its automation has one run for each (GitHub
//   and GitLab by their own redelivery, Stripe by import);
// - a live delivery racing its recovery makes one entry and one run;
// - GitHub answering 500, 429 (Retry-After) and 502 part-way through a pass,
//   and the server killed with SIGKILL part-way through it: the restarted
//   server goes on, with nothing missing and nothing doubled;
// - (PostgreSQL) two instances asked to check at the same moment: one pass
//   runs, so GitHub is asked for each missing delivery once.
// The fakes validate every request and response against the providers'
// published API descriptions (tests/support/fakes).

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 48;
const secondPort = port + 1;
const base = `http://localhost:${port}`;
const adminUrl = process.env.TEST_DATABASE_URL;
const MISSED = 50;

type Kind = 'pglite' | 'postgres';
type Connection = { lastCheckAt: string | null; checking: boolean; lastMissing: number; lastRecovered: number; lastError: string | null; providerHookId: string };
type Entry = { deliveryId: string; status: string; origin?: string };
type Run = { delivery: { deliveryId: string } | null };

for (const kind of ['pglite', 'postgres'] as Kind[]) {
  test(`deliveries the providers failed to send come back once, with one run each: after a stop, racing live, after a SIGKILL mid-pass${kind === 'postgres' ? ', and with two instances' : ''} (${kind})`, async () => {
    test.skip(kind === 'postgres' && !adminUrl, 'needs TEST_DATABASE_URL (always set under CI)');
    test.setTimeout(budget(600_000));
    const { dataDir, env: databaseEnv, drop } = await lifecycleDatabase(kind, 'recovery');
    const env = serverEnv(dataDir, base, {
      TRIPLINE_CONNECTION_ALLOW: 'http,private',
      // Redeliveries go at the pass's own pace (80 a minute), not at half of a small rate limit.
      TRIPLINE_DELIVERY_RATE_LIMIT: '10000',
      TRIPLINE_RUN_QUEUE_LIMIT: '100000',
      // The fake GitLab is a self-managed one whose admin allows 600 resends a minute.
      TRIPLINE_GITLAB_RESEND_LIMIT: '600',
      ...databaseEnv,
    });
    const github: GitHubFake = await startGitHubFake();
    const gitlab: GitLabFake = await startGitLabFake({ resendsPerMinute: 600 });
    const stripe: StripeFake = await startStripeFake();
    const servers: RunningServer[] = [];
    try {
      const { token } = seedWebhook(env, 'recovery', 'unused');
      const credential = { github: `ghp_${randomBytes(18).toString('base64url')}`, gitlab: `glpat-${randomBytes(12).toString('hex')}`, stripe: `sk_test_${randomBytes(12).toString('hex')}` };
      github.tokens.set(credential.github, 'admin');
      gitlab.tokens.set(credential.gitlab, 'maintainer');
      stripe.keys.set(credential.stripe, 'full');
      rememberSecrets(...Object.values(credential));
      const projectId = gitlab.addProject('octo/app');

      const api = async (method: string, path: string, body?: unknown, at = base) => {
        const response = await fetch(`${at}/api/v1/factories/recovery${path}`, {
          method,
          headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        const text = await response.text();
        expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(300);
        return text ? JSON.parse(text) : null;
      };
      let server = await startServer(`recovery-${kind}`, port, env);
      servers.push(server);

      // Three connected webhooks, each with an automation that matches its events (not GitHub's ping).
      const providers = {
        github: { scheme: 'github', provider: 'github_repository', apiBaseUrl: github.url, target: 'octo/app', eventTypes: ['issues'], payload: { action: 'opened' } },
        gitlab: { scheme: 'gitlab', provider: 'gitlab_project', apiBaseUrl: gitlab.url, target: 'octo/app', eventTypes: ['merge_request'], payload: { object_kind: 'merge_request' } },
        stripe: { scheme: 'stripe', provider: 'stripe_account', apiBaseUrl: stripe.url, target: 'self', eventTypes: ['invoice.paid'], payload: { type: 'invoice.paid' } },
      } as const;
      const hooks = {} as Record<keyof typeof providers, { uid: string; automation: string }>;
      for (const [name, p] of Object.entries(providers) as [keyof typeof providers, (typeof providers)[keyof typeof providers]][]) {
        const created = await api('POST', '/webhooks', { name: `${name}-app`, authMode: 'signature', signatureScheme: p.scheme, ...(name === 'stripe' ? { providerSecret: 'whsec_placeholderplaceholder' } : {}) });
        rememberSecrets(created.secret);
        const secretName = `${name.toUpperCase()}_API`;
        await api('PUT', `/secrets/${secretName}`, { value: credential[name] });
        await api('PUT', `/webhooks/${created.webhook.uid}/connection`, { provider: p.provider, apiBaseUrl: p.apiBaseUrl, credentialSecretName: secretName, target: p.target, eventTypes: p.eventTypes });
        const automation = await api('POST', '/automations', { name: `On ${name}`, prompt: 'Handle it.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [created.webhook.uid], payload: p.payload } }] });
        hooks[name] = { uid: created.webhook.uid, automation: automation.automation.id };
      }
      for (const hook of github.hooks.values()) rememberSecrets(hook.config.secret);
      for (const hook of gitlab.hooks.values()) rememberSecrets(hook.token);
      for (const endpoint of stripe.endpoints.values()) rememberSecrets(endpoint.secret);

      const connection = async (name: keyof typeof providers, at = base): Promise<Connection> => (await api('GET', `/webhooks/${hooks[name].uid}/connection`, undefined, at)).connection;
      const passEnded = async (name: keyof typeof providers, after: number) =>
        expect.poll(async () => {
          const c = await connection(name);
          return !c.checking && c.lastCheckAt !== null && Date.parse(c.lastCheckAt) >= after;
        }, { timeout: budget(180_000), intervals: [500] }).toBe(true);
      // The webhook's whole log (newest first, 100 a page).
      const log = async (name: keyof typeof providers): Promise<Entry[]> => {
        const entries: Entry[] = [];
        for (let cursor: string | null = null; ; ) {
          const page: { deliveries: Entry[]; nextCursor: string | null } = await api('GET', `/webhooks/${hooks[name].uid}/deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          entries.push(...page.deliveries);
          if (!(cursor = page.nextCursor)) return entries;
        }
      };
      const runIds = async (name: keyof typeof providers): Promise<string[]> =>
        ((await api('GET', `/runs?automation=${hooks[name].automation}&limit=200`)).runs as Run[]).map((r) => r.delivery?.deliveryId ?? '?');
      // Each identity in the log once (accepted) and in the automation's runs once; `origin` when given.
      const onceEach = async (name: keyof typeof providers, ids: string[], origin?: string) => {
        await expect.poll(async () => {
          const accepted = (await log(name)).filter((e) => ids.includes(e.deliveryId));
          return ids.filter((id) => accepted.filter((e) => e.deliveryId === id && e.status === 'accepted').length !== 1);
        }, { timeout: budget(120_000), intervals: [1000] }).toEqual([]);
        const runs = await runIds(name);
        expect(ids.filter((id) => runs.filter((r) => r === id).length !== 1)).toEqual([]);
        if (origin) expect((await log(name)).filter((e) => ids.includes(e.deliveryId) && e.origin !== origin).map((e) => e.deliveryId)).toEqual([]);
      };
      const ghHook = [...github.hooks.values()][0]!;
      const ghUrl = ghHook.config.url;
      /** `count` issues opened (numbers from `first`) while GitHub's hook cannot reach Tripline. */
      const githubMissing = async (count: number, first: number) => {
        ghHook.config.url = 'http://127.0.0.1:9/unreachable';
        const missed: FakeDelivery[] = [];
        for (let i = 0; i < count; i++) missed.push(...(await github.send('repos/octo/app', 'issues', { action: 'opened', issue: { number: first + i } })));
        ghHook.config.url = ghUrl;
        return missed;
      };
      const started = Date.now();
      for (const name of Object.keys(providers) as (keyof typeof providers)[]) await passEnded(name, started - 60_000);
      await github.settled();

      // 1. Stopped: every sender fails 50 times.
      await server.stop();
      const githubMissed: FakeDelivery[] = [];
      const gitlabMissed: FakeHookEvent[] = [];
      const stripeMissed: string[] = [];
      for (let i = 0; i < MISSED; i++) {
        githubMissed.push(...(await github.send('repos/octo/app', 'issues', { action: 'opened', issue: { number: i } })));
        gitlabMissed.push(...(await gitlab.send(projectId, { object_kind: 'merge_request', event_type: 'merge_request', object_attributes: { iid: i, action: 'open' } })));
        stripeMissed.push((await stripe.send('invoice.paid', { id: `in_${i}`, object: 'invoice' })).id);
      }
      expect(githubMissed.filter((d) => d.status_code !== 0)).toEqual([]);
      expect(gitlabMissed.filter((d) => d.response_status !== 'internal error')).toEqual([]);
      expect(stripe.attempts.filter((a) => stripeMissed.includes(a.eventId) && a.status !== 0)).toEqual([]);

      // Started again: its pass at start brings every one back.
      const restarted = Date.now();
      server = await startServer(`recovery-${kind}-2`, port, env);
      servers.push(server);
      for (const name of Object.keys(providers) as (keyof typeof providers)[]) {
        await passEnded(name, restarted);
        expect(await connection(name)).toMatchObject({ lastMissing: MISSED, lastRecovered: MISSED, lastError: null });
      }
      await onceEach('github', githubMissed.map((d) => d.guid));
      await onceEach('gitlab', gitlabMissed.map((e) => e.idempotencyKey));
      await onceEach('stripe', stripeMissed, 'stripe_import');
      // GitHub was asked for each once, and nothing else.
      expect(github.requests.filter((r) => r.endsWith('/attempts'))).toHaveLength(MISSED);

      // 2. A live delivery racing its recovery: Stripe retries each event while a pass imports it.
      const endpoint = [...stripe.endpoints.values()][0]!;
      const stripeUrl = endpoint.url;
      endpoint.url = 'http://127.0.0.1:9/unreachable';
      const raced: string[] = [];
      for (let i = 0; i < 10; i++) raced.push((await stripe.send('invoice.paid', { id: `in_race_${i}`, object: 'invoice' })).id);
      endpoint.url = stripeUrl;
      const raceStart = Date.now();
      await api('POST', `/webhooks/${hooks.stripe.uid}/connection/check`);
      await Promise.all(raced.map((id) => stripe.retry(id)));
      await passEnded('stripe', raceStart);
      await onceEach('stripe', raced);
      // The same for GitHub: the original, arriving late, beside GitHub's redelivery of it.
      const ghRaced = await githubMissing(10, 100);
      const ghRaceStart = Date.now();
      await api('POST', `/webhooks/${hooks.github.uid}/connection/check`);
      const late = await Promise.all(
        ghRaced.map((d) => fetch(ghUrl, { method: 'POST', headers: d.request.headers, body: JSON.stringify(d.request.payload) }).then((r) => r.status)),
      );
      expect(late.every((status) => status === 202 || status === 200)).toBe(true);
      await passEnded('github', ghRaceStart);
      await github.settled();
      await onceEach('github', ghRaced.map((d) => d.guid));

      // 3. GitHub answering 500, 429 with Retry-After and 502 part-way through a pass, then a SIGKILL
      // part-way: 40 missed; the pass asks for 20 at once, then one every 0.75 s.
      const cut = await githubMissing(40, 200);
      const asked = () => github.requests.filter((r) => r.endsWith('/attempts')).length;
      const before = asked();
      github.faults.push({ match: /\/deliveries$/, status: 500 }, { match: /\/attempts$/, status: 429, headers: { 'retry-after': '1' }, times: 2 });
      await api('POST', `/webhooks/${hooks.github.uid}/connection/check`);
      // The two refused, then the first 20.
      await expect.poll(asked, { timeout: budget(60_000), intervals: [50] }).toBeGreaterThanOrEqual(before + 22);
      github.faults.push({ match: /\/attempts$/, status: 502 });
      // Killed once GitHub's 502 was answered (and before the pass could ask for the other 18, 0.75 s apart).
      await expect.poll(() => github.faults.length, { timeout: budget(60_000), intervals: [50] }).toBe(0);
      server.process.kill('SIGKILL');
      await new Promise((resolve) => server.process.once('exit', resolve));
      expect(asked()).toBeLessThan(before + 43);
      await github.settled();
      const killedAt = Date.now();
      server = await startServer(`recovery-${kind}-3`, port, env);
      servers.push(server);
      // Embedded: the restarted server's pass at start goes on. PostgreSQL: once the dead pass's lease (30 s) runs out.
      await passEnded('github', killedAt);
      await github.settled();
      await expect.poll(async () => (await connection('github')).lastError).toBeNull();
      await onceEach('github', cut.map((d) => d.guid));

      // 4. Two instances on one PostgreSQL, both asked to check at once: one pass, one request per missing delivery.
      if (kind === 'postgres') {
        const second = await startServer(`recovery-${kind}-second`, secondPort, env);
        servers.push(second);
        const twice = await githubMissing(20, 300);
        const bothStart = Date.now();
        const requestsBefore = github.requests.length;
        await Promise.all([api('POST', `/webhooks/${hooks.github.uid}/connection/check`), api('POST', `/webhooks/${hooks.github.uid}/connection/check`, undefined, second.url)]);
        await passEnded('github', bothStart);
        await github.settled();
        await onceEach('github', twice.map((d) => d.guid));
        const attempts = github.requests.slice(requestsBefore).filter((r) => r.endsWith('/attempts'));
        expect(attempts).toHaveLength(twice.length);
        expect(new Set(attempts).size).toBe(twice.length);
      }
      expect([...github.problems, ...gitlab.problems, ...stripe.problems]).toEqual([]);
    } finally {
      for (const s of servers.reverse()) await s.stop();
      await Promise.all([github.close(), gitlab.close(), stripe.close()]);
      await drop();
    }
  });
}
