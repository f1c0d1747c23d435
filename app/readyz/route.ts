import { readiness } from '@/lib/server/readiness';

export const dynamic = 'force-dynamic';

// GET /readyz: readiness for load balancers: 200 when this instance can serve
// (database answers, migrations applied, keys match), 503 with the reason
// otherwise and while it drains for shutdown.
export async function GET(): Promise<Response> {
  const result = await readiness();
  const headers = { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' };
  if (result.ready) return new Response('ready\n', { headers });
  return new Response(`not ready: ${result.reason}\n`, { status: 503, headers });
}
