import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ERROR_BODY, ROUTES, type Route } from '@/tests/support/fakes/gitlab-schema';

// A fake GitLab for the connection tests: projects (by ID or by full path),
// their hooks (list, create, edit, delete) and the hooks' events (list with
// page/per_page and X-Next-Page, status filter, resend). Like GitLab it sends
// each event to the hook's URL with X-Gitlab-Token (the hook's token),
// X-Gitlab-Event, Idempotency-Key (the same on every resend) and
// X-Gitlab-Event-UUID (new for each request that triggers hooks), records
// every attempt with its outcome (failed ones too, as "internal error"), and
// resends one on request, at once, answering with the status it got. It
// keeps events 7 days, and allows 5 resends a minute per hook and token,
// answering 429 beyond: by its own clock (`now`), so a test moves time on
// instead of waiting a minute.
//
// It cannot drift from GitLab's documented shapes: no npm package carries a
// description of GitLab's API v4, so every request it receives and every
// response it sends is validated against JSON Schemas written from GitLab's
// REST documentation (gitlab-schema.ts, which says how). A request or
// response that does not match is recorded in `problems` (tests assert it
// stays empty), and a request that does not match is answered 400 as GitLab
// would.

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
type Json = Record<string, unknown>;

const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
addFormats(ajv);
const compiled = new Map<unknown, ValidateFunction>();
const validatorFor = (schema: object): ValidateFunction => {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
};

/** What GitLab names each kind of event: the hook flag that subscribes to it, the X-Gitlab-Event header, the event's trigger. */
const KINDS: Record<string, { flag: string; header: string; trigger: string }> = {
  push: { flag: 'push_events', header: 'Push Hook', trigger: 'push_hooks' },
  tag_push: { flag: 'tag_push_events', header: 'Tag Push Hook', trigger: 'tag_push_hooks' },
  issue: { flag: 'issues_events', header: 'Issue Hook', trigger: 'issue_hooks' },
  confidential_issue: { flag: 'confidential_issues_events', header: 'Confidential Issue Hook', trigger: 'confidential_issue_hooks' },
  merge_request: { flag: 'merge_requests_events', header: 'Merge Request Hook', trigger: 'merge_request_hooks' },
  note: { flag: 'note_events', header: 'Note Hook', trigger: 'note_hooks' },
  confidential_note: { flag: 'confidential_note_events', header: 'Confidential Note Hook', trigger: 'confidential_note_hooks' },
  pipeline: { flag: 'pipeline_events', header: 'Pipeline Hook', trigger: 'pipeline_hooks' },
  build: { flag: 'job_events', header: 'Job Hook', trigger: 'job_hooks' },
  wiki_page: { flag: 'wiki_page_events', header: 'Wiki Page Hook', trigger: 'wiki_page_hooks' },
  deployment: { flag: 'deployment_events', header: 'Deployment Hook', trigger: 'deployment_hooks' },
  release: { flag: 'releases_events', header: 'Release Hook', trigger: 'release_hooks' },
  feature_flag: { flag: 'feature_flag_events', header: 'Feature Flag Hook', trigger: 'feature_flag_hooks' },
  emoji: { flag: 'emoji_events', header: 'Emoji Hook', trigger: 'emoji_hooks' },
};

export type FakeGitLabHook = {
  id: number;
  projectId: number;
  url: string;
  token: string | null;
  flags: Record<string, boolean>;
  enable_ssl_verification: boolean;
  name: string | null;
  description: string | null;
  created_at: string;
};

export type FakeHookEvent = {
  id: number;
  hookId: number;
  url: string;
  trigger: string;
  request_headers: Record<string, string>;
  request_data: Json;
  response_headers: Record<string, string>;
  response_body: string;
  execution_duration: number;
  response_status: string;
  created_at: string;
  /** The Idempotency-Key sent (also in request_headers). */
  idempotencyKey: string;
  /** What the receiver was sent, the token unredacted: for tests. */
  sent: Record<string, string>;
};

/** One injected answer for the next request(s) whose path matches; `body` is sent as it is, not validated (garbage on purpose). */
export type Fault = { match?: RegExp; status: number; body?: string; headers?: Record<string, string>; times?: number };

