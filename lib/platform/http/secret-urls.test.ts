import { describe, expect, it } from 'vitest';
import { redactUrlText } from '@/lib/platform/http/secret-urls';

describe('redactUrlText', () => {
  it('redacts URL tokens, invitation tokens and queries', () => {
    expect(redactUrlText('/webhooks/w/wh_abc/s3cr3t-token')).toBe('/webhooks/w/wh_abc/[redacted]');
    expect(redactUrlText('http://hooks.example.com/webhooks/w/wh_abc/s3cr3t?x=1')).toBe('http://hooks.example.com/webhooks/w/wh_abc/[redacted]?[redacted]');
    expect(redactUrlText('/invite/inv_secret')).toBe('/invite/[redacted]');
    expect(redactUrlText('/api/v1/factories/acme/webhooks/wh_abc/deliveries?q=private')).toBe('/api/v1/factories/acme/webhooks/wh_abc/deliveries?[redacted]');
    expect(redactUrlText('POST /webhooks/w/[uid]')).toBe('POST /webhooks/w/[uid]');
    expect(redactUrlText('wh_abc')).toBe('wh_abc');
  });
});
