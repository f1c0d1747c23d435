import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { APIRequestContext } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';

// The management API under hostile input, generated from its own OpenAPI
// document, over real HTTP, on embedded PGlite and on PostgreSQL. For every
// operation the document lists, and every parameter of it (path, query, and
// each field of the JSON body, nested ones included), the spec sends the
// operation with that one value made hostile and everything else valid: a NUL
// byte, a lone surrogate, dates no database can hold, numbers past 2^53,
// empty values, wrong types, very long strings, then fast-check's random
// strings, numbers and JSON values. No answer may be a 5xx, and a NUL byte or
// a lone surrogate must be refused with a 4xx that names the field.
//
// Everything runs in a factory of its own, made for the run. Four parameters
// are fuzzed at a time. Operations that remove things run last, one at a
// time, so the others reach their handlers with real IDs.
// FUZZ_API_RUNS sets the random values per parameter (default 3);
// FUZZ_SEED replays a run.
//
// On PostgreSQL every value goes to every parameter. On the embedded
// database, whose SQL is PostgreSQL's own and whose difference is the driver
// and its one connection, only the values that reach SQL as they were sent
// (dates, numbers, empty and very long text; SQL_VALUES) and one random value
// go: the others are refused by the same code before any query on both
// databases (the request checks, the schemas). That halves the embedded
// database's run, which took three times PostgreSQL's (one connection).

const RANDOM_PER_TARGET = Number(process.env.FUZZ_API_RUNS ?? 3);
/** Parameters fuzzed at once (each one's values in turn). */
const CONCURRENCY = 4;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  $ref?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};
type Parameter = { name: string; in: 'path' | 'query' | 'header'; schema?: JsonSchema };
type Operation = { method: string; path: string; parameters: Parameter[]; body?: JsonSchema };
type Target = { operation: Operation; where: 'path' | 'query' | 'body'; name: string };
type World = { factory: string; uid: string; delivery: string; automation: string; run: string; replayJob: string; invitation: string; destination: string; secret: string };

// A value the JSON body carries as raw text: numbers JSON.stringify cannot write (1e400 parses as Infinity).
class Raw {
  constructor(readonly text: string) {}
}

/** The values every parameter is tried with, whatever its type. */
const HOSTILE: unknown[] = [
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '',
  '-271821-04-20T00:00:00Z',
  '+275760-09-13T00:00:01Z',
  '0',
  '99999-12-31T00:00:00Z',
  '2026-02-30T25:61:00Z',
  '9007199254740993',
  '1e400',
  9007199254740993,
  -9007199254740993,
  1e308,
  new Raw('1e400'),
  -1,
  0.5,
  null,
  true,
  [],
  {},
  ['\u0000'],
  { '\u0000': 1 },
  'x'.repeat(100_000),
  '../../../etc/passwd',
  '%00',
  '${{ secrets.X }}',
];

/** The values that can reach a query as sent: the embedded database's run sends only these (see the header). */
const SQL_VALUES = new Set<unknown>(HOSTILE.filter((value) => typeof value === 'number' || value instanceof Raw || (typeof value === 'string' && /^$|^[-+\d]|^x+$/.test(value))));

/** Values that must be refused, naming the field: they can never be stored. */
const unstorable = (value: unknown) => typeof value === 'string' && (value.includes('\u0000') || /\p{Cs}/u.test(value));

const randomValues = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map(String),
  fc.double(),
  fc.date({ noInvalidDate: false }).map((date) => (Number.isNaN(date.getTime()) ? 'Invalid Date' : date.toISOString())),
  fc.jsonValue({ maxDepth: 2 }),
);

function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = (item.parameters ?? []) as Parameter[];
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const operation = item[method] as { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } } | undefined;
      if (!operation) continue;
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: [...shared, ...(operation.parameters ?? [])],
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return [...operations.filter((operation) => !isLast(operation)), ...operations.filter(isLast)];
}

/** Whatever removes things, or replaces a factory's webhooks, goes last. */
const isLast = (operation: Operation) => operation.method === 'DELETE' || operation.path.includes('/definitions/');

