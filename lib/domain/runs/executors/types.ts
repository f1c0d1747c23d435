import type { RunAttachment, RunEnvelope } from '@/lib/domain/runs/envelope';

// An executor receives a claimed run (its stored prompt and envelope, its
// delivery's body as the attachment) and reports how it went. `retryAfterMs` asks the worker to queue the run again (HTTP
// executor's backoff); otherwise the outcome is final.
//
// The worker may stop a run in progress through the executor's AbortSignal;
// its reason says why (StopReason). `cancelled` is the outcome of a run
// stopped because someone asked for it (a newer delivery under run control's
// cancel-running, or an admin or editor): the executor says what it did to
// stop it, and keeps the output so far.

export type ClaimedRun = {
  id: string;
  automationId: string;
  automationName: string;
  prompt: string;
  envelope: RunEnvelope;
  attachments: RunAttachment[];
  /** 1 on the first attempt. */
  attempt: number;
  /** The worker that claimed it (host:pid:random). */
  worker: string;
  /** The W3C trace context the run continues (its delivery's), or null (docs/tracing.md). */
  traceparent?: string | null;
};

export type ExecutionOutcome =
  | { status: 'succeeded'; output: string }
  | { status: 'failed'; output: string | null; error: string; retryAfterMs?: number }
  | { status: 'cancelled'; output: string | null; error: string };

/**
 * Why a worker stops a run in progress: `shutdown`, the server stops and its
 * grace period is over; `cancel`, the run's cancel was requested
 * (Run.cancelRequestedAt). The abort's reason; anything else counts as shutdown.
 */
export type StopReason = 'shutdown' | 'cancel';

export const stopReason = (signal: AbortSignal): StopReason => (signal.reason === 'cancel' ? 'cancel' : 'shutdown');

/** Output kept on a run: the tail matters most for a failing program. */
export const MAX_OUTPUT_CHARS = 64 * 1024;

export function clip(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  return `[… ${(text.length - MAX_OUTPUT_CHARS).toLocaleString('en-US')} earlier characters cut]\n${text.slice(-MAX_OUTPUT_CHARS)}`;
}
