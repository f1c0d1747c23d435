import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { openApiDescription, takeFault, type Fault, type Json, type Operation } from './openapi';
export type { Fault } from './openapi';

// A fake GitHub for the connection tests: repository and organization hooks
// (list, create, update, config, delete), their deliveries (list with a
// cursor, one, redeliver) and pings. Like GitHub it sends signed deliveries
// (X-Hub-Signature-256 with the hook's secret, X-GitHub-Delivery,
// X-GitHub-Event) to the hook's URL, records every attempt with its outcome,
// and redelivers one on request with the same GUID.
//
// It cannot drift from GitHub: every request it receives and every response
// it sends is validated against the REST API's published description
// (@octokit/openapi, generated/api.github.com.json). A request or response
// that does not match is recorded in `problems` (tests assert it stays
// empty), and a request that does not match is answered 422 as GitHub
// would. One allowance: GitHub's description lists 401, 403, 404, 429 and
// 5xx on only some operations though the API answers them on every one;
// those statuses are accepted everywhere with GitHub's error body
// (basic-error), which is validated.

const SPEC_FILE = path.resolve(import.meta.dirname, '../../../node_modules/@octokit/openapi/generated/api.github.com.json');
const description = openApiDescription(SPEC_FILE, 'github');
const { validatorFor, deref } = description;

const SUPPORTED = [
  ['get', '/repos/{owner}/{repo}/hooks'],
  ['post', '/repos/{owner}/{repo}/hooks'],
  ['get', '/repos/{owner}/{repo}/hooks/{hook_id}'],
  ['patch', '/repos/{owner}/{repo}/hooks/{hook_id}'],
  ['delete', '/repos/{owner}/{repo}/hooks/{hook_id}'],
  ['get', '/repos/{owner}/{repo}/hooks/{hook_id}/config'],
  ['patch', '/repos/{owner}/{repo}/hooks/{hook_id}/config'],
  ['get', '/repos/{owner}/{repo}/hooks/{hook_id}/deliveries'],
  ['get', '/repos/{owner}/{repo}/hooks/{hook_id}/deliveries/{delivery_id}'],
  ['post', '/repos/{owner}/{repo}/hooks/{hook_id}/deliveries/{delivery_id}/attempts'],
  ['post', '/repos/{owner}/{repo}/hooks/{hook_id}/pings'],
  ['get', '/orgs/{org}/hooks'],
  ['post', '/orgs/{org}/hooks'],
  ['get', '/orgs/{org}/hooks/{hook_id}'],
  ['patch', '/orgs/{org}/hooks/{hook_id}'],
  ['delete', '/orgs/{org}/hooks/{hook_id}'],
  ['get', '/orgs/{org}/hooks/{hook_id}/config'],
  ['patch', '/orgs/{org}/hooks/{hook_id}/config'],
  ['get', '/orgs/{org}/hooks/{hook_id}/deliveries'],
  ['get', '/orgs/{org}/hooks/{hook_id}/deliveries/{delivery_id}'],
  ['post', '/orgs/{org}/hooks/{hook_id}/deliveries/{delivery_id}/attempts'],
  ['post', '/orgs/{org}/hooks/{hook_id}/pings'],
] as const;

const operations = () => description.operations(SUPPORTED, 'GitHub');

export type FakeHook = {
  id: number;
  scope: string; // "repos/owner/repo" or "orgs/org"
  active: boolean;
  events: string[];
  config: { url: string; content_type: string; secret?: string; insecure_ssl: string };
  created_at: string;
  updated_at: string;
};

export type FakeDelivery = {
  id: number;
  hookId: number;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  duration: number;
  status: string;
  status_code: number;
  event: string;
  action: string | null;
  request: { headers: Record<string, string>; payload: Json };
  response: { headers: Record<string, string>; payload: string | null };
};


export type GitHubFake = {
  url: string;
  /** Tokens and what they may do: 'admin' may manage hooks, 'read' gets GitHub's 403. */
  tokens: Map<string, 'admin' | 'read'>;
  hooks: Map<number, FakeHook>;
  deliveries: FakeDelivery[];
  /** Requests and responses that did not match GitHub's description. */
  problems: string[];
  /** API requests received, as "METHOD /path". */
  requests: string[];
  faults: Fault[];
  /** When set, responses are changed by this function before they are validated and sent (a drifting fake). */
  drift: ((template: string, body: unknown) => unknown) | null;
  /** Sends an event to every active hook of the scope subscribed to it, as GitHub does; resolves when each attempt is recorded. */
  send(scope: string, event: string, payload: Json): Promise<FakeDelivery[]>;
  /** Redeliveries GitHub was asked for and has not finished sending. */
  settled(): Promise<void>;
  close(): Promise<void>;
};

