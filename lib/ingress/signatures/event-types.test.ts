import { describe, expect, it } from 'vitest';
import { boundEventType, extractEventType, headerLookup, MAX_EVENT_TYPE_LENGTH } from './event-types';
import { loadVectors, schemeOf } from './fixtures/vectors';
import { eventTypeHeaderRefusal, eventTypeSourceOf, schemeIds, schemes, type SchemeId } from './registry';

const typeOf = (id: SchemeId, body: unknown, headers: Record<string, string> = {}) =>
  extractEventType(schemes[id].eventType, { header: headerLookup(headers), body });

// Realistic deliveries, shaped as each provider's documentation shows them
// (the page is the scheme's eventType.source in the registry).
const deliveries: Array<[SchemeId, string, Record<string, string>, unknown, string | null]> = [
  ['standard-webhooks', 'spec payload', { 'webhook-id': 'msg_1' }, { type: 'user.created', timestamp: '2026-11-01T00:00:00Z', data: {} }, 'user.created'],
  ['standard-webhooks', 'a payload without the recommended type', {}, { email: 'a@b.c' }, null],
  ['standard-webhooks-v1a', 'spec payload', {}, { type: 'invoice.paid', data: {} }, 'invoice.paid'],
  ['github', 'pull_request opened', { 'X-GitHub-Event': 'pull_request' }, { action: 'opened', number: 1, pull_request: {} }, 'pull_request.opened'],
  ['github', 'pull_request_review submitted', { 'x-github-event': 'pull_request_review' }, { action: 'submitted', pull_request: {} }, 'pull_request_review.submitted'],
  ['github', 'push has no action', { 'X-GitHub-Event': 'push' }, { ref: 'refs/heads/main', commits: [] }, 'push'],
  ['github', 'ping', { 'X-GitHub-Event': 'ping' }, { zen: 'Keep it logically awesome.', hook_id: 1 }, 'ping'],
  ['github', 'no header', {}, { action: 'opened' }, null],
  ['stripe', 'event object', {}, { id: 'evt_1', object: 'event', type: 'payment_intent.succeeded', data: { object: {} } }, 'payment_intent.succeeded'],
  ['slack', 'event_callback', {}, { type: 'event_callback', event: { type: 'app_mention', text: 'hi' } }, 'app_mention'],
  ['slack', 'message with subtype', {}, { type: 'event_callback', event: { type: 'message', subtype: 'channel_join' } }, 'message.channel_join'],
  ['slack', 'url_verification', {}, { type: 'url_verification', challenge: 'x' }, 'url_verification'],
  ['slack', 'app_rate_limited', {}, { type: 'app_rate_limited', minute_rate_limited: 1 }, 'app_rate_limited'],
  ['linear', 'Issue create', { 'Linear-Delivery': 'd' }, { action: 'create', type: 'Issue', data: {}, webhookTimestamp: 1 }, 'Issue.create'],
  ['shopify', 'topic header', { 'X-Shopify-Topic': 'orders/create' }, { id: 1 }, 'orders/create'],
  ['gitlab', 'merge request', { 'X-Gitlab-Event': 'Merge Request Hook' }, { object_kind: 'merge_request', object_attributes: { action: 'open' } }, 'merge_request.open'],
  ['gitlab', 'push', { 'X-Gitlab-Event': 'Push Hook' }, { object_kind: 'push', ref: 'refs/heads/main' }, 'push'],
  ['gitlab', 'system hook', { 'X-Gitlab-Event': 'System Hook' }, { event_name: 'project_create' }, 'project_create'],
  ['gitlab', 'header only', { 'X-Gitlab-Event': 'Job Hook' }, {}, 'Job Hook'],
  ['pagerduty', 'v3 event', {}, { event: { id: 'e', event_type: 'incident.triggered', resource_type: 'incident' } }, 'incident.triggered'],
  ['sentry', 'issue created', { 'Sentry-Hook-Resource': 'issue' }, { action: 'created', data: { issue: {} } }, 'issue.created'],
  ['paddle', 'transaction', {}, { event_id: 'evt', event_type: 'transaction.completed', data: {} }, 'transaction.completed'],
  ['square', 'customer', {}, { merchant_id: 'm', type: 'customer.created', data: {} }, 'customer.created'],
  ['twilio', 'none', {}, { MessageStatus: 'delivered' }, null],
  ['calendly', 'invitee', {}, { event: 'invitee.created', payload: {} }, 'invitee.created'],
  ['typeform', 'response', {}, { event_id: 'e', event_type: 'form_response', form_response: {} }, 'form_response'],
  ['vercel', 'deployment', {}, { id: 'e', type: 'deployment.created', payload: {} }, 'deployment.created'],
  ['gitea', 'pull request', { 'X-Gitea-Event': 'pull_request', 'X-Gitea-Event-Type': 'pull_request' }, { action: 'opened' }, 'pull_request.opened'],
  ['gitea', 'forgejo only', { 'X-Forgejo-Event': 'push' }, { ref: 'refs/heads/main' }, 'push'],
  ['bitbucket', 'event key', { 'X-Event-Key': 'pullrequest:created' }, { pullrequest: {} }, 'pullrequest:created'],
  ['jira', 'issue updated', {}, { webhookEvent: 'jira:issue_updated', issue_event_type_name: 'issue_generic' }, 'jira:issue_updated'],
  ['intercom', 'topic', {}, { type: 'notification_event', topic: 'conversation.user.created', data: {} }, 'conversation.user.created'],
  ['zendesk', 'event webhook', {}, { type: 'zen:event-type:user.active_changed', detail: {} }, 'zen:event-type:user.active_changed'],
  ['twitch', 'notification', { 'Twitch-Eventsub-Message-Type': 'notification' }, { subscription: { type: 'stream.online' }, event: {} }, 'stream.online'],
  ['twitch', 'revocation', { 'Twitch-Eventsub-Message-Type': 'revocation' }, { subscription: { type: 'stream.online', status: 'authorization_revoked' } }, 'revocation'],
  ['zoom', 'meeting', {}, { event: 'meeting.started', payload: {} }, 'meeting.started'],
  ['discord', 'command', {}, { type: 2, data: { name: 'ping' } }, 'APPLICATION_COMMAND.ping'],
  ['discord', 'component', {}, { type: 3, data: { custom_id: 'approve_btn' } }, 'MESSAGE_COMPONENT.approve_btn'],
  ['discord', 'an unknown number stays a number', {}, { type: 9 }, '9'],
  ['notion', 'page', {}, { type: 'page.content_updated', entity: {} }, 'page.content_updated'],
  ['notion', 'verification token', {}, { verification_token: 'secret_x' }, null],
  ['airtable', 'none', {}, { base: { id: 'app' }, webhook: { id: 'ach' }, timestamp: 't' }, null],
  ['asana', 'batch', {}, { events: [{ action: 'changed', resource: { resource_type: 'task' } }, { action: 'added', resource: { resource_type: 'story' } }] }, 'task.changed'],
  ['asana', 'empty batch', {}, { events: [] }, null],
  ['dropbox', 'none', {}, { list_folder: { accounts: ['dbid:1'] } }, null],
  ['mailgun', 'delivered', {}, { signature: {}, 'event-data': { event: 'delivered' } }, 'delivered'],
  ['mailgun', 'permanent failure', {}, { signature: {}, 'event-data': { event: 'failed', severity: 'permanent' } }, 'failed.permanent'],
  ['microsoft-graph', 'change notification', {}, { value: [{ subscriptionId: 's', clientState: 'c', changeType: 'created', resource: 'users/u/messages/m' }] }, 'created'],
  ['microsoft-graph', 'lifecycle notification', {}, { value: [{ subscriptionId: 's', clientState: 'c', lifecycleEvent: 'subscriptionRemoved' }] }, 'subscriptionRemoved'],
  ['okta', 'event hook batch', {}, { eventType: 'com.okta.event_hook', data: { events: [{ eventType: 'user.session.start' }, { eventType: 'user.lifecycle.create' }] } }, 'user.session.start'],
  ['okta', 'an empty batch names the envelope', {}, { eventType: 'com.okta.event_hook', data: { events: [] } }, 'com.okta.event_hook'],
  ['meta', 'WhatsApp messages', {}, { object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'messages', value: {} }] }] }, 'whatsapp_business_account.messages'],
  ['meta', 'Messenger names no field', {}, { object: 'page', entry: [{ id: '1', messaging: [{ message: {} }] }] }, 'page'],
  ['x', 'tweet create', {}, { for_user_id: '2244994945', tweet_create_events: [{ id_str: '1' }] }, 'tweet_create_events'],
  ['x', 'direct message', {}, { for_user_id: '2244994945', direct_message_events: [], users: {}, apps: {} }, 'direct_message_events'],
  ['x', 'a key X does not list', {}, { for_user_id: '2244994945', something_new: [] }, null],
  ['x', 'an array body', {}, [{ tweet_create_events: [] }], null],
];

