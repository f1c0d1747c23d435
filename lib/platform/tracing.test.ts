import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { context, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { activeSpanContext } from '@/lib/platform/trace-context';
import { annotate, contextFrom, currentTraceparent, inSpan, installTracer, redacting, senderSpanOptions, senderTraces, tracesEndpoint } from '@/lib/platform/tracing';

describe('tracing is off by default', () => {
  it('is on only when an OTLP endpoint is set, and not disabled', () => {
    expect(tracesEndpoint({})).toBeNull();
    expect(tracesEndpoint({ OTEL_SERVICE_NAME: 'x' })).toBeNull();
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe('http://collector:4318');
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe('http://collector:4318/v1/traces');
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
  });
});

describe('spans never carry the secrets a URL can', () => {
  afterEach(() => trace.disable());

  it('the exporter passes spans on redacted, with their IDs and everything else', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: redacting(memory) })] });
    const span = provider.getTracer('test').startSpan('GET /invite/inv_secret', { attributes: { 'http.target': '/webhooks/w/wh_abc/s3cr3t', 'http.status_code': 202 } });
    span.end();
    await provider.forceFlush();
    const [exported] = memory.getFinishedSpans();
    expect(exported!.name).toBe('GET /invite/[redacted]');
    expect(exported!.attributes).toEqual({ 'http.target': '/webhooks/w/wh_abc/[redacted]', 'http.status_code': 202 });
    expect(exported!.spanContext().spanId).toBe(span.spanContext().spanId);
  });

  it('passes a span with nothing to redact on as it is, not a copy', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: redacting(memory) })] });
    const span = provider.getTracer('test').startSpan('tripline.ingress', { attributes: { 'tripline.webhook.uid': 'wh_abc', 'http.response.status_code': 202 } });
    span.end();
    await provider.forceFlush();
    expect(memory.getFinishedSpans()[0]).toBe(span);
  });
});

