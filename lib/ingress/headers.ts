// Headers kept with an accepted delivery, for debugging. Credentials and
// signatures are redacted; so is anything whose name suggests a secret.
const REDACTED = '[redacted]';
const SENSITIVE = /authorization|cookie|signature|token|secret|hmac|api-key|apikey|password/i;

/** Whether a name (a header, or a payload field in the field catalogue) suggests a credential. */
export function looksSensitive(name: string): boolean {
  return SENSITIVE.test(name);
}

export function redactHeaders(headers: Headers, alsoSensitive: readonly string[] = []): Record<string, string> {
  const extra = new Set(alsoSensitive.map((h) => h.toLowerCase()));
  const kept: Record<string, string> = {};
  headers.forEach((value, name) => {
    kept[name] = looksSensitive(name) || extra.has(name) ? REDACTED : value.slice(0, 2000);
  });
  return kept;
}
