// An OTLP/HTTP trace sink for benchmarks: answers every POST /v1/traces with
// 200, and counts the exports and bytes it received. It decodes only the first
// export (protobuf, the exporter's default, with OpenTelemetry's own .proto
// files in tests/support/otlp-proto, or JSON), to check what arrives and count
// its spans: decoding every export is a collector's work, not Tripline's, and
// on a 2-core machine it took CPU from the server being measured. Run as its
// own process (bench/ingress.mjs with BENCH_TRACING=1 starts it). Prints its
// port on the first line; on SIGTERM prints what it received and exits.
import http from 'node:http';
import { exportTraceServiceRequest } from '../tests/support/otlp-proto/load.mjs';

const ExportTraceServiceRequest = exportTraceServiceRequest();

let firstSpans = null;
let requests = 0;
let contentType = '';
let bytes = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    requests += 1;
    const body = Buffer.concat(chunks);
    bytes += body.length;
    contentType = String(req.headers['content-type']);
    const json = contentType.startsWith('application/json');
    if (firstSpans === null) {
      firstSpans = 0;
      try {
        const request = json ? JSON.parse(body.toString('utf8')) : ExportTraceServiceRequest.decode(body);
        for (const resource of request.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) firstSpans += scope.spans?.length ?? 0;
      } catch {
        firstSpans = -1;
      }
    }
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => {
  console.log(JSON.stringify({ requests, bytes, firstSpans, contentType }));
  process.exit(0);
});