export type GitLabFakeOptions = {
  /** The fake's clock (event times, retention, the resend limit); Date.now by default. */
  now?: () => number;
  /** Resends allowed a minute per hook and token (GitLab: 5). */
  resendsPerMinute?: number;
};

export type GitLabFake = {
  /** The API base URL (`…/api/v4`). */
  url: string;
  /** Tokens and the role they have on every project: 'maintainer' may manage hooks, 'developer' gets GitLab's 403. */
  tokens: Map<string, 'maintainer' | 'developer'>;
  projects: Map<number, { id: number; path: string }>;
  hooks: Map<number, FakeGitLabHook>;
  events: FakeHookEvent[];
  /** Requests and responses that did not match GitLab's documented shapes. */
  problems: string[];
  /** API requests received, as "METHOD /path" (the path as sent, still encoded). */
  requests: string[];
  /** Resend requests refused by the 5-a-minute limit. */
  limited: number;
  faults: Fault[];
  /** When set, responses are changed by this function before they are validated and sent (a drifting fake). */
  drift: ((template: string, body: unknown) => unknown) | null;
  addProject(path: string): number;
  /** Sends an event (its payload's object_kind says which) to every hook of the project subscribed to it, as GitLab does; resolves when each attempt is recorded. */
  send(project: number | string, payload: Json): Promise<FakeHookEvent[]>;
  settled(): Promise<void>;
  close(): Promise<void>;
};

const json = (response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(status === 204 || body === null ? undefined : JSON.stringify(body));
};

const RETENTION_MS = 7 * 86_400_000;

