import { describe, expect, it } from 'vitest';
import { bodyHashId, deliveryIdentity, normaliseSenderId } from '@/lib/ingress/identity';
import { parseJsonBody } from '@/lib/ingress/json';
import { providerBodyDeliveryId } from '@/lib/ingress/signatures/verify';
import { declaredSize, declaredTooLarge, readBodyWithLimit } from '@/lib/platform/http/body';
import { redactHeaders } from '@/lib/platform/http/sensitive-headers';

const body = Buffer.from('{"a":1}');

describe('delivery identity', () => {
  it('prefers the configured header, then the provider header, then X-Service-Delivery-Id, then the body hash', () => {
    const headers = new Headers({ 'x-job': 'job-1', 'x-service-delivery-id': 'svc-1' });
    expect(deliveryIdentity({ headers, body, configuredHeader: 'x-job', providerId: 'prov-1' })).toEqual({ deliveryId: 'job-1', source: 'configured_header' });
    expect(deliveryIdentity({ headers, body, configuredHeader: null, providerId: 'prov-1' })).toEqual({ deliveryId: 'prov-1', source: 'provider_header' });
    expect(deliveryIdentity({ headers, body, configuredHeader: 'x-other', providerId: null })).toEqual({ deliveryId: 'svc-1', source: 'service_header' });
    expect(deliveryIdentity({ headers: new Headers(), body, configuredHeader: null, providerId: null })).toEqual({ deliveryId: bodyHashId(body), source: 'body_hash' });
  });

  it('takes the event ID a provider without a delivery header names in its body (Stripe), after a provider header and before X-Service-Delivery-Id', () => {
    const headers = new Headers({ 'x-service-delivery-id': 'svc-1' });
    const event = { id: 'evt_1NG8Du2eZvKYlo2CUI79vXWy', object: 'event', type: 'invoice.paid' };
    expect(providerBodyDeliveryId('stripe', event)).toBe('evt_1NG8Du2eZvKYlo2CUI79vXWy');
    expect(providerBodyDeliveryId('stripe', [event])).toBeNull();
    expect(providerBodyDeliveryId('stripe', { id: 42 })).toBeNull();
    expect(providerBodyDeliveryId('github', event)).toBeNull();
    const providerBodyId = providerBodyDeliveryId('stripe', event);
    expect(deliveryIdentity({ headers, body, configuredHeader: null, providerId: null, providerBodyId })).toEqual({ deliveryId: event.id, source: 'provider_body' });
    expect(deliveryIdentity({ headers, body, configuredHeader: null, providerId: 'prov-1', providerBodyId })).toEqual({ deliveryId: 'prov-1', source: 'provider_header' });
    expect(deliveryIdentity({ headers: new Headers(), body, configuredHeader: null, providerId: null, providerBodyId: 'x'.repeat(300) }).deliveryId).toMatch(/^id-sha256:/);
  });

  it('hashes identical bodies to the same ID and different bodies apart', () => {
    expect(bodyHashId(Buffer.from('{"a":1}'))).toBe(bodyHashId(Buffer.from('{"a":1}')));
    expect(bodyHashId(Buffer.from('{"a":1}'))).not.toBe(bodyHashId(Buffer.from('{"a": 1}')));
    expect(bodyHashId(body)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('uses short printable IDs verbatim, skips blank ones, and hashes long or odd ones', () => {
    expect(normaliseSenderId('  evt_123  ')).toBe('evt_123');
    expect(normaliseSenderId('   ')).toBeNull();
    expect(normaliseSenderId('a b c')).toBe('a b c');
    expect(normaliseSenderId('x'.repeat(200))).toBe('x'.repeat(200));
    const long = normaliseSenderId('x'.repeat(201));
    expect(long).toMatch(/^id-sha256:[0-9a-f]{64}$/);
    expect(normaliseSenderId('x'.repeat(201) + 'y')).not.toBe(long);
    expect(normaliseSenderId('évènement')).toMatch(/^id-sha256:/);
    expect(normaliseSenderId('tab\there')).toMatch(/^id-sha256:/);
  });
});

describe('JSON bodies', () => {
  it.each(['{}', '[]', '"s"', '0', '-1.5e3', 'true', 'false', 'null', ' \n{"a":[1,{"b":null}]}\t'])('accepts %s', (text) => {
    const result = parseJsonBody(Buffer.from(text));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.text).toBe(text);
  });

  it.each([
    ['empty', Buffer.from('')],
    ['truncated', Buffer.from('{"a":')],
    ['two values', Buffer.from('{} {}')],
    ['single quotes', Buffer.from("{'a':1}")],
    ['invalid UTF-8', Buffer.from([0x22, 0xc3, 0x28, 0x22])],
    ['a byte order mark', Buffer.from('\ufeff{}')],
    ['NaN', Buffer.from('NaN')],
  ])('refuses %s', (_label, bytes) => {
    expect(parseJsonBody(bytes).ok).toBe(false);
  });
});

describe('reading bodies under the limit', () => {
  const stream = (chunks: number[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const size of chunks) controller.enqueue(new Uint8Array(size));
        controller.close();
      },
    });

  it('accepts exactly the limit and refuses one byte more, without reading further', async () => {
    expect(await readBodyWithLimit(stream([60, 40]), 100)).toMatchObject({ ok: true });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(50));
      },
    });
    const result = await readBodyWithLimit(endless, 100);
    expect(result).toEqual({ ok: false, size: 150 });
    expect(pulled).toBeLessThan(6);
    expect(await readBodyWithLimit(stream([101]), 100)).toEqual({ ok: false, size: 101 });
  });

  it('uses Content-Length to refuse at once', () => {
    expect(declaredTooLarge(new Headers({ 'content-length': '101' }), 100)).toBe(101);
    expect(declaredTooLarge(new Headers({ 'content-length': '100' }), 100)).toBeNull();
    expect(declaredTooLarge(new Headers({ 'content-length': 'abc' }), 100)).toBeNull();
    expect(declaredTooLarge(new Headers(), 100)).toBeNull();
  });

  it('reads the declared size only when it is a plain number of bytes', () => {
    expect(declaredSize(new Headers({ 'content-length': '42' }))).toBe(42);
    expect(declaredSize(new Headers({ 'content-length': '1e3' }))).toBeNull();
    expect(declaredSize(new Headers({ 'content-length': '-5' }))).toBeNull();
    expect(declaredSize(new Headers())).toBeNull();
  });
});

describe('stored headers', () => {
  it('redacts credentials and signatures and keeps the rest', () => {
    const kept = redactHeaders(
      new Headers({ authorization: 'Bearer s3cret', 'x-hub-signature-256': 'sha256=abc', 'x-gitlab-token': 't', cookie: 'a=b', 'x-custom': 'ok', 'stripe-signature': 't=1' }),
      ['X-Provider-Key'],
    );
    expect(kept).toEqual({
      authorization: '[redacted]',
      'x-hub-signature-256': '[redacted]',
      'x-gitlab-token': '[redacted]',
      cookie: '[redacted]',
      'x-custom': 'ok',
      'stripe-signature': '[redacted]',
    });
  });
});
