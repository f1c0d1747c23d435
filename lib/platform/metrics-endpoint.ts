import 'server-only';
import { peekDatabase } from '@/lib/platform/db';
import { sqlWithin } from '@/lib/platform/db/sql';
import { bearerToken } from '@/lib/platform/http/bearer';
import { env } from '@/lib/platform/env';
import { errorFields, log } from '@/lib/platform/log';
import { metrics } from '@/lib/platform/metrics';
import { bytesEqual } from '@/lib/platform/crypto/compare';

// The /metrics endpoint: the bearer check, then the gauges that are read at
// scrape time (run queue, database pool), then the registry's text format.

function authorized(request: Request, token: string): boolean {
  const offered = bearerToken(request.headers);
  return offered !== null && bytesEqual(offered, token);
}

/** How long a scrape's read of the run queue may take (a migration holding "Run", say): then the gauges read NaN. */
const QUEUE_READ_MS = 2_000;

async function readGauges(): Promise<void> {
  const { queueDepth, queueAge, pool } = metrics();
  const database = peekDatabase();
  if (!database) return;
  const connections = database.adapter.pool;
  if (connections) {
    pool.set({ state: 'total' }, connections.totalCount);
    pool.set({ state: 'idle' }, connections.idleCount);
    pool.set({ state: 'waiting' }, connections.waitingCount);
  }
  try {
    const [row] = await sqlWithin<{ depth: number | string; age: number | string | null }>(
      QUEUE_READ_MS,
      `SELECT count(*) AS "depth", EXTRACT(EPOCH FROM now() - min("createdAt")) AS "age" FROM "Run" WHERE "status" = 'queued'`,
    );
    queueDepth.set(Number(row?.depth ?? 0));
    queueAge.set(Math.max(0, Number(row?.age ?? 0)));
  } catch (error) {
    // Not the last values read: a queue that cannot be read must not look like a healthy one.
    queueDepth.set(Number.NaN);
    queueAge.set(Number.NaN);
    log('metrics').warn({ ...errorFields(error) }, 'could not read the run queue for /metrics');
  }
}

export async function scrape(request: Request): Promise<Response> {
  const token = env().metricsToken;
  if (!token) return new Response('Not found\n', { status: 404, headers: { 'Content-Type': 'text/plain' } });
  if (!authorized(request, token)) {
    return new Response('Send TRIPLINE_METRICS_TOKEN as "Authorization: Bearer <token>"\n', {
      status: 401,
      headers: { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer realm="tripline-metrics"' },
    });
  }
  await readGauges();
  const { registry } = metrics();
  return new Response(await registry.metrics(), { headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' } });
}
