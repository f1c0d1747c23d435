import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type TextMapPropagator, type Tracer } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { log } from '@/lib/platform/log';
import { activeContext, runInContext } from '@/lib/platform/trace-context';
import { redactUrlText } from '@/lib/platform/http/secret-urls';

// OpenTelemetry traces (docs/tracing.md), off by default. They are on when
// the standard OTEL_* environment names an OTLP endpoint
// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT) and
// neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says no.
// Spans go out over OTLP/HTTP in batches, as protobuf (the specification's
// default) or JSON (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json).
//
// The SDK is loaded only when traces are on: an instance without them pays
// one check per span site and holds none of it in memory. The tracer and
// the propagator live on globalThis, so the server entry and the compiled
// routes, which hold separate copies of this module, share them. Nothing is
// registered with the OpenTelemetry API's globals (provider, context
// manager, propagator): Tripline's spans carry their context in a store of
// their own (trace-context.ts), and Next.js's instrumentation stays off.
//
// A span never carries a secret, a body or a header's value: only the
// webhook's UID, statuses, counts, IDs and event types.

const TRACER_NAME = 'tripline';
const STARTED = Symbol.for('tripline.tracing.started');
const TRACER = Symbol.for('tripline.tracing.tracer');
const PROPAGATOR = Symbol.for('tripline.tracing.propagator');
const SENDERS = Symbol.for('tripline.tracing.senders');

type Global = typeof globalThis & { [STARTED]?: Promise<boolean>; [TRACER]?: Tracer; [PROPAGATOR]?: TextMapPropagator; [SENDERS]?: SenderTraces };

// A span attribute's value is cut to this many characters: every value Tripline sets is far shorter
// (IDs, statuses, event types of at most 200), so this only bounds what a bug could let through.
const ATTRIBUTE_VALUE_LIMIT = 1_024;
// W3C Trace Context: a vendor may drop a tracestate longer than this, and Tripline does (continue mode).
const TRACESTATE_LIMIT = 512;

/**
 * What the ingress does with a sender's W3C `traceparent`
 * (TRIPLINE_TRACE_SENDERS): `link` (the default) starts a trace of
 * Tripline's own whose first span links to the sender's, so no sender, signed
 * in or not, chooses the trace ID or whether its delivery is sampled;
 * `continue` carries the sender's trace on, for instances whose senders are
 * all the operator's own.
 */
export type SenderTraces = 'link' | 'continue';

export function senderTraces(source: Record<string, string | undefined> = process.env): SenderTraces | { error: string } {
  const value = (source.TRIPLINE_TRACE_SENDERS ?? '').trim().toLowerCase();
  if (!value || value === 'link') return 'link';
  if (value === 'continue') return 'continue';
  return { error: `TRIPLINE_TRACE_SENDERS=${value.slice(0, 40)} is not link or continue` };
}

