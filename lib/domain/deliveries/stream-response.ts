import 'server-only';
import type { z } from 'zod';
import type { Caller } from '@/lib/adapters/api/handler';
import type { FactoryContext } from '@/lib/domain/auth/guard';
import type { streamDeliveriesSchema } from '@/lib/domain/deliveries/schemas';
import { deliveryStream, openStreamLease, STREAM_LIFETIME_MS, streamEntryJson, streamStart, type StreamItem } from '@/lib/domain/deliveries/stream';
import { errorFields, log } from '@/lib/platform/log';
import { AppError } from '@/lib/platform/http/errors';
import { metrics } from '@/lib/platform/metrics';

// The stream of a webhook's log as server-sent events (text/event-stream):
//
//   retry: 2000                      once, first: how long a client waits before reconnecting
//   id: dl_...                       the entry's id: Last-Event-ID or ?after= resumes after it
//   event: delivery
//   data: {...}                      the entry (docs/api.md, "Stream the log")
//
//   : heartbeat                      a comment after 15 s without an entry
//
//   event: end
//   data: {"reason":"lifetime"}      the server ends the stream (lifetime, shutdown): reconnect;
//                                    "revoked": the caller's token, session, account or role no
//                                    longer allows it (checked every RECHECK_MS): a reconnect
//                                    is refused (401, 403 or 404)
//
// The body is a pull stream: the next entry is read only when the previous
// one has been taken by the connection, so a client that stops reading
// holds at most one page in memory, and its stream stops reading the log.
// Such a client's response is cut 10 s after its stream should have ended
// (lifetime, shutdown), so it holds neither a slot nor the drain.

const encoder = new TextEncoder();
/** How long a client that has stopped reading keeps its stream after the stream should have ended. */
export const UNREAD_GRACE_MS = 10_000;
/**
 * How often an open stream checks its caller again (token or session, the
 * account, the role in the factory), as every request does at its start: a
 * revoked token, a disabled account or a removed member reads no entry past
 * the next check. A stream hands on an entry or a heartbeat at least every
 * 15 s, and checks before the first that falls due.
 */
export const RECHECK_MS = 15_000;
const logger = log('deliveries');

/** Hands text to the connection, counted in tripline_log_stream_sent_bytes_total. */
function send(controller: ReadableStreamDefaultController<Uint8Array>, text: string): void {
  const bytes = encoder.encode(text);
  metrics().logStreamBytes.inc(bytes.byteLength);
  controller.enqueue(bytes);
}

