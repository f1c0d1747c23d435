import { scrape } from '@/lib/platform/metrics-endpoint';

export const dynamic = 'force-dynamic';

// GET /metrics: Prometheus metrics, off unless TRIPLINE_METRICS_TOKEN is set,
// then only with that token as a bearer.
export function GET(request: Request): Promise<Response> {
  return scrape(request);
}
