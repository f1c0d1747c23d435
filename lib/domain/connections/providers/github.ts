import 'server-only';
import { Octokit } from '@octokit/rest';
import { z } from 'zod';
import { boundedFetch, BoundReached, PROVIDER_API_BASE, type Bounds } from '@/lib/domain/connections/fetch';
import { ProviderError, type AdapterOptions, type DeliveryPage, type HookSettings, type ProviderAdapter, type ProviderHook, type ProviderModule } from '@/lib/domain/connections/provider';

// GitHub repository and organization hooks through Octokit
// (docs/connections.md). GitHub keeps a hook's deliveries 3 days, lists them
// newest first with a cursor in the Link header, and redelivers one on
// request with the same X-GitHub-Delivery GUID, signed with the hook's
// current secret; it never redelivers on its own.

export type GitHubTarget = { kind: 'repository'; owner: string; repo: string } | { kind: 'organization'; org: string };

export function parseGitHubTarget(kind: 'github_repository' | 'github_organization', target: string): GitHubTarget | null {
  if (kind === 'github_repository') {
    const match = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/.exec(target);
    return match ? { kind: 'repository', owner: match[1]!, repo: match[2]! } : null;
  }
  return /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(target) ? { kind: 'organization', org: target } : null;
}

const PER_PAGE = 100;

// What Tripline reads of GitHub's answers; anything else is garbage, and said so.
const deliveryItem = z.object({
  id: z.number(),
  guid: z.string().min(1).max(200),
  delivered_at: z.string(),
  redelivery: z.boolean(),
  status: z.string(),
  status_code: z.number(),
  event: z.string(),
  action: z.string().nullable().optional(),
});
const hookItem = z.object({
  id: z.number(),
  active: z.boolean(),
  events: z.array(z.string()),
  config: z.object({ url: z.string().optional() }).loose(),
}).loose();

function parsed<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const result = schema.safeParse(data);
  if (!result.success) throw new ProviderError(`GitHub answered something that is not ${what}`, null);
  return result.data;
}

const nextCursor = (link: string | undefined): string | null => {
  const next = link?.split(',').find((part) => /rel="next"/.test(part));
  const url = next && /<([^>]+)>/.exec(next)?.[1];
  return url ? new URL(url).searchParams.get('cursor') : null;
};

const hookOf = (data: unknown): ProviderHook => {
  const hook = parsed(hookItem, data, 'a hook');
  return { id: String(hook.id), url: hook.config.url ?? '', events: hook.events, active: hook.active };
};

/** GitHub's answer as a ProviderError that says what to do about it. */
function explain(error: unknown, target: GitHubTarget): never {
  if (error instanceof ProviderError || error instanceof BoundReached) throw error;
  // Octokit wraps what its fetch threw; a bound the pass reached stays one.
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof BoundReached) throw cause;
  const status = (error as { status?: number }).status;
  const headers = ((error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ?? {}) as Record<string, string | undefined>;
  const scope = target.kind === 'repository' ? 'admin:repo_hook' : 'admin:org_hook';
  const where = target.kind === 'repository' ? `${target.owner}/${target.repo}` : `the organization ${target.org}`;
  const retryAfter = Number(headers['retry-after']);
  if (status === 401) {
    throw new ProviderError('GitHub refused the API token (HTTP 401): it is wrong, expired or revoked. Put a valid token in the connection\'s team secret.', 401, { permanent: true });
  }
  if (status === 403 && headers['x-ratelimit-remaining'] === '0') {
    const reset = Number(headers['x-ratelimit-reset']);
    const wait = Number.isFinite(reset) ? Math.max(1, reset - Math.floor(Date.now() / 1000)) : 60;
    throw new ProviderError(`GitHub's rate limit for this token is used up; it resets in ${wait} s`, 403, { retryAfterSeconds: wait });
  }
  if (status === 403 || status === 404) {
    throw new ProviderError(
      `GitHub answered HTTP ${status} for ${where}: the token lacks the \`${scope}\` permission (fine-grained tokens: "Webhooks" read and write${target.kind === 'organization' ? ' on the organization' : ''}), or cannot see ${where}.`,
      status,
      { permanent: true },
    );
  }
  if (status === 429 || (status !== undefined && status >= 500)) {
    throw new ProviderError(`GitHub answered HTTP ${status}`, status, { retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 0 });
  }
  if (status === 422) throw new ProviderError(`GitHub refused the request (HTTP 422): ${(error as Error).message.slice(0, 300)}`, 422, { permanent: true });
  if (error instanceof SyntaxError) throw new ProviderError('GitHub answered something that is not JSON', null);
  throw new ProviderError(`GitHub could not be reached: ${(error as Error).message.slice(0, 300)}`, status ?? null, { retryAfterSeconds: 0 });
}

