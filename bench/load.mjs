// The load generator, run as its own process by bench/ingress.mjs and
// bench/limits.mjs so it does not share a CPU budget with the server's event loop.
// Input (argv[2], JSON, or @<file> holding it): { url, targets: [{ path, authorization }], connections, duration, rate?, window? }
// Output (stdout, JSON): requests, perSecond, latency { p50, p90, p99, max } in ms,
// statusCodes { code: { count } }, non2xx, errors, timeouts, duration; with `rate`, also
// histogram { ms: count }. With `rate` and `window` (seconds) and no `duration`: runs
// until stdin ends, writing one such object per window, one per line.
//
// Two kinds of load:
//   without `rate`: as fast as the server answers, with `connections`
//     requests in flight (closed loop; autocannon). The throughput figures.
//   with `rate`: a steady `rate` requests a second, one every 1000/rate ms
//     whatever the server does (open loop, like wrk2 or k6's
//     constant-arrival-rate), each request's latency counted from the
//     moment it was due, so a stall delays the requests behind it and their
//     wait counts (no coordinated omission). The latency figures "at 200/s".
//     autocannon's own rate option is not used for them: it lets each
//     connection send its share of a second's requests back to back at the
//     start of every second, so "200/s" was a burst of 200 every second, and
//     autocannon 9 corrects for coordinated omission with an interval of
//     Math.ceil(1 / rate) = 1 ms instead of 1000 / rate ms, which records a
//     response of L ms L times over (docs/benchmarks/history.md, "Steady load").
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import autocannon from 'autocannon';

// `@file`: the options in a file (a list of 20,000 targets is past what one argument may hold).
const argument = process.argv[2];
const options = JSON.parse(argument.startsWith('@') ? fs.readFileSync(argument.slice(1), 'utf8') : argument);
let next = 0;

/** The next request: to the next webhook in turn, with a fresh delivery ID, so every one is a new accepted delivery (no dedup shortcut). */
function nextDelivery() {
  const target = options.targets[next++ % options.targets.length];
  const id = randomUUID();
  return {
    path: target.path,
    headers: { 'content-type': 'application/json', authorization: target.authorization, 'x-service-delivery-id': id },
    body: JSON.stringify({ event: 'bench', id, at: Date.now(), data: { items: [1, 2, 3], note: 'x'.repeat(200) } }),
  };
}

const result = options.rate ? await steady() : await closedLoop();
if (result) process.stdout.write(JSON.stringify(result));

async function closedLoop() {
  const requests = [
    {
      method: 'POST',
      setupRequest: (request) => {
        if (!options.targets.length) return { ...request, method: 'GET', path: options.path };
        return { ...request, ...nextDelivery() };
      },
    },
  ];
  const r = await autocannon({ url: options.url, connections: options.connections, duration: options.duration, requests });
  return {
    requests: r.requests.total,
    perSecond: r.requests.average,
    latency: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    statusCodes: r.statusCodeStats,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    duration: r.duration,
  };
}

async function steady() {
  const base = new URL(options.url);
  // Enough sockets for every request a stall of a few seconds would leave waiting.
  // Idle ones close after 60 s, as a proxy's do (nginx), before the server's
  // keep-alive (TRIPLINE_KEEP_ALIVE_SECONDS): the client closes idle sockets, never the server.
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(options.connections, options.rate * 5), timeout: 60_000 });
  const interval = 1000 / options.rate;
  // Without `window`, one window as long as the run. With it, the run goes on
  // until stdin ends (or `duration`), and each window is written as a line
  // once all its requests have ended: one warm process and one set of
  // connections across windows, rather than a cold process per window.
  const windowMs = (options.window ?? options.duration) * 1000;
  const total = options.duration ? Math.round(options.duration * options.rate) : Infinity;
  const windows = [];
  const windowOf = (index) => (windows[index] ??= { latencies: [], statusCodes: {}, errors: 0, errorCodes: {}, timeouts: 0, pending: 0 });
  let stopped = false;
  if (options.window && !options.duration) process.stdin.once('end', () => (stopped = true)).resume();

  const send = (due, w) =>
    new Promise((resolve) => {
      const request = options.targets.length ? { method: 'POST', ...nextDelivery() } : { method: 'GET', path: options.path, headers: {} };
      const req = http.request(
        { host: base.hostname, port: base.port, agent, method: request.method, path: request.path, headers: request.body ? { ...request.headers, 'content-length': Buffer.byteLength(request.body) } : request.headers, timeout: 10_000 },
        (res) => {
          res.resume();
          res.once('end', () => {
            const code = String(res.statusCode);
            w.statusCodes[code] = { count: (w.statusCodes[code]?.count ?? 0) + 1 };
            w.latencies.push(performance.now() - due);
            resolve();
          });
        },
      );
      let timedOut = false;
      req.once('timeout', () => {
        timedOut = true;
        req.destroy(new Error('timeout'));
      });
      // A timeout ends in this error too: it counts once, as a timeout.
      req.once('error', (error) => {
        if (timedOut) w.timeouts += 1;
        else {
          w.errors += 1;
          w.errorCodes[error.code ?? error.message] = (w.errorCodes[error.code ?? error.message] ?? 0) + 1;
        }
        resolve();
      });
      req.end(request.body);
    });

  const start = performance.now() + 10;
  let sent = 0;
  let written = 0;
  // Writes every window whose sending is over and whose requests have all ended, in order.
  const flush = (sendingOver) => {
    while (written < windows.length && windows[written].pending === 0 && (sendingOver || sent * interval >= (written + 1) * windowMs)) {
      if (options.window) process.stdout.write(`${JSON.stringify(summary(windows[written]))}\n`);
      written += 1;
    }
  };
  const pending = [];
  await new Promise((done) => {
    const tick = () => {
      const now = performance.now();
      // Every request that is due by now goes out now, counted from when it was due.
      while (sent < total && !stopped && start + sent * interval <= now) {
        const due = start + sent * interval;
        const w = windowOf(Math.floor((due - start) / windowMs));
        w.pending += 1;
        pending.push(
          send(due, w).then(() => {
            w.pending -= 1;
            flush(false);
          }),
        );
        sent += 1;
      }
      if (sent < total && !stopped) setTimeout(tick, Math.max(0, Math.min(interval, start + sent * interval - performance.now())));
      else done();
    };
    setTimeout(tick, 10);
  });
  await Promise.all(pending);
  agent.destroy();
  flush(true);
  return options.window ? null : summary(windowOf(0));
}

/** One window's figures; `histogram` lets windows be merged into one percentile. */
function summary(w) {
  const latencies = w.latencies.sort((a, b) => a - b);
  const at = (q) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]) : null);
  const ok = Object.entries(w.statusCodes).reduce((sum, [code, { count }]) => sum + (code.startsWith('2') ? count : 0), 0);
  // At a constant rate, a window's requests say how long it was (the last one may be cut short).
  const seconds = (latencies.length + w.errors + w.timeouts) / options.rate;
  return {
    requests: latencies.length,
    perSecond: Math.round(latencies.length / (options.window ?? options.duration)),
    latency: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: latencies.length ? Math.round(latencies.at(-1)) : null },
    statusCodes: w.statusCodes,
    non2xx: latencies.length - ok,
    errors: w.errors,
    errorCodes: w.errorCodes,
    timeouts: w.timeouts,
    duration: seconds,
    // Latencies by whole millisecond (ms: count), so that windows can be merged into one percentile.
    histogram: latencies.reduce((counts, latency) => {
      const ms = Math.round(latency);
      counts[ms] = (counts[ms] ?? 0) + 1;
      return counts;
    }, {}),
  };
}
