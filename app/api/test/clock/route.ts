import { env } from '@/lib/platform/env';
import { setTestClockOffset } from '@/lib/domain/health/clock';

// POST /api/test/clock {"offsetSeconds": n}: test servers only (TRIPLINE_TEST_CLOCK=true); sets the
// time health is judged at n seconds ahead of the real time (0: the real time again). Everywhere else it does not exist (404).
export async function POST(request: Request): Promise<Response> {
  if (!env().testClock) return Response.json({ error: { code: 'not_found', message: 'Not found' } }, { status: 404 });
  const body = (await request.json().catch(() => null)) as { offsetSeconds?: unknown } | null;
  const seconds = body?.offsetSeconds;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > 366 * 86_400) {
    return Response.json({ error: { code: 'validation_failed', message: 'offsetSeconds must be a whole number of seconds from 0 to a year' } }, { status: 422 });
  }
  return Response.json({ now: (await setTestClockOffset(seconds)).toISOString() });
}
