import { describe, expect, it } from 'vitest';
import { connectWebhookFormSchema, MAX_EVENT_TYPES } from '@/lib/domain/connections/schemas';

// The dashboard's form writes the event types as one line; the API takes a list.
const form = { provider: 'github_repository', credentialSecretName: 'GH_TOKEN', target: 'octo/app' } as const;

describe('connectWebhookFormSchema', () => {
  it('splits the event types on commas and spaces, once each', () => {
    expect(connectWebhookFormSchema.parse({ ...form, eventTypes: ' issues,push  pull_request, issues ,' }).eventTypes).toEqual(['issues', 'push', 'pull_request']);
    expect(connectWebhookFormSchema.parse({ ...form, eventTypes: '' }).eventTypes).toEqual([]);
  });

  it('names the event types that are not event names, in one message on the field', () => {
    const result = connectWebhookFormSchema.safeParse({ ...form, eventTypes: 'issues, Push, pull-request' });
    expect(result.success).toBe(false);
    expect(result.error!.issues).toEqual([expect.objectContaining({ path: ['eventTypes'], message: 'Push, pull-request: use event names such as push or issues' })]);
  });

  it('refuses more than the API takes', () => {
    const many = Array.from({ length: MAX_EVENT_TYPES + 1 }, (_, i) => `event_${i}`).join(',');
    expect(connectWebhookFormSchema.safeParse({ ...form, eventTypes: many }).error!.issues[0]!.message).toBe(`Use at most ${MAX_EVENT_TYPES} event types`);
  });
});
