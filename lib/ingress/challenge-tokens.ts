import { parseJsonBody } from '@/lib/ingress/json';
import { xCrcTokenShape } from '@/lib/ingress/signatures/x';

// Which challenge values the ingress may answer with an HMAC under the
// webhook's secret (the analysis is in lib/ingress/handshakes.ts). It lives
// beside the ingress's JSON parser rather than in signatures/, which the
// ingress imports and which imports nothing of it.

/**
 * X's CRC answer is HMAC-SHA256(consumer secret, crc_token), base64: exactly
 * the signature X puts on a delivery whose body is the token, and the CRC is
 * unsigned. So a token is answered only when the ingress's own JSON parser,
 * the one that decides whether a delivery is accepted, refuses it as a body
 * (`123`, `true`, `"a"` and `{"a":1}` are refused as tokens): a signature
 * obtained this way only ever signs a body the ingress rejects as invalid
 * JSON. Null when the token must not be answered.
 */
export function answerableCrcToken(value: string | null): string | null {
  const token = xCrcTokenShape(value);
  if (token === null) return null;
  return parseJsonBody(Buffer.from(token, 'utf8')).ok ? null : token;
}
