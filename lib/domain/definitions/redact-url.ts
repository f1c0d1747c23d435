// A plain module (no server-only), so pages and components can redact too.

/** Credentials in a URL (https://user:token@host) never reach a message or the dashboard. */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}