/** Every field of a body schema, nested objects and the first item of arrays included, as dotted paths. */
function bodyFields(schema: JsonSchema, resolve: (ref: string) => JsonSchema, prefix = '', depth = 0): string[] {
  const resolved = schema.$ref ? resolve(schema.$ref) : schema;
  const variants = [resolved, ...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])];
  const fields = new Set<string>();
  for (const variant of variants) {
    const target = variant.$ref ? resolve(variant.$ref) : variant;
    for (const [key, property] of Object.entries(target.properties ?? {})) {
      const path = prefix ? `${prefix}.${key}` : key;
      fields.add(path);
      if (depth >= 3) continue;
      for (const nested of bodyFields(property, resolve, path, depth + 1)) fields.add(nested);
      const items = (property.$ref ? resolve(property.$ref) : property).items;
      if (items) for (const nested of bodyFields(items, resolve, `${path}.0`, depth + 1)) fields.add(nested);
    }
  }
  return [...fields];
}

/** A valid body for each operation that takes one, so the hostile field is the only thing wrong. */
function baseBody(operation: Operation, world: World): Record<string, unknown> {
  const trigger = { provider: 'webhook', event: 'received', filter: { webhook_ids: [world.uid], payload: { action: 'opened' } } };
  const bodies: Record<string, Record<string, unknown>> = {
    'POST /factories': { name: 'Fuzz Made', slug: `${world.factory}-made` },
    'POST /factories/{factory}/invitations': { email: 'fuzz-invitee@example.test', role: 'viewer' },
    'POST /factories/{factory}/webhooks': { name: 'fuzz-made' },
    'PATCH /factories/{factory}/webhooks/{uid}': { enabled: true },
    'POST /factories/{factory}/notifications/destinations': { name: 'fuzz-made', kind: 'standard_webhooks', url: 'https://example.com/fuzz' },
    'PATCH /factories/{factory}/notifications/destinations/{id}': { enabled: true },
    'PUT /factories/{factory}/webhooks/{uid}/provider-secret': { secret: 'fuzz-provider-secret' },
    // The world's webhook takes a bearer token, so connecting it is refused before any provider is called.
    'PUT /factories/{factory}/webhooks/{uid}/connection': { provider: 'github_repository', apiBaseUrl: 'https://api.github.com', credentialSecretName: 'FUZZ_SECRET', target: 'fuzz/fuzzed', eventTypes: ['push'] },
    'POST /factories/{factory}/definitions/plan': { files: { 'webhooks/fuzz.yaml': 'name: fuzzed\n' } },
    'POST /factories/{factory}/definitions/apply': { files: { 'webhooks/fuzz.yaml': 'name: fuzzed\n' } },
    'POST /factories/{factory}/definitions/repository/check': {},
    'POST /factories/{factory}/definitions/repository/apply': { commit: '0123456789abcdef0123456789abcdef01234567' },
    'PUT /factories/{factory}/secrets/{name}': { value: 'fuzz secret value' },
    'POST /factories/{factory}/replay-jobs': { selection: { webhook: world.uid, status: 'accepted', from: '2026-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z', q: 'fuzz' } },
    'POST /factories/{factory}/replay-jobs/preview': { selection: { webhook: world.uid, status: 'accepted', from: '2026-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z', q: 'fuzz' } },
    'POST /factories/{factory}/automations': { name: 'fuzz-made', prompt: 'Fuzzed.', enabled: false, triggers: [trigger] },
    'PATCH /factories/{factory}/automations/{id}': { name: 'fuzzed', prompt: 'Fuzzed.', enabled: false, triggers: [trigger] },
    'POST /factories/{factory}/automations/{id}/test-filter': { trigger: 0, deliveryId: world.delivery },
    'POST /factories/{factory}/automations/backtest': { trigger, limit: 10 },
  };
  const body = bodies[`${operation.method} ${operation.path}`];
  if (!body) throw new Error(`No valid body for ${operation.method} ${operation.path}: add one to baseBody in e2e/api/openapi-fuzz.spec.ts`);
  return structuredClone(body);
}

