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

// Names that carry a credential, never a signature computed from the body:
// GitLab's X-Gitlab-Token and Asana's X-Hook-Secret are the secret itself.
const CREDENTIAL = /authorization|cookie|token|secret|password|api-key|apikey/i;

/**
 * The original values of a scheme's signature headers, which redactHeaders
 * hides (signatures, MACs and the timestamps and IDs they sign; never a credential):
 * kept apart from the log's headers so `tripline listen` can forward a
 * delivery its local receiver verifies (docs/decisions/0071). Null when none.
 */
export function signatureHeaderValues(headers: Headers, signatureHeaders: readonly string[]): Record<string, string> | null {
  const kept: Record<string, string> = {};
  for (const name of signatureHeaders) {
    const lower = name.toLowerCase();
    const value = headers.get(lower);
    if (value === null || CREDENTIAL.test(lower)) continue;
    kept[lower] = value.slice(0, 2000);
  }
  return Object.keys(kept).length ? kept : null;
}
