import { afterEach, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { redacting, redactUrlText, tracesEndpoint } from '@/lib/platform/tracing';

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

  it('redacts URL tokens, invitation tokens and queries', () => {
    expect(redactUrlText('/webhooks/w/wh_abc/s3cr3t-token')).toBe('/webhooks/w/wh_abc/[redacted]');
    expect(redactUrlText('http://hooks.example.com/webhooks/w/wh_abc/s3cr3t?x=1')).toBe('http://hooks.example.com/webhooks/w/wh_abc/[redacted]?[redacted]');
    expect(redactUrlText('/invite/inv_secret')).toBe('/invite/[redacted]');
    expect(redactUrlText('/api/v1/factories/acme/webhooks/wh_abc/deliveries?q=private')).toBe('/api/v1/factories/acme/webhooks/wh_abc/deliveries?[redacted]');
    expect(redactUrlText('POST /webhooks/w/[uid]')).toBe('POST /webhooks/w/[uid]');
    expect(redactUrlText('wh_abc')).toBe('wh_abc');
  });

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
});
