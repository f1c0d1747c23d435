import { AsyncLocalStorage } from 'node:async_hooks';
import { isSpanContextValid, ROOT_CONTEXT, trace, type Context, type SpanContext } from '@opentelemetry/api';

// The trace context Tripline's spans run in (docs/tracing.md): an
// AsyncLocalStorage of Tripline's own, not OpenTelemetry's global context
// manager. With a global one, every context lookup and `context.with` that
// Next.js makes on every request would run through it, and Next.js would
// start spans of its own inside Tripline's; with this store, Next.js sees no
// tracing at all, and only Tripline's spans pay for a context. The server
// entry and the compiled routes load this module separately: the store lives
// on globalThis. It is made by the first span, so with traces off there is none.

const key = Symbol.for('tripline.tracing.context');
type Holder = typeof globalThis & { [key]?: AsyncLocalStorage<Context> };

/** The context of the Tripline span in progress, or the root context. */
export function activeContext(): Context {
  return (globalThis as Holder)[key]?.getStore() ?? ROOT_CONTEXT;
}

/** Runs `work` with `context` as the active one (for its awaits too). */
export function runInContext<T>(context: Context, work: () => T): T {
  const holder = globalThis as Holder;
  holder[key] ??= new AsyncLocalStorage<Context>();
  return holder[key].run(context, work);
}

/** The active Tripline span's IDs, for the log line written inside it. */
export function activeSpanContext(): SpanContext | undefined {
  const span = trace.getSpanContext(activeContext());
  return span && isSpanContextValid(span) ? span : undefined;
}
