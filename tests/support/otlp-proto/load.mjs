// The OTLP trace export's protobuf message type, loaded once from the .proto
// files beside this module (OpenTelemetry's own, see README.md). Shared by the
// tests' collector (../otlp-collector.ts) and the benchmarks' sink
// (bench/otlp-sink.mjs), which is plain Node and cannot import TypeScript.
import path from 'node:path';
import protobuf from 'protobufjs';

let requestType;

/** opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest. */
export function exportTraceServiceRequest() {
  if (!requestType) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => path.join(import.meta.dirname, target);
    root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
    requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  }
  return requestType;
}
