import { randomBytes } from 'node:crypto';

// The browser-facing security headers of every response, set in one place:
// the server entry (server.ts), before Next.js sees the request, so no page
// can forget them.
//
// Pages get a Content-Security-Policy with a fresh nonce per request. Next.js
// reads the nonce from the request's own Content-Security-Policy header
// (which the entry sets to the same policy) and puts it on every script it
// renders; 'strict-dynamic' lets those scripts load the app's chunks. Every
// page is rendered per request (none is prerendered), so each one carries its
// nonce. Styles allow 'unsafe-inline': React's style attributes (the health
// chart, progress bars) and CodeMirror's injected style sheets need it, and a
// style can neither run code nor, with connect-src and img-src limited to
// this origin, send anything elsewhere.
//
// Ingress and API responses are JSON for machines: they get only the headers
// that matter there (no sniffing, no framing), not a page policy.

export type SecurityHeaders = {
  /** Headers to set on the response. */
  response: Record<string, string>;
  /** The policy to hand Next.js in the request, for its nonce (pages only). */
  requestPolicy: string | null;
};

/** The ingress's policy: no content of any kind, no framing, no form, and a sandbox (lib/ingress/responses.ts sends it too). */
export const INGRESS_POLICY = "default-src 'none'; frame-ancestors 'none'; form-action 'none'; sandbox";

/** The headers for a request to `url` (path and query). */
export function securityHeaders(url: string, options: { https: boolean; dev: boolean }): SecurityHeaders {
  const response: Record<string, string> = {
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
  };
  // A year, this host only: a self-hosted Tripline often lives on a subdomain of a
  // domain whose other hosts it must not force onto https.
  if (options.https) response['Strict-Transport-Security'] = 'max-age=31536000';
  if (url.startsWith('/webhooks/') || url.startsWith('/api/')) {
    // The ingress's answers include an admin's custom response (XML or text): were one read as a
    // page, sandbox and form-action keep it from running anything or posting a form from this origin.
    response['Content-Security-Policy'] = url.startsWith('/webhooks/') ? INGRESS_POLICY : "default-src 'none'; frame-ancestors 'none'";
    return { response, requestPolicy: null };
  }
  const nonce = randomBytes(16).toString('base64');
  const policy = [
    "default-src 'self'",
    // Next.js's development overlay and React's dev build evaluate code; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${options.dev ? ' ws: wss:' : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
  response['Content-Security-Policy'] = policy;
  return { response, requestPolicy: policy };
}
