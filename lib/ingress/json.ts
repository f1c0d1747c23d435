// A body is valid when it is UTF-8 and parses as one JSON value (object,
// array, string, number, boolean or null). Invalid UTF-8 is rejected rather
// than replaced, so the stored text is exactly the bytes received.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type JsonResult = { ok: true; text: string; value: unknown } | { ok: false };

export function parseJsonBody(bytes: Buffer): JsonResult {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false };
  }
  // A BOM is not JSON (RFC 8259 §8.1: senders must not add one).
  if (text.charCodeAt(0) === 0xfeff) return { ok: false };
  try {
    return { ok: true, text, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
