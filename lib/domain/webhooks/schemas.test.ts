import { describe, expect, it } from 'vitest';
import { createWebhookSchema, eventTypeSettingFormSchema, suggestFreeSecretName, suggestSecretName, updateWebhookSchema } from '@/lib/domain/webhooks/schemas';
import { redactedHeaderReason } from '@/lib/ingress/filters/headers';
import { schemes } from '@/lib/ingress/signatures/registry';

// The suggestion the server names a new team secret with, and the form shows.
describe('suggestFreeSecretName', () => {
  it('suggests the plain name while it is free', () => {
    expect(suggestSecretName('github-deploys')).toBe('GITHUB_DEPLOYS_WEBHOOK_SECRET');
    expect(suggestFreeSecretName('github-deploys', new Set())).toBe('GITHUB_DEPLOYS_WEBHOOK_SECRET');
  });

  it('numbers it from 2 when it is taken', () => {
    const taken = new Set(['GITHUB_DEPLOYS_WEBHOOK_SECRET', 'GITHUB_DEPLOYS_WEBHOOK_SECRET_2']);
    expect(suggestFreeSecretName('github-deploys', taken)).toBe('GITHUB_DEPLOYS_WEBHOOK_SECRET_3');
  });
});

describe('the Event type setting', () => {
  const create = (input: Record<string, unknown>) => createWebhookSchema.safeParse({ name: 'jobs', ...input });
  const problems = (input: Record<string, unknown>) => {
    const result = create(input);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  };

  it('takes a header name, stored lowercase, or a dot path; blank is none', () => {
    expect(create({ eventTypeHeader: ' X-Job-Kind ' }).data?.eventTypeHeader).toBe('x-job-kind');
    expect(create({ authMode: 'url_token', eventTypePath: 'data.events.0.type' }).data).toMatchObject({ eventTypePath: 'data.events.0.type' });
    const blank = create({ eventTypeHeader: '', eventTypePath: '  ' }).data;
    expect([blank?.eventTypeHeader, blank?.eventTypePath]).toEqual([undefined, undefined]);
    expect(create({ eventTypePath: ['k'].concat(Array(31).fill('k')).join('.') }).success).toBe(true);
  });

  it('refuses a header that is not a header name, at the field', () => {
    expect(problems({ eventTypeHeader: 'X-Kind: order' })).toEqual(['eventTypeHeader: Enter a header name such as X-Event-Type, without a colon or spaces']);
    expect(problems({ eventTypeHeader: 'x'.repeat(101) })).toEqual(['eventTypeHeader: Use at most 100 characters']);
  });

  it('refuses a credential header, at the field, wherever the setting is written', () => {
    // The type is shown to every viewer: "Authorization" would show them the webhook's bearer token.
    const message =
      '"authorization" cannot be the event type header: its name suggests a credential (authorization, cookie, token, secret, signature…), and the event type is shown to every member of the factory, viewers included: choose a header that names the kind of event, such as X-Event-Type';
    const issues = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
      result.success ? [] : result.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(problems({ eventTypeHeader: 'Authorization' })).toEqual([`eventTypeHeader: ${message}`]);
    expect(problems({ authMode: 'url_token', eventTypeHeader: ' AUTHORIZATION ' })).toEqual([`eventTypeHeader: ${message}`]);
    expect(issues(updateWebhookSchema.safeParse({ eventTypeHeader: 'Authorization' }))).toEqual([`eventTypeHeader: ${message}`]);
    expect(issues(eventTypeSettingFormSchema.safeParse({ eventTypeHeader: 'Authorization', eventTypePath: '' }))).toEqual([`eventTypeHeader: ${message}`]);
    // Definition files: lib/domain/definitions/parse.test.ts.
    for (const name of ['Cookie', 'X-Api-Key', 'X-Auth-Token', 'X-Webhook-Secret', 'Proxy-Authorization', 'X-Gitlab-Token', 'X-Hub-Signature-256', 'svix-id']) {
      expect(problems({ eventTypeHeader: name }), name).toEqual([expect.stringMatching(/^eventTypeHeader: ".+" cannot be the event type header: /)]);
    }
    expect(problems({ eventTypeHeader: 'X-Event-Type' })).toEqual([]);
  });

  it('refuses exactly the headers a header filter refuses: those the delivery log stores redacted', () => {
    const names = [
      ...Object.values(schemes).flatMap((scheme) => scheme.signatureHeaders as readonly string[]),
      ...['authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-apikey', 'x-password', 'x-hmac', 'x-client-secret'],
      ...['x-event-type', 'x-github-event', 'x-request-id', 'content-type', 'user-agent', 'x-job-kind'],
    ];
    for (const name of names) {
      const refused = !createWebhookSchema.safeParse({ name: 'jobs', eventTypeHeader: name }).success;
      expect(refused, name).toBe(redactedHeaderReason(name) !== null);
    }
  });

  it('refuses a path that the extractor could not read, saying how to write it', () => {
    expect(problems({ eventTypePath: 'data.\u202Etype' })).toEqual(['eventTypePath: Use printable characters only']);
    expect(problems({ eventTypePath: 'data\u200B.type' })).toEqual(['eventTypePath: Use printable characters only']);
    expect(problems({ eventTypePath: 'data..type' })).toEqual(['eventTypePath: Write keys separated by single dots, such as data.type, with no empty key']);
    expect(problems({ eventTypePath: '.type' })).toEqual(['eventTypePath: Write keys separated by single dots, such as data.type, with no empty key']);
    expect(problems({ eventTypePath: '$.data.type' })).toEqual(['eventTypePath: Leave out the leading $: write the keys separated by dots, such as data.type']);
    expect(problems({ eventTypePath: 'events[0].type' })).toEqual(['eventTypePath: Write an array position as a segment of digits, such as events.0.type, not in brackets']);
    expect(problems({ eventTypePath: 'data.\u0007' })).toEqual(['eventTypePath: Use printable characters only']);
    expect(problems({ eventTypePath: Array(33).fill('k').join('.') })).toEqual(['eventTypePath: Use at most 32 keys']);
    expect(problems({ eventTypePath: 'k'.repeat(201) })).toEqual(['eventTypePath: Use at most 200 characters']);
  });

  it('takes one source, and none on a provider signature webhook', () => {
    expect(problems({ eventTypeHeader: 'X-Kind', eventTypePath: 'type' })).toEqual(['eventTypePath: Set a header or a body path for the event type, not both']);
    expect(problems({ authMode: 'signature', signatureScheme: 'github', eventTypeHeader: 'X-GitHub-Event' })).toEqual([
      'eventTypeHeader: A provider signature webhook takes its event type from its provider scheme (docs/providers.md); the Event type setting is for bearer and URL token webhooks',
    ]);
    expect(problems({ authMode: 'signature', signatureScheme: 'stripe', eventTypePath: 'type' })).toEqual([
      'eventTypePath: A provider signature webhook takes its event type from its provider scheme (docs/providers.md); the Event type setting is for bearer and URL token webhooks',
    ]);
  });
});
