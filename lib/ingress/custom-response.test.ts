import { describe, expect, it } from 'vitest';
import {
  compileCustomResponse,
  describeCustomResponse,
  escapeDeliveryId,
  isValidJsonTemplate,
  renderCustomBody,
  unknownPlaceholder,
  type CustomResponse,
} from '@/lib/ingress/custom-response';
import { accepted } from '@/lib/ingress/responses';

const render = (response: CustomResponse, id: string) => renderCustomBody(compileCustomResponse(response), id);

describe('a custom response’s body', () => {
  it('replaces every {{delivery_id}} and leaves the rest as written', () => {
    expect(render({ status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted]' }, 'evt_1')).toBe('[accepted]');
    expect(render({ status: 200, contentType: 'text/plain; charset=utf-8', body: '{{delivery_id}} ok {{delivery_id}}' }, 'evt_1')).toBe('evt_1 ok evt_1');
    expect(render({ status: 201, contentType: 'application/json', body: '{"id":"{{delivery_id}}","n":1}' }, 'evt_1')).toBe('{"id":"evt_1","n":1}');
    expect(render({ status: 200, contentType: 'text/plain; charset=utf-8', body: '' }, 'evt_1')).toBe('');
  });

  it('escapes the ID for the content type: a JSON string, XML text, or as it is in text', () => {
    const id = 'a"b\\c<d>&e\'f';
    const json = render({ status: 200, contentType: 'application/json', body: '{"id":"{{delivery_id}}"}' }, id)!;
    expect(json).toBe('{"id":"a\\"b\\\\c<d>&e\'f"}');
    expect(JSON.parse(json)).toEqual({ id });
    expect(render({ status: 200, contentType: 'application/xml', body: '<ok id="{{delivery_id}}">{{delivery_id}}</ok>' }, id)).toBe(
      '<ok id="a&quot;b\\c&lt;d&gt;&amp;e&apos;f">a&quot;b\\c&lt;d&gt;&amp;e&apos;f</ok>',
    );
    expect(render({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'id={{delivery_id}}' }, id)).toBe(`id=${id}`);
    expect(escapeDeliveryId('sha256:ab12', 'application/json')).toBe('sha256:ab12');
  });

  it('has none for 204, whatever was stored beside it', () => {
    const compiled = compileCustomResponse({ status: 204, contentType: 'application/json', body: '{}' });
    expect(compiled).toEqual({ status: 204, contentType: null, parts: null });
    expect(renderCustomBody(compiled, 'evt_1')).toBeNull();
  });
});

describe('the placeholder rules', () => {
  it('knows only {{delivery_id}}: any other {{ is named as written', () => {
    expect(unknownPlaceholder('no braces at all, or single { } ones and }} alone')).toBeNull();
    expect(unknownPlaceholder('{{delivery_id}} and {{delivery_id}}')).toBeNull();
    expect(unknownPlaceholder('{"id": "{{delivery_id}}", "type": "{{event_type}}"}')).toBe('{{event_type}}');
    expect(unknownPlaceholder('{{ delivery_id }}')).toBe('{{ delivery_id }}');
    expect(unknownPlaceholder('{{DELIVERY_ID}}')).toBe('{{DELIVERY_ID}}');
    expect(unknownPlaceholder('{{{delivery_id}}}')).toBe('{{{delivery_id}}');
    expect(unknownPlaceholder('open {{ and never closed')).toBe('{{ and never closed');
    expect(unknownPlaceholder(`{{${'x'.repeat(100)}}}`)).toBe(`{{${'x'.repeat(37)}…`);
  });

  it('takes a JSON body only when it is JSON for every delivery ID: the placeholder inside a string', () => {
    expect(isValidJsonTemplate('{"delivery_id":"{{delivery_id}}"}')).toBe(true);
    expect(isValidJsonTemplate('{"{{delivery_id}}": ["x-{{delivery_id}}", "\\\\{{delivery_id}}"]}')).toBe(true);
    expect(isValidJsonTemplate('[1, true, null]')).toBe(true);
    expect(isValidJsonTemplate('{"id": {{delivery_id}}}')).toBe(false);
    expect(isValidJsonTemplate('{{delivery_id}}')).toBe(false);
    // After an unfinished escape an ID could break it: "\u00{{delivery_id}}" is JSON only for IDs that start with two hex digits.
    expect(isValidJsonTemplate('"\\u00{{delivery_id}}"')).toBe(false);
    expect(isValidJsonTemplate('"\\{{delivery_id}}"')).toBe(false);
    expect(isValidJsonTemplate('')).toBe(false);
    expect(isValidJsonTemplate('{"a": 1,}')).toBe(false);
  });
});

describe('the answer to an accepted delivery', () => {
  it('is 202 {"delivery_id"} without a custom response', async () => {
    const response = accepted('evt_1');
    expect(response.status).toBe(202);
    expect(Object.fromEntries(response.headers)).toEqual({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    expect(await response.json()).toEqual({ delivery_id: 'evt_1' });
  });

  it('is the custom status, content type and body, still no-store, and inert in a browser', async () => {
    // An admin's XML could hold an XHTML <script>: whatever serves the answer, it is neither sniffed nor run.
    const response = accepted('evt_1', compileCustomResponse({ status: 200, contentType: 'application/xml', body: '<ok>{{delivery_id}}</ok>' }));
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toEqual({
      'content-type': 'application/xml',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'; form-action 'none'; sandbox",
    });
    expect(await response.text()).toBe('<ok>evt_1</ok>');
  });

  it('is an empty 204 with no content type', async () => {
    const response = accepted('evt_1', compileCustomResponse({ status: 204, contentType: null, body: null }));
    expect(response.status).toBe(204);
    expect(Object.fromEntries(response.headers)).toEqual({ 'cache-control': 'no-store' });
    expect(await response.text()).toBe('');
  });
});

describe('describeCustomResponse', () => {
  it('says it in one line, the body quoted and cut', () => {
    expect(describeCustomResponse(null)).toBe('(none)');
    expect(describeCustomResponse({ status: 204, contentType: null, body: null })).toBe('204');
    expect(describeCustomResponse({ status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted]' })).toBe('200 text/plain; charset=utf-8 "[accepted]"');
    expect(describeCustomResponse({ status: 201, contentType: 'application/json', body: `{"a":"${'x'.repeat(100)}"}` })).toBe(
      `201 application/json ${JSON.stringify(`{"a":"${'x'.repeat(53)}…`)}`,
    );
  });
});
