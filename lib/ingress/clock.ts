import { env } from '@/lib/platform/env';

// The current unix time for signature windows. Test servers (and only they,
// with TRIPLINE_TEST_CLOCK=true) may set it per request with the
// X-Tripline-Test-Now header, so published vectors signed years ago can be
// checked at their own "now" over real HTTP without sleeping.
export function requestNow(headers: Headers): number {
  if (env().testClock) {
    const forced = headers.get('x-tripline-test-now');
    if (forced && /^\d{1,12}$/.test(forced)) return Number(forced);
  }
  return Math.floor(Date.now() / 1000);
}
