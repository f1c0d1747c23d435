import 'server-only';
import { noteDatabaseWrote } from '@/lib/platform/db/unavailable';
import { annotate, inSpan, senderSpanOptions } from '@/lib/platform/tracing';
import { UID_SHAPE } from '@/lib/ingress/urls';
import { log } from '@/lib/platform/log';
import { countRefusal, metrics, type Budget, type IngressOutcome } from '@/lib/platform/metrics';

// Metrics and the refusal log line for every ingress request, in one place
// around the pipeline. The pipeline notes what only it knows (the webhook's
// auth mode and scheme, a duplicate, which budget refused) on the request;
// everything else follows from the status code.

type Note = { authMode?: string; scheme?: string | null; recorded?: boolean; duplicate?: boolean; refusedAddress?: boolean; budget?: Budget; detail?: string; eventType?: string | null; runs?: number };

const notes = new WeakMap<Request, Note>();
const logger = log('ingress');

/** Records facts about a request for its metrics and log line. */
export function note(request: Request, facts: Note): void {
  notes.set(request, { ...notes.get(request), ...facts });
}

const outcomeByStatus: Record<number, IngressOutcome> = {
  200: 'handshake',
  400: 'rejected_invalid_json',
  401: 'rejected_auth',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'rejected_too_large',
  429: 'rate_limited',
  503: 'unavailable',
};

function outcomeOf(status: number, facts: Note | undefined): IngressOutcome {
  // A recorded delivery's answer is 202, or its webhook's custom response (200, 201, 202 or 204), which a handshake's 200 or 204 must not be read as.
  if (status === 202 || facts?.recorded) return facts?.duplicate ? 'duplicate' : 'accepted';
  if (status === 404 && facts?.refusedAddress) return 'refused_address';
  return outcomeByStatus[status] ?? (status === 204 ? 'handshake' : 'error');
}

/**
 * Runs the pipeline in the request's span (with traces on), then counts the
 * answer and logs it when it was a refusal.
 */
export function observeIngress(request: Request, uid: string, serve: () => Promise<Response>): Promise<Response> {
  // The span names the webhook only when the path's segment has a UID's shape: anything else (as long as a URL) is the sender's, not an ID.
  const attributes = { 'http.request.method': request.method, ...(UID_SHAPE.test(uid) ? { 'tripline.webhook.uid': uid } : {}) };
  // A sender's W3C traceparent: linked, or continued where the operator trusts every sender (TRIPLINE_TRACE_SENDERS).
  return inSpan('tripline.ingress', { ...senderSpanOptions(request.headers), attributes }, () => observed(request, uid, serve));
}

/** One answer in the ingress's request counter and duration histogram. */
function count(outcome: IngressOutcome, facts: Note | undefined, seconds: number): void {
  const { ingressRequests, ingressDuration } = metrics();
  ingressRequests.inc({ outcome, auth_mode: facts?.authMode ?? 'unknown', scheme: facts?.scheme ?? 'none' });
  ingressDuration.observe({ outcome }, seconds);
}

async function observed(request: Request, uid: string, serve: () => Promise<Response>): Promise<Response> {
  const started = performance.now();
  let response: Response;
  try {
    response = await serve();
  } catch (error) {
    // Next answers a throw with a 500: counted here, so an alert on the ingress's error rate sees it.
    count('error', notes.get(request), (performance.now() - started) / 1000);
    throw error;
  }
  const seconds = (performance.now() - started) / 1000;
  const facts = notes.get(request);
  const outcome = outcomeOf(response.status, facts);
  // What the span may say: never a header's value or the body.
  annotate({
    'http.response.status_code': response.status,
    'tripline.ingress.outcome': outcome,
    ...(facts?.authMode ? { 'tripline.webhook.auth_mode': facts.authMode } : {}),
    ...(facts?.scheme ? { 'tripline.webhook.scheme': facts.scheme } : {}),
    ...(facts?.eventType ? { 'tripline.event_type': facts.eventType } : {}),
    ...(facts?.runs !== undefined ? { 'tripline.runs_started': facts.runs } : {}),
  });
  count(outcome, facts, seconds);
  if (outcome === 'rate_limited') countRefusal(facts?.budget ?? 'delivery_rate');
  // A delivery written: a full disk, if there was one, has room again (/readyz stops reporting it).
  if (outcome === 'accepted') noteDatabaseWrote();
  // 503: the database is unreachable, logged once per outage (lib/platform/db/unavailable.ts), not per request.
  if (response.status >= 400 && response.status !== 404 && response.status !== 503) {
    // One line per refused request (never a header or body: the sender's credentials are in them).
    const line = { uid, status: response.status, outcome, budget: facts?.budget, detail: facts?.detail, ms: Math.round(seconds * 1000) };
    if (outcome === 'rate_limited') logger.warn(line, 'ingress request refused');
    else logger.info(line, 'ingress request refused');
  }
  return response;
}
