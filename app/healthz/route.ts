// GET /healthz: liveness for load balancers and process managers. It touches
// nothing (no database), so it also serves as the trivial-route baseline in
// bench/ingress.mjs.
export const dynamic = 'force-dynamic';

export function GET(): Response {
  return new Response('ok\n', { headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' } });
}
