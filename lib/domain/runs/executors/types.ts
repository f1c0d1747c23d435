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

export function clip(text: string, earlier = 0): string {
  const cut = earlier + Math.max(0, text.length - MAX_OUTPUT_CHARS);
  if (cut === 0) return text;
  return `[… ${cut.toLocaleString('en-US')} earlier characters cut]\n${text.slice(-MAX_OUTPUT_CHARS)}`;
}

/**
 * Output as it arrives, in bounded memory: the text's tail (a few times MAX_OUTPUT_CHARS at most)
 * and a count of the characters dropped before it, however much a program or receiver sends. Bytes
 * split between chunks are decoded whole.
 */
export class OutputTail {
  private text = '';
  private dropped = 0;
  private readonly decoder = new TextDecoder();

  add(chunk: Uint8Array): void {
    this.text += this.decoder.decode(chunk, { stream: true });
    if (this.text.length > 4 * MAX_OUTPUT_CHARS) {
      const drop = this.text.length - MAX_OUTPUT_CHARS;
      this.dropped += drop;
      this.text = this.text.slice(drop);
    }
  }

  /** The output as a run keeps it (clip). */
  clipped(): string {
    this.text += this.decoder.decode();
    return clip(this.text, this.dropped);
  }
}

/** A response's body as a run keeps it, read in bounded memory (a receiver may answer gigabytes). */
export async function readOutput(response: Response): Promise<string> {
  const tail = new OutputTail();
  if (response.body) for await (const chunk of response.body) tail.add(chunk);
  return tail.clipped();
}
