import { describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { customResponseFormSchema, updateWebhookSchema, type CustomResponseFormValues } from '@/lib/domain/webhooks/schemas';
import { webhookDefinitionSchema } from '@/lib/domain/definitions/schemas';

// The custom response's rules (lib/domain/webhooks/schemas.ts), as the API's
// PATCH body, the dashboard's form and a definition file meet them.

/** The field errors of a PATCH body, keyed as the API's 422 names them. */
function fieldsOf(schema: ZodType, input: unknown): Record<string, string> {
  const result = schema.safeParse(input);
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]));
}
const patch = (customResponse: unknown) => fieldsOf(updateWebhookSchema, { customResponse });

describe('customResponse in PATCH', () => {
  it('takes the four statuses, the three content types and a body with {{delivery_id}}, normalised for 204', () => {
    expect(updateWebhookSchema.parse({ customResponse: { status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted]' } })).toEqual({
      customResponse: { status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted]' },
    });
    expect(updateWebhookSchema.parse({ customResponse: { status: 201, contentType: 'application/json', body: '{"id": "{{delivery_id}}"}' } }).customResponse).toMatchObject({
      status: 201,
    });
    expect(updateWebhookSchema.parse({ customResponse: { status: 202, contentType: 'application/xml', body: '<ok>{{delivery_id}}</ok>' } }).customResponse).toMatchObject({
      status: 202,
    });
    // A 204 has no body and no content type; an empty body or nulls are the same thing.
    for (const given of [{ status: 204 }, { status: 204, body: '' }, { status: 204, contentType: null, body: null }]) {
      expect(updateWebhookSchema.parse({ customResponse: given })).toEqual({ customResponse: { status: 204, contentType: null, body: null } });
    }
    expect(updateWebhookSchema.parse({ customResponse: null })).toEqual({ customResponse: null });
    // Text and XML may be empty.
    expect(patch({ status: 200, contentType: 'text/plain; charset=utf-8', body: '' })).toEqual({});
  });

  it('names the field of every problem', () => {
    expect(patch({ status: 500, contentType: 'application/json', body: '{}' })).toEqual({ 'customResponse.status': 'Choose 200, 201, 202 or 204' });
    expect(patch({ status: '200', contentType: 'application/json', body: '{}' })).toEqual({ 'customResponse.status': 'Choose 200, 201, 202 or 204' });
    expect(patch({ status: 200, contentType: 'text/html', body: 'x' })).toEqual({
      'customResponse.contentType': 'Choose application/json, text/plain; charset=utf-8 or application/xml',
    });
    expect(patch({ status: 200, body: 'x' })).toEqual({ 'customResponse.contentType': 'Choose application/json, text/plain; charset=utf-8 or application/xml' });
    expect(patch({ status: 200, contentType: 'application/json' })).toEqual({ 'customResponse.body': 'Enter the body (text and XML may be empty)' });
    expect(patch({ status: 204, body: 'accepted' })).toEqual({ 'customResponse.body': 'A 204 response has no body: leave it empty, or choose 200, 201 or 202' });
    expect(patch({ status: 204, contentType: 'application/json' })).toEqual({ 'customResponse.contentType': 'A 204 response has no body, so no content type: leave it out' });
    expect(patch({ status: 200, contentType: 'application/json', body: '{"id": {{delivery_id}}}' })).toEqual({
      'customResponse.body': 'Enter valid JSON, with {{delivery_id}} inside a string, as in {"id": "{{delivery_id}}"}',
    });
    expect(patch({ status: 200, contentType: 'application/json', body: '' })).toEqual({ 'customResponse.body': expect.stringMatching(/^Enter valid JSON/) });
    expect(patch({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'ok {{event_type}}' })).toEqual({
      'customResponse.body': 'Unknown placeholder {{event_type}}: the only placeholder is {{delivery_id}}',
    });
    expect(patch({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'x', headers: {} })).toEqual({
      customResponse: 'Unknown key headers: use status, contentType and body',
    });
    expect(patch('[accepted]')).toEqual({ customResponse: 'Send {status, contentType, body}, or null for the default answer' });
    // What the command line's --body-stdin may read, which no request check has seen.
    expect(patch({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'ok\u0000' })).toEqual({
      'customResponse.body': 'The body contains a NUL character (U+0000), which Tripline does not accept',
    });
  });

  it('counts the body’s limit in bytes of UTF-8, before the placeholder is replaced', () => {
    const text = (body: string) => patch({ status: 200, contentType: 'text/plain; charset=utf-8', body });
    expect(text('a'.repeat(1024))).toEqual({});
    expect(text('a'.repeat(1025))).toEqual({ 'customResponse.body': 'Use at most 1,024 bytes (this body is 1,025 bytes of UTF-8)' });
    // 512 two-byte characters fill the limit; one more is over it.
    expect(text('é'.repeat(512))).toEqual({});
    expect(text('é'.repeat(513))).toEqual({ 'customResponse.body': 'Use at most 1,024 bytes (this body is 1,026 bytes of UTF-8)' });
    expect(text('x'.repeat(2048))).toEqual({ 'customResponse.body': 'Use at most 1,024 bytes (this body is 2,048 bytes of UTF-8)' });
  });
});

describe('the webhook page’s Response form', () => {
  const form = (values: Partial<CustomResponseFormValues['customResponse']>, mode: CustomResponseFormValues['mode'] = 'custom') =>
    customResponseFormSchema.safeParse({ mode, customResponse: { status: '200', contentType: 'application/json', body: '', ...values } });

  it('sends null for the default answer, whatever the hidden fields hold', () => {
    expect(form({ body: 'not json' }, 'default')).toMatchObject({ success: true, data: { customResponse: null } });
  });

  it('drops the content type and body of a 204, and sends the status as a number', () => {
    expect(form({ status: '204', body: 'left over' })).toMatchObject({ success: true, data: { customResponse: { status: 204, contentType: null, body: null } } });
    expect(form({ status: '201', body: '{"ok": true}' })).toMatchObject({ success: true, data: { customResponse: { status: 201, body: '{"ok": true}' } } });
  });

  it('names customResponse.body, where the form shows the message', () => {
    const result = form({ body: '{"id": {{delivery_id}}' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['customResponse.body']);
  });
});

describe('customResponse in a definition file', () => {
  it('is a mapping of the same keys, under the same rules', () => {
    const parsed = webhookDefinitionSchema.parse({ secretName: 'S', customResponse: { status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted]' } });
    expect(parsed.customResponse).toEqual({ status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted]' });
    expect(fieldsOf(webhookDefinitionSchema, { secretName: 'S', customResponse: { status: 204, body: 'x' } })).toEqual({
      'customResponse.body': 'A 204 response has no body: leave it empty, or choose 200, 201 or 202',
    });
  });
});
