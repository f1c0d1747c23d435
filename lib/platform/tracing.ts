import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { log } from '@/lib/platform/log';

// OpenTelemetry traces (docs/tracing.md), off by default. They are on when
// the standard OTEL_* environment names an OTLP endpoint
// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT) and
// neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says no.
// Spans go out over OTLP/HTTP (JSON) in batches.
//
// The SDK is loaded only when traces are on: an instance without them pays
// one check per span site and holds none of it in memory. The API package
// keeps its provider on a global, so the server entry and the compiled
// routes, which hold separate copies of this module, share one provider.
//
// A span never carries a secret, a body or a header's value: only the
// webhook's UID, statuses, counts, IDs and event types.

const TRACER_NAME = 'tripline';
const STARTED = Symbol.for('tripline.tracing.started');
const TRACER = Symbol.for('tripline.tracing.tracer');

type Global = typeof globalThis & { [STARTED]?: Promise<boolean>; [TRACER]?: Tracer };

/** The OTLP endpoint traces go to, or null when the environment does not ask for traces. */
export function tracesEndpoint(source: Record<string, string | undefined> = process.env): string | null {
  if ((source.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return null;
  const exporters = (source.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((name) => name.trim().toLowerCase());
  if (!exporters.includes('otlp')) return null;
  const endpoint = source.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || source.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint ? endpoint : null;
}

/** Whether spans are being recorded in this process: the SDK loaded and left its tracer (one property read on the hot path, not the environment). */
export function tracingOn(): boolean {
  return (globalThis as Global)[TRACER] !== undefined;
}

const positive = (value: string | undefined, fallback: number) => {
  const number = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isFinite(number) && number > 0 ? number : fallback;
};

/**
 * Starts the SDK when the environment asks for traces; once per process, from
 * whichever entry comes first (the server's startup, `tripline worker`).
 * Resolves to whether traces are on.
 */
export function startTracing(service = 'tripline'): Promise<boolean> {
  const shared = globalThis as Global;
  shared[STARTED] ??= load(service);
  return shared[STARTED];
}

async function load(service: string): Promise<boolean> {
  const endpoint = tracesEndpoint();
  if (!endpoint) return false;
  const [sdk, { OTLPTraceExporter }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ]);
  const env = process.env;
  // OTEL_TRACES_SAMPLER and its argument, as the specification names them; parent-based always-on by default.
  const ratio = Math.min(1, Math.max(0, positive(env.OTEL_TRACES_SAMPLER_ARG, 1)));
  const samplers: Record<string, () => import('@opentelemetry/sdk-trace').Sampler> = {
    always_on: () => new sdk.AlwaysOnSampler(),
    always_off: () => new sdk.AlwaysOffSampler(),
    traceidratio: () => new sdk.TraceIdRatioBasedSampler(ratio),
    parentbased_always_on: () => new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    parentbased_always_off: () => new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() }),
    parentbased_traceidratio: () => new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) }),
  };
  const samplerName = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  const sampler = (samplers[samplerName] ?? samplers.parentbased_always_on!)();
  const detected = resources.detectResources({ detectors: [resources.envDetector] });
  const resource = resources.resourceFromAttributes({ 'service.name': service }).merge(detected);
  const exporter = redacting(new OTLPTraceExporter());
  const processor = new sdk.BatchSpanProcessor({
    exporter,
    scheduledDelayMillis: positive(env.OTEL_BSP_SCHEDULE_DELAY, 5_000),
    exportTimeoutMillis: positive(env.OTEL_BSP_EXPORT_TIMEOUT, 30_000),
    maxQueueSize: positive(env.OTEL_BSP_MAX_QUEUE_SIZE, 2_048),
    maxExportBatchSize: positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512),
  });
  const provider = new sdk.TracerProvider({ resource, sampler, spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // Tripline's tracer only, not the global provider: Next.js would then record spans of its own for
  // every request (eight or so per delivery), which more than doubled the cost of tracing (docs/tracing.md).
  // The global context manager and propagator still carry Tripline's spans, and a sender's traceparent, through Next.
  (globalThis as Global)[TRACER] = provider.getTracer(TRACER_NAME);
  shutdownHook = () => provider.shutdown();
  // The endpoint's origin only: a URL may carry credentials in its query.
  let origin = endpoint;
  try {
    origin = new URL(endpoint).origin;
  } catch {
    // Not a URL: the exporter says so on its first export.
  }
  log('tracing').info({ endpoint: origin, sampler: samplers[samplerName] ? samplerName : 'parentbased_always_on' }, 'tracing on: spans go out over OTLP/HTTP');
  return true;
}

// Next.js's own spans name the request's path (http.target): an ingress URL
// token and an invitation link's token are secrets, and a query may carry one.
const SECRET_PATHS: Array<[RegExp, string]> = [
  [/(\/webhooks\/w\/[^/?#\s]+)\/[^?#\s]+/g, '$1/[redacted]'],
  [/(\/invite\/)[^/?#\s]+/g, '$1[redacted]'],
];

/** A span name or attribute value without the secrets a URL can carry: path tokens, and the query of a path or URL. */
export function redactUrlText(value: string): string {
  let text = value;
  for (const [pattern, replacement] of SECRET_PATHS) text = text.replace(pattern, replacement);
  return /^(\/|https?:\/\/)/.test(text) ? text.replace(/\?.*$/s, '?[redacted]') : text;
}

/** An exporter that passes every span on with `redactUrlText` applied to its name and string attributes. */
export function redacting(exporter: SpanExporter): SpanExporter {
  const clean = (span: ReadableSpan): ReadableSpan => {
    const attributes = Object.fromEntries(Object.entries(span.attributes).map(([key, value]) => [key, typeof value === 'string' ? redactUrlText(value) : value]));
    return Object.create(span, { name: { value: redactUrlText(span.name) }, attributes: { value: attributes } }) as ReadableSpan;
  };
  return {
    export: (spans, done) => exporter.export(spans.map(clean), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: exporter.forceFlush ? () => exporter.forceFlush!() : undefined,
  };
}

let shutdownHook: (() => Promise<void>) | null = null;

/** Sends the spans still buffered and stops (at shutdown). */
export async function stopTracing(): Promise<void> {
  await shutdownHook?.().catch(() => undefined);
}

const tracer = (): Tracer => (globalThis as Global)[TRACER] ?? trace.getTracer(TRACER_NAME);

export type SpanOptions = { kind?: SpanKind; parent?: Context; attributes?: Attributes };

/**
 * Runs `work` inside a span named `name` (the active span's child, or
 * `parent`'s), ended when `work` settles; an error marks it and is rethrown.
 * With traces off it only runs `work`.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracingOn()) return work(undefined);
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, options.parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span started now and ended by the caller (for work that is not one async call, like a stream's catch-up); undefined with traces off. */
export function openSpan(name: string, attributes: Attributes = {}): Span | undefined {
  return tracingOn() ? tracer().startSpan(name, { attributes }) : undefined;
}

/** Sets attributes on the active span, when there is one. */
export function annotate(attributes: Attributes): void {
  if (tracingOn()) trace.getActiveSpan()?.setAttributes(attributes);
}

/** The active span's context as a W3C `traceparent`, or null with traces off. */
export function currentTraceparent(): string | null {
  if (!tracingOn()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The context a stored or received `traceparent` names, for a span that continues it. */
export function contextFrom(traceparent: string | null | undefined): Context | undefined {
  if (!traceparent || !tracingOn()) return undefined;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

export { SpanKind };