describe('each scheme’s event type', () => {
  it.each(deliveries)('%s: %s', (id, _name, headers, body, expected) => {
    expect(typeOf(id, body, headers)).toBe(expected);
  });

  it('every scheme declares a source with a cited page, and every scheme is exercised above', () => {
    for (const id of schemeIds) {
      const source = schemes[id].eventType;
      expect(source.source, id).toMatch(/https:\/\/|\//);
      if (source.kind === 'none') expect(source.reason.length, id).toBeGreaterThan(20);
    }
    expect(new Set(deliveries.map(([id]) => id))).toEqual(new Set(schemeIds));
  });

  // The published vectors' bodies and headers, through the same extractor.
  it('names the type of the published vectors that carry one', () => {
    const seen: Record<string, string | null> = {};
    for (const vector of loadVectors()) {
      const id = schemeOf(vector);
      if (!id || vector.expected !== 'valid') continue;
      let body: unknown = null;
      try {
        body = JSON.parse(vector.body);
      } catch {
        body = null; // Form bodies (Slack commands, Twilio): no JSON, no type.
      }
      seen[vector.scheme] ??= extractEventType(schemes[id].eventType, { header: headerLookup(vector.headers), body });
    }
    expect(seen).toMatchObject({
      stripe: 'customer.created',
      shopify: 'products/create',
      'pagerduty-v3': 'incident.priority_updated',
      square: 'webhooks.test_notification',
      linear: 'Issue.create',
      sentry: 'issue.created',
      intercom: 'ping',
      'discord-interactions': 'PING',
      'gitea-forgejo': 'push',
      bitbucket: 'repo:push',
      'jira-admin-webhook': 'jira:issue_created',
      vercel: 'deployment.created',
      typeform: 'form_response',
      calendly: 'invitee.created',
      mailgun: 'delivered',
      'twitch-eventsub': 'channel.follow',
      notion: 'page.created',
      asana: 'task.changed',
      zoom: 'meeting.started',
      'zoom-url-validation': 'endpoint.url_validation',
      'microsoft-graph': 'created',
      okta: 'user.session.start',
      meta: 'whatsapp_business_account.messages',
      x: 'tweet_create_events',
      gitlab: 'push',
      airtable: null,
      dropbox: null,
      'twilio-form': null,
      slack: null,
    });
  });
});

describe('bounds', () => {
  it('stores at most 200 printable characters, else null, never throws', () => {
    expect(boundEventType('a'.repeat(MAX_EVENT_TYPE_LENGTH))).toHaveLength(MAX_EVENT_TYPE_LENGTH);
    expect(boundEventType('a'.repeat(MAX_EVENT_TYPE_LENGTH + 1))).toBeNull();
    expect(boundEventType('push\u0000')).toBeNull();
    expect(boundEventType('push\nX-Injected: 1')).toBeNull();
    expect(boundEventType('push\u0085')).toBeNull();
    expect(boundEventType('  push  ')).toBe('push');
    expect(boundEventType('   ')).toBeNull();
    expect(boundEventType('commande.créée')).toBe('commande.créée');
  });

  it('a type with a bidirectional, zero-width or other invisible formatting character is null, as one with a control character is', () => {
    // Each would let the dashboard show one type for another, or hide text in a run's RUN_EVENT_TYPE.
    const invisible = [
      ...[0x202a, 0x202b, 0x202c, 0x202d, 0x202e], // embeddings and overrides
      ...[0x2066, 0x2067, 0x2068, 0x2069], // isolates
      ...[0x200b, 0x200c, 0x200d, 0x200e, 0x200f], // zero-width space, non-joiner, joiner; LTR and RTL marks
      0x061c, // Arabic letter mark
      0x2060, // word joiner
      0xfeff, // zero-width no-break space
      0x00ad, // soft hyphen
      0xe0041, // a tag character
    ];
    for (const code of invisible) {
      const character = String.fromCodePoint(code);
      expect(boundEventType(`push${character}.merged`), `U+${code.toString(16).toUpperCase()}`).toBeNull();
      expect(boundEventType(`p${character}ush`), `U+${code.toString(16).toUpperCase()} in a word`).toBeNull();
    }
    // Around the type, U+FEFF is white space to String.prototype.trim, and goes with the rest of it.
    expect(boundEventType('\ufeffpush')).toBe('push');
    expect(boundEventType('push\ud800')).toBeNull();
    // Through the extractor, from a body path and from a header.
    expect(typeOf('stripe', { type: 'invoice.\u202Ediap' })).toBeNull();
    expect(typeOf('shopify', {}, { 'X-Shopify-Topic': 'orders/\u200Bcreate' })).toBeNull();
    // Visible text of any script stays: accents, CJK, a no-break space, an emoji without a joiner.
    expect(boundEventType('commande.créée')).toBe('commande.créée');
    expect(boundEventType('注文.作成')).toBe('注文.作成');
    expect(boundEventType('order\u00a0paid')).toBe('order\u00a0paid');
    expect(boundEventType('deploy.🚀')).toBe('deploy.🚀');
  });

  it('a 10 KB header, a type with control characters, or a composed label past the bound is null', () => {
    expect(typeOf('shopify', {}, { 'X-Shopify-Topic': 'x'.repeat(10_240) })).toBeNull();
    expect(typeOf('stripe', { type: 'charge.succeeded\u001b[31m' })).toBeNull();
    expect(typeOf('github', { action: 'b'.repeat(150) }, { 'X-GitHub-Event': 'a'.repeat(150) })).toBeNull();
  });

  it('ignores values that are not strings or integers, and paths through the wrong shapes', () => {
    expect(typeOf('stripe', { type: { nested: true } })).toBeNull();
    expect(typeOf('stripe', { type: 1.5 })).toBeNull();
    expect(typeOf('stripe', ['type'])).toBeNull();
    expect(typeOf('stripe', null)).toBeNull();
    expect(typeOf('pagerduty', { event: 'incident.triggered' })).toBeNull();
    expect(typeOf('stripe', Object.create({ type: 'inherited' }))).toBeNull();
    expect(typeOf('github', { action: { opened: true } }, { 'X-GitHub-Event': 'issues' })).toBe('issues');
  });
});

describe('the Event type setting of a bearer or URL token webhook', () => {
  const token = (eventTypeHeader: string | null, eventTypePath: string | null = null) => ({ authMode: 'token', signatureScheme: null, eventTypeHeader, eventTypePath });

  it('reads the header it names', () => {
    expect(eventTypeSourceOf(token('x-job-kind'))).toMatchObject({ kind: 'rules', rules: [{ parts: [{ header: 'x-job-kind' }] }] });
    expect(extractEventType(eventTypeSourceOf(token('x-job-kind')), { header: headerLookup({ 'X-Job-Kind': 'build' }), body: null })).toBe('build');
  });

  it('never reads a credential header, even one stored before the setting refused it', () => {
    const headers = headerLookup({ Authorization: 'Bearer VtfecxQ-the-webhook-secret', Cookie: 'sid=1', 'X-Api-Key': 'k', 'svix-id': 'msg_1' });
    for (const name of ['authorization', 'cookie', 'x-api-key', 'x-gitlab-token', 'x-hub-signature-256', 'svix-id', 'x-slack-request-timestamp']) {
      expect(eventTypeHeaderRefusal(name), name).not.toBeNull();
      expect(eventTypeSourceOf(token(name)), name).toBeNull();
      expect(extractEventType(eventTypeSourceOf(token(name)), { header: headers, body: null }), name).toBeNull();
    }
    expect(eventTypeHeaderRefusal('Authorization')).toBe(
      '"authorization" cannot be the event type header: its name suggests a credential (authorization, cookie, token, secret, signature…), and the event type is shown to every member of the factory, viewers included: choose a header that names the kind of event, such as X-Event-Type',
    );
    expect(eventTypeHeaderRefusal('svix-id')).toMatch(/^"svix-id" cannot be the event type header: Standard Webhooks \(and Svix\) signs deliveries with it, so the delivery log stores it redacted/);
    expect(eventTypeHeaderRefusal('x-event-type')).toBeNull();
  });
});
