import type { ConnectionProvider } from '@/lib/generated/prisma/client';

// One interface for every provider whose API Tripline talks to: list the
// deliveries it made (newest first, page by page), fetch one, ask it to send
// one again, and create, find, update and delete its hook. A provider is one
// file in providers/ implementing this; the recovery pass and connect
// (service.ts, recover.ts) never know which provider they talk to.

export type ProviderKind = ConnectionProvider;

/** One attempt the provider made to send a delivery. */
export type ProviderDelivery = {
  /** The provider's id of this attempt (GitHub: the delivery's numeric id). */
  attemptId: string;
  /** The identity the live delivery carries (GitHub: X-GitHub-Delivery), compared with the log. */
  identity: string;
  deliveredAt: Date;
  /** The event type as the log records it (GitHub: `event` or `event.action`). */
  eventType: string;
  /** The event alone (GitHub: `issues`), for subscriptions made by event name. */
  event: string;
  /** The provider's verdict on this attempt (GitHub: a 2xx answer, or not). */
  outcome: 'success' | 'failure';
  /** This attempt was a redelivery. */
  redelivery: boolean;
};

export type DeliveryPage = { deliveries: ProviderDelivery[]; next: string | null; bytes: number };

export type ProviderHook = { id: string; url: string; events: string[]; active: boolean };

export type HookSettings = { url: string; secret: string; events: string[] };

export interface ProviderAdapter {
  /** A page of deliveries, newest first; `cursor` null for the first. */
  listDeliveries(hookId: string, cursor: string | null): Promise<DeliveryPage>;
  /** One delivery's request as the provider kept it (headers and payload); not needed by redelivery. */
  fetchDelivery(hookId: string, attemptId: string): Promise<{ headers: Record<string, string>; payload: unknown }>;
  /** Ask the provider to send the delivery again; it then arrives, signed, through the ingress. */
  redeliver(hookId: string, attemptId: string): Promise<void>;
  /** The hook that already sends to `url`, if any (adoption). */
  findHook(url: string): Promise<ProviderHook | null>;
  createHook(settings: HookSettings): Promise<ProviderHook>;
  updateHook(hookId: string, settings: HookSettings): Promise<ProviderHook>;
  deleteHook(hookId: string): Promise<void>;
}

/** How far back the provider keeps deliveries. */
export const RETENTION_DAYS: Record<ProviderKind, number> = {
  github_repository: 3,
  github_organization: 3,
  gitlab_project: 7,
  stripe_account: 30,
};

/**
 * A failure the provider answered, in words for the person reading the
 * connection's state. `retryAfterSeconds` is set for rate limits, server
 * errors and unreachable providers: the pass waits and tries the call again
 * within its time bound. `permanent` marks failures no retry fixes (a wrong
 * credential). Neither: the pass stops and the next pass tries again
 * (garbage answers).
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly options: { retryAfterSeconds?: number; permanent?: boolean } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
