import { env } from '@/lib/env';
import { advanceTestClock } from '@/lib/health/clock';

// POST /api/test/clock {"advanceSeconds": n}: test servers only (TRIPLINE_TEST_CLOCK=true); moves the
// time health is judged at forward. Everywhere else it does not exist (404).
export async function POST(request: Request): Promise<Response> {
  if (!env().testClock) return Response.json({ error: { code: 'not_found', message: 'Not found' } }, { status: 404 });
  const body = (await request.json().catch(() => null)) as { advanceSeconds?: unknown } | null;
  const seconds = body?.advanceSeconds;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > 366 * 86_400) {
    return Response.json({ error: { code: 'validation_failed', message: 'advanceSeconds must be a whole number of seconds' } }, { status: 422 });
  }
  return Response.json({ now: (await advanceTestClock(seconds)).toISOString() });
}
