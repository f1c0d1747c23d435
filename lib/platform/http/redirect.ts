// Where to send a browser after sign-in (or any other step) when the target
// comes from the request, such as `?callbackUrl=`. A target is followed only
// when it resolves, against our own origin, to our own origin: the URL parser
// decides, exactly as the browser will, so tricks like `/\evil.example` or
// `//evil.example` (which browsers read as another host) go to `/` instead.

/**
 * A same-origin path (with query and fragment) for `target`, or `/`.
 * `origin` is this Tripline's origin, e.g. `https://hooks.example.com`.
 */
export function safeRedirectPath(target: unknown, origin: string): string {
  const value = Array.isArray(target) ? target[0] : target;
  if (typeof value !== 'string' || value === '') return '/';
  let base: URL;
  let url: URL;
  try {
    base = new URL(origin);
    url = new URL(value, base);
  } catch {
    return '/';
  }
  if (url.origin !== base.origin) return '/';
  // A path that begins with two slashes would itself be read as a host.
  const path = `/${url.pathname.replace(/^\/+/, '')}`;
  return `${path}${url.search}${url.hash}`;
}
