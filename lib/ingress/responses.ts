import { renderCustomBody, type CompiledCustomResponse } from '@/lib/ingress/custom-response';
import { INGRESS_POLICY } from '@/lib/platform/http/security-headers';

// Every ingress response. Non-202 answers share one JSON shape and never
// echo anything the sender sent (least of all a credential).

type Code = 'not_found' | 'method_not_allowed' | 'unauthorized' | 'payload_too_large' | 'invalid_json' | 'rate_limited' | 'unavailable';

const messages: Record<Code, string> = {
  not_found: 'No webhook at this URL',
  method_not_allowed: 'Only POST is accepted',
  unauthorized: 'Authentication failed',
  payload_too_large: 'The body is larger than 262,144 bytes (256 KiB)',
  invalid_json: 'The body is not valid JSON',
  rate_limited: 'Too many requests',
  unavailable: 'Temporarily unavailable: retry later',
};

const statuses: Record<Code, number> = {
  not_found: 404,
  method_not_allowed: 405,
  unauthorized: 401,
  payload_too_large: 413,
  invalid_json: 400,
  rate_limited: 429,
  unavailable: 503,
};

const baseHeaders = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

export function ingressError(code: Code, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: { code, message: messages[code] } }), {
    status: statuses[code],
    headers: { ...baseHeaders, ...headers },
  });
}

/**
 * A custom answer's own guard: an admin's XML or text body is inert on
 * Tripline's origin whatever serves it (the server entry sends these headers
 * on every response, but `next start` run by hand would not): never sniffed
 * as HTML, and a document that loads nothing and runs no script if a browser
 * opens it.
 */
const customGuard = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': INGRESS_POLICY };

/** An accepted or duplicate delivery: 202 {"delivery_id"}, or the webhook's custom response (custom-response.ts). */
export function accepted(deliveryId: string, custom: CompiledCustomResponse | null = null): Response {
  if (!custom) return new Response(JSON.stringify({ delivery_id: deliveryId }), { status: 202, headers: baseHeaders });
  // No-store like every answer; a 204 has no body, so no Content-Type either.
  const headers = custom.contentType ? { ...baseHeaders, ...customGuard, 'Content-Type': custom.contentType } : { 'Cache-Control': baseHeaders['Cache-Control'] };
  return new Response(renderCustomBody(custom, deliveryId), { status: custom.status, headers });
}

/** 429 with the seconds until the budget that refused the request refills. */
export const rateLimited = (retryAfterSeconds: number) => ingressError('rate_limited', { 'Retry-After': String(retryAfterSeconds) });

/** The one 404: unknown, disabled and deleted webhooks and wrong UIDs look exactly alike. */
export const notFound = () => ingressError('not_found');
