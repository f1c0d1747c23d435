import 'server-only';
import { z } from 'zod';
import { env } from '@/lib/platform/env';
import { boundedFetch, BoundReached, PROVIDER_API_BASE, type Bounds } from '@/lib/domain/connections/fetch';
import { ProviderError, type AdapterOptions, type DeliveryPage, type HookSettings, type ProviderAdapter, type ProviderDelivery, type ProviderHook, type ProviderModule } from '@/lib/domain/connections/provider';
import { extractEventType, headerLookup } from '@/lib/ingress/signatures/event-types';
import { schemes } from '@/lib/ingress/signatures/registry';
import { normaliseSenderId } from '@/lib/ingress/identity';

// GitLab project hooks over plain HTTP (GitLab's SDKs lack the hook events
// endpoints), docs/connections.md#gitlab. GitLab keeps a hook's events
// (every attempt, with its request headers and payload) 7 days and lists
// them page by page (17.3+); it resends one on request (17.4+), at most 5 a
// minute per hook and user, with the same Idempotency-Key, which is what the
// ingress records as the delivery's identity (registry.ts). A hook's `token`
// is what GitLab sends back as X-Gitlab-Token: Tripline makes it.
//
// Event types are GitLab's `object_kind` values, the first part of the type
// the ingress records (`merge_request` of `merge_request.open`), so the
// pass's filter and the log use the same names. Each sets one or two of the
// hook's `*_events` flags (EVENT_FLAGS).

/** A project by numeric ID or by full path (`group/subgroup/project`). */
export type GitLabTarget = { kind: 'id'; id: string } | { kind: 'path'; path: string };

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$/;

export function parseGitLabTarget(target: string): GitLabTarget | null {
  if (/^[1-9][0-9]{0,18}$/.test(target)) return { kind: 'id', id: target };
  const segments = target.split('/');
  if (segments.length < 2 || segments.length > 21) return null;
  return segments.every((segment) => SEGMENT.test(segment) && !segment.endsWith('.git') && !segment.endsWith('.atom')) ? { kind: 'path', path: target } : null;
}

/** The connection's event types (GitLab's object_kind) and the hook flags each sets. */
export const EVENT_FLAGS = {
  push: ['push_events'],
  tag_push: ['tag_push_events'],
  issue: ['issues_events', 'confidential_issues_events'],
  merge_request: ['merge_requests_events'],
  note: ['note_events', 'confidential_note_events'],
  pipeline: ['pipeline_events'],
  build: ['job_events'],
  wiki_page: ['wiki_page_events'],
  deployment: ['deployment_events'],
  release: ['releases_events'],
  feature_flag: ['feature_flag_events'],
  emoji: ['emoji_events'],
} as const satisfies Record<string, readonly string[]>;
type EventName = keyof typeof EVENT_FLAGS;
const FLAGS = [...new Set(Object.values(EVENT_FLAGS).flat())];
const isEventName = (name: string): name is EventName => Object.hasOwn(EVENT_FLAGS, name);

/** `merge_request.open` subscribes to merge_request; `*` (or nothing) to every event. */
const kindOf = (eventType: string) => eventType.split('.')[0]!;

export function checkGitLabEventTypes(eventTypes: string[]): string | null {
  const unknown = eventTypes.filter((type) => type !== '*' && !isEventName(kindOf(type)));
  if (unknown.length === 0) return null;
  const hint = unknown.some((type) => kindOf(type) === 'job') ? ' (job events are named build, their object_kind)' : '';
  return `GitLab has no event type ${unknown.map((type) => `"${type}"`).join(', ')}${hint}: use ${Object.keys(EVENT_FLAGS).join(', ')}, or * for all`;
}

function flagsFor(eventTypes: string[]): Record<string, boolean> {
  const all = eventTypes.length === 0 || eventTypes.includes('*');
  const on = new Set<string>(all ? FLAGS : eventTypes.flatMap((type) => (isEventName(kindOf(type)) ? EVENT_FLAGS[kindOf(type) as EventName] : [])));
  return Object.fromEntries(FLAGS.map((flag) => [flag, on.has(flag)]));
}

/** GitLab lists at most 20 hook events a page (its events endpoint takes per_page 1 to 20). */
const PER_PAGE = 20;
/** Pages fetchDelivery looks through for one event (GitLab has no endpoint for one). */
const FETCH_PAGES = 50;

// What Tripline reads of GitLab's answers (docs: project webhooks API); anything else is garbage, and said so.
const hookItem = z
  .object({
    id: z.number().int(),
    url: z.string(),
    ...Object.fromEntries(FLAGS.map((flag) => [flag, z.boolean().optional()])),
  })
  .loose();
