// A webhook's custom response (docs/decisions/0099-a-custom-response-per-webhook.md):
// the answer to an accepted or duplicate delivery, when the webhook has one,
// in place of 202 {"delivery_id": ...}. Pure functions with no imports: the
// ingress renders the answer (compiled once per live-cache load), and the
// webhook schemas (lib/domain/webhooks/schemas.ts) check a template with the
// same rules, in the browser too.

export const CUSTOM_RESPONSE_STATUSES = [200, 201, 202, 204] as const;
export type CustomResponseStatus = (typeof CUSTOM_RESPONSE_STATUSES)[number];

export const CUSTOM_RESPONSE_CONTENT_TYPES = ['application/json', 'text/plain; charset=utf-8', 'application/xml'] as const;
export type CustomResponseContentType = (typeof CUSTOM_RESPONSE_CONTENT_TYPES)[number];

/** The body's limit, in bytes of UTF-8, before the placeholder is replaced. */
export const MAX_CUSTOM_RESPONSE_BODY_BYTES = 1024;

/** The one placeholder: replaced by the delivery's ID, escaped for the content type. */
export const DELIVERY_ID_PLACEHOLDER = '{{delivery_id}}';

/** As stored and returned: a 204 has neither content type nor body; the others have both (the body may be empty). */
export type CustomResponse = {
  status: CustomResponseStatus;
  contentType: CustomResponseContentType | null;
  body: string | null;
};

/** What the ingress keeps in its live cache: the template split at its placeholders. */
export type CompiledCustomResponse = {
  status: CustomResponseStatus;
  contentType: CustomResponseContentType | null;
  /** null for 204; otherwise the text between placeholders (one part when there is none). */
  parts: string[] | null;
};

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** The delivery ID as it may stand in a body of this content type: inside a JSON string, as XML text or attribute value, or as it is. */
export function escapeDeliveryId(id: string, contentType: CustomResponseContentType): string {
  if (contentType === 'application/json') return JSON.stringify(id).slice(1, -1);
  if (contentType === 'application/xml') return id.replace(/[&<>"']/g, (char) => XML_ENTITIES[char]!);
  return id;
}

export function compileCustomResponse(response: CustomResponse): CompiledCustomResponse {
  return {
    status: response.status,
    contentType: response.status === 204 ? null : response.contentType,
    parts: response.status === 204 || response.body === null ? null : response.body.split(DELIVERY_ID_PLACEHOLDER),
  };
}

/** The body sent for this delivery, or null for 204. */
export function renderCustomBody(compiled: CompiledCustomResponse, deliveryId: string): string | null {
  if (!compiled.parts || !compiled.contentType) return null;
  return compiled.parts.length === 1 ? compiled.parts[0]! : compiled.parts.join(escapeDeliveryId(deliveryId, compiled.contentType));
}

/**
 * The first `{{` in a template that does not begin {{delivery_id}}, as
 * written (up to its `}}`, at most 40 characters), or null. Unknown
 * placeholders are refused, not sent as they are: a misspelt
 * {{delivery-id}} would otherwise reach the sender unreplaced.
 */
export function unknownPlaceholder(body: string): string | null {
  for (let at = body.indexOf('{{'); at !== -1; at = body.indexOf('{{', at)) {
    if (body.startsWith(DELIVERY_ID_PLACEHOLDER, at)) {
      at += DELIVERY_ID_PLACEHOLDER.length;
      continue;
    }
    const end = body.indexOf('}}', at + 2);
    const written = end === -1 ? body.slice(at) : body.slice(at, end + 2);
    return written.length > 40 ? `${written.slice(0, 39)}…` : written;
  }
  return null;
}

// For the JSON check: it starts with a letter that is neither a hex digit nor
// an escape letter, and holds a quote and a backslash, so it parses only where
// every delivery ID would (inside a string, after no unfinished escape).
const SAMPLE_DELIVERY_ID = 'x"\\<&>\'y';

/** Whether a JSON template is valid JSON once its placeholders are replaced by any delivery ID. */
export function isValidJsonTemplate(body: string): boolean {
  try {
    JSON.parse(body.split(DELIVERY_ID_PLACEHOLDER).join(escapeDeliveryId(SAMPLE_DELIVERY_ID, 'application/json')));
    return true;
  } catch {
    return false;
  }
}

/** In one line, for plans and the command line: `(none)`, `204`, or the status, content type and body (quoted, cut at 60 characters). */
export function describeCustomResponse(response: CustomResponse | null): string {
  if (!response) return '(none)';
  if (response.status === 204 || response.body === null) return String(response.status);
  const body = response.body.length > 60 ? `${response.body.slice(0, 59)}…` : response.body;
  return `${response.status} ${response.contentType} ${JSON.stringify(body)}`;
}