export async function deliveryEventStream(args: {
  request: Request;
  context: FactoryContext;
  /** The token or session the wrapper authenticated: streams are counted per caller, and per account and factory. */
  caller: Caller;
  uid: string;
  input: z.output<typeof streamDeliveriesSchema>;
  /** The caller checked again (the API wrapper's reauthorize); without it, the stream trusts its start. */
  reauthorize?: () => Promise<FactoryContext>;
  /** Tests: how long a client that does not read is given after the stream should end. */
  unreadGraceMs?: number;
  lifetimeMs?: number;
  recheckMs?: number;
}): Promise<Response> {
  const { request, context, caller, uid, input } = args;
  const unreadGraceMs = args.unreadGraceMs ?? UNREAD_GRACE_MS;
  const lifetimeMs = args.lifetimeMs ?? STREAM_LIFETIME_MS;
  const lease = openStreamLease({ ...caller, userId: context.user.id, factory: context.factory });
  let start;
  try {
    const lastEventId = request.headers.get('last-event-id')?.trim().slice(0, 200) || undefined;
    start = await streamStart(context.factory.id, uid, { after: input.after ?? lastEventId, since: input.since });
  } catch (error) {
    lease.release();
    throw error;
  }
  const abort = new AbortController();
  // The stream ends by itself when the client reads (lifetime, shutdown); one that stops reading
  // never asks for the end, so the response is cut after a grace: it never holds a slot or the drain.
  let cut: NodeJS.Timeout | undefined;
  let streamController: ReadableStreamDefaultController<Uint8Array> | undefined;
  const cutUnread = () => {
    clearTimeout(cut);
    cut = setTimeout(() => {
      if (finished) return;
      finish();
      streamController?.error(new Error('the client stopped reading'));
    }, unreadGraceMs);
    cut.unref();
  };
  const lifetime = setTimeout(cutUnread, lifetimeMs);
  lifetime.unref();
  const stop = () => {
    abort.abort();
    cutUnread();
  };
  lease.signal.addEventListener('abort', stop);
  request.signal.addEventListener('abort', stop);
  const items = deliveryStream({ webhookId: start.webhookId, position: start.position, filters: { status: input.status, event: input.event, since: input.since }, signal: abort.signal, lifetimeMs });
  // Shut down or gone while the start was read: the listeners above came too late to hear it.
  if (lease.signal.aborted || request.signal.aborted) stop();
  // Only callers who may replay a delivery get its original signature headers (docs/decisions/0071); a re-check may change that.
  let signatures = context.can('factory:manage');
  const recheckMs = args.recheckMs ?? RECHECK_MS;
  let checkedAt = Date.now();
  /** Whether the caller may still read the stream, checked at most every recheckMs. */
  const stillAllowed = async (): Promise<boolean> => {
    if (!args.reauthorize || Date.now() - checkedAt < recheckMs) return true;
    checkedAt = Date.now();
    try {
      signatures = (await args.reauthorize()).can('factory:manage');
      return true;
    } catch (error) {
      if (error instanceof AppError && ['unauthorized', 'forbidden', 'not_found'].includes(error.code)) return false;
      throw error;
    }
  };
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(lifetime);
    clearTimeout(cut);
    lease.signal.removeEventListener('abort', stop);
    request.signal.removeEventListener('abort', stop);
    abort.abort();
    lease.release();
    // However it ended, the log's reader is let go: its wake-up listener and abort handler go with it
    // (a reader left at its last yield kept both for the life of the process).
    void items.return(undefined).catch(() => undefined);
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        streamController = controller;
        send(controller, 'retry: 2000\n\n');
      },
      async pull(controller) {
        let item: IteratorResult<StreamItem>;
        try {
          item = await items.next();
        } catch (error) {
          // The database failed mid-stream: end it; the client resumes after the last entry it got.
          logger.warn({ ...errorFields(error) }, 'log stream ended by an error');
          send(controller, `event: end\ndata: {"reason":"error"}\n\n`);
          controller.close();
          finish();
          return;
        }
        let value: StreamItem | { kind: 'end'; reason: 'revoked' | 'error' } = item.done ? { kind: 'end', reason: 'aborted' } : item.value;
        try {
          if (value.kind !== 'end' && !(await stillAllowed())) value = { kind: 'end', reason: 'revoked' };
        } catch (error) {
          // The check's database failed: as a failed read, end it; the client resumes after the last entry it got.
          logger.warn({ ...errorFields(error) }, 'log stream ended by an error');
          value = { kind: 'end', reason: 'error' };
        }
        if (value.kind === 'end') {
          const reason = value.reason;
          if (reason !== 'aborted') send(controller, `event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
          controller.close();
          finish();
          return;
        }
        if (value.kind === 'heartbeat') send(controller, ': heartbeat\n\n');
        else if (value.kind === 'progress') {
          // The id is where a reconnect resumes (Last-Event-ID); the data says the same for clients that keep their own.
          send(controller, `id: ${value.after}\nevent: position\ndata: ${JSON.stringify({ after: value.after, receivedAt: value.receivedAt.toISOString() })}\n\n`);
        } else {
          const entry = value.entry;
          send(controller, `id: ${entry.id}\nevent: delivery\ndata: ${JSON.stringify(streamEntryJson(entry, { signatures }))}\n\n`);
        }
      },
      async cancel() {
        finish();
        await items.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, {
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      // no-transform: compression would hold events back until a buffer fills.
      'Cache-Control': 'no-store, no-transform',
      // nginx: pass events through as they come.
      'X-Accel-Buffering': 'no',
    },
  });
}
