import { AsyncLocalStorage } from 'node:async_hooks';

// The request a piece of code is serving, set by the server entry around
// Next's handler. The logger reads it, so every line written while serving a
// request carries that request's id without each caller passing it. The entry
// and the app load this module separately: the store lives on globalThis.
//
// It also keeps the request's headers as they reached the server, before the
// entry rewrote X-Forwarded-For with the resolved client address, gave the
// request its id, and Next.js added X-Forwarded-Host, -Port and -Proto: the
// delivery log shows what the sender sent (lib/ingress/pipeline.ts), not
// what Tripline added on the way in.

// Node's IncomingMessage#rawHeaders: [name, value, name, value, ...] as received, which the
// entry's changes to req.headers leave as they were, so keeping it costs no copy.
export type RequestContext = { requestId: string; receivedHeaders?: readonly string[] };

const key = Symbol.for('tripline.request-context');

export function requestStore(): AsyncLocalStorage<RequestContext> {
  const holder = globalThis as Record<symbol, AsyncLocalStorage<RequestContext> | undefined>;
  holder[key] ??= new AsyncLocalStorage<RequestContext>();
  return holder[key]!;
}

/** The id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return requestStore().getStore()?.requestId;
}

/** The headers of the request being served as they reached the server entry; undefined outside it. */
export function receivedHeaders(): Headers | undefined {
  const raw = requestStore().getStore()?.receivedHeaders;
  if (!raw) return undefined;
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A value Node's parser took and the Fetch API does not: the request itself never saw it either.
    }
  }
  return headers;
}
