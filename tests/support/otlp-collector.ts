import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportTraceServiceRequest } from './otlp-proto/load.mjs';

// An OTLP/HTTP trace collector for the tests: POST /v1/traces with an
// ExportTraceServiceRequest, decoded as a real collector decodes it. Protobuf
// (application/x-protobuf, the exporter's default) goes through protobufjs
// with OpenTelemetry's own .proto files (otlp-proto/, copied from
// open-telemetry/opentelemetry-proto); JSON (application/json) is the
// specification's JSON mapping of the same messages, IDs in hex. Either way
// the spans come out in one shape: IDs as lowercase hex, attributes as
// AnyValue.

export type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
export type KeyValue = { key: string; value: AnyValue };
export type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValue[]; links?: { traceId: string; spanId: string }[] };
export type Received = { resource: Record<string, unknown>; span: OtlpSpan };
type ExportRequest = { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[] };

const anyValue = (value: AnyValue): unknown => value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
/** An OTLP attribute list as a plain object. */
export const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, anyValue(value)]));

/** Decodes an export body by its content type; throws on anything a collector would refuse. */
export function decodeExport(contentType: string, body: Buffer): ExportRequest {
  if (contentType.startsWith('application/json')) return JSON.parse(body.toString('utf8')) as ExportRequest;
  if (contentType.startsWith('application/x-protobuf')) {
    const type = exportTraceServiceRequest();
    // Bytes as hex (as the JSON mapping writes trace and span IDs), 64-bit integers as strings.
    const decoded = type.toObject(type.decode(body), { longs: String, bytes: Array, defaults: false }) as ExportRequest;
    const hex = (value: unknown) => (Array.isArray(value) ? Buffer.from(value as number[]).toString('hex') : (value as string | undefined));
    for (const resourceSpans of decoded.resourceSpans ?? []) {
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          span.traceId = hex(span.traceId)!;
          span.spanId = hex(span.spanId)!;
          const parent = hex(span.parentSpanId);
          if (parent) span.parentSpanId = parent;
          else delete span.parentSpanId;
          for (const link of span.links ?? []) Object.assign(link, { traceId: hex(link.traceId)!, spanId: hex(link.spanId)! });
        }
      }
    }
    return decoded;
  }
  throw new Error(`not an OTLP/HTTP content type: ${contentType}`);
}

/** Starts a collector on a free port; `received` fills as exports arrive. */
export async function otlpCollector() {
  const received: Received[] = [];
  const contentTypes = new Set<string>();
  const errors: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const contentType = String(req.headers['content-type']);
      contentTypes.add(contentType);
      if (req.url !== '/v1/traces' || req.method !== 'POST') {
        res.statusCode = 404;
        return void res.end();
      }
      let request: ExportRequest;
      try {
        request = decodeExport(contentType, Buffer.concat(chunks));
      } catch (error) {
        errors.push(String(error));
        res.statusCode = 400;
        return void res.end();
      }
      for (const resourceSpans of request.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) for (const span of scope.spans ?? []) received.push({ resource, span });
      }
      // The answer in the request's own encoding: an empty ExportTraceServiceResponse.
      res.setHeader('content-type', contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf');
      res.end(contentType.startsWith('application/json') ? '{}' : Buffer.alloc(0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    contentTypes,
    errors,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
