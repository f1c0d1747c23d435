import { z } from 'zod';
import { roles } from '@/lib/domain/auth/roles';
import { startReplayJobSchema } from '@/lib/domain/replay-jobs/schemas';
import { AUTOMATIONS_PER_PAGE, backtestSchema, createAutomationSchema, testFilterSchema, updateAutomationSchema } from '@/lib/domain/automations/schemas';
import { deliveryStatusFilters } from '@/lib/domain/deliveries/schemas';
import { RUN_STATUSES } from '@/lib/domain/run-status/statuses';
import { definitionApplySchema, definitionFilesSchema, repositoryApplySchema, repositoryCheckSchema } from '@/lib/domain/definitions/schemas';
import { createFactorySchema, FACTORIES_PER_API_PAGE } from '@/lib/domain/factories/schemas';
import { API_PAGE_MAX } from '@/lib/platform/paging';
import { createInvitationSchema } from '@/lib/domain/invitations/schemas';
import { putSecretSchema } from '@/lib/domain/secrets/schemas';
import { schemeIds } from '@/lib/ingress/signatures/registry';
import { CUSTOM_RESPONSE_CONTENT_TYPES, CUSTOM_RESPONSE_STATUSES } from '@/lib/ingress/custom-response';
import { healthStates } from '@/lib/domain/health/classify';
import { createDestinationSchema, notificationEventTypes, notificationKinds, updateDestinationSchema } from '@/lib/domain/notifications/schemas';
import { authModes, providerSecretSchema, updateWebhookSchema } from '@/lib/domain/webhooks/schemas';
import { runControlSchema } from '@/lib/domain/run-control/config';
import { CONNECTION_PROVIDERS, connectWebhookSchema } from '@/lib/domain/connections/schemas';
import { runControlDescriptions, runControlExamples, runOutcomeSchema } from '@/lib/adapters/api/openapi-run-control';

// The OpenAPI 3.1 description of /api/v1, served at /api/v1/openapi.json.
// Request bodies are generated from the same zod schemas the API validates with.

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });

const runControlProperty = {
  anyOf: [{ $ref: '#/components/schemas/RunControl' }, { type: 'null' }],
  description: 'Run control (docs/automations.md, Run control); null: none, every matching delivery starts a run at once',
};

/** An automation's body from its zod schema, with runControl pointing at the described RunControl. */
function automationBody(schema: z.ZodType) {
  const generated = jsonSchema(schema) as { properties: Record<string, unknown> };
  return { ...generated, properties: { ...generated.properties, runControl: { ...runControlProperty, description: `${runControlProperty.description}. On a change, absent leaves it as it is` } } };
}

const replayJobObject = {
  type: 'object',
  required: ['id', 'status', 'webhook', 'selection', 'total', 'done', 'replayed', 'skipped', 'runsStarted', 'waiting', 'createdBy', 'createdAt', 'finishedAt', 'cancelledBy'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['running', 'completed', 'cancelled'] },
    webhook: { type: 'object', properties: { uid: { type: 'string' }, name: { type: ['string', 'null'] } } },
    selection: { type: 'object', description: 'The selection as given when the job started' },
    total: { type: 'integer', description: 'Deliveries frozen into the job' },
    done: { type: 'integer', description: 'Deliveries handled so far (replayed + skipped)' },
    replayed: { type: 'integer' },
    skipped: { type: 'integer', description: 'Deliveries pruned or no longer replayable when their turn came' },
    runsStarted: { type: 'integer' },
    waiting: { type: ['string', 'null'], description: 'Why the job is paused right now (the run queue is full), or null' },
    createdBy: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
    cancelledBy: { type: ['string', 'null'] },
  },
} as const;

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const standardErrors = {
  401: errorResponse('Missing, invalid or revoked API token'),
  403: errorResponse('The token’s user lacks the role this needs in the factory'),
  404: errorResponse('Unknown factory (or not a member), or unknown resource'),
};

const json = (schema: object, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const body = (schema: object) => ({ required: true, content: { 'application/json': { schema } } });

const factoryParam = { name: 'factory', in: 'path', required: true, schema: { type: 'string' }, description: 'The factory’s slug' };
const uidParam = { name: 'uid', in: 'path', required: true, schema: { type: 'string' }, description: 'The webhook’s UID' };
const idParam = (what: string) => ({ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: what });
/** The query parameters of a list paged by a cursor (lib/platform/paging.ts, cursorPageSchema). */
const cursorPageParams = (defaultLimit: number) => [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: API_PAGE_MAX, default: defaultLimit } },
  { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'nextCursor of the previous page' },
];
const nextCursorProperty = { type: ['string', 'null'], description: 'Pass as cursor for the next page; null on the last page' };
const nameParam = { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'The team secret’s name' };

const createWebhookBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9]+(?:[-_][a-z0-9]+)*$', maxLength: 64 },
    authMode: { type: 'string', enum: [...authModes], default: 'token' },
    signatureScheme: { type: 'string', enum: schemeIds, description: 'Required when authMode is signature' },
    providerSecret: { type: 'string', description: 'signature only; blank: generated (Standard Webhooks, GitHub, GitLab) or entered later (provider-issued)' },
    secretName: { type: 'string', description: 'Team secret that stores the credential; an existing one may be named. Default: suggested from the name' },
    deliveryIdHeader: { type: 'string', description: 'Request header carrying the sender’s own event ID' },
    eventTypeHeader: {
      type: 'string',
      maxLength: 100,
      description: 'token and url_token only: the request header naming each delivery’s event type (stored lowercase). At most one of eventTypeHeader and eventTypePath',
    },
    eventTypePath: {
      type: 'string',
      maxLength: 200,
      description:
        'token and url_token only: dot-separated keys into the JSON body naming the event type (data.type; a segment of digits indexes an array: events.0.type), at most 32 keys',
    },
  },
};

const automationResponse = { type: 'object', required: ['automation'], properties: { automation: { $ref: '#/components/schemas/Automation' } } };

