import { Webhook } from 'standardwebhooks';
import { composedPrompt } from '@/lib/domain/runs/envelope';
import { clip, type ClaimedRun, type ExecutionOutcome } from '@/lib/domain/runs/executors/types';
import { currentTraceparent } from '@/lib/platform/tracing';

// The HTTP executor: POSTs the run to the operator's URL, signed with the
// Standard Webhooks scheme (webhook-id is the run ID, the same on every
// attempt, so the receiver can deduplicate). A 2xx response is success and
// its body is the run's output. Anything else, or no answer within the time
// limit, is retried with exponential backoff (10 s, 20 s, 40 s … capped at
// one hour) until the configured number of attempts is spent.

const BASE_DELAY_MS = 10_000;
const MAX_DELAY_MS = 60 * 60 * 1000;

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

const traceHeaders = (): Record<string, string> => {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
};

export async function executeHttp(
  run: ClaimedRun,
  config: { url: string; secret: string; attempts: number; timeoutMs: number },
  cancel?: AbortSignal,
): Promise<ExecutionOutcome> {
  const body = runRequestBody(run);
  const timestamp = new Date();
  const signature = new Webhook(config.secret).sign(run.id, timestamp, body);
  let failure: string;
  let output: string | null = null;
  try {
    const response = await fetch(config.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Tripline-Runs/1',
        'webhook-id': run.id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
        // With traces on, the executor's span: the receiver's own telemetry joins the delivery's trace.
        ...traceHeaders(),
      },
      body,
      redirect: 'manual',
      signal: cancel ? AbortSignal.any([AbortSignal.timeout(config.timeoutMs), cancel]) : AbortSignal.timeout(config.timeoutMs),
    });
    output = clip(await response.text());
    if (response.ok) return { status: 'succeeded', output };
    failure = `The executor URL answered HTTP ${response.status}`;
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${Math.round(config.timeoutMs / 1000)} s` : (error as Error).message;
    failure = `The executor URL could not be reached: ${reason}`;
    // Cut off by this worker's shutdown: the receiver may or may not have it
    // (webhook-id stays the same), so another worker sends it again at once.
    if (cancel?.aborted) return { status: 'failed', output, error: 'The worker stopped (shutdown) while waiting for the executor URL; sending again', retryAfterMs: 0 };
  }
  if (run.attempt < config.attempts) {
    const delay = retryDelayMs(run.attempt);
    return { status: 'failed', output, error: `${failure} (attempt ${run.attempt} of ${config.attempts}; retrying in ${Math.round(delay / 1000)} s)`, retryAfterMs: delay };
  }
  return { status: 'failed', output, error: `${failure} (attempt ${run.attempt} of ${config.attempts}; no attempts left)` };
}
