import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verify, zoomPlainToken } from './zoom';

describe('Zoom plainToken', () => {
  it('takes Zoom’s documented token', () => {
    expect(zoomPlainToken('qgg8vlvZRS6UYooatFL8Aw')).toBe('qgg8vlvZRS6UYooatFL8Aw');
  });

  it('refuses a token shaped like the message Zoom signs, so an answer is never a delivery signature', () => {
    const body = '{"event":"meeting.started"}';
    const message = `v0:1717000000:${body}`;
    expect(zoomPlainToken(message)).toBeNull();
    // What answering it would have handed out: a valid signature of that delivery.
    const encryptedToken = createHmac('sha256', 'secret').update(message).digest('hex');
    const headers = new Headers({ 'x-zm-signature': `v0=${encryptedToken}`, 'x-zm-request-timestamp': '1717000000' });
    expect(verify({ rawBody: Buffer.from(body), headers, secret: 'secret', now: 1717000000 })).toEqual({ ok: true });
  });

  it('refuses non-strings, HTML, whitespace and oversized tokens', () => {
    for (const value of [1, null, undefined, {}, '<b>', 'a b', '', 'x'.repeat(257)]) expect(zoomPlainToken(value)).toBeNull();
  });
});