function pathValue(name: string, operation: Operation, world: World): string {
  if (name === 'factory') return world.factory;
  if (name === 'uid') return world.uid;
  if (name === 'name') return world.secret;
  const within = (segment: string) => operation.path.includes(`/${segment}/{id}`);
  if (within('deliveries')) return world.delivery;
  if (within('automations')) return world.automation;
  if (within('runs')) return world.run;
  if (within('replay-jobs')) return world.replayJob;
  if (within('invitations')) return world.invitation;
  if (within('destinations')) return world.destination;
  throw new Error(`No value for the path parameter ${name} of ${operation.path}: add one to pathValue`);
}

/** Percent-encodes a path or query value; a lone surrogate goes as its three (ill-formed) UTF-8 bytes. */
function encode(value: string): string {
  return [...value]
    .map((char) => {
      const code = char.charCodeAt(0);
      if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) {
        return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
      }
      return encodeURIComponent(char);
    })
    .join('');
}

const asText = (value: unknown) => (value instanceof Raw ? value.text : typeof value === 'string' ? value : JSON.stringify(value));

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const keys = path.split('.');
  let cursor: Record<string, unknown> | unknown[] = target;
  for (const [index, key] of keys.entries()) {
    const last = index === keys.length - 1;
    const slot: string | number = /^\d+$/.test(key) && Array.isArray(cursor) ? Number(key) : key;
    if (last) {
      (cursor as Record<string | number, unknown>)[slot] = value;
      return;
    }
    const next = (cursor as Record<string | number, unknown>)[slot];
    const fresh = /^\d+$/.test(keys[index + 1] ?? '') ? [] : {};
    if (typeof next !== 'object' || next === null) (cursor as Record<string | number, unknown>)[slot] = fresh;
    cursor = (cursor as Record<string | number, unknown>)[slot] as Record<string, unknown>;
  }
}

function bodyText(body: Record<string, unknown>): string {
  const raws: string[] = [];
  const text = JSON.stringify(body, (_key, value: unknown) => {
    if (value instanceof Raw) {
      raws.push(value.text);
      return `\u0001raw${raws.length - 1}\u0001`;
    }
    return value;
  });
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_match, index: string) => raws[Number(index)] ?? 'null');
}

type Answer = { status: number; text: string };

/**
 * Whether a refusal names the field. A lone surrogate in a URL travels as bytes
 * that are not UTF-8, refused before routing: that answer quotes the path
 * segment, or names the query parameter.
 */
function names(text: string, target: Target, value: unknown): boolean {
  if (text.includes(target.name)) return true;
  return target.where === 'path' && text.includes(encode(asText(value)).slice(0, 80));
}