export async function startGitLabFake(options: GitLabFakeOptions = {}): Promise<GitLabFake> {
  const now = options.now ?? Date.now;
  const resendsPerMinute = options.resendsPerMinute ?? 5;
  let nextProjectId = 40;
  let nextHookId = 700;
  let nextEventId = 90_000;
  const resends = new Map<string, number[]>();
  const inFlight = new Set<Promise<unknown>>();
  const iso = (ms: number) => new Date(ms).toISOString();
  const fake = {
    url: '',
    tokens: new Map<string, 'maintainer' | 'developer'>(),
    projects: new Map<number, { id: number; path: string }>(),
    hooks: new Map<number, FakeGitLabHook>(),
    events: [] as FakeHookEvent[],
    problems: [] as string[],
    requests: [] as string[],
    limited: 0,
    faults: [] as Fault[],
    drift: null as GitLabFake['drift'],
  };
  let origin = '';

  const projectOf = (id: string | number) => {
    const text = String(id);
    return /^\d+$/.test(text) ? fake.projects.get(Number(text)) : [...fake.projects.values()].find((p) => p.path === text);
  };

  const hookView = (hook: FakeGitLabHook) => ({
    id: hook.id,
    url: hook.url,
    name: hook.name,
    description: hook.description,
    project_id: hook.projectId,
    ...hook.flags,
    push_events_branch_filter: '',
    branch_filter_strategy: 'wildcard',
    enable_ssl_verification: hook.enable_ssl_verification,
    repository_update_events: false,
    alert_status: 'executable',
    disabled_until: null,
    url_variables: [],
    created_at: hook.created_at,
    custom_webhook_template: null,
    custom_headers: [],
  });
  const eventView = (e: FakeHookEvent) => ({
    id: e.id,
    url: e.url,
    trigger: e.trigger,
    request_headers: e.request_headers,
    request_data: e.request_data,
    response_headers: e.response_headers,
    response_body: e.response_body,
    execution_duration: e.execution_duration,
    response_status: e.response_status,
    created_at: e.created_at,
  });

  /** One attempt to send, recorded as GitLab records it (the token redacted). */
  async function attempt(hook: FakeGitLabHook, kind: (typeof KINDS)[string], payload: Json, idempotencyKey: string, eventUuid: string): Promise<FakeHookEvent> {
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': 'GitLab/17.6.0-fake',
      'Idempotency-Key': idempotencyKey,
      'X-Gitlab-Event': kind.header,
      'X-Gitlab-Webhook-UUID': `00000000-0000-4000-8000-${String(hook.id).padStart(12, '0')}`,
      'X-Gitlab-Instance': origin,
      'X-Gitlab-Event-UUID': eventUuid,
      ...(hook.token ? { 'X-Gitlab-Token': hook.token } : {}),
    };
    const started = now();
    const realStart = Date.now();
    let status = 'internal error';
    let responseBody = '';
    const responseHeaders: Record<string, string> = {};
    try {
      const answer = await fetch(hook.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      status = String(answer.status);
      responseBody = await answer.text();
      answer.headers.forEach((value, name) => (responseHeaders[name] = value));
    } catch (error) {
      // Tripline not reachable: recorded as GitLab records it.
      responseBody = (error as Error).message;
    }
    const event: FakeHookEvent = {
      id: nextEventId++,
      hookId: hook.id,
      url: hook.url,
      trigger: kind.trigger,
      request_headers: { ...headers, ...(hook.token ? { 'X-Gitlab-Token': '[REDACTED]' } : {}) },
      request_data: payload,
      response_headers: responseHeaders,
      response_body: responseBody,
      execution_duration: (Date.now() - realStart) / 1000,
      response_status: status,
      created_at: iso(started),
      idempotencyKey,
      sent: headers,
    };
    fake.events.push(event);
    return event;
  }

  const track = <T>(promise: Promise<T>) => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise));
    return promise;
  };

  const kindOf = (payload: Json) => {
    const objectKind = String(payload.object_kind ?? '');
    const confidential = (payload.object_attributes as Json | undefined)?.confidential === true;
    const kind = KINDS[confidential && (objectKind === 'issue' || objectKind === 'note') ? `confidential_${objectKind}` : objectKind];
    if (!kind) throw new Error(`the fake GitLab sends no event with object_kind ${objectKind}`);
    return kind;
  };

  type Answer = { status: number; body: unknown; headers?: Record<string, string> };
  const notFound = (what: string): Answer => ({ status: 404, body: { message: `404 ${what} Not Found` } });

  async function handle(route: Route, params: Record<string, string>, query: URLSearchParams, body: Json, token: string): Promise<Answer> {
    const project = projectOf(params.id!);
    if (!project) return notFound('Project');
    const hook = params.hook_id ? fake.hooks.get(Number(params.hook_id)) : undefined;
    if (params.hook_id && (!hook || hook.projectId !== project.id)) return { status: 404, body: { message: '404 Not found' } };
    const key = `${route.method} ${route.template}`;
    switch (key) {
      case 'get /projects/:id/hooks':
        return { status: 200, body: [...fake.hooks.values()].filter((h) => h.projectId === project.id).map(hookView) };
      case 'post /projects/:id/hooks': {
        const flags = Object.fromEntries(Object.values(KINDS).map((k) => [k.flag, k.flag === 'push_events']));
        for (const flag of Object.keys(flags)) if (typeof body[flag] === 'boolean') flags[flag] = body[flag] as boolean;
        const created: FakeGitLabHook = {
          id: nextHookId++,
          projectId: project.id,
          url: body.url as string,
          token: (body.token as string | undefined) ?? null,
          flags,
          enable_ssl_verification: body.enable_ssl_verification !== false,
          name: (body.name as string | undefined) ?? null,
          description: (body.description as string | undefined) ?? null,
          created_at: iso(now()),
        };
        fake.hooks.set(created.id, created);
        return { status: 201, body: hookView(created) };
      }
      case 'get /projects/:id/hooks/:hook_id':
        return { status: 200, body: hookView(hook!) };
      case 'put /projects/:id/hooks/:hook_id': {
        // GitLab forgets the token when the URL changes and none is given.
        if (body.url !== hook!.url && body.token === undefined) hook!.token = null;
        hook!.url = body.url as string;
        if (typeof body.token === 'string') hook!.token = body.token;
        for (const flag of Object.keys(hook!.flags)) if (typeof body[flag] === 'boolean') hook!.flags[flag] = body[flag] as boolean;
        if (typeof body.enable_ssl_verification === 'boolean') hook!.enable_ssl_verification = body.enable_ssl_verification;
        return { status: 200, body: hookView(hook!) };
      }
      case 'delete /projects/:id/hooks/:hook_id':
        fake.hooks.delete(hook!.id);
        return { status: 204, body: null };
      case 'get /projects/:id/hooks/:hook_id/events': {
        const status = query.get('status');
        const inRange = (code: number) =>
          status === null ? true : status === 'successful' ? code >= 200 && code < 300 : status === 'client_failure' ? code >= 400 && code < 500 : status === 'server_failure' ? code >= 500 : code === Number(status);
        const all = fake.events
          .filter((e) => e.hookId === hook!.id && Date.parse(e.created_at) >= now() - RETENTION_MS && inRange(Number(e.response_status)))
          .sort((a, b) => b.id - a.id);
        const perPage = Number(query.get('per_page') ?? 20);
        const pageNo = Number(query.get('page') ?? 1);
        const items = all.slice((pageNo - 1) * perPage, pageNo * perPage);
        const pages = Math.max(1, Math.ceil(all.length / perPage));
        const link = (p: number, rel: string) => `<${fake.url}/projects/${encodeURIComponent(params.id!)}/hooks/${hook!.id}/events?page=${p}&per_page=${perPage}>; rel="${rel}"`;
        return {
          status: 200,
          body: items.map(eventView),
          headers: {
            'x-page': String(pageNo),
            'x-per-page': String(perPage),
            'x-total': String(all.length),
            'x-total-pages': String(pages),
            'x-next-page': pageNo < pages ? String(pageNo + 1) : '',
            'x-prev-page': pageNo > 1 ? String(pageNo - 1) : '',
            link: [pageNo < pages ? link(pageNo + 1, 'next') : null, link(1, 'first'), link(pages, 'last')].filter(Boolean).join(', '),
          },
        };
      }
      case 'post /projects/:id/hooks/:hook_id/events/:hook_event_id/resend': {
        const event = fake.events.find((e) => e.hookId === hook!.id && e.id === Number(params.hook_event_id));
        if (!event) return { status: 404, body: { message: '404 Not found' } };
        const limitKey = `${hook!.id} ${token}`;
        const recent = (resends.get(limitKey) ?? []).filter((t) => t > now() - 60_000);
        if (recent.length >= resendsPerMinute) {
          fake.limited++;
          resends.set(limitKey, recent);
          return { status: 429, body: { message: { error: 'This endpoint has been requested too many times. Try again later.' } } };
        }
        resends.set(limitKey, [...recent, now()]);
        // Sent at once, with the same Idempotency-Key; the resend is a new request, so a new X-Gitlab-Event-UUID.
        const again = await track(attempt(hook!, kindOf(event.request_data), event.request_data, event.idempotencyKey, randomUUID()));
        const code = Number(again.response_status);
        return { status: 201, body: { response_status: Number.isInteger(code) ? code : again.response_status } };
      }
    }
    throw new Error(`no handler for ${key}`);
  }

  const routes = ROUTES.map((route) => {
    const names: string[] = [];
    const pattern = new RegExp(`^/api/v4${route.template.replace(/:(\w+)/g, (_, name: string) => (names.push(name), '([^/]+)'))}$`);
    return { route, names, pattern };
  });

  function validateRequest(route: Route, params: Record<string, string>, query: URLSearchParams, body: unknown, hasBody: boolean): string[] {
    const problems: string[] = [];
    const id = params.id!;
    if (!/^[1-9]\d*$/.test(id) && !/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/.test(id)) problems.push(`path parameter id ${JSON.stringify(id)} is neither a project ID nor a project path`);
    for (const name of ['hook_id', 'hook_event_id']) if (params[name] !== undefined && !/^[1-9]\d*$/.test(params[name])) problems.push(`path parameter ${name} is not an integer`);
    for (const [name, value] of query) {
      const schema = route.query[name];
      if (!schema) {
        problems.push(`unknown query parameter ${name}`);
        continue;
      }
      const typed = /^-?\d+$/.test(value) ? Number(value) : value;
      const validate = validatorFor(schema);
      if (!validate(typed)) problems.push(`query parameter ${name}: ${JSON.stringify(validate.errors)}`);
    }
    if (route.body) {
      if (!hasBody) problems.push('missing body');
      else {
        const validate = validatorFor(route.body);
        if (!validate(body)) problems.push(`body: ${JSON.stringify(validate.errors)}`);
      }
    } else if (hasBody) problems.push('a body where GitLab takes none');
    return problems;
  }

  function validateResponse(route: Route, status: number, body: unknown): string[] {
    if (status >= 400) {
      const validate = validatorFor(ERROR_BODY);
      return validate(body) ? [] : [`error body ${status}: ${JSON.stringify(validate.errors)}`];
    }
    if (!(status in route.responses)) return [`status ${status} is not one ${route.method.toUpperCase()} ${route.template} answers`];
    const schema = route.responses[status];
    if (schema === null) return body === null || body === undefined ? [] : [`a body on ${status}, which has none`];
    const validate = validatorFor(schema!);
    return validate(body) ? [] : [`response ${status}: ${JSON.stringify(validate.errors).slice(0, 2000)}`];
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const url = new URL(request.url ?? '/', 'http://fake');
        const method = (request.method ?? 'GET').toLowerCase();
        fake.requests.push(`${method.toUpperCase()} ${url.pathname}`);
        const found = routes.find((r) => r.route.method === method && r.pattern.test(url.pathname));
        if (!found) {
          fake.problems.push(`${method.toUpperCase()} ${url.pathname}: no such operation in the fake`);
          return json(response, 404, { error: '404 Not Found' });
        }
        const { route } = found;
        const match = found.pattern.exec(url.pathname)!;
        const params = Object.fromEntries(found.names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Json = {};
        try {
          body = text ? (JSON.parse(text) as Json) : {};
        } catch {
          fake.problems.push(`${method.toUpperCase()} ${url.pathname}: a body that is not JSON`);
          return json(response, 400, { error: 'body is not valid JSON' });
        }
        const requestProblems = validateRequest(route, params, url.searchParams, body, text.length > 0);
        if (requestProblems.length) {
          fake.problems.push(...requestProblems.map((p) => `${method.toUpperCase()} ${route.template}: request ${p}`));
          return json(response, 400, { error: requestProblems[0]!.slice(0, 200) });
        }
        const token = request.headers['private-token'];
        const role = typeof token === 'string' ? fake.tokens.get(token) : undefined;
        const fault = fake.faults.find((f) => !f.match || f.match.test(url.pathname));
        let answer: Answer;
        if (fault) {
          if ((fault.times = (fault.times ?? 1) - 1) <= 0) fake.faults.splice(fake.faults.indexOf(fault), 1);
          if (fault.body !== undefined) {
            response.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
            return response.end(fault.body);
          }
          answer = { status: fault.status, body: { message: `${fault.status} fault` }, headers: fault.headers };
        } else if (!role) {
          answer = { status: 401, body: { message: '401 Unauthorized' } };
        } else if (role === 'developer') {
          answer = { status: 403, body: { message: '403 Forbidden' } };
        } else {
          answer = await handle(route, params, url.searchParams, body, token as string);
        }
        const sent = fake.drift ? fake.drift(route.template, answer.body) : answer.body;
        fake.problems.push(...validateResponse(route, answer.status, answer.status === 204 ? null : sent).map((p) => `${method.toUpperCase()} ${route.template}: ${p}`));
        json(response, answer.status, answer.status === 204 ? null : sent, answer.headers);
      })().catch((error: unknown) => {
        fake.problems.push(`the fake failed: ${(error as Error).message}`);
        json(response, 500, { message: '500 Internal Server Error' });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.url = `${origin}/api/v4`;

  return Object.assign(fake, {
    addProject(path: string) {
      const id = nextProjectId++;
      fake.projects.set(id, { id, path });
      return id;
    },
    async send(projectRef: number | string, payload: Json) {
      const project = projectOf(projectRef);
      if (!project) throw new Error(`the fake GitLab has no project ${projectRef}`);
      const kind = kindOf(payload);
      const hooks = [...fake.hooks.values()].filter((hook) => hook.projectId === project.id && hook.flags[kind.flag]);
      const eventUuid = randomUUID(); // one per request that triggers hooks, shared by its hooks
      return Promise.all(hooks.map((hook) => track(attempt(hook, kind, payload, randomUUID(), eventUuid))));
    },
    async settled() {
      while (inFlight.size) await Promise.all([...inFlight]);
    },
    async close() {
      while (inFlight.size) await Promise.all([...inFlight]);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
