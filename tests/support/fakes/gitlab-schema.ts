// GitLab REST API v4, the project webhook operations Tripline uses, as JSON
// Schema. No npm package carries a description of GitLab's API (GitLab
// publishes no complete OpenAPI for v4), so this was written by hand from
// GitLab's documentation, "Project webhooks API" (doc/api/project_webhooks.md:
// the attribute tables of each operation and their example responses) and
// the entities it documents (API::Entities::ProjectHook, WebHookLog). The
// fake GitLab validates every request it receives and every response it
// sends against it, and tests/support/fakes/gitlab.test.ts checks the
// documented example responses against it, so the fake and the adapter
// agree with GitLab's documented shapes. Keep it to what the docs say: a
// field the docs do not show is not added here to make a test pass.

type Schema = Record<string, unknown>;

/** The hook flags the docs list for "Add a webhook to a project" and "Edit a project webhook". */
export const HOOK_FLAGS = [
  'push_events',
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'note_events',
  'confidential_note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
  'releases_events',
  'feature_flag_events',
  'emoji_events',
  'resource_access_token_events',
] as const;

const flags = Object.fromEntries(HOOK_FLAGS.map((flag) => [flag, { type: 'boolean' }]));
const dateTime = { type: 'string', format: 'date-time' };
const stringMap = { type: 'object', additionalProperties: { type: 'string' } };

/** The body of POST /projects/:id/hooks and PUT /projects/:id/hooks/:hook_id: `url` required, every other attribute optional. */
const hookWrite: Schema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', format: 'uri', maxLength: 5000 },
    name: { type: 'string' },
    description: { type: 'string' },
    token: { type: 'string' },
    enable_ssl_verification: { type: 'boolean' },
    push_events_branch_filter: { type: 'string' },
    branch_filter_strategy: { enum: ['wildcard', 'regex', 'all_branches'] },
    custom_webhook_template: { type: 'string' },
    custom_headers: { type: 'array', items: { type: 'object', required: ['key', 'value'], properties: { key: { type: 'string' }, value: { type: 'string' } } } },
    ...flags,
  },
};

/** A project hook as GitLab answers it ("Get a project webhook"): the token is never returned. */
const hook: Schema = {
  type: 'object',
  required: ['id', 'url', 'project_id', 'created_at', 'enable_ssl_verification', 'alert_status', ...HOOK_FLAGS.filter((f) => f !== 'emoji_events' && f !== 'resource_access_token_events')],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    url: { type: 'string' },
    name: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    project_id: { type: 'integer' },
    push_events_branch_filter: { type: ['string', 'null'] },
    branch_filter_strategy: { type: 'string' },
    enable_ssl_verification: { type: 'boolean' },
    repository_update_events: { type: 'boolean' },
    alert_status: { enum: ['executable', 'temporarily_disabled', 'disabled'] },
    disabled_until: { type: ['string', 'null'] },
    url_variables: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' } } } },
    created_at: dateTime,
    custom_webhook_template: { type: ['string', 'null'] },
    custom_headers: { type: 'array', items: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } } },
    ...flags,
  },
};

/** One hook event ("Get a list of project webhook events", API::Entities::WebHookLog). */
const hookEvent: Schema = {
  type: 'object',
  required: ['id', 'url', 'trigger', 'request_headers', 'request_data', 'response_headers', 'response_body', 'execution_duration', 'response_status', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    url: { type: 'string' },
    trigger: { type: 'string', pattern: '_hooks$' },
    request_headers: {
      ...stringMap,
      required: ['Content-Type', 'User-Agent', 'X-Gitlab-Event'],
      properties: { 'X-Gitlab-Token': { const: '[REDACTED]' } },
    },
    request_data: { type: 'object' },
    response_headers: stringMap,
    response_body: { type: 'string' },
    execution_duration: { type: 'number' },
    // A status code, or GitLab's words when no answer came ("internal error").
    response_status: { type: 'string' },
    created_at: dateTime,
  },
};

/** GitLab's error bodies: `{"message": ...}` (404 Project Not Found, 401 Unauthorized, 403 Forbidden, 429) or `{"error": ...}` (400). */
const errorBody: Schema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { message: { type: ['string', 'object'] }, error: { type: 'string' } },
};

const page = { type: 'integer', minimum: 1 };
const perPage = { type: 'integer', minimum: 1, maximum: 100 };

export type Route = {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Path under the API base, with :id (a project ID or URL-encoded path), :hook_id, :hook_event_id. */
  template: string;
  query: Record<string, Schema>;
  body: Schema | null;
  /** Success statuses and their bodies (null: no body). */
  responses: Record<number, Schema | null>;
};

export const ROUTES: Route[] = [
  { method: 'get', template: '/projects/:id/hooks', query: { page, per_page: perPage }, body: null, responses: { 200: { type: 'array', items: hook } } },
  { method: 'post', template: '/projects/:id/hooks', query: {}, body: hookWrite, responses: { 201: hook } },
  { method: 'get', template: '/projects/:id/hooks/:hook_id', query: {}, body: null, responses: { 200: hook } },
  { method: 'put', template: '/projects/:id/hooks/:hook_id', query: {}, body: hookWrite, responses: { 200: hook } },
  { method: 'delete', template: '/projects/:id/hooks/:hook_id', query: {}, body: null, responses: { 204: null } },
  {
    method: 'get',
    template: '/projects/:id/hooks/:hook_id/events',
    // per_page is 1 to 20 here, not 100 (GitLab's API::Hooks::Events).
    query: { status: { anyOf: [{ type: 'integer', minimum: 100, maximum: 599 }, { enum: ['successful', 'client_failure', 'server_failure'] }] }, page, per_page: { type: 'integer', minimum: 1, maximum: 20 } },
    body: null,
    responses: { 200: { type: 'array', items: hookEvent } },
  },
  {
    method: 'post',
    template: '/projects/:id/hooks/:hook_id/events/:hook_event_id/resend',
    query: {},
    body: null,
    responses: { 201: { type: 'object', required: ['response_status'], additionalProperties: false, properties: { response_status: { type: ['integer', 'string'] } } } },
  },
];

export const ERROR_BODY = errorBody;
export const SCHEMAS = { hook, hookEvent, hookWrite };