const json = (response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(status === 204 ? undefined : JSON.stringify(body));
};

const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export async function startGitHubFake(): Promise<GitHubFake> {
  const ops = operations();
  let nextHookId = 1000;
  let nextDeliveryId = 500_000;
  const inFlight = new Set<Promise<unknown>>();
  const fake = {
    url: '',
    tokens: new Map<string, 'admin' | 'read'>(),
    hooks: new Map<number, FakeHook>(),
    deliveries: [] as FakeDelivery[],
    problems: [] as string[],
    requests: [] as string[],
    faults: [] as Fault[],
    drift: null as GitHubFake['drift'],
  };

  const hookView = (hook: FakeHook) => {
    const base = `${fake.url}/${hook.scope}/hooks/${hook.id}`;
    const config = { url: hook.config.url, content_type: hook.config.content_type, insecure_ssl: hook.config.insecure_ssl, ...(hook.config.secret ? { secret: '********' } : {}) };
    const common = { type: hook.scope.startsWith('orgs/') ? 'Organization' : 'Repository', id: hook.id, name: 'web', active: hook.active, events: hook.events, config, updated_at: hook.updated_at, created_at: hook.created_at, url: base, ping_url: `${base}/pings`, deliveries_url: `${base}/deliveries` };
    return hook.scope.startsWith('orgs/') ? common : { ...common, test_url: `${base}/test`, last_response: { code: null, status: 'unused', message: null } };
  };
  const item = (d: FakeDelivery) => ({
    id: d.id, guid: d.guid, delivered_at: d.delivered_at, redelivery: d.redelivery, duration: d.duration, status: d.status, status_code: d.status_code,
    event: d.event, action: d.action, installation_id: null, repository_id: null, throttled_at: null,
  });

  async function attempt(hook: FakeHook, guid: string, event: string, payload: Json, redelivery: boolean): Promise<FakeDelivery> {
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/fake',
      'x-github-delivery': guid,
      'x-github-event': event,
      'x-github-hook-id': String(hook.id),
      ...(hook.config.secret ? { 'x-hub-signature-256': sign(hook.config.secret, body) } : {}),
    };
    const started = Date.now();
    let statusCode = 0;
    let status = 'failed to connect';
    let responseBody: string | null = null;
    try {
      const answer = await fetch(hook.config.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      statusCode = answer.status;
      responseBody = await answer.text();
      status = answer.ok ? 'OK' : `Invalid HTTP Response: ${answer.status}`;
    } catch {
      // Tripline not reachable: recorded as GitHub records it.
    }
    const delivery: FakeDelivery = {
      id: nextDeliveryId++, hookId: hook.id, guid, delivered_at: new Date(started).toISOString().replace(/\.\d{3}Z$/, 'Z'), redelivery,
      duration: (Date.now() - started) / 1000, status, status_code: statusCode, event,
      action: typeof payload.action === 'string' ? payload.action : null,
      request: { headers, payload }, response: { headers: {}, payload: responseBody },
    };
    fake.deliveries.push(delivery);
    return delivery;
  }

  const track = <T>(promise: Promise<T>) => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise));
    return promise;
  };

  const subscribed = (hook: FakeHook, event: string) => hook.active && (hook.events.includes('*') || hook.events.includes(event) || event === 'ping');

  const handlers: Record<string, (p: Record<string, string>, body: Json, query: URLSearchParams) => { status: number; body: unknown; headers?: Record<string, string> }> = {};
  const scopeOf = (p: Record<string, string>) => (p.org ? `orgs/${p.org}` : `repos/${p.owner}/${p.repo}`);
  const hookIn = (p: Record<string, string>) => {
    const hook = fake.hooks.get(Number(p.hook_id));
    return hook && hook.scope === scopeOf(p) ? hook : null;
  };
  const notFound = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' } };
  for (const prefix of ['/repos/{owner}/{repo}', '/orgs/{org}']) {
    handlers[`get ${prefix}/hooks`] = (p) => ({ status: 200, body: [...fake.hooks.values()].filter((h) => h.scope === scopeOf(p)).map(hookView) });
    handlers[`post ${prefix}/hooks`] = (p, body) => {
      const config = body.config as FakeHook['config'];
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const hook: FakeHook = { id: nextHookId++, scope: scopeOf(p), active: body.active !== false, events: (body.events as string[]) ?? ['push'], config: { ...config, content_type: config.content_type ?? 'form', insecure_ssl: config.insecure_ssl ?? '0' }, created_at: now, updated_at: now };
      fake.hooks.set(hook.id, hook);
      // GitHub pings a new hook at once.
      void track(attempt(hook, randomUUID(), 'ping', { zen: 'Keep it logically awesome.', hook_id: hook.id, hook: hookView(hook) }, false));
      return { status: 201, body: hookView(hook) };
    };
    handlers[`get ${prefix}/hooks/{hook_id}`] = (p) => {
      const hook = hookIn(p);
      return hook ? { status: 200, body: hookView(hook) } : notFound;
    };
    handlers[`patch ${prefix}/hooks/{hook_id}`] = (p, body) => {
      const hook = hookIn(p);
      if (!hook) return notFound;
      if (body.events) hook.events = body.events as string[];
      if (body.active !== undefined) hook.active = body.active as boolean;
      if (body.config) Object.assign(hook.config, body.config);
      return { status: 200, body: hookView(hook) };
    };
    handlers[`delete ${prefix}/hooks/{hook_id}`] = (p) => {
      const hook = hookIn(p);
      if (!hook) return notFound;
      fake.hooks.delete(hook.id);
      return { status: 204, body: null };
    };
    handlers[`get ${prefix}/hooks/{hook_id}/config`] = (p) => {
      const hook = hookIn(p);
      return hook ? { status: 200, body: hookView(hook).config } : notFound;
    };
    handlers[`patch ${prefix}/hooks/{hook_id}/config`] = (p, body) => {
      const hook = hookIn(p);
      if (!hook) return notFound;
      Object.assign(hook.config, body);
      return { status: 200, body: hookView(hook).config };
    };
    handlers[`get ${prefix}/hooks/{hook_id}/deliveries`] = (p, _body, query) => {
      const hook = hookIn(p);
      if (!hook) return notFound;
      const perPage = Number(query.get('per_page') ?? 30);
      const all = fake.deliveries.filter((d) => d.hookId === hook.id).sort((a, b) => b.id - a.id);
      const cursor = query.get('cursor');
      const start = cursor ? all.findIndex((d) => d.id < Number(cursor)) : 0;
      const page = start < 0 ? [] : all.slice(start, start + perPage);
      const more = start >= 0 && start + perPage < all.length;
      const link = more ? `<${fake.url}/${hook.scope}/hooks/${hook.id}/deliveries?per_page=${perPage}&cursor=${page[page.length - 1]!.id}>; rel="next"` : undefined;
      return { status: 200, body: page.map(item), headers: link ? { link } : undefined };
    };
    handlers[`get ${prefix}/hooks/{hook_id}/deliveries/{delivery_id}`] = (p) => {
      const hook = hookIn(p);
      const delivery = hook && fake.deliveries.find((d) => d.hookId === hook.id && d.id === Number(p.delivery_id));
      return delivery ? { status: 200, body: { ...item(delivery), url: `${fake.url}/${hook.scope}/hooks/${hook.id}`, request: delivery.request, response: delivery.response } } : notFound;
    };
    handlers[`post ${prefix}/hooks/{hook_id}/deliveries/{delivery_id}/attempts`] = (p) => {
      const hook = hookIn(p);
      const delivery = hook && fake.deliveries.find((d) => d.hookId === hook.id && d.id === Number(p.delivery_id));
      if (!hook || !delivery) return notFound;
      void track(attempt(hook, delivery.guid, delivery.event, delivery.request.payload, true));
      return { status: 202, body: {} };
    };
    handlers[`post ${prefix}/hooks/{hook_id}/pings`] = (p) => {
      const hook = hookIn(p);
      if (!hook) return notFound;
      void track(attempt(hook, randomUUID(), 'ping', { zen: 'Design for failure.', hook_id: hook.id }, false));
      return { status: 204, body: null };
    };
  }

  function validateRequest(op: Operation, params: Record<string, string>, query: URLSearchParams, body: unknown, hasBody: boolean): string[] {
    const problems: string[] = [];
    for (const raw of (op.spec.parameters as unknown[]) ?? []) {
      const parameter = deref(raw);
      const value = parameter.in === 'path' ? params[parameter.name as string] : parameter.in === 'query' ? query.get(parameter.name as string) : undefined;
      if (value === undefined || value === null) {
        if (parameter.required) problems.push(`missing ${parameter.in} parameter ${parameter.name as string}`);
        continue;
      }
      const schema = parameter.schema as Json;
      const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
      const validate = validatorFor(`param ${op.template} ${parameter.name as string}`, schema);
      if (!validate(typed)) problems.push(`${parameter.in} parameter ${parameter.name as string}: ${JSON.stringify(validate.errors)}`);
    }
    const known = new Set(((op.spec.parameters as unknown[]) ?? []).map((raw) => deref(raw)).filter((p) => p.in === 'query').map((p) => p.name as string));
    for (const name of query.keys()) if (!known.has(name)) problems.push(`unknown query parameter ${name}`);
    const requestBody = op.spec.requestBody ? deref(op.spec.requestBody) : null;
    if (requestBody) {
      const schema = ((requestBody.content as Json)['application/json'] as Json).schema;
      if (!hasBody && requestBody.required) problems.push('missing body');
      if (hasBody) {
        const validate = validatorFor(`body ${op.method} ${op.template}`, schema);
        if (!validate(body)) problems.push(`body: ${JSON.stringify(validate.errors)}`);
      }
    } else if (hasBody && body !== null && Object.keys(body as Json).length > 0) {
      problems.push('a body where GitHub takes none');
    }
    return problems;
  }

  const GENERIC_ERRORS = new Set([401, 403, 404, 429, 500, 502, 503, 504]);
  function validateResponse(op: Operation, status: number, body: unknown): string[] {
    const responses = op.spec.responses as Record<string, unknown>;
    const described = responses[String(status)];
    if (!described) {
      if (!GENERIC_ERRORS.has(status)) return [`status ${status} is not one ${op.method.toUpperCase()} ${op.template} answers`];
      const validate = validatorFor('basic-error', { $ref: 'github#/components/schemas/basic-error' });
      return validate(body) ? [] : [`error body: ${JSON.stringify(validate.errors)}`];
    }
    const content = deref(described).content as Json | undefined;
    if (!content) return body === null || body === undefined ? [] : [`a body on ${status}, which has none`];
    const schema = (content['application/json'] as Json).schema;
    const validate = validatorFor(`response ${op.method} ${op.template} ${status}`, schema);
    return validate(body) ? [] : [`response ${status}: ${JSON.stringify(validate.errors).slice(0, 2000)}`];
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const method = (request.method ?? 'GET').toLowerCase();
      fake.requests.push(`${method.toUpperCase()} ${url.pathname}`);
      const op = ops.find((o) => o.method === method && o.pattern.test(url.pathname));
      if (!op) {
        fake.problems.push(`${method.toUpperCase()} ${url.pathname}: no such operation in the fake`);
        return json(response, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
      }
      const match = op.pattern.exec(url.pathname)!;
      const params = Object.fromEntries(op.names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Json = {};
      try {
        body = text ? (JSON.parse(text) as Json) : {};
      } catch {
        fake.problems.push(`${method.toUpperCase()} ${url.pathname}: a body that is not JSON`);
        return json(response, 400, { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/rest' });
      }
      const requestProblems = validateRequest(op, params, url.searchParams, body, text.length > 0);
      if (requestProblems.length) {
        fake.problems.push(...requestProblems.map((p) => `${method.toUpperCase()} ${op.template}: request ${p}`));
        return json(response, 422, { message: 'Validation Failed', documentation_url: 'https://docs.github.com/rest', status: '422' });
      }
      const token = /^(?:token|bearer) (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      const access = token ? fake.tokens.get(token) : undefined;
      const fault = takeFault(fake.faults, url.pathname);
      await fault?.before?.();
      let answer: { status: number; body: unknown; headers?: Record<string, string> };
      if (fault) {
        if (fault.body !== undefined) {
          // Garbage on purpose: sent as it is, not validated.
          response.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
          return response.end(fault.body);
        }
        answer = { status: fault.status, body: { message: `fault ${fault.status}`, documentation_url: 'https://docs.github.com/rest' }, headers: fault.headers };
      } else if (!access) {
        answer = { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' } };
      } else if (access === 'read') {
        answer = { status: 403, body: { message: 'Resource not accessible by personal access token', documentation_url: 'https://docs.github.com/rest', status: '403' } };
      } else {
        answer = handlers[`${op.method} ${op.template}`]!(params, body, url.searchParams);
      }
      const sent = fake.drift ? fake.drift(op.template, answer.body) : answer.body;
      const responseProblems = validateResponse(op, answer.status, answer.status === 204 ? null : sent);
      fake.problems.push(...responseProblems.map((p) => `${method.toUpperCase()} ${op.template}: ${p}`));
      json(response, answer.status, sent, { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', ...answer.headers });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return Object.assign(fake, {
    async send(scope: string, event: string, payload: Json) {
      const hooks = [...fake.hooks.values()].filter((hook) => hook.scope === scope && subscribed(hook, event));
      const guid = randomUUID(); // one GUID for every hook the event goes to, as GitHub does
      return Promise.all(hooks.map((hook) => track(attempt(hook, guid, event, payload, false))));
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