/** The OTLP endpoint traces go to, or null when the environment does not ask for traces. */
export function tracesEndpoint(source: Record<string, string | undefined> = process.env): string | null {
  if ((source.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return null;
  const exporters = (source.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((name) => name.trim().toLowerCase());
  if (!exporters.includes('otlp')) return null;
  const endpoint = source.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || source.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint ? endpoint : null;
}

export type TracesProtocol = 'http/protobuf' | 'http/json';

/**
 * The OTLP encoding spans go out in: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else
 * OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf (the specification's
 * default, and half the CPU of JSON per span). An error for grpc or any other
 * value: Tripline speaks OTLP over HTTP only, and a collector's gRPC port
 * would refuse every export.
 */
export function tracesProtocol(source: Record<string, string | undefined> = process.env): TracesProtocol | { error: string } {
  const [name, value] = source.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', source.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL.trim()]
    : ['OTEL_EXPORTER_OTLP_PROTOCOL', (source.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim()];
  if (!value || value === 'http/protobuf') return 'http/protobuf';
  if (value === 'http/json') return 'http/json';
  return { error: `${name}=${value.slice(0, 40)} is not supported: Tripline sends OTLP over HTTP, as http/protobuf (the default) or http/json` };
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
  const protocol = tracesProtocol();
  if (typeof protocol !== 'string') {
    log('tracing').error({}, `tracing off: ${protocol.error}`);
    return false;
  }
  const [sdk, { OTLPTraceExporter }, { W3CTraceContextPropagator }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
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
  const provider = new sdk.TracerProvider({ resource, sampler, spanProcessors: [processor], spanLimits: { attributeValueLengthLimit: ATTRIBUTE_VALUE_LIMIT } });
  // Tripline's tracer only, not the global provider: Next.js would then record spans of its own for
  // every request (eight or so per delivery), which more than doubled the cost of tracing (docs/tracing.md).
  const chosen = senderTraces();
  if (typeof chosen !== 'string') log('tracing').error({}, `${chosen.error}: a sender's traceparent is linked, not continued`);
  const senders = typeof chosen === 'string' ? chosen : 'link';
  installTracer(provider.getTracer(TRACER_NAME), new W3CTraceContextPropagator(), senders);
  shutdownHook = () => provider.shutdown();
  // The endpoint's origin only: a URL may carry credentials in its query (and so may what is not a URL).
  let origin = '(not a URL)';
  try {
    origin = new URL(endpoint).origin;
  } catch {
    // Not a URL: the exporter says so on its first export.
  }
  log('tracing').info(
    { endpoint: origin, protocol, sampler: samplers[samplerName] ? samplerName : 'parentbased_always_on', senders },
    'tracing on: spans go out over OTLP/HTTP',
  );
  return true;
}

/**
 * An exporter that passes every span on with `redactUrlText` applied to its
 * name and string attributes. A span with nothing to redact (nearly all of
 * them) goes on as it is: a copy of each span, on a prototype of its own, made
 * every read of the serializer megamorphic, and was the exporter's largest cost.
 */
export function redacting(exporter: SpanExporter): SpanExporter {
  const clean = (span: ReadableSpan): ReadableSpan => {
    const name = redactUrlText(span.name);
    let attributes: ReadableSpan['attributes'] | undefined;
    for (const [key, value] of Object.entries(span.attributes)) {
      if (typeof value !== 'string') continue;
      const redacted = redactUrlText(value);
      if (redacted !== value) (attributes ??= { ...span.attributes })[key] = redacted;
    }
    if (name === span.name && !attributes) return span;
    return Object.create(span, { name: { value: name }, attributes: { value: attributes ?? span.attributes } }) as ReadableSpan;
  };
  return {
    export: (spans, done) => exporter.export(spans.map(clean), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: exporter.forceFlush ? () => exporter.forceFlush!() : undefined,
  };
}

/**
 * Makes `tracer` record Tripline's spans in this process, `propagator` read and write `traceparent`,
 * and `senders` say what a sender's traceparent does (no tracer: spans off).
 */
export function installTracer(tracer: Tracer | undefined, propagator?: TextMapPropagator, senders: SenderTraces = 'link'): void {
  const shared = globalThis as Global;
  shared[TRACER] = tracer;
  shared[PROPAGATOR] = tracer ? propagator : undefined;
  shared[SENDERS] = senders;
}

let shutdownHook: (() => Promise<void>) | null = null;

/** Sends the spans still buffered and stops (at shutdown). */
export async function stopTracing(): Promise<void> {
  await shutdownHook?.().catch(() => undefined);
}

const tracer = (): Tracer => (globalThis as Global)[TRACER] ?? trace.getTracer(TRACER_NAME);
const propagator = (): TextMapPropagator | undefined => (globalThis as Global)[PROPAGATOR];

export type SpanOptions = { kind?: SpanKind; parent?: Context; attributes?: Attributes; links?: Link[] };

/**
 * Runs `work` inside a span named `name` (the active span's child, or
 * `parent`'s), ended when `work` settles; an error marks it and is rethrown.
 * With traces off it only runs `work`.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracingOn()) return work(undefined);
  const parent = options.parent ?? activeContext();
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links }, parent);
  return runInContext(trace.setSpan(parent, span), async () => {
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
  return tracingOn() ? tracer().startSpan(name, { attributes }, activeContext()) : undefined;
}

/** Sets attributes on the active span, when there is one. */
export function annotate(attributes: Attributes): void {
  if (tracingOn()) trace.getSpan(activeContext())?.setAttributes(attributes);
}

/** The active span's context as a W3C `traceparent`, or null with traces off. */
export function currentTraceparent(): string | null {
  if (!tracingOn()) return null;
  const carrier: Record<string, string> = {};
  propagator()?.inject(activeContext(), carrier, defaultTextMapSetter);
  return carrier.traceparent ?? null;
}

/**
 * The context a stored or received `traceparent` names, for a span that
 * continues it (with a sender's `tracestate`, when it sent one); undefined
 * when there is none, or it is malformed (then the span starts a trace).
 */
export function contextFrom(traceparent: string | null | undefined, tracestate?: string | null): Context | undefined {
  if (!traceparent || !tracingOn()) return undefined;
  const extracted = propagator()?.extract(ROOT_CONTEXT, tracestate ? { traceparent, tracestate } : { traceparent }, defaultTextMapGetter);
  return extracted && trace.getSpanContext(extracted) ? extracted : undefined;
}

/**
 * Where a received request's span starts, given its sender's W3C headers
 * (TRIPLINE_TRACE_SENDERS, SenderTraces): with `link`, a trace of its own
 * with a link to the sender's span; with `continue`, the sender's trace
 * (and its tracestate, unless longer than the W3C's 512 characters). No
 * traceparent, or a malformed one: a trace of its own.
 */
export function senderSpanOptions(headers: Headers): Pick<SpanOptions, 'parent' | 'links'> {
  if (!tracingOn()) return {};
  const traceparent = headers.get('traceparent');
  if (!traceparent) return {};
  if ((globalThis as Global)[SENDERS] === 'continue') {
    const tracestate = headers.get('tracestate');
    const parent = contextFrom(traceparent, tracestate && tracestate.length <= TRACESTATE_LIMIT ? tracestate : null);
    return parent ? { parent } : {};
  }
  const sender = trace.getSpanContext(contextFrom(traceparent) ?? ROOT_CONTEXT);
  return sender ? { parent: ROOT_CONTEXT, links: [{ context: sender }] } : {};
}

export { SpanKind };
