// The secrets a URL can carry, out of whatever Tripline writes down about a
// request (a span's name and attributes, a log line): an ingress URL token
// (/webhooks/w/<uid>/<token>), an invitation link's token, and any query.

const SECRET_PATHS: Array<[RegExp, string]> = [
  [/(\/webhooks\/w\/[^/?#\s]+)\/[^?#\s]+/g, '$1/[redacted]'],
  [/(\/invite\/)[^/?#\s]+/g, '$1[redacted]'],
];

/** A span name, attribute value or log field without the secrets a URL can carry: path tokens, and the query of a path or URL. */
export function redactUrlText(value: string): string {
  // Every pattern needs a slash: most attribute values (IDs, statuses, event types) have none.
  if (!value.includes('/')) return value;
  let text = value;
  for (const [pattern, replacement] of SECRET_PATHS) text = text.replace(pattern, replacement);
  return /^(\/|https?:\/\/)/.test(text) ? text.replace(/\?.*$/s, '?[redacted]') : text;
}