async function send(baseURL: string, token: string, target: Target, value: unknown, world: World): Promise<{ url: string; answer: Answer; sentBody?: string }> {
  const { operation } = target;
  let path = operation.path;
  for (const parameter of operation.parameters.filter((p) => p.in === 'path')) {
    const raw = target.where === 'path' && target.name === parameter.name ? asText(value) : pathValue(parameter.name, operation, world);
    path = path.replace(`{${parameter.name}}`, encode(raw));
  }
  const query = target.where === 'query' ? `?${encode(target.name)}=${encode(asText(value))}` : '';
  let sentBody: string | undefined;
  if (operation.body) {
    const body = baseBody(operation, world);
    if (target.where === 'body') setPath(body, target.name, value);
    sentBody = bodyText(body);
  }
  const url = `${baseURL}/api/v1${path}${query}`;
  const response = await fetch(url, {
    method: operation.method,
    redirect: 'manual',
    headers: { ...bearer(token), ...(sentBody === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: sentBody,
  });
  // An accepted stream stays open: its status is the answer.
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await response.body?.cancel();
    return { url, answer: { status: response.status, text: '' }, sentBody };
  }
  return { url, answer: { status: response.status, text: await response.text() }, sentBody };
}

async function makeWorld(request: APIRequestContext, token: string, baseURL: string): Promise<World> {
  const factory = `fuzz-${randomBytes(4).toString('hex')}`;
  const at = `/api/v1/factories/${factory}`;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers' shapes are the API's, read loosely here
  const ok = async (response: Awaited<ReturnType<APIRequestContext['post']>>): Promise<any> => {
    expect(response.status(), await response.text()).toBeLessThan(300);
    return response.status() === 204 ? {} : await response.json();
  };
  await ok(await request.post('/api/v1/factories', { headers: bearer(token), data: { name: 'Fuzz', slug: factory } }));
  const { webhook, secret } = await ok(await request.post(`${at}/webhooks`, { headers: bearer(token), data: { name: 'fuzzed' } }));
  const trigger = { provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid] } };
  const { automation } = await ok(await request.post(`${at}/automations`, { headers: bearer(token), data: { name: 'fuzzed', prompt: 'Fuzzed.', triggers: [trigger] } }));
  expect((await request.post(`${baseURL}/webhooks/w/${webhook.uid}`, { headers: bearer(secret), data: { action: 'opened' } })).status()).toBe(202);
  const { deliveries } = await ok(await request.get(`${at}/webhooks/${webhook.uid}/deliveries`, { headers: bearer(token) }));
  const { runs } = await ok(await request.get(`${at}/runs`, { headers: bearer(token) }));
  const job = await ok(await request.post(`${at}/replay-jobs`, { headers: bearer(token), data: { selection: { webhook: webhook.uid } } }));
  const { invitation } = await ok(await request.post(`${at}/invitations`, { headers: bearer(token), data: { email: 'fuzz@example.test', role: 'viewer' } }));
  const { destination } = await ok(
    await request.post(`${at}/notifications/destinations`, { headers: bearer(token), data: { name: 'fuzzed', kind: 'standard_webhooks', url: 'https://example.com/fuzzed' } }),
  );
  await ok(await request.put(`${at}/secrets/FUZZ_SECRET`, { headers: bearer(token), data: { value: 'fuzz secret' } }));
  return {
    factory,
    uid: webhook.uid,
    delivery: deliveries[0].id,
    automation: automation.id,
    run: runs[0]?.id ?? 'run_none',
    replayJob: job.id,
    invitation: invitation.id,
    destination: destination.id,
    secret: 'FUZZ_SECRET',
  };
}

test('every operation and parameter of the OpenAPI document, under hostile values: never a 5xx, and unstorable text refused naming the field', async ({ request, tokens, baseURL }) => {
  test.setTimeout(budget(600_000));
  const embedded = test.info().project.name === 'api-pglite';
  const values = embedded ? HOSTILE.filter((value) => SQL_VALUES.has(value)) : HOSTILE;
  const randomPerTarget = embedded ? 1 : RANDOM_PER_TARGET;
  const document = await (await request.get('/api/v1/openapi.json')).json();
  const resolve = (ref: string) => ref.replace(/^#\//, '').split('/').reduce((node: Record<string, unknown>, key) => node[key] as Record<string, unknown>, document) as JsonSchema;
  const world = await makeWorld(request, tokens.admin, baseURL!);
  const operations = operationsOf(document);

  const targets: Target[] = [];
  for (const operation of operations) {
    for (const parameter of operation.parameters) {
      // Header values cannot carry these bytes over HTTP at all.
      if (parameter.in === 'path' || parameter.in === 'query') targets.push({ operation, where: parameter.in, name: parameter.name });
    }
    if (operation.body) for (const field of bodyFields(operation.body, resolve)) targets.push({ operation, where: 'body', name: field });
  }

  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let sent = 0;
  // The slowest answers, printed: hostile input that makes the server work hard is worth a look.
  const slowest: { ms: number; what: string }[] = [];
  const fuzz = async (index: number) => {
    const target = targets[index]!;
    const random = fc.sample(randomValues, { numRuns: randomPerTarget, seed: SEED + index });
    for (const value of [...values, ...random]) {
      const began = performance.now();
      const { url, answer, sentBody } = await send(baseURL!, tokens.admin, target, value, world);
      slowest.push({ ms: performance.now() - began, what: `${target.operation.method} ${target.operation.path} ${target.where} ${target.name} = ${JSON.stringify(asText(value)).slice(0, 40)}` });
      slowest.sort((a, b) => b.ms - a.ms).splice(5);
      sent += 1;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const what = `${target.operation.method} ${target.operation.path} ${target.where} ${target.name} = ${JSON.stringify(asText(value)).slice(0, 60)}`;
      const detail = `${answer.status} ${answer.text.slice(0, 200)} (${url.slice(0, 160)}${sentBody ? ` body ${sentBody.slice(0, 160)}` : ''})`;
      if (answer.status >= 500) failures.push(`${what}: ${detail}`);
      else if (unstorable(value) && (answer.status < 400 || !names(answer.text, target, value))) failures.push(`${what}: not refused naming the field: ${detail}`);
    }
  };
  // Targets side by side, CONCURRENCY at a time (each one's values in turn), as
  // several clients would; those that remove things after all the others, one at a time.
  const removing = targets.findIndex((target) => isLast(target.operation));
  const firstPart = removing === -1 ? targets.length : removing;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < firstPart) await fuzz(next++);
    }),
  );
  for (let index = firstPart; index < targets.length; index++) await fuzz(index);
  const histogram = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ');
  console.log(`openapi fuzz: ${operations.length} operations, ${targets.length} parameters, ${values.length} + ${randomPerTarget} values each, ${sent} requests (seed ${SEED}): ${histogram}`);
  console.log(`openapi fuzz: slowest answers: ${slowest.map(({ ms, what }) => `${Math.round(ms)} ms ${what}`).join('; ')}`);
  expect(failures, `${failures.length} of ${sent} requests failed (FUZZ_SEED=${SEED} replays the random part)`).toEqual([]);

  // The server is still well: the webhook accepts, the API answers.
  const health = await request.get('/healthz');
  expect(health.status()).toBe(200);
});

