import client from 'prom-client';

// Prometheus metrics, served at /metrics when TRIPLINE_METRICS_TOKEN is set.
// Labels are bounded on purpose: outcome, auth mode and signature scheme
// (29 schemes at most), never a webhook UID or a factory, so one busy
// installation cannot blow up a Prometheus server's series count.
//
// The registry lives on globalThis: Next.js may load this module in more than
// one bundle of the process, and every copy must count into the same series.

type Metrics = ReturnType<typeof createMetrics>;

const key = Symbol.for('tripline.metrics');

/** Every outcome an ingress request can have. */
export type IngressOutcome =
  | 'accepted'
  | 'duplicate'
  | 'rejected_auth'
  | 'rejected_invalid_json'
  | 'rejected_too_large'
  | 'handshake'
  | 'not_found'
  /** From an address outside the webhook's IP allowlist: answered 404 like an unknown webhook. */
  | 'refused_address'
  | 'method_not_allowed'
  | 'rate_limited'
  | 'unavailable'
  /** A 500: the pipeline threw (a defect, or a database error that is not an outage), or answered a status of no other outcome. */
  | 'error';

/** Refusals by a rate limit or budget. */
export type Budget = 'delivery_rate' | 'auth_failure' | 'unauthenticated_writes' | 'sign_in' | 'repository_check' | 'backtest';

function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'tripline_' });
  const ingressRequests = new client.Counter({
    name: 'tripline_ingress_requests_total',
    help: 'Requests to /webhooks/w/..., by outcome, auth mode and signature scheme',
    labelNames: ['outcome', 'auth_mode', 'scheme'] as const,
    registers: [registry],
  });
  const ingressDuration = new client.Histogram({
    name: 'tripline_ingress_request_duration_seconds',
    help: 'Time to answer an ingress request, by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const refusals = new client.Counter({
    name: 'tripline_budget_refusals_total',
    help: 'Requests refused by a rate limit or budget (429), by budget',
    labelNames: ['budget'] as const,
    registers: [registry],
  });
  const runs = new client.Counter({
    name: 'tripline_runs_total',
    help: 'Run executions that ended, by outcome (retried: failed and queued again) and executor',
    labelNames: ['outcome', 'executor'] as const,
    registers: [registry],
  });
  const runDuration = new client.Histogram({
    name: 'tripline_run_duration_seconds',
    help: 'Time an executor took for one run attempt',
    labelNames: ['executor'] as const,
    buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800],
    registers: [registry],
  });
  const syncs = new client.Counter({
    name: 'tripline_repository_syncs_total',
    help: 'Repository syncs of repository-backed factories, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const backtestCopies = new client.Counter({
    name: 'tripline_backtest_copies_total',
    help: "Delivery bodies copied to jsonb for Backtest's SQL path by this instance (a few seconds behind the ingress)",
    registers: [registry],
  });
  // Run control (docs/automations.md, Run control): each time a matched delivery's run under run control enters an
  // outcome, counted where it entered it (the scheduler; for cancelled also a worker, the sweep or a member's cancel).
  const runControlOutcomes = new client.Counter({
    name: 'tripline_run_control_outcomes_total',
    help: 'Outcomes runs under run control entered in this process (started, waiting, debouncing, throttled, superseded, debounced, skipped, cancelled, cancel_requested)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const queueDepth = new client.Gauge({ name: 'tripline_run_queue_depth', help: 'Runs queued (all factories)', registers: [registry] });
  const queueAge = new client.Gauge({
    name: 'tripline_run_queue_oldest_age_seconds',
    help: 'Age of the oldest queued run, 0 when none is queued',
    registers: [registry],
  });
  const pool = new client.Gauge({
    name: 'tripline_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting clients); absent on embedded PGlite',
    labelNames: ['state'] as const,
    registers: [registry],
  });
  // The log streams (GET .../deliveries/stream): how many are open, and what they
  // have handed to their connections. A stream reads the log only as fast as its
  // client reads, so the bytes stop growing while a client does not read.
  const logStreamsOpen = new client.Gauge({ name: 'tripline_log_streams_open', help: 'Log streams (server-sent events) open on this instance', registers: [registry] });
  const logStreamBytes = new client.Counter({
    name: 'tripline_log_stream_sent_bytes_total',
    help: 'Bytes of server-sent events the log streams have handed to their connections',
    registers: [registry],
  });
  // Connections' recovery passes (lib/domain/connections/recover.ts), by provider kind (four at most).
  const connectionPasses = new client.Counter({
    name: 'tripline_connection_passes_total',
    help: 'Recovery passes that ended, by provider and outcome (ok, failed, cut: stopped by a bound)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [registry],
  });
  const connectionRecoveries = new client.Counter({
    name: 'tripline_connection_recoveries_total',
    help: 'Missed deliveries a recovery pass asked the provider to send again (or imported), by provider',
    labelNames: ['provider'] as const,
    registers: [registry],
  });
  const connectionFailures = new client.Counter({
    name: 'tripline_connection_failures_total',
    help: 'Provider API calls that failed (after retries), by provider',
    labelNames: ['provider'] as const,
    registers: [registry],
  });
  return { registry, connectionPasses, connectionRecoveries, connectionFailures, ingressRequests, ingressDuration, refusals, runs, runDuration, runControlOutcomes, syncs, backtestCopies, queueDepth, queueAge, pool, logStreamsOpen, logStreamBytes };
}

export function metrics(): Metrics {
  const holder = globalThis as Record<symbol, Metrics | undefined>;
  holder[key] ??= createMetrics();
  return holder[key]!;
}

export function countRefusal(budget: Budget): void {
  metrics().refusals.inc({ budget });
}
