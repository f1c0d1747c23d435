import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { encryptSecret } from '@/lib/platform/crypto/encryption';
import { transitionEvent } from '@/lib/domain/health/monitor';
import { checkNotificationUrl } from '@/lib/domain/notifications/address';
import { notificationRequest } from '@/lib/domain/notifications/sender';
import { destinationContext, displayUrl, type NotificationEvent } from '@/lib/domain/notifications/service';
import { slackMessage } from '@/lib/domain/notifications/slack';

const event: NotificationEvent = {
  type: 'webhook.failing',
  timestamp: '2026-11-23T10:00:00.000Z',
  data: {
    factory: { slug: 'acme', name: 'Acme Ops', url: 'http://localhost:3000/f/acme' },
    webhook: { uid: 'wh_1', name: 'github-deploys', url: 'http://localhost:3000/f/acme/automations/webhooks/wh_1' },
    health: { state: 'failing_auth', reason: '3 requests rejected for authentication and none accepted in the last 15 minutes' },
  },
};

describe('notifications', () => {
  it('sends one event when a condition starts and one when it ends', () => {
    expect(transitionEvent(null, 'new')).toBeNull();
    expect(transitionEvent('new', 'healthy')).toBeNull();
    expect(transitionEvent('healthy', 'failing_auth')).toBe('webhook.failing');
    expect(transitionEvent(null, 'silent')).toBe('webhook.silent');
    expect(transitionEvent('failing_auth', 'failing_auth')).toBeNull();
    expect(transitionEvent('failing_auth', 'rate_limited')).toBe('webhook.rate_limited');
    expect(transitionEvent('rate_limited', 'healthy')).toBe('webhook.recovered');
    expect(transitionEvent('silent', 'rejecting_payloads')).toBe('webhook.recovered');
    expect(transitionEvent('rejecting_payloads', 'healthy')).toBeNull();
  });

  it('signs a destination’s request so that standardwebhooks verifies it, with the event id as webhook-id', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const request = notificationRequest({ eventId: 'evt_abc', payload: event, kind: 'standard_webhooks', destinationId: 'nd_1', secretEncrypted: encryptSecret(secret, destinationContext('nd_1')) });
    expect(request.headers['webhook-id']).toBe('evt_abc');
    expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(event);
    // Another secret does not verify.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(request.body, request.headers)).toThrow();
  });

  it('gives Slack a readable line with a link, and no signature', () => {
    const request = notificationRequest({ eventId: 'evt_abc', payload: event, kind: 'slack', destinationId: 'nd_2', secretEncrypted: null });
    expect(request.headers['webhook-signature']).toBeUndefined();
    expect(JSON.parse(request.body)).toEqual({
      text: ':red_circle: Webhook <http://localhost:3000/f/acme/automations/webhooks/wh_1|github-deploys> in Acme Ops is failing authentication: 3 requests rejected for authentication and none accepted in the last 15 minutes.',
    });
    expect(slackMessage({ ...event, type: 'webhook.recovered' }).text).toContain('has recovered');
  });

  it('names a failed run’s event type in Slack, in a code span the sender’s text cannot break out of', () => {
    const failed = (eventType: string | null) =>
      slackMessage({
        type: 'run.failed',
        timestamp: event.timestamp,
        data: {
          factory: { slug: 'acme', name: 'Acme Ops' },
          automation: { name: 'triage', url: 'http://localhost:3000/f/acme/automations/a1' },
          run: { error: 'The command exited with code 3' },
          delivery: { deliveryId: 'd1', eventType, webhook: { uid: 'wh_1', name: 'github' } },
        },
      }).text;
    expect(failed('pull_request.opened')).toBe(
      ':x: A run of <http://localhost:3000/f/acme/automations/a1|triage> on a `pull_request.opened` delivery in Acme Ops failed after its last attempt: The command exited with code 3.',
    );
    expect(failed('x`<http://evil|click>`')).toContain('on a `xhttp://evil|click` delivery');
    expect(failed(null)).toContain('<http://localhost:3000/f/acme/automations/a1|triage> in Acme Ops failed');
  });

  it('refuses plain http, private addresses and credentials in URLs unless the operator allows them', () => {
    expect(checkNotificationUrl('https://hooks.example.com/x').hostname).toBe('hooks.example.com');
    for (const url of ['http://hooks.example.com/x', 'https://127.0.0.1/x', 'https://[::1]/x', 'https://10.0.0.8/x', 'https://169.254.169.254/latest', 'https://localhost/x', 'https://2130706433/x', 'https://user:pw@hooks.example.com/x']) {
      expect(() => checkNotificationUrl(url), url).toThrow(/Check the URL/);
    }
  });

  it('shows a Slack URL only up to its credential', () => {
    expect(displayUrl('slack', 'https://hooks.slack.com/services/T000/B000/XXXXSECRET')).toBe('https://hooks.slack.com/services/T000/…');
    expect(displayUrl('standard_webhooks', 'https://example.com/hook')).toBe('https://example.com/hook');
  });
});
