// An OTLP/HTTP trace sink for benchmarks: answers every POST /v1/traces with
// 200 after reading it, and counts the spans it received (JSON). Run as its
// own process (bench/ingress.mjs with BENCH_TRACING=1 starts it), so its work
// shows apart from the server's. Prints its port on the first line; on
// SIGTERM prints the spans it received and exits.
import http from 'node:http';

let spans = 0;
let requests = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    requests += 1;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resource of body.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
    } catch {
      // not JSON: counted as a request only
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => {
  console.log(JSON.stringify({ spans, requests }));
  process.exit(0);
});