export function openApiDocument(baseUrl: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Tripline management API', version: '1' },
    servers: [{ url: `${baseUrl}/api/v1` }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A personal API token (trl_...)' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string' },
                message: { type: 'string' },
                fields: { type: 'object', additionalProperties: { type: 'string' } },
              },
            },
          },
        },
        Plan: {
          type: 'object',
          properties: {
            valid: { type: 'boolean', description: 'false when any problem would make the apply fail' },
            digest: {
              type: 'string',
              pattern: '^[0-9a-f]{64}$',
              description: 'The plan’s fingerprint (its actions, the UIDs they touch and their changes, and the webhooks left as they are): pass it as an apply’s "plan" to apply exactly this plan or nothing',
            },
            actions: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  action: { type: 'string', enum: ['create', 'update', 'delete'] },
                  name: { type: 'string' },
                  file: { type: 'string' },
                  uid: { type: ['string', 'null'] },
                  changes: { type: 'array', items: { type: 'string' } },
                },
              },
            },
            unchanged: { type: 'array', items: { type: 'string' } },
            problems: { type: 'array', items: { $ref: '#/components/schemas/DefinitionProblem' } },
          },
        },
        DefinitionProblem: {
          type: 'object',
          required: ['file', 'message'],
          properties: { file: { type: 'string' }, key: { type: 'string' }, message: { type: 'string' } },
        },
        Invitation: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            email: { type: 'string' },
            role: { type: 'string', enum: [...roles] },
            invitedBy: { type: ['string', 'null'], description: 'Email of the admin who invited' },
            createdAt: { type: 'string', format: 'date-time' },
            expiresAt: { type: 'string', format: 'date-time' },
          },
        },
        Webhook: {
          type: 'object',
          properties: {
            uid: { type: 'string' },
            name: { type: 'string' },
            authMode: { type: 'string', enum: [...authModes] },
            signatureScheme: { type: ['string', 'null'], enum: [...schemeIds, null] },
            secretName: { type: 'string' },
            deliveryIdHeader: { type: ['string', 'null'] },
            eventTypeHeader: { type: ['string', 'null'], description: 'The Event type setting (token and url_token): a request header, lowercase' },
            eventTypePath: { type: ['string', 'null'], description: 'The Event type setting (token and url_token): a dot path into the JSON body' },
            enabled: { type: 'boolean' },
            ingressUrl: { type: 'string', description: 'For url_token webhooks, with a {token} placeholder' },
            createdAt: { type: 'string', format: 'date-time' },
            state: { type: 'string', enum: ['enabled', 'disabled', 'awaiting_secret'] },
            awaitingSecret: { type: 'boolean' },
            secretChangePending: { type: 'boolean' },
            lastDeliveryAt: { type: ['string', 'null'], format: 'date-time' },
            expectedIntervalSeconds: { type: ['integer', 'null'], description: 'Past it without an accepted delivery, the webhook is silent' },
            ipAllowlist: {
              type: 'array',
              items: { type: 'string' },
              maxItems: 100,
              description: 'IPv4 and IPv6 CIDR ranges, canonical; empty admits every address. A request from outside gets 404 and is logged as refused_address',
            },
            customResponse: {
              oneOf: [{ $ref: '#/components/schemas/CustomResponse' }, { type: 'null' }],
              description: 'The answer to accepted and duplicate deliveries; null: the default 202 {"delivery_id": ...}',
            },
            health: { $ref: '#/components/schemas/Health' },
          },
        },
        Connection: {
          type: 'object',
          description: 'A webhook connected to its sender through the sender’s API (docs/connections.md). Never carries a secret: the credential is named by team secret',
          required: ['provider', 'apiBaseUrl', 'credentialSecretName', 'target', 'eventTypes', 'providerHookId', 'providerHookUrl', 'watermark', 'lastCheckAt', 'nextCheckAt', 'lastError', 'consecutiveFailures', 'lastMissing', 'lastRecovered', 'checking', 'recoveredLast7Days', 'createdAt'],
          properties: {
            provider: { type: 'string', enum: [...CONNECTION_PROVIDERS] },
            apiBaseUrl: { type: 'string' },
            credentialSecretName: { type: 'string', description: 'The team secret holding the API token' },
            target: { type: 'string', description: 'owner/repo, or the organization' },
            eventTypes: { type: 'array', items: { type: 'string' }, description: 'Subscribed on the provider’s hook; the only ones a pass recovers. Empty: every event' },
            providerHookId: { type: ['string', 'null'] },
            providerHookUrl: { type: ['string', 'null'], description: 'The hook’s settings page on the provider’s site' },
            watermark: { type: ['string', 'null'], format: 'date-time', description: 'Every provider delivery before this time is settled' },
            lastCheckAt: { type: ['string', 'null'], format: 'date-time' },
            nextCheckAt: { type: ['string', 'null'], format: 'date-time' },
            lastError: { type: ['string', 'null'], description: 'Why the last pass failed or stopped early, in words; null after a full pass' },
            consecutiveFailures: { type: 'integer' },
            lastMissing: { type: 'integer', description: 'Deliveries the last pass found missing from the log' },
            lastRecovered: { type: 'integer', description: 'Of those, how many it asked the provider to send again' },
            checking: { type: 'boolean', description: 'A pass is running now' },
            recoveredLast7Days: {
              type: 'integer',
              description: 'Accepted log entries of the last 7 days that reached the log by recovery (a redelivery a pass asked for, or an import): those with an origin',
            },
            createdAt: { type: 'string', format: 'date-time' },
          },
        },
        RunControl: { ...runControlDescriptions(jsonSchema(runControlSchema)), examples: runControlExamples },
        RunOutcome: runOutcomeSchema,
        Automation: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            prompt: { type: 'string' },
            enabled: { type: 'boolean' },
            triggers: { type: 'array', items: { type: 'object' }, description: 'As written in the request body (docs/automations.md, Triggers)' },
            triggerWebhooks: { type: 'array', items: { type: 'object' }, description: 'Which webhook each trigger names, by index, and its state' },
            runControl: { ...runControlProperty, description: `${runControlProperty.description}. Given back with its defaults filled in` },
            runCount: { type: 'integer' },
            lastRunAt: { type: ['string', 'null'], format: 'date-time' },
            createdAt: { type: 'string', format: 'date-time' },
            updatedAt: { type: 'string', format: 'date-time' },
          },
        },
        RunSummary: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            status: { type: 'string', enum: [...RUN_STATUSES] },
            automation: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
            delivery: { type: ['object', 'null'], description: 'The delivery log entry that started the run; null once pruned' },
            attempts: { type: 'integer' },
            replay: { type: 'boolean', description: 'Started by an admin’s replay of the delivery' },
            outcome: { $ref: '#/components/schemas/RunOutcome' },
            controlKey: { type: ['string', 'null'], description: 'Run control: the group’s key as written for people; null without one' },
            createdAt: { type: 'string', format: 'date-time' },
            startedAt: { type: ['string', 'null'], format: 'date-time' },
            finishedAt: { type: ['string', 'null'], format: 'date-time' },
          },
        },
        CustomResponse: {
          type: 'object',
          required: ['status', 'contentType', 'body'],
          description: 'docs/ingress.md, The answers: {{delivery_id}} in the body is replaced by the delivery’s ID, escaped for the content type',
          properties: {
            status: { type: 'integer', enum: [...CUSTOM_RESPONSE_STATUSES] },
            contentType: { type: ['string', 'null'], enum: [...CUSTOM_RESPONSE_CONTENT_TYPES, null], description: 'null for 204' },
            body: { type: ['string', 'null'], description: 'At most 1,024 bytes of UTF-8; null for 204' },
          },
        },
        Health: {
          type: 'object',
          description: 'Computed from the log (docs/notifications.md, Health)',
          properties: {
            state: { type: 'string', enum: [...healthStates] },
            reason: { type: 'string' },
            lastAcceptedAt: { type: ['string', 'null'], format: 'date-time' },
          },
        },
        StatusCounts: { type: 'object', properties: Object.fromEntries(deliveryStatusFilters.map((status) => [status, { type: 'integer' }])) },
        NotificationDestination: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            kind: { type: 'string', enum: [...notificationKinds] },
            url: { type: 'string', description: 'A Slack URL is shown only up to its credential' },
            enabled: { type: 'boolean' },
            createdAt: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
    paths: {
      '/factories': {
        get: {
          summary: 'The caller’s factories and roles, by name, a page at a time',
          parameters: cursorPageParams(FACTORIES_PER_API_PAGE),
          responses: {
            200: json({
              type: 'object',
              required: ['factories', 'nextCursor', 'total'],
              properties: {
                factories: {
                  type: 'array',
                  items: { type: 'object', required: ['slug', 'name', 'role'], properties: { slug: { type: 'string' }, name: { type: 'string' }, role: { type: 'string', enum: [...roles] } } },
                },
                nextCursor: nextCursorProperty,
                total: { type: 'integer', description: 'The caller’s factories in all' },
              },
            }),
            401: standardErrors[401],
            422: errorResponse('Invalid query: limit out of range or a cursor this API did not make'),
          },
        },
        post: {
          summary: 'Create a factory; the caller becomes its admin. With TRIPLINE_FACTORY_CREATION=admins (the default) only instance admins may.',
          requestBody: body(jsonSchema(createFactorySchema)),
          responses: {
            201: json({ type: 'object', properties: { factory: { type: 'object', properties: { slug: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } } } } }, 'Created'),
            400: errorResponse('Body is not JSON'),
            401: standardErrors[401],
            403: errorResponse('Only instance admins may create factories on this instance'),
            409: errorResponse('Slug taken'),
            422: errorResponse('Invalid fields'),
          },
        },
      },
      '/factories/{factory}/invitations': {
        parameters: [factoryParam],
        get: {
          summary: 'Pending invitations (admin): never their links',
          responses: { 200: json({ type: 'object', properties: { invitations: { type: 'array', items: { $ref: '#/components/schemas/Invitation' } } } }), ...standardErrors },
        },
        post: {
          summary: 'Invite an email with a role (admin). The response is the only time the single-use link is returned; a pending invitation for the same email is replaced.',
          requestBody: body(jsonSchema(createInvitationSchema)),
          responses: {
            201: json({ type: 'object', properties: { invitation: { $ref: '#/components/schemas/Invitation' }, url: { type: 'string', description: '{base_url}/invite/<token>' } } }, 'Created'),
            400: errorResponse('Body is not JSON'),
            ...standardErrors,
            409: errorResponse('Already a member'),
            422: errorResponse('Invalid fields'),
          },
        },
      },
      '/factories/{factory}/invitations/{id}': {
        parameters: [factoryParam, idParam('The invitation’s id')],
        delete: {
          summary: 'Revoke a pending invitation (admin); its link stops working at once',
          responses: { 204: { description: 'Revoked' }, ...standardErrors },
        },
      },
      '/factories/{factory}/webhooks': {
        parameters: [factoryParam],
        get: {
          summary: 'List webhooks (any member)',
          responses: { 200: json({ type: 'object', properties: { webhooks: { type: 'array', items: { $ref: '#/components/schemas/Webhook' } } } }), ...standardErrors },
        },
        post: {
          summary: 'Create a webhook (admin). The response is the only time the secret is returned.',
          requestBody: body(createWebhookBody),
          responses: {
            201: json(
              {
                type: 'object',
                properties: {
                  webhook: { $ref: '#/components/schemas/Webhook' },
                  secret: { type: ['string', 'null'] },
                  ingressUrl: { type: 'string', description: 'For url_token, the real URL containing the secret' },
                },
              },
              'Created',
            ),
            400: errorResponse('Body is not JSON'),
            ...standardErrors,
            409: errorResponse('Name taken, or the factory has 20 webhooks already'),
            422: errorResponse('Invalid fields'),
          },
        },
      },
      '/factories/{factory}/webhooks/{uid}': {
        parameters: [factoryParam, uidParam],
        get: { summary: 'Get a webhook', responses: { 200: json({ type: 'object', properties: { webhook: { $ref: '#/components/schemas/Webhook' } } }), ...standardErrors } },
        patch: {
          summary:
            'Enable or disable, set the expected interval, change the Event type setting (admin; eventTypeHeader or eventTypePath, null removes it), the IP allowlist (admin; at most 100 CIDR ranges, [] admits every address) or the custom response (customResponse {status, contentType, body}; null restores the default 202); the last three not on a repository-backed factory. Enabling re-applies the definition, taking up a changed team secret.',
          requestBody: body(jsonSchema(updateWebhookSchema)),
          responses: {
            200: json({ type: 'object', properties: { webhook: { $ref: '#/components/schemas/Webhook' } } }),
            ...standardErrors,
            409: errorResponse('A repository-backed factory: the Event type setting, IP allowlist and custom response change in its definition files'),
            422: errorResponse('Invalid fields'),
          },
        },
        delete: { summary: 'Delete (admin). Senders get 404 at once.', responses: { 204: { description: 'Deleted' }, ...standardErrors } },
      },
      '/factories/{factory}/webhooks/{uid}/stats': {
        parameters: [factoryParam, uidParam],
        get: {
          summary: 'Health, requests per status and accepted deliveries per event type over the last 24 hours (hourly buckets) or 7 days (6-hour buckets)',
          parameters: [{ name: 'window', in: 'query', schema: { type: 'string', enum: ['24h', '7d'], default: '24h' } }],
          responses: {
            200: json({
              type: 'object',
              properties: {
                uid: { type: 'string' },
                health: { $ref: '#/components/schemas/Health' },
                expectedIntervalSeconds: { type: ['integer', 'null'] },
                window: { type: 'string', enum: ['24h', '7d'] },
                from: { type: 'string', format: 'date-time' },
                to: { type: 'string', format: 'date-time' },
                bucketSeconds: { type: 'integer' },
                totals: { $ref: '#/components/schemas/StatusCounts' },
                eventTypes: {
                  type: 'array',
                  description: 'Accepted deliveries per event type over the window, most first, at most 50; the type "" stands for deliveries whose sender names none',
                  items: { type: 'object', required: ['type', 'count'], properties: { type: { type: 'string' }, count: { type: 'integer' } } },
                },
                eventTypesTruncated: { type: 'boolean', description: 'More types were seen than eventTypes lists' },
                buckets: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      start: { type: 'string', format: 'date-time' },
                      counts: { $ref: '#/components/schemas/StatusCounts' },
                      eventTypes: {
                        type: 'object',
                        additionalProperties: { type: 'integer' },
                        description: 'Accepted deliveries of the window’s 8 most frequent types ("" for none) in this bucket',
                      },
                      otherEventTypes: { type: 'integer', description: 'Accepted deliveries of every other type in this bucket' },
                    },
                  },
                },
              },
            }),
            ...standardErrors,
            422: errorResponse('Invalid window'),
          },
        },
      },
      '/factories/{factory}/notifications': {
        parameters: [factoryParam],
        get: {
          summary: 'The newest 50 notifications with their outcome (admin)',
          responses: {
            200: json({
              type: 'object',
              properties: {
                notifications: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      id: { type: 'string' },
                      eventId: { type: 'string' },
                      type: { type: 'string', enum: [...notificationEventTypes] },
                      destination: { type: 'string' },
                      status: { type: 'string', enum: ['pending', 'sent', 'failed'] },
                      attempts: { type: 'integer' },
                      responseStatus: { type: ['integer', 'null'] },
                      error: { type: ['string', 'null'] },
                      createdAt: { type: 'string', format: 'date-time' },
                      sentAt: { type: ['string', 'null'], format: 'date-time' },
                      nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
                    },
                  },
                },
              },
            }),
            ...standardErrors,
          },
        },
      },
      '/factories/{factory}/notifications/destinations': {
        parameters: [factoryParam],
        get: {
          summary: 'Notification destinations (admin); never their secrets',
          responses: { 200: json({ type: 'object', properties: { destinations: { type: 'array', items: { $ref: '#/components/schemas/NotificationDestination' } } } }), ...standardErrors },
        },
        post: {
          summary: 'Add a destination (admin). A signed one’s secret (whsec_...) is in this answer only. The URL follows TRIPLINE_NOTIFICATION_ALLOW.',
          requestBody: body(jsonSchema(createDestinationSchema)),
          responses: {
            201: json({ type: 'object', properties: { destination: { $ref: '#/components/schemas/NotificationDestination' }, secret: { type: ['string', 'null'] } } }, 'Created'),
            ...standardErrors,
            409: errorResponse('The factory has 10 destinations'),
            422: errorResponse('Invalid fields, or a refused URL'),
          },
        },
      },
      '/factories/{factory}/notifications/destinations/{id}': {
        parameters: [factoryParam, idParam('The destination’s id')],
        patch: {
          summary: 'Enable or disable a destination (admin). A disabled destination receives nothing, and its queued notifications are marked failed.',
          requestBody: body(jsonSchema(updateDestinationSchema)),
          responses: { 200: json({ type: 'object', properties: { destination: { $ref: '#/components/schemas/NotificationDestination' } } }), ...standardErrors, 422: errorResponse('Invalid fields') },
        },
        delete: { summary: 'Delete a destination (admin); its queued notifications go with it', responses: { 204: { description: 'Deleted' }, ...standardErrors } },
      },
      '/factories/{factory}/notifications/destinations/{id}/test': {
        parameters: [factoryParam, idParam('The destination’s id')],
        post: {
          summary: 'Queue a notification.test event for the destination (admin)',
          responses: { 202: json({ type: 'object', properties: { eventId: { type: 'string' } } }, 'Queued'), ...standardErrors, 409: errorResponse('The destination is disabled') },
        },
      },
      '/factories/{factory}/webhooks/{uid}/rotate-secret': {
        parameters: [factoryParam, uidParam],
        post: {
          summary: 'Rotate a generated secret (admin). The old secret stops working at once.',
          responses: {
            200: json({ type: 'object', properties: { secret: { type: 'string' }, ingressUrl: { type: 'string' } } }),
            ...standardErrors,
            409: errorResponse('The provider issues this secret: use provider-secret'),
          },
        },
      },
      '/factories/{factory}/webhooks/{uid}/provider-secret': {
        parameters: [factoryParam, uidParam],
        put: {
          summary: 'Enter the provider-issued secret (admin)',
          requestBody: body(jsonSchema(providerSecretSchema)),
          responses: { 200: json({ type: 'object' }), ...standardErrors, 409: errorResponse('Not a signature webhook'), 422: errorResponse('Invalid fields') },
        },
      },
      '/factories/{factory}/webhooks/{uid}/connection': {
        parameters: [factoryParam, uidParam],
        get: {
          summary: 'The webhook’s connection to its sender and its last recovery pass, or null',
          responses: { 200: json({ type: 'object', properties: { connection: { anyOf: [{ $ref: '#/components/schemas/Connection' }, { type: 'null' }] } } }), ...standardErrors },
        },
        put: {
          summary: 'Connect the webhook to its sender (admin): creates the provider’s hook pointing at the ingress URL, or adopts one that already does, with a new secret set on both sides (never returned). Again: changes the settings and sets a new secret. Stripe (stripe_account, target self or acct_...): Stripe makes the endpoint’s secret and returns it once, which Tripline stores; an endpoint made by hand is not adopted (409 naming it), and connecting again keeps the endpoint and its secret',
          requestBody: body(jsonSchema(connectWebhookSchema)),
          responses: {
            200: json({ type: 'object', properties: { connection: { $ref: '#/components/schemas/Connection' } } }),
            ...standardErrors,
            409: errorResponse('The webhook does not verify the provider’s signatures, or its factory keeps its webhooks in definition files (managed or repository-backed: declare the connection in the file), or (Stripe) an endpoint this connection did not make already sends to the URL, or another connect of the webhook finished first (this one changed nothing)'),
            422: errorResponse('Invalid fields; or the provider refused the credential, naming the permission it lacks (credentialSecretName)'),
            503: errorResponse('The provider did not answer as expected'),
          },
        },
        delete: {
          summary: 'Disconnect (admin); with deleteProviderHook=true the provider’s hook is deleted too, otherwise it stays and keeps sending',
          parameters: [{ name: 'deleteProviderHook', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false'] } }],
          responses: { 204: { description: 'Disconnected' }, ...standardErrors, 409: errorResponse('The factory keeps its webhooks in definition files: remove the connection from the file'), 422: errorResponse('deleteProviderHook is not true or false'), 503: errorResponse('The provider did not answer as expected') },
        },
      },
      '/factories/{factory}/webhooks/{uid}/connection/check': {
        parameters: [factoryParam, uidParam],
        post: {
          summary: 'Check now (admin): the next recovery pass is due at once',
          responses: { 202: json({ type: 'object', properties: { connection: { $ref: '#/components/schemas/Connection' } } }, 'Due'), ...standardErrors },
        },
      },
      '/factories/{factory}/definitions': {
        parameters: [factoryParam],
        get: {
          summary: 'The factory’s definition files (admin): kept ones on a managed factory, the applied commit’s on a repository-backed one',
          responses: { 200: json({ type: 'object', properties: { configSource: { type: 'string', enum: ['dashboard', 'managed', 'repository'] }, files: { type: 'object', additionalProperties: { type: 'string' } } } }), ...standardErrors },
        },
      },
      '/factories/{factory}/definitions/plan': {
        parameters: [factoryParam],
        post: {
          summary: 'What applying the files would create, update and delete, and every problem (admin). Changes nothing.',
          requestBody: body(jsonSchema(definitionFilesSchema)),
          responses: { 200: json({ type: 'object', properties: { plan: { $ref: '#/components/schemas/Plan' } } }), ...standardErrors, 422: errorResponse('Body is not {"files": {path: text}}') },
        },
      },
      '/factories/{factory}/definitions/apply': {
        parameters: [factoryParam],
        post: {
          summary:
            'Apply the files to a managed factory, all or nothing (admin); then each connection step the files ask for (connections: one entry each, ok or the provider’s reason; a failed one is tried again at the next apply). With "plan" (a plan’s digest), refused unless the plan made now is that one.',
          requestBody: body(jsonSchema(definitionApplySchema)),
          responses: {
            200: json({
              type: 'object',
              properties: {
                applied: { type: 'boolean' },
                changed: { type: 'boolean' },
                created: { type: 'array' },
                connections: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['name', 'uid', 'step', 'ok'],
                    properties: { name: { type: 'string' }, uid: { type: 'string' }, step: { type: 'string', enum: ['connect', 'disconnect'] }, ok: { type: 'boolean' }, hookUrl: { type: ['string', 'null'] }, message: { type: 'string' } },
                  },
                },
                plan: { $ref: '#/components/schemas/Plan' },
              },
            }),
            ...standardErrors,
            409: errorResponse('The factory is not managed (dashboard or repository-backed), or the plan is no longer the one given as "plan"'),
            422: errorResponse('Problems in the files (error.problems); nothing was applied'),
          },
        },
      },
      '/factories/{factory}/definitions/repository/check': {
        parameters: [factoryParam],
        post: {
          summary:
            'Fetch a repository’s production branch and plan its newest commit (admin). With "repository": a location to connect (https://, ssh:// or user@host:path; a token in an https URL is stored encrypted and never returned); without: the factory’s own. Changes nothing.',
          requestBody: body(jsonSchema(repositoryCheckSchema)),
          responses: {
            200: json({ type: 'object', properties: { commit: { type: 'string' }, url: { type: 'string' }, branch: { type: 'string' }, plan: { $ref: '#/components/schemas/Plan' } } }),
            ...standardErrors,
            409: errorResponse('Could not fetch (could not connect, authentication required, branch not found, timed out, too large), or a sync of the factory is already running'),
            422: errorResponse('Refused: scheme not allowed, or a private address (error.fields.url)'),
            429: errorResponse('More than 10 repository checks a minute by this user'),
          },
        },
      },
      '/factories/{factory}/definitions/repository/apply': {
        parameters: [factoryParam],
        post: {
          summary:
            'Apply the checked commit (admin): connects "repository" (the factory becomes repository-backed), or syncs the factory’s own. Refused when the branch moved since the check, and, with "plan" (the check’s plan.digest), when the plan is no longer that one.',
          requestBody: body(jsonSchema(repositoryApplySchema)),
          responses: {
            200: json({ type: 'object', properties: { applied: { type: 'boolean' }, commit: { type: 'string' }, problems: { type: 'array' } } }),
            ...standardErrors,
            409: errorResponse('Could not fetch, the branch or the plan moved, or a sync is already running'),
            422: errorResponse('Refused location, or invalid fields'),
            429: errorResponse('More than 10 repository checks a minute by this user'),
          },
        },
      },
      '/factories/{factory}/secrets': {
        parameters: [factoryParam],
        get: { summary: 'List team secrets (admin): names and dates, never values', responses: { 200: json({ type: 'object' }), ...standardErrors } },
      },
      '/factories/{factory}/secrets/{name}': {
        parameters: [factoryParam, nameParam],
        put: {
          summary: 'Create or replace a team secret’s value (admin)',
          requestBody: body(jsonSchema(putSecretSchema)),
          responses: { 200: json({ type: 'object' }, 'Replaced'), 201: json({ type: 'object' }, 'Created'), ...standardErrors, 422: errorResponse('Invalid fields') },
        },
        delete: {
          summary: 'Delete a team secret (admin)',
          responses: { 204: { description: 'Deleted' }, ...standardErrors, 409: errorResponse('A webhook uses it') },
        },
      },
      '/factories/{factory}/webhooks/{uid}/deliveries': {
        parameters: [factoryParam, uidParam],
        get: {
          summary: 'The delivery log, newest first. An entry that did not arrive live carries `origin`: `provider_redelivery` (its sender sent it again) or `stripe_import` (a recovery pass fetched the event from Stripe’s API and recorded it)',
          parameters: [
            { name: 'status', in: 'query', schema: { type: 'string', enum: [...deliveryStatusFilters] } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
            { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'nextCursor of the previous page' },
            { name: 'q', in: 'query', schema: { type: 'string' }, description: 'A delivery ID (exact) or text in the body (case-insensitive substring). Text without 3 letters or digits in a row matches delivery IDs only.' },
            {
              name: 'event',
              in: 'query',
              schema: { type: 'string', maxLength: 200 },
              description: 'An event type (`pull_request.opened`), or a pattern whose `*` stands for whole segments (`pull_request.*`), as in a trigger’s events. Entries without a type never match.',
            },
          ],
          responses: { 200: json({ type: 'object' }), ...standardErrors, 422: errorResponse('Invalid query') },
        },
      },
      '/factories/{factory}/webhooks/{uid}/deliveries/stream': {
        parameters: [factoryParam, uidParam],
        get: {
          summary: 'The delivery log as server-sent events: each entry once, in the order the log wrote them, resumable',
          description:
            'text/event-stream. Each entry is an event `delivery` whose `id` is the entry’s id and whose data is the entry’s JSON as the log lists it; Accepted entries add `body` (the exact text received; `bodyEncoding` is `utf8`, since the ingress accepts only UTF-8 JSON: `base64` is kept for bytes that are not), `headers` (the sender’s, credentials and signatures redacted) and `signatureHeaders`: `original` when the caller may replay deliveries (admin) and the original signature headers are in `headers`, `redacted` otherwise, `none` when the webhook checks no signature. Starts after the newest entry, after the entry named by `Last-Event-ID` or `after`, or at the first entry received at or after `since`. A comment every 15 s without an entry; the server ends a stream after 30 minutes, and at shutdown, with an event `end` (`{"reason"}`): reconnect with Last-Event-ID. At most 5 open streams per API token, 10 per account and 25 per factory on each instance (429 with Retry-After).',
          parameters: [
            { name: 'after', in: 'query', schema: { type: 'string', maxLength: 200 }, description: 'Resume after this entry id (as the Last-Event-ID header does); 422 when the entry is no longer in the log' },
            { name: 'since', in: 'query', schema: { type: 'string', maxLength: 40 }, description: 'Start at the first entry received at or after this time: a duration back from now (90s, 30m, 1h, 2d) or an ISO 8601 time; at most 366 days' },
            { name: 'status', in: 'query', schema: { type: 'string', enum: [...deliveryStatusFilters] } },
            { name: 'event', in: 'query', schema: { type: 'string', maxLength: 200 }, description: 'An event type or a pattern with `*` segments, as for the log' },
            { name: 'Last-Event-ID', in: 'header', schema: { type: 'string', maxLength: 200 }, description: 'The id of the last event received' },
          ],
          responses: {
            200: { description: 'The stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            ...standardErrors,
            422: errorResponse('Invalid query, or an `after` entry no longer in the log'),
            429: errorResponse('Too many open streams for this token, account or factory'),
          },
        },
      },
      '/factories/{factory}/webhooks/{uid}/fields': {
        parameters: [factoryParam, uidParam],
        get: {
          summary: 'The field catalogue: each field path of the latest 500 accepted deliveries, its JSON types, presence and top values',
          description:
            'Arrays are summarised by element (items[].sku); at most 500 paths (truncated says when more were seen). values is null for fields whose names look like secrets, and holds only strings of at most 80 characters, numbers, booleans and null.',
          responses: {
            200: json({
              type: 'object',
              required: ['sampled', 'fields', 'truncated'],
              properties: {
                sampled: { type: 'integer', description: 'Accepted deliveries looked at' },
                truncated: { type: 'boolean' },
                fields: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['path', 'keys', 'types', 'present', 'values'],
                    properties: {
                      path: { type: 'string', example: 'items[].sku' },
                      keys: { type: 'array', items: { type: 'string' }, description: 'The keys a filter nests to reach the field' },
                      types: { type: 'array', items: { type: 'string', enum: ['array', 'boolean', 'null', 'number', 'object', 'string'] } },
                      present: { type: 'integer', description: 'Deliveries of the sample that hold the field' },
                      values: {
                        type: ['array', 'null'],
                        items: { type: 'object', required: ['value', 'count'], properties: { value: {}, count: { type: 'integer' } } },
                      },
                    },
                  },
                },
              },
            }),
            ...standardErrors,
          },
        },
      },
      '/factories/{factory}/webhooks/{uid}/deliveries/{id}': {
        parameters: [factoryParam, uidParam, idParam('The delivery log entry’s id')],
        get: { summary: 'One log entry; Accepted entries add payload and headers', responses: { 200: json({ type: 'object' }), ...standardErrors } },
      },
      '/factories/{factory}/webhooks/{uid}/deliveries/{id}/automations': {
        parameters: [factoryParam, uidParam, idParam('The delivery log entry’s id')],
        get: {
          summary: 'Why not: the run each automation on the webhook started, what run control made of the delivery, or why not',
          responses: {
            200: json({
              type: 'object',
              properties: {
                note: { type: ['string', 'null'] },
                automations: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      automation: { type: 'object' },
                      run: {
                        type: ['object', 'null'],
                        properties: { id: { type: 'string' }, status: { type: 'string' }, replay: { type: 'boolean' }, outcome: { $ref: '#/components/schemas/RunOutcome' } },
                      },
                      summary: { type: 'string', description: 'One sentence: started, the outcome under run control, or why it did not start' },
                      triggers: { type: 'array', items: { type: 'object' } },
                    },
                  },
                },
              },
            }),
            ...standardErrors,
          },
        },
      },
      '/factories/{factory}/webhooks/{uid}/deliveries/{id}/replay': {
        parameters: [factoryParam, uidParam, idParam('The delivery log entry’s id')],
        post: {
          summary: 'Replay an Accepted delivery against today’s automations (admin)',
          responses: { 200: json({ type: 'object' }), ...standardErrors, 409: errorResponse('The entry is not Accepted') },
        },
      },
      '/factories/{factory}/replay-jobs': {
        parameters: [factoryParam],
        get: {
          summary: 'The factory’s newest bulk replay jobs, at most 20 (any member)',
          responses: { 200: json({ type: 'object', properties: { jobs: { type: 'array', items: replayJobObject } } }), ...standardErrors },
        },
        post: {
          summary: 'Start a bulk replay job (admin)',
          description:
            'Freezes the selection (a webhook’s Accepted deliveries by the log’s filters `q`, `event`, `from`, `to`; or the deliveries an automation’s trigger matches in Backtest) as the job’s list, oldest first, and replays each delivery in the background as the single Replay does, at most `TRIPLINE_REPLAY_RATE` a second, waiting while the factory’s run queue is full. At most 5,000 deliveries per job; one running job per factory.',
          requestBody: body(jsonSchema(startReplayJobSchema)),
          responses: {
            201: json(replayJobObject, 'Started'),
            ...standardErrors,
            409: errorResponse('Another replay job of the factory is running (the message and `fields.job` name it)'),
            422: errorResponse('Invalid selection, no Accepted delivery matches, or more than 5,000 do'),
          },
        },
      },
      '/factories/{factory}/replay-jobs/preview': {
        parameters: [factoryParam],
        post: {
          summary: 'Count a bulk replay selection and list its newest entries (any member); changes nothing',
          requestBody: body(jsonSchema(startReplayJobSchema)),
          responses: {
            200: json({
              type: 'object',
              required: ['webhook', 'count', 'tooMany', 'max', 'untested', 'deliveries'],
              properties: {
                webhook: { type: 'object', properties: { uid: { type: 'string' }, name: { type: 'string' } } },
                count: { type: 'integer', description: 'Deliveries selected; when tooMany, counting stopped at max + 1' },
                tooMany: { type: 'boolean', description: 'More than max: a job would be refused' },
                max: { type: 'integer' },
                untested: { type: 'integer', description: 'By automation: deliveries Backtest could not evaluate (not selected)' },
                deliveries: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { id: { type: 'string' }, deliveryId: { type: 'string' }, receivedAt: { type: 'string', format: 'date-time' }, eventType: { type: ['string', 'null'] } },
                  },
                },
              },
            }),
            ...standardErrors,
            422: errorResponse('Invalid selection'),
            429: errorResponse('By automation: Backtest’s bounds (another Backtest of the factory is running, or 30 ran in the last minute); Retry-After says when to try again'),
          },
        },
      },
      '/factories/{factory}/replay-jobs/{id}': {
        parameters: [factoryParam, idParam('The replay job’s id')],
        get: { summary: 'A bulk replay job’s progress (any member)', responses: { 200: json(replayJobObject), ...standardErrors } },
      },
      '/factories/{factory}/replay-jobs/{id}/cancel': {
        parameters: [factoryParam, idParam('The replay job’s id')],
        post: {
          summary: 'Cancel a running replay job (admin): no delivery is replayed after the response',
          responses: { 200: json(replayJobObject), ...standardErrors, 409: errorResponse('The job already completed') },
        },
      },
      '/factories/{factory}/automations': {
        parameters: [factoryParam],
        get: {
          summary: 'List automations by name, a page at a time (any member)',
          parameters: cursorPageParams(AUTOMATIONS_PER_PAGE),
          responses: {
            200: json({
              type: 'object',
              required: ['automations', 'nextCursor', 'total'],
              properties: {
                automations: { type: 'array', items: { $ref: '#/components/schemas/Automation' } },
                nextCursor: nextCursorProperty,
                total: { type: 'integer', description: 'The factory’s automations in all (at most 100)' },
              },
            }),
            ...standardErrors,
            422: errorResponse('Invalid query'),
          },
        },
        post: {
          summary: 'Create an automation (editor or admin)',
          requestBody: body(automationBody(createAutomationSchema)),
          responses: {
            201: json(automationResponse, 'Created'),
            ...standardErrors,
            422: errorResponse('Invalid fields, e.g. triggers.0.filter.payload or runControl.concurrency.limit'),
          },
        },
      },
      '/factories/{factory}/automations/{id}': {
        parameters: [factoryParam, idParam('The automation’s id')],
        get: { summary: 'Read an automation', responses: { 200: json(automationResponse), ...standardErrors } },
        patch: {
          summary: 'Change an automation (editor or admin); "runControl": null clears run control',
          requestBody: body(automationBody(updateAutomationSchema)),
          responses: { 200: json(automationResponse), ...standardErrors, 422: errorResponse('Invalid fields, e.g. runControl.debounce.periodSeconds') },
        },
        delete: { summary: 'Delete an automation and its runs (editor or admin)', responses: { 204: { description: 'Deleted' }, ...standardErrors } },
      },
      '/factories/{factory}/automations/{id}/test-filter': {
        parameters: [factoryParam, idParam('The automation’s id')],
        post: {
          summary: 'Would this stored delivery trigger this saved trigger?',
          requestBody: body(jsonSchema(testFilterSchema)),
          responses: { 200: json({ type: 'object' }), ...standardErrors, 422: errorResponse('No such trigger, or the entry is not Accepted') },
        },
      },
      '/factories/{factory}/automations/backtest': {
        parameters: [factoryParam],
        post: {
          summary: 'Run a trigger as written over every Accepted delivery of its webhook in the retained log',
          description:
            'Counts the deliveries the trigger would have started (`wouldTrigger` of `tested`, every Accepted delivery of the webhook still in the log) and lists the most recent ones that would trigger and that would not, up to `limit` of each (default 25), newest first, with the conditions that failed. Changes nothing. Bounded: one Backtest per factory and two per instance at once, 30 per factory a minute, 30 s per statement, and at most 20,000 bodies (64 MB) without a jsonb copy evaluated per call (`untested` counts the rest).',
          requestBody: body(jsonSchema(backtestSchema)),
          responses: {
            200: json({
              type: 'object',
              required: ['webhook', 'tested', 'untested', 'wouldTrigger', 'deliveries'],
              properties: {
                webhook: {
                  type: 'object',
                  properties: { uid: { type: 'string' }, name: { type: 'string' }, state: { type: 'string', enum: ['live', 'disabled', 'deleted'] } },
                },
                tested: { type: 'integer', description: 'Accepted deliveries of the webhook in the retained log that were tested' },
                untested: {
                  type: 'integer',
                  description: 'Deliveries not tested because their bodies have no jsonb copy yet and the TypeScript evaluator’s bound (20,000 bodies or 64 MB) was reached: the count is partial when above 0',
                },
                wouldTrigger: { type: 'integer', description: 'How many of them the filter matches' },
                deliveries: {
                  type: 'array',
                  description: 'The most recent matches and non-matches (up to `limit` of each), newest first',
                  items: {
                    type: 'object',
                    properties: {
                      id: { type: 'string' },
                      deliveryId: { type: 'string' },
                      receivedAt: { type: 'string', format: 'date-time' },
                      wouldTrigger: { type: 'boolean' },
                      failures: { type: 'array', items: { type: 'string' }, description: 'Each failed condition, explained' },
                    },
                  },
                },
              },
            }),
            429: errorResponse('Another Backtest of this factory (or two of this instance) is running, or the factory ran 30 in the last minute; Retry-After says when to try again'),
            ...standardErrors,
            422: errorResponse('Invalid trigger'),
          },
        },
      },
      '/factories/{factory}/runs': {
        parameters: [factoryParam],
        get: {
          summary: 'List runs, newest first, a page at a time (nextCursor is null on the last page)',
          parameters: [
            { name: 'automation', in: 'query', schema: { type: 'string' } },
            { name: 'delivery', in: 'query', schema: { type: 'string' }, description: 'A delivery log entry’s id' },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
            { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'The nextCursor of the previous page' },
          ],
          responses: {
            200: json({
              type: 'object',
              required: ['runs', 'nextCursor'],
              properties: { runs: { type: 'array', items: { $ref: '#/components/schemas/RunSummary' } }, nextCursor: { type: ['string', 'null'] } },
            }),
            ...standardErrors,
            422: errorResponse('Invalid query parameters'),
          },
        },
      },
      '/factories/{factory}/runs/{id}': {
        parameters: [factoryParam, idParam('The run’s id')],
        get: {
          summary: 'A run with its prompt, envelope, attachments and outcome',
          responses: {
            200: json({
              type: 'object',
              required: ['run'],
              properties: {
                run: {
                  allOf: [
                    { $ref: '#/components/schemas/RunSummary' },
                    {
                      type: 'object',
                      properties: {
                        prompt: { type: 'string' },
                        envelope: { type: 'object' },
                        attachments: { type: 'array', items: { type: 'object' } },
                        output: { type: ['string', 'null'] },
                        error: { type: ['string', 'null'] },
                      },
                    },
                  ],
                },
              },
            }),
            ...standardErrors,
          },
        },
      },
      '/factories/{factory}/runs/{id}/cancel': {
        parameters: [factoryParam, idParam('The run’s id')],
        post: {
          summary: 'Cancel a run that has not ended (editor or admin)',
          description:
            'A run that has not started (queued, or held by run control: pending, waiting, debouncing, throttled) ends `cancelled` at once. A running run is stopped by the worker that holds it, on whichever instance, within about a second: the command executor sends SIGTERM to the program’s process group and SIGKILL after `TRIPLINE_RUN_CANCEL_GRACE_SECONDS`; the HTTP executor aborts its request and sends the receiver a signed `run.cancelled` call. The run then ends `cancelled` with the output so far; until then the response shows it `running` with `cancel` set. Cancelling a run already cancelled, or being stopped, changes nothing.',
          responses: {
            200: json({
              type: 'object',
              required: ['run'],
              properties: {
                run: {
                  type: 'object',
                  required: ['id', 'status', 'cancel'],
                  properties: {
                    id: { type: 'string' },
                    status: { type: 'string', enum: ['running', 'cancelled'] },
                    cancel: {
                      type: 'object',
                      required: ['requestedAt', 'delivery', 'by'],
                      properties: {
                        requestedAt: { type: 'string', format: 'date-time' },
                        delivery: { type: ['object', 'null'], description: 'The delivery that cancelled the run (run control’s cancel-running), or null' },
                        by: { type: ['string', 'null'], description: 'The email of the member who cancelled it, or null' },
                      },
                    },
                  },
                },
              },
            }),
            ...standardErrors,
            409: errorResponse('The run has already ended (succeeded, failed, superseded, debounced or skipped)'),
          },
        },
      },
    },
  };
}
