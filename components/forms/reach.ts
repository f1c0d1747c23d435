import type { ActionResult } from '@/lib/adapters/actions/action';

// A server action is a request: it can fail on the way (the network, a proxy's 502, a server
// restarting, a tab left open across an upgrade whose action no longer exists). The action's own
// wrapper (lib/adapters/actions/action.ts) turns every error on the server into a result; this
// turns a failure on the way into the same kind of result, so every form and button shows a
// message where it shows the server's, instead of an error page or nothing at all.

export const UNREACHABLE_MESSAGE =
  'Tripline did not answer: the connection failed or the server is restarting. Reload the page to see whether the change was made, then try again.';

/** The action, answering a failed request as a result with `unavailable` rather than throwing. */
export function reach<A extends unknown[], T>(action: (...args: A) => Promise<ActionResult<T>>): (...args: A) => Promise<ActionResult<T>> {
  return async (...args) => {
    try {
      return await action(...args);
    } catch {
      return { ok: false, error: { code: 'unavailable', message: UNREACHABLE_MESSAGE } };
    }
  };
}
