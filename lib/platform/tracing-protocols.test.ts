import { afterAll, describe, expect, it } from 'vitest';
import { attributesOf, decodeExport, otlpCollector } from '@/tests/support/otlp-collector';
import { inSpan, startTracing, stopTracing, tracesProtocol } from '@/lib/platform/tracing';

describe('the OTLP encoding spans go out in', () => {
  it('is protobuf unless OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL says http/json; grpc and anything else is an error naming the variable', () => {
    expect(tracesProtocol({})).toBe('http/protobuf');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toBe('http/protobuf');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ' http/json ' })).toBe('http/json');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '' , OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual({ error: expect.stringMatching(/^OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: .*http\/protobuf \(the default\) or http\/json/) });
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'HTTP/JSON' })).toEqual({ error: expect.stringMatching(/^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=HTTP\/JSON is not supported/) });
  });

  it("the tests' collector refuses what is neither encoding", () => {
    expect(() => decodeExport('text/plain', Buffer.from('{}'))).toThrow(/not an OTLP\/HTTP content type/);
    expect(() => decodeExport('application/x-protobuf', Buffer.from([0x0a, 0xff]))).toThrow();
  });
});

describe('with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json', () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });

  it('spans go out as OTLP/JSON that a collector decodes, with their parent links and resource', async () => {
    const otlp = await otlpCollector();
    try {
      Object.assign(process.env, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'tripline-json' });
      expect(await startTracing()).toBe(true);
      await inSpan('tripline.test.outer', { attributes: { 'tripline.webhook.uid': 'wh_json' } }, () => inSpan('tripline.test.inner', {}, async () => undefined));
      await stopTracing();
      expect([...otlp.contentTypes]).toEqual(['application/json']);
      expect(otlp.errors).toEqual([]);
      const outer = otlp.received.find(({ span }) => span.name === 'tripline.test.outer')!;
      const inner = otlp.received.find(({ span }) => span.name === 'tripline.test.inner')!;
      expect(outer.resource['service.name']).toBe('tripline-json');
      expect(attributesOf(outer.span.attributes)).toEqual({ 'tripline.webhook.uid': 'wh_json' });
      expect(inner.span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(inner.span.traceId).toBe(outer.span.traceId);
      expect(inner.span.parentSpanId).toBe(outer.span.spanId);
    } finally {
      await otlp.close();
    }
  });
});
