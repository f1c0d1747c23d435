import { Webhook } from 'standardwebhooks';
import { composedPrompt } from '@/lib/domain/runs/envelope';
import { readOutput, stopReason, type ClaimedRun, type ExecutionOutcome } from '@/lib/domain/runs/executors/types';
import { log } from '@/lib/platform/log';
import { currentTraceparent } from '@/lib/platform/tracing';

const logger = log('runs');

// The HTTP executor: POSTs the run to the operator's URL, signed with the
// Standard Webhooks scheme (webhook-id is the run ID, the same on every
// attempt, so the receiver can deduplicate). A 2xx response is success and
// its body is the run's output. Anything else, or no answer within the time
// limit, is retried with exponential backoff (10 s, 20 s, 40 s … capped at
// one hour) until the configured number of attempts is spent.
//
// A run cancelled while its request is in flight: the request is aborted, and
// the receiver, which may already be working on the run, is told with a
// second signed POST to the same URL, `"type": "run.cancelled"` (webhook-id
// `<run id>_cancelled`), as Stripe or GitHub name their events. It gets a
// short time limit and one try: the run is cancelled on Tripline's side
// whether or not the receiver heard, and the run's error says which.

const BASE_DELAY_MS = 10_000;
const MAX_DELAY_MS = 60 * 60 * 1000;
/** The cancel call's time limit: the run is already stopped on Tripline's side, so it waits only this long. */
export const CANCEL_CALL_TIMEOUT_MS = 3_000;

type HttpConfig = { url: string; secret: string; attempts: number; timeoutMs: number };

export function retryDelayMs(attempt: number): number {
  return Math.min(BASE_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS);
}

export function runRequestBody(run: ClaimedRun): string {
  return JSON.stringify({
    type: 'run.started',
    run: {
      id: run.id,
      attempt: run.attempt,
      automation: { id: run.automationId, name: run.automationName },
      prompt: run.prompt,
      envelope: run.envelope,
      attachments: run.attachments,
      composedPrompt: composedPrompt(run.prompt, run.envelope),
    },
  });
}

/** The run's automation and attempt, as the receiver knows them from run.started. */
export function runCancelledBody(run: ClaimedRun): string {
  return JSON.stringify({
    type: 'run.cancelled',
    run: { id: run.id, attempt: run.attempt, automation: { id: run.automationId, name: run.automationName } },
  });
}

const traceHeaders = (): Record<string, string> => {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
};

function post(config: HttpConfig, id: string, body: string, signal: AbortSignal): Promise<Response> {
  const timestamp = new Date();
  return fetch(config.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Tripline-Runs/1',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': new Webhook(config.secret).sign(id, timestamp, body),
      // With traces on, the executor's span: the receiver's own telemetry joins the delivery's trace.
      ...traceHeaders(),
    },
    body,
    redirect: 'manual',
    signal,
  });
}

/** Tells the receiver the run it may be working on is cancelled: one try, a short time limit, never thrown. */
async function sendCancelled(run: ClaimedRun, config: HttpConfig): Promise<string> {
  try {
    const response = await post(config, `${run.id}_cancelled`, runCancelledBody(run), AbortSignal.timeout(CANCEL_CALL_TIMEOUT_MS));
    await response.body?.cancel();
    if (response.ok) return `the receiver was told (run.cancelled, HTTP ${response.status})`;
    logger.warn({ runId: run.id, status: response.status }, 'the executor URL refused the run.cancelled call');
    return `the run.cancelled call to the receiver was answered HTTP ${response.status}`;
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${CANCEL_CALL_TIMEOUT_MS / 1000} s` : (error as Error).message;
    logger.warn({ runId: run.id, error: reason }, 'the run.cancelled call to the executor URL failed');
    return `the run.cancelled call could not reach the receiver: ${reason}`;
  }
}

export async function executeHttp(run: ClaimedRun, config: HttpConfig, signal?: AbortSignal): Promise<ExecutionOutcome> {
  let failure: string;
  let output: string | null = null;
  try {
    const response = await post(config, run.id, runRequestBody(run), signal ? AbortSignal.any([AbortSignal.timeout(config.timeoutMs), signal]) : AbortSignal.timeout(config.timeoutMs));
    output = await readOutput(response);
    if (response.ok) return { status: 'succeeded', output };
    failure = `The executor URL answered HTTP ${response.status}`;
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${Math.round(config.timeoutMs / 1000)} s` : (error as Error).message;
    failure = `The executor URL could not be reached: ${reason}`;
    if (signal?.aborted && stopReason(signal) === 'cancel') {
      return { status: 'cancelled', output, error: `The run was cancelled while waiting for the executor URL: the request was aborted, and ${await sendCancelled(run, config)}` };
    }
    // Cut off by this worker's shutdown: the receiver may or may not have it
    // (webhook-id stays the same), so another worker sends it again at once.
    if (signal?.aborted) return { status: 'failed', output, error: 'The worker stopped (shutdown) while waiting for the executor URL; sending again', retryAfterMs: 0 };
  }
  if (run.attempt < config.attempts) {
    const delay = retryDelayMs(run.attempt);
    return { status: 'failed', output, error: `${failure} (attempt ${run.attempt} of ${config.attempts}; retrying in ${Math.round(delay / 1000)} s)`, retryAfterMs: delay };
  }
  return { status: 'failed', output, error: `${failure} (attempt ${run.attempt} of ${config.attempts}; no attempts left)` };
}
