// The load generator, run as its own process by bench/ingress.mjs so it
// does not share a CPU budget with the server's event loop.
// Input (argv[2], JSON): { url, targets: [{ path, authorization }], connections, duration, rate? }
// Output (stdout, JSON): autocannon's result summary.
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2]);
let next = 0;

const requests = [
  {
    method: 'POST',
    // Each request goes to the next webhook in turn, with a fresh delivery ID
    // so every one is a new accepted delivery (no dedup shortcut).
    setupRequest: (request) => {
      if (!options.targets.length) return { ...request, method: 'GET', path: options.path };
      const target = options.targets[next++ % options.targets.length];
      const id = randomUUID();
      return {
        ...request,
        path: target.path,
        headers: {
          'content-type': 'application/json',
          authorization: target.authorization,
          'x-service-delivery-id': id,
        },
        body: JSON.stringify({ event: 'bench', id, at: Date.now(), data: { items: [1, 2, 3], note: 'x'.repeat(200) } }),
      };
    },
  },
];

const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.duration,
  ...(options.rate ? { overallRate: options.rate } : {}),
  requests,
});
process.stdout.write(
  JSON.stringify({
    requests: result.requests.total,
    perSecond: result.requests.average,
    latency: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    statusCodes: result.statusCodeStats,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    duration: result.duration,
  }),
);