describe("Tripline's spans carry their own context, and register nothing with OpenTelemetry's globals", () => {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
  afterEach(() => {
    installTracer(undefined);
    memory.reset();
  });
  const span = (name: string): ReadableSpan => memory.getFinishedSpans().find((s) => s.name === name)!;
  const parentOf = (name: string) => span(name).parentSpanContext?.spanId;

  it('nests spans across awaits, keeps two requests apart, and leaves the global context (what Next.js sees) empty', async () => {
    installTracer(provider.getTracer('test'), new W3CTraceContextPropagator());
    const request = (n: number) =>
      inSpan(`ingress-${n}`, {}, async () => {
        await sleep(5 * (3 - n));
        await inSpan(`record-${n}`, {}, async () => {
          await sleep(5);
          // Nothing global: the OpenTelemetry API's own context, which Next.js reads, has no span.
          expect(trace.getSpan(context.active())).toBeUndefined();
          annotate({ 'test.n': n });
          await inSpan(`run-${n}`, {}, async () => undefined);
        });
      });
    await Promise.all([request(1), request(2)]);
    for (const n of [1, 2]) {
      expect(parentOf(`ingress-${n}`)).toBeUndefined();
      expect(parentOf(`record-${n}`)).toBe(span(`ingress-${n}`).spanContext().spanId);
      expect(parentOf(`run-${n}`)).toBe(span(`record-${n}`).spanContext().spanId);
      expect(span(`run-${n}`).spanContext().traceId).toBe(span(`ingress-${n}`).spanContext().traceId);
      expect(span(`record-${n}`).attributes).toEqual({ 'test.n': n });
    }
    expect(span('ingress-1').spanContext().traceId).not.toBe(span('ingress-2').spanContext().traceId);
  });

  it("links a sender's traceparent by default: the sender chooses neither the trace ID nor whether it is sampled", async () => {
    installTracer(provider.getTracer('test'), new W3CTraceContextPropagator());
    // A sender asks for no sampling (flags 00), in a trace ID of its choosing, with a tracestate.
    const headers = new Headers({ traceparent: '00-a1b2c3d4e5f60718293a4b5c6d7e8f90-0102030405060708-00', tracestate: 'vendor=value' });
    await inSpan('linked', { ...senderSpanOptions(headers), attributes: { n: 1 } }, async () => undefined);
    const linked = span('linked');
    expect(linked, 'recorded: the root sampler decides, not the sender').toBeDefined();
    expect(linked.spanContext().traceId).not.toBe('a1b2c3d4e5f60718293a4b5c6d7e8f90');
    expect(parentOf('linked')).toBeUndefined();
    expect(linked.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([['a1b2c3d4e5f60718293a4b5c6d7e8f90', '0102030405060708']]);
    expect(linked.spanContext().traceState).toBeUndefined();
    // A malformed traceparent, or none: a trace of its own, and no link.
    for (const traceparent of ['garbage', null]) {
      expect(senderSpanOptions(new Headers(traceparent ? { traceparent } : {}))).toEqual({});
    }
  });

  it("continues a sender's trace when the operator trusts its senders (TRIPLINE_TRACE_SENDERS=continue), a tracestate only within 512 characters", async () => {
    expect(senderTraces({})).toBe('link');
    expect(senderTraces({ TRIPLINE_TRACE_SENDERS: ' Continue ' })).toBe('continue');
    expect(senderTraces({ TRIPLINE_TRACE_SENDERS: 'trust' })).toEqual({ error: 'TRIPLINE_TRACE_SENDERS=trust is not link or continue' });
    installTracer(provider.getTracer('test'), new W3CTraceContextPropagator(), 'continue');
    const traceparent = '00-a1b2c3d4e5f60718293a4b5c6d7e8f90-0102030405060708-01';
    await inSpan('trusted', senderSpanOptions(new Headers({ traceparent, tracestate: 'vendor=value' })), async () => undefined);
    expect(span('trusted').spanContext().traceId).toBe('a1b2c3d4e5f60718293a4b5c6d7e8f90');
    expect(parentOf('trusted')).toBe('0102030405060708');
    expect(span('trusted').spanContext().traceState?.get('vendor')).toBe('value');
    await inSpan('oversized', senderSpanOptions(new Headers({ traceparent, tracestate: `vendor=${'x'.repeat(600)}` })), async () => undefined);
    expect(parentOf('oversized')).toBe('0102030405060708');
    expect(span('oversized').spanContext().traceState).toBeUndefined();
    // The sender's "not sampled" holds in continue mode: no span is recorded.
    await inSpan('unsampled', senderSpanOptions(new Headers({ traceparent: traceparent.replace(/-01$/, '-00') })), async () => undefined);
    expect(span('unsampled')).toBeUndefined();
  });

  it("continues a sender's traceparent, starts a trace for a malformed one, and hands its own on", async () => {
    installTracer(provider.getTracer('test'), new W3CTraceContextPropagator());
    const sender = '00-a1b2c3d4e5f60718293a4b5c6d7e8f90-0102030405060708-01';
    let handed: string | null = null;
    let logged: string | undefined;
    await inSpan('continued', { parent: contextFrom(sender, 'vendor=value') }, async () => {
      handed = currentTraceparent();
      logged = activeSpanContext()?.spanId;
    });
    expect(span('continued').spanContext().traceId).toBe('a1b2c3d4e5f60718293a4b5c6d7e8f90');
    expect(parentOf('continued')).toBe('0102030405060708');
    expect(span('continued').spanContext().traceState?.get('vendor')).toBe('value');
    expect(handed).toBe(`00-a1b2c3d4e5f60718293a4b5c6d7e8f90-${span('continued').spanContext().spanId}-01`);
    expect(logged).toBe(span('continued').spanContext().spanId);
    // A sender's tracestate is kept within the W3C bounds: at most 32 entries and 512 characters, malformed ones left out.
    const long = [...Array.from({ length: 40 }, (_, n) => `v${n}=${'x'.repeat(20)}`), 'BAD KEY=1'].join(',');
    await inSpan('bounded', { parent: contextFrom(sender, long) }, async () => undefined);
    const kept = span('bounded').spanContext().traceState!.serialize();
    expect(kept.length).toBeLessThanOrEqual(512);
    expect(kept.split(',').length).toBeLessThanOrEqual(32);
    expect(kept).not.toContain('BAD KEY');
    for (const malformed of ['garbage', '00-00000000000000000000000000000000-0102030405060708-01', '00-zz-01']) expect(contextFrom(malformed)).toBeUndefined();
    expect(activeSpanContext()).toBeUndefined();
  });

  it('with traces off: no span, no traceparent, the work still runs', async () => {
    expect(await inSpan('off', {}, async (s) => s)).toBeUndefined();
    expect(currentTraceparent()).toBeNull();
    expect(contextFrom('00-a1b2c3d4e5f60718293a4b5c6d7e8f90-0102030405060708-01')).toBeUndefined();
    expect(memory.getFinishedSpans()).toEqual([]);
  });
});