export function githubAdapter(options: { apiBaseUrl: string; token: string; target: GitHubTarget; bounds: Bounds }): ProviderAdapter {
  const { target } = options;
  const octokit = new Octokit({
    auth: options.token,
    baseUrl: options.apiBaseUrl.replace(/\/+$/, ''),
    userAgent: 'Tripline-Connections/1',
    request: { fetch: boundedFetch(options.bounds), retries: 0 },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  const repo = target.kind === 'repository' ? { owner: target.owner, repo: target.repo } : null;
  const org = target.kind === 'organization' ? { org: target.org } : null;
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      explain(error, target);
    }
  };
  const config = (settings: HookSettings) => ({ url: settings.url, content_type: 'json', secret: settings.secret, insecure_ssl: '0' as const });

  return {
    async listDeliveries(hookId, cursor) {
      const params = { hook_id: Number(hookId), per_page: PER_PAGE, ...(cursor ? { cursor } : {}) };
      const response = await call(() =>
        repo ? octokit.rest.repos.listWebhookDeliveries({ ...repo, ...params }) : octokit.rest.orgs.listWebhookDeliveries({ ...org!, ...params }),
      );
      const items = parsed(z.array(deliveryItem), response.data, 'a list of deliveries');
      const deliveries = items.map((item) => ({
        attemptId: String(item.id),
        identity: item.guid,
        deliveredAt: new Date(item.delivered_at),
        event: item.event,
        eventType: item.action ? `${item.event}.${item.action}` : item.event,
        outcome: item.status_code >= 200 && item.status_code < 300 ? ('success' as const) : ('failure' as const),
        redelivery: item.redelivery,
      }));
      if (deliveries.some((d) => Number.isNaN(d.deliveredAt.getTime()))) throw new ProviderError('GitHub answered a delivery without a valid time', null);
      return { deliveries, next: nextCursor(response.headers.link), bytes: JSON.stringify(response.data).length } satisfies DeliveryPage;
    },
    async fetchDelivery(hookId, attemptId) {
      const params = { hook_id: Number(hookId), delivery_id: Number(attemptId) };
      const { data } = await call(() =>
        repo ? octokit.rest.repos.getWebhookDelivery({ ...repo, ...params }) : octokit.rest.orgs.getWebhookDelivery({ ...org!, ...params }),
      );
      const request = data.request as { headers?: Record<string, string> | null; payload?: unknown };
      return { headers: request.headers ?? {}, payload: request.payload ?? null };
    },
    async redeliver(hookId, attemptId) {
      const params = { hook_id: Number(hookId), delivery_id: Number(attemptId) };
      await call(() =>
        repo ? octokit.rest.repos.redeliverWebhookDelivery({ ...repo, ...params }) : octokit.rest.orgs.redeliverWebhookDelivery({ ...org!, ...params }),
      );
    },
    async findHook(url) {
      // A repository or organization has at most 20 hooks of one kind: one page holds them all.
      const { data } = await call<{ data: unknown }>(() => (repo ? octokit.rest.repos.listWebhooks({ ...repo, per_page: 100 }) : octokit.rest.orgs.listWebhooks({ ...org!, per_page: 100 })));
      const hooks = (data as unknown[]).map(hookOf);
      return hooks.find((hook) => hook.url === url) ?? null;
    },
    async createHook(settings) {
      const body = { name: 'web', active: true, events: settings.events.length ? settings.events : ['*'], config: config(settings) };
      const { data } = await call<{ data: unknown }>(() => (repo ? octokit.rest.repos.createWebhook({ ...repo, ...body }) : octokit.rest.orgs.createWebhook({ ...org!, ...body })));
      return hookOf(data);
    },
    async updateHook(hookId, settings) {
      const hook_id = Number(hookId);
      const events = settings.events.length ? settings.events : ['*'];
      // The config (URL, content type, secret) has its own endpoint
      // (updateWebhookConfigForRepo / ForOrg); events and active go to the hook
      // itself. The config goes as `data`: Octokit reads a parameter named
      // `url` as the request's own URL, so updateWebhookConfigForRepo({ url })
      // would send the request, with the API token, to the hook's URL.
      await call(() =>
        repo
          ? octokit.request('PATCH /repos/{owner}/{repo}/hooks/{hook_id}/config', { ...repo, hook_id, data: config(settings) })
          : octokit.request('PATCH /orgs/{org}/hooks/{hook_id}/config', { ...org!, hook_id, data: config(settings) }),
      );
      const { data } = await call<{ data: unknown }>(() =>
        repo
          ? octokit.rest.repos.updateWebhook({ ...repo, hook_id, events, active: true })
          : octokit.rest.orgs.updateWebhook({ ...org!, hook_id, events, active: true, config: { url: settings.url } }),
      );
      return hookOf(data);
    },
    async deleteHook(hookId) {
      try {
        await call(() =>
          repo ? octokit.rest.repos.deleteWebhook({ ...repo, hook_id: Number(hookId) }) : octokit.rest.orgs.deleteWebhook({ ...org!, hook_id: Number(hookId) }),
        );
      } catch (error) {
        // Already gone on GitHub's side: what disconnecting wanted.
        if (error instanceof ProviderError && error.status === 404) return;
        throw error;
      }
    },
  };
}