test('named cases: NUL in a search, a path and a replay preview; dates no database holds; Date.parse\'s "0"; a trigger\'s unexpected key', async ({ request, tokens }) => {
  const headers = bearer(tokens.admin);
  const at = '/api/v1/factories/acme';
  const { webhook } = await (await request.post(`${at}/webhooks`, { headers, data: { name: `named-${randomBytes(3).toString('hex')}` } })).json();
  const refused = async (response: Awaited<ReturnType<APIRequestContext['get']>>, field: string, message: RegExp) => {
    expect(response.status(), await response.text()).toBe(422);
    const { error } = (await response.json()) as { error: { fields?: Record<string, string> } };
    expect(error.fields?.[field], JSON.stringify(error)).toMatch(message);
  };
  await refused(await request.get(`${at}/webhooks/${webhook.uid}/deliveries?q=%00abc`, { headers }), 'q', /NUL character/);
  await refused(await request.get(`${at}/replay-jobs/rpl_%00`, { headers }), 'id', /NUL character/);
  await refused(await request.get(`${at}/runs?automation=%00`, { headers }), 'automation', /NUL character/);
  await refused(await request.post(`${at}/replay-jobs/preview`, { headers, data: { selection: { webhook: webhook.uid, q: '\u0000blue' } } }), 'selection.q', /NUL character/);
  await refused(await request.post(`${at}/replay-jobs/preview`, { headers, data: { selection: { webhook: webhook.uid, q: 'x\ud800' } } }), 'selection.q', /lone surrogate/);
  for (const [field, value] of [['to', '-271821-04-20T00:00:00Z'], ['from', '0'], ['from', '2026-02-30T00:00:00Z']] as const) {
    await refused(await request.post(`${at}/replay-jobs/preview`, { headers, data: { selection: { webhook: webhook.uid, [field]: value } } }), `selection.${field}`, /ISO 8601/);
  }
  const big = await request.post(`${at}/automations/backtest`, { headers: { ...headers, 'Content-Type': 'application/json' }, data: `{"trigger":{"provider":"webhook","event":"received","filter":{"webhook_ids":["${webhook.uid}"]}},"limit":9007199254740993}` });
  await refused(big, 'limit', /2\^53/);
  const misplaced = await request.post(`${at}/automations`, {
    headers,
    data: { name: 'misplaced', prompt: 'x', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid] }, payload: { action: 'opened' } }] },
  });
  expect(misplaced.status()).toBe(422);
  expect(Object.values((await misplaced.json()).error.fields ?? {})).toContain('A trigger has no key "payload": it holds provider, event and filter');
  expect((await request.delete(`${at}/webhooks/${webhook.uid}`, { headers })).status()).toBe(204);
});
