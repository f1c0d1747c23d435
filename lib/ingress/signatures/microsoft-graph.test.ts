import { describe, expect, it } from 'vitest';
import { graphValidationAnswer, redactClientState, verify } from './microsoft-graph';

const SECRET = 'secretClientValue';
const check = (body: unknown, secret = SECRET) =>
  verify({ rawBody: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), headers: new Headers(), secret, now: 0 });
const item = (clientState: unknown) => ({ subscriptionId: 's', changeType: 'created', clientState });

describe('Microsoft Graph clientState', () => {
  it('accepts a batch whose every notification carries the secret, lifecycle notifications included', () => {
    expect(check({ value: [item(SECRET), item(SECRET)] })).toEqual({ ok: true });
    expect(check({ value: [{ subscriptionId: 's', clientState: SECRET, lifecycleEvent: 'missed' }] })).toEqual({ ok: true });
  });

  it('refuses a batch in which any notification differs or lacks it', () => {
    expect(check({ value: [item(SECRET), item('other')] })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ value: [item(SECRET), item(undefined)] })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ value: [item(`${SECRET} `)] })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ value: [item(1)] })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ value: ['x', null] })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('calls a body without notifications missing, and never accepts an empty secret', () => {
    for (const body of ['not json', '[]', '{}', '{"value":[]}', '{"value":{}}', 'null']) expect(check(body), body).toEqual({ ok: false, reason: 'missing' });
    expect(check({ value: [item('')] }, '')).toEqual({ ok: false, reason: 'mismatch' });
  });
});

describe('Graph’s validation answer', () => {
  it('echoes a real token unchanged, spaces and colons included', () => {
    const token = 'Validation: Testing client application reachability for subscription Request-Id: 0f3e4b5a-8c1d-4e2f-9a6b-7c8d9e0f1a2b';
    expect(graphValidationAnswer(token)).toBe(token);
  });

  it('escapes HTML rather than echoing it', () => {
    expect(graphValidationAnswer('<script>alert("x")</script> & \'y\'')).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;');
  });

  it('refuses control and invisible characters, an empty token and one over 1,024 characters', () => {
    for (const token of ['a\nb', 'a\rb', 'a\u0000b', 'a\u001bb', 'a\u202eb', 'a\u2028b', '', 'x'.repeat(1025), 'x'.repeat(10_240)]) {
      expect(graphValidationAnswer(token), JSON.stringify(token.slice(0, 8))).toBeNull();
    }
    expect(graphValidationAnswer(null)).toBeNull();
    expect(graphValidationAnswer('x'.repeat(1024))).toBe('x'.repeat(1024));
  });
});

describe('the stored body', () => {
  it('holds every clientState equal to the secret redacted, in the text and the value, and nothing else changed', () => {
    const text = `{"value":[{"clientState": "${SECRET}","id":"a","note":"${SECRET}"},\n{"clientState":"${SECRET}"}],"clientState":"other"}`;
    const value = JSON.parse(text) as { value: Array<Record<string, string>> };
    const kept = redactClientState(text, value, SECRET);
    expect(kept.text).toBe(`{"value":[{"clientState": "[redacted]","id":"a","note":"${SECRET}"},\n{"clientState":"[redacted]"}],"clientState":"other"}`);
    expect(JSON.parse(kept.text)).toEqual(kept.value);
    expect(value.value.map((item) => item.clientState)).toEqual(['[redacted]', '[redacted]']);
  });

  it('treats the secret as text, not as a pattern', () => {
    const text = '{"value":[{"clientState":"axb"}]}';
    expect(redactClientState(text, JSON.parse(text), 'a.b').text).toBe(text);
    const special = 'a.b*c+(d)$';
    const withSpecial = `{"value":[{"clientState":${JSON.stringify(special)}}]}`;
    expect(redactClientState(withSpecial, JSON.parse(withSpecial), special).text).toBe('{"value":[{"clientState":"[redacted]"}]}');
  });
});