type GitHubKind = 'github_repository' | 'github_organization';

/** GitHub's hook page for people: github.com, or the Enterprise Server's own host. */
function hookPage(kind: GitHubKind, apiBaseUrl: string, target: string, hookId: string): string {
  const api = new URL(apiBaseUrl);
  const web = api.hostname === 'api.github.com' ? 'https://github.com' : `${api.protocol}//${api.host}`;
  return kind === 'github_repository' ? `${web}/${target}/settings/hooks/${hookId}` : `${web}/organizations/${target}/settings/hooks/${hookId}`;
}

export const github: ProviderModule = {
  kinds: ['github_repository', 'github_organization'],
  name: 'GitHub',
  scheme: 'github',
  // GitHub Enterprise Server keeps 7; the pass looks back as far as github.com keeps them.
  retentionDays: 3,
  recovery: 'redelivery',
  secretMadeBy: 'tripline',
  defaultApiBaseUrl: PROVIDER_API_BASE.github,
  checkTarget: (kind, target) =>
    parseGitHubTarget(kind as GitHubKind, target) ? null : kind === 'github_repository' ? 'Enter the repository as owner/repo' : 'Enter the organization’s login',
  hookPage: (kind, apiBaseUrl, target, hookId) => hookPage(kind as GitHubKind, apiBaseUrl, target, hookId),
  open: (options: AdapterOptions) => {
    const target = parseGitHubTarget(options.kind as GitHubKind, options.target);
    if (!target) throw new ProviderError(`${options.target} is not a GitHub ${options.kind === 'github_repository' ? 'repository (owner/repo)' : 'organization'}`, null, { permanent: true });
    return githubAdapter({ apiBaseUrl: options.apiBaseUrl, token: options.credential, target, bounds: options.bounds });
  },
};
