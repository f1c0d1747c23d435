// Shared by the ingress (256 KiB) and the management API (1 MB, lib/adapters/api/handler.ts).
// Reads a request body without ever holding more than the limit: the
// Content-Length is checked first (413 at once, nothing read), then the
// stream is read chunk by chunk and abandoned the moment it passes the limit.

export type BodyResult = { ok: true; bytes: Buffer } | { ok: false; size: number };

/** The largest size a log entry records (a 32-bit integer, about 2 GB): a larger declared size is recorded as this. */
export const MAX_RECORDED_SIZE = 2_147_483_647;

/** The Content-Length the sender declared, or null when absent or not a plain number of bytes. */
export function declaredSize(headers: Headers): number | null {
  const declared = headers.get('content-length');
  if (declared === null || !/^\d+$/.test(declared)) return null;
  // Bounded where it is stored: the log's size column is a 32-bit integer, and a declared 3 GB (no
  // body needed) made the rejected entry's insert fail with a 500.
  return Math.min(Number(declared), MAX_RECORDED_SIZE);
}

export function declaredTooLarge(headers: Headers, limit: number): number | null {
  const size = declaredSize(headers);
  return size !== null && size > limit ? size : null;
}

export async function readBodyWithLimit(body: ReadableStream<Uint8Array> | null, limit: number): Promise<BodyResult> {
  if (!body) return { ok: true, bytes: Buffer.alloc(0) };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Stop reading: the rest of the upload is never buffered.
      await reader.cancel().catch(() => undefined);
      return { ok: false, size };
    }
    chunks.push(value);
  }
  return { ok: true, bytes: Buffer.concat(chunks, size) };
}