const eventItem = z
  .object({
    id: z.number().int(),
    request_headers: z.record(z.string(), z.unknown()).nullable(),
    request_data: z.unknown(),
    response_status: z.union([z.string(), z.number()]).nullable(),
    created_at: z.string(),
  })
  .loose();
const gitlabError = z.object({ message: z.unknown().optional(), error: z.unknown().optional() }).loose();

const scheme = schemes.gitlab;

function header(headers: Record<string, unknown> | null, name: string): string | null {
  if (!headers) return null;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : headers[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * One hook event as the pass compares it: its identity is the header the
 * ingress records (Idempotency-Key, else X-Gitlab-Event-UUID, normalised as
 * the ingress does), its type the one the ingress would extract from the
 * same headers and payload. Null for an event with neither header, which
 * cannot be compared with the log.
 */
function deliveryOf(item: z.infer<typeof eventItem>): ProviderDelivery | null {
  const raw = scheme.deliveryIdHeader ? [scheme.deliveryIdHeader, ...(scheme.deliveryIdFallbackHeaders ?? [])].map((name) => header(item.request_headers, name)).find((v) => v !== null) : null;
  const identity = raw ? normaliseSenderId(raw) : null;
  if (!identity) return null;
  const headers = Object.fromEntries(Object.entries(item.request_headers ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const body = typeof item.request_data === 'string' ? safeJson(item.request_data) : item.request_data;
  const eventType = extractEventType(scheme.eventType, { header: headerLookup(headers), body }) ?? 'unknown';
  const objectKind = body && typeof body === 'object' && typeof (body as { object_kind?: unknown }).object_kind === 'string' ? (body as { object_kind: string }).object_kind : null;
  const status = String(item.response_status ?? '');
  return {
    attemptId: String(item.id),
    identity,
    deliveredAt: new Date(item.created_at),
    event: objectKind ?? kindOf(eventType),
    eventType,
    outcome: /^2\d\d$/.test(status) ? 'success' : 'failure',
    redelivery: false,
  };
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
};

const hookOf = (data: unknown): ProviderHook => {
  const result = hookItem.safeParse(data);
  if (!result.success) throw new ProviderError('GitLab answered something that is not a hook', null);
  const hook = result.data as { id: number; url: string } & Record<string, unknown>;
  const events = (Object.keys(EVENT_FLAGS) as EventName[]).filter((name) => EVENT_FLAGS[name].some((flag) => hook[flag] === true));
  // GitLab disables a hook that keeps failing (alert_status `temporarily_disabled` or `disabled`).
  const active = hook.alert_status === undefined || hook.alert_status === 'executable';
  return { id: String(hook.id), url: hook.url, events: events.length === Object.keys(EVENT_FLAGS).length ? ['*'] : events, active };
};

/** Seconds until GitLab's rate limit lets the next request through: Retry-After, else RateLimit-Reset (a Unix time), else a minute. */
function waitOf(headers: Headers): number {
  const retryAfter = Number(headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return Math.min(retryAfter, 3600);
  const reset = Number(headers.get('ratelimit-reset'));
  if (Number.isFinite(reset) && reset > 0) return Math.min(3600, Math.max(1, Math.ceil(reset - Date.now() / 1000)));
  return 60;
}

const describeTarget = (target: GitLabTarget) => (target.kind === 'id' ? `the project with ID ${target.id}` : `the project ${target.path}`);

/** GitLab's answer as a ProviderError that says what to do about it. */
function explain(status: number, headers: Headers, body: unknown, target: GitLabTarget, what: 'project' | 'hook' | 'events' | 'resend'): ProviderError {
  const parsed = gitlabError.safeParse(body);
  const said = parsed.success ? JSON.stringify(parsed.data.message ?? parsed.data.error ?? '').replace(/^"|"$/g, '').slice(0, 300) : '';
  const where = describeTarget(target);
  if (status === 401) {
    return new ProviderError('GitLab refused the API token (HTTP 401): it is wrong, expired or revoked. Put a valid personal or project access token in the connection\'s team secret.', 401, { permanent: true });
  }
  if (status === 403) {
    return new ProviderError(`GitLab answered HTTP 403 for ${where}: the token needs the \`api\` scope and the Maintainer role on the project.`, 403, { permanent: true });
  }
  if (status === 404) {
    const project = /project/i.test(said) || what === 'project';
    const message = project
      ? `GitLab answered HTTP 404: ${where} does not exist, or the token cannot see it.`
      : what === 'events' || what === 'resend'
        ? `GitLab answered HTTP 404 for the hook's events in ${where}: the hook was deleted, or this GitLab is older than ${what === 'events' ? '17.3 (hook events)' : '17.4 (resending a hook event)'}.`
        : `GitLab answered HTTP 404: the hook no longer exists in ${where}.`;
    return new ProviderError(message, 404, { permanent: true });
  }
  if (status === 429) {
    const wait = waitOf(headers);
    const message = what === 'resend' ? `GitLab's limit of 5 resends a minute per hook was reached; it lets the next through in ${wait} s` : `GitLab's rate limit was reached; it lets the next request through in ${wait} s`;
    return new ProviderError(message, 429, { retryAfterSeconds: wait });
  }
  if (status >= 500) {
    const retryAfter = Number(headers.get('retry-after'));
    return new ProviderError(`GitLab answered HTTP ${status}`, status, { retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 3600) : 0 });
  }
  return new ProviderError(`GitLab refused the request (HTTP ${status})${said ? `: ${said}` : ''}`, status, { permanent: true });
}

export function gitlabAdapter(options: { apiBaseUrl: string; token: string; target: GitLabTarget; bounds: Bounds }): ProviderAdapter {
  const { target } = options;
  const fetchFn = boundedFetch(options.bounds);
  const base = options.apiBaseUrl.replace(/\/+$/, '');
  const project = `/projects/${encodeURIComponent(target.kind === 'id' ? target.id : target.path)}`;
  // GitLab does not mark a resent event; an attempt is a resend when an older attempt has its identity.
  // The pass reads pages newest first, so the older attempt comes later: the newer ones it returned are marked then.
  const seen = new Map<string, ProviderDelivery[]>();

  async function call(method: string, path: string, what: Parameters<typeof explain>[4], init: { query?: Record<string, string>; body?: unknown } = {}) {
    const url = `${base}${project}${path}${init.query ? `?${new URLSearchParams(init.query)}` : ''}`;
    let response: Response;
    try {
      response = await fetchFn(url, {
        method,
        headers: { 'PRIVATE-TOKEN': options.token, accept: 'application/json', 'user-agent': 'Tripline-Connections/1', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    } catch (error) {
      if (error instanceof BoundReached || error instanceof ProviderError) throw error;
      throw new ProviderError(`GitLab could not be reached: ${(error as Error).message.slice(0, 300)}`, null, { retryAfterSeconds: 0 });
    }
    const text = await response.text();
    let data: unknown = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        if (response.ok) throw new ProviderError('GitLab answered something that is not JSON', null);
      }
    }
    if (!response.ok) throw explain(response.status, response.headers, data, target, what);
    return { data, headers: response.headers, bytes: text.length };
  }

  const settings = (hook: HookSettings) => ({ url: hook.url, token: hook.secret, enable_ssl_verification: true, ...flagsFor(hook.events) });

  async function listPage(hookId: string, page: string): Promise<{ items: z.infer<typeof eventItem>[]; next: string | null; bytes: number }> {
    const { data, headers, bytes } = await call('GET', `/hooks/${encodeURIComponent(hookId)}/events`, 'events', { query: { per_page: String(PER_PAGE), page } });
    const result = z.array(eventItem).safeParse(data);
    if (!result.success) throw new ProviderError('GitLab answered something that is not a list of hook events', null);
    const next = headers.get('x-next-page');
    if (next && !/^[1-9][0-9]{0,6}$/.test(next)) throw new ProviderError('GitLab answered a next page that is not a page number', null);
    return { items: result.data, next: next && Number(next) > Number(page) ? next : null, bytes };
  }

  return {
    async listDeliveries(hookId, cursor) {
      const page = cursor ?? '1';
      if (cursor === null) seen.clear();
      const { items, next, bytes } = await listPage(hookId, page);
      const deliveries: ProviderDelivery[] = [];
      for (const item of items) {
        const delivery = deliveryOf(item);
        if (!delivery) continue;
        if (Number.isNaN(delivery.deliveredAt.getTime())) throw new ProviderError('GitLab answered a hook event without a valid time', null);
        deliveries.push(delivery);
      }
      // Newest first within the page, whatever order GitLab gave.
      deliveries.sort((a, b) => b.deliveredAt.getTime() - a.deliveredAt.getTime() || Number(b.attemptId) - Number(a.attemptId));
      for (const delivery of deliveries) {
        const newer = seen.get(delivery.identity) ?? [];
        for (const attempt of newer) if (attempt !== delivery && Number(attempt.attemptId) > Number(delivery.attemptId)) attempt.redelivery = true;
        newer.push(delivery);
        seen.set(delivery.identity, newer);
      }
      return { deliveries, next, bytes } satisfies DeliveryPage;
    },
    async fetchDelivery(hookId, attemptId) {
      let page: string | null = '1';
      for (let i = 0; page && i < FETCH_PAGES; i++) {
        const listed: Awaited<ReturnType<typeof listPage>> = await listPage(hookId, page);
        const item = listed.items.find((event) => String(event.id) === attemptId);
        if (item) {
          const headers = Object.fromEntries(Object.entries(item.request_headers ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
          return { headers, payload: typeof item.request_data === 'string' ? safeJson(item.request_data) : (item.request_data ?? null) };
        }
        page = listed.next;
      }
      throw new ProviderError(`GitLab no longer lists the hook event ${attemptId}`, 404, { permanent: true });
    },
    async redeliver(hookId, attemptId) {
      await call('POST', `/hooks/${encodeURIComponent(hookId)}/events/${encodeURIComponent(attemptId)}/resend`, 'resend');
    },
    async findHook(url) {
      // GitLab.com allows 100 hooks a project: one page of 100 holds them all.
      const { data } = await call('GET', '/hooks', 'project', { query: { per_page: '100' } });
      if (!Array.isArray(data)) throw new ProviderError('GitLab answered something that is not a list of hooks', null);
      return data.map(hookOf).find((hook) => hook.url === url) ?? null;
    },
    async createHook(hook) {
      const { data } = await call('POST', '/hooks', 'project', { body: { ...settings(hook), name: 'Tripline', description: 'Created by Tripline: deliveries it misses are resent by its recovery pass.' } });
      return hookOf(data);
    },
    async updateHook(hookId, hook) {
      // The token goes with every update: GitLab forgets it when the URL changes.
      const { data } = await call('PUT', `/hooks/${encodeURIComponent(hookId)}`, 'hook', { body: settings(hook) });
      return hookOf(data);
    },
    async deleteHook(hookId) {
      try {
        await call('DELETE', `/hooks/${encodeURIComponent(hookId)}`, 'hook');
      } catch (error) {
        // Already gone on GitLab's side: what disconnecting wanted.
        if (error instanceof ProviderError && error.status === 404) return;
        throw error;
      }
    },
  };
}

/**
 * The pace of resends under GitLab's limit: 5 a minute per hook and user on
 * GitLab.com, an admin's setting on a self-managed GitLab (Admin > Settings >
 * Network > Webhook rate limits; 0 turns it off), which
 * TRIPLINE_GITLAB_RESEND_LIMIT tells Tripline. At the limit itself (one every
 * 12 s at 5) a resend that reached GitLab a little later than the one before
 * would meet it; 90% of it keeps a margin (one every 13.3 s at 5, 270 an hour).
 */
export function gitlabResendRate(limit: number): { burst: number; perMinute: number } | undefined {
  return limit > 0 ? { burst: 1, perMinute: limit * 0.9 } : undefined;
}

/** GitLab's site for people: the API base without its `/api/v4`. */
function webBase(apiBaseUrl: string): string {
  const api = new URL(apiBaseUrl);
  return `${api.protocol}//${api.host}${api.pathname.replace(/\/+$/, '').replace(/\/api\/v4$/, '')}`;
}

export const gitlab: ProviderModule = {
  kinds: ['gitlab_project'],
  name: 'GitLab',
  scheme: 'gitlab',
  retentionDays: 7,
  recovery: 'redelivery',
  secretMadeBy: 'tripline',
  defaultApiBaseUrl: PROVIDER_API_BASE.gitlab,
  redeliveryRate: () => gitlabResendRate(env().gitlabResendLimit),
  checkTarget: (_kind, target) => (parseGitLabTarget(target) ? null : 'Enter the project’s numeric ID or its full path (group/project)'),
  checkEventTypes: checkGitLabEventTypes,
  hookPage: (_kind, apiBaseUrl, target, hookId) => {
    const parsed = parseGitLabTarget(target);
    if (!parsed) return null;
    const web = webBase(apiBaseUrl);
    return parsed.kind === 'path' ? `${web}/${parsed.path}/-/hooks/${hookId}/edit` : `${web}/projects/${parsed.id}`;
  },
  open: (options: AdapterOptions) => {
    const target = parseGitLabTarget(options.target);
    if (!target) throw new ProviderError(`${options.target} is not a GitLab project (a numeric ID or group/project)`, null, { permanent: true });
    return gitlabAdapter({ apiBaseUrl: options.apiBaseUrl, token: options.credential, target, bounds: options.bounds });
  },
};
