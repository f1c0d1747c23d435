import { AsyncLocalStorage } from 'node:async_hooks';

// The request a piece of code is serving, set by the server entry around
// Next's handler. The logger reads it, so every line written while serving a
// request carries that request's id without each caller passing it. The entry
// and the app load this module separately: the store lives on globalThis.

export type RequestContext = { requestId: string };

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
