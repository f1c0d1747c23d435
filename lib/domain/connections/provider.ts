import type { ConnectionProvider } from '@/lib/generated/prisma/client';
import type { Bounds } from '@/lib/domain/connections/fetch';

// One interface for every provider whose API Tripline talks to: list the
// deliveries it made (newest first, page by page), fetch one, ask it to send
// one again (or hand its payload over for import), and create, find, update
// and delete its hook. A provider is one file in providers/ exporting a
// ProviderModule, listed once in providers/index.ts; the recovery pass and
// connect (service.ts, recover.ts) never know which provider they talk to.

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
  /**
   * The delivery's payload when the listing carries it (Stripe's events do):
   * what a provider recovered by import records, without another request.
   */
  payload?: unknown;
};

export type DeliveryPage = { deliveries: ProviderDelivery[]; next: string | null; bytes: number };

export type ProviderHook = {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  /** The signing secret the provider made for the hook, when it makes it (Stripe's `whsec_`, returned once at creation). */
  secret?: string;
};

export type HookSettings = { url: string; secret: string; events: string[] };

/** The connection's settings an adapter is opened with, the API credential read from its team secret. */
export type AdapterOptions = { kind: ProviderKind; apiBaseUrl: string; credential: string; target: string; bounds: Bounds };

/**
 * A provider, described once: its name, the signature scheme its deliveries
 * carry, how long it keeps them, how a missed one comes back, how its
 * targets are written, and its adapter.
 */
export type ProviderModule = {
  /** The connection kinds it serves (GitHub: repository and organization). */
  kinds: readonly ProviderKind[];
  /** For people: "GitHub". */
  name: string;
  /** The webhook's signature scheme its deliveries verify with. */
  scheme: string;
  /** Days the provider keeps its deliveries (the recovery pass looks no further back). */
  retentionDays: number;
  /**
   * How a missed delivery comes back: `redelivery` asks the provider to send
   * it again (it arrives, signed, through the ingress); `import` records the
   * payload the provider's API returned (origin `<scheme>_import`).
   */
  recovery: 'redelivery' | 'import';
  /**
   * Who makes the signing secret: `tripline` generates it and sets it on the
   * provider's hook; `provider` returns it when the hook is created
   * (ProviderHook.secret) and Tripline stores it.
   */
  secretMadeBy: 'tripline' | 'provider';
  /** The public API's root, used when a connection sets none. */
  defaultApiBaseUrl: string;
  /** What is wrong with a target (`owner/repo`, a project ID), in words; null when it is valid. */
  checkTarget(kind: ProviderKind, target: string): string | null;
  /** What is wrong with the event types a connection subscribes to, in words; null when they are valid (unset: any name goes). */
  checkEventTypes?(eventTypes: string[]): string | null;
  /**
   * The provider's own limit on redelivery requests (GitLab: 5 a minute per
   * hook and user, unless the instance's admin changed it), read at each
   * pass; undefined when there is none. The pass asks no faster than this,
   * nor than its own default (recover.ts, defaultRedeliveryRate).
   */
  redeliveryRate?: () => { burst: number; perMinute: number } | undefined;
  /** The hook's page on the provider's site, for people; null when there is none. */
  hookPage(kind: ProviderKind, apiBaseUrl: string, target: string, hookId: string): string | null;
  open(options: AdapterOptions): ProviderAdapter;
};

export interface ProviderAdapter {
  /** A page of deliveries, newest first; `cursor` null for the first. */
  listDeliveries(hookId: string, cursor: string | null): Promise<DeliveryPage>;
  /** One delivery's request as the provider kept it (headers and payload); not needed by redelivery. */
  fetchDelivery(hookId: string, attemptId: string): Promise<{ headers: Record<string, string>; payload: unknown }>;
  /** Ask the provider to send the delivery again; it then arrives, signed, through the ingress (recovery `redelivery`). */
  redeliver(hookId: string, attemptId: string): Promise<void>;
  /** The hook that already sends to `url`, if any (adoption). */
  findHook(url: string): Promise<ProviderHook | null>;
  createHook(settings: HookSettings): Promise<ProviderHook>;
  updateHook(hookId: string, settings: HookSettings): Promise<ProviderHook>;
  deleteHook(hookId: string): Promise<void>;
}

/**
 * A failure the provider answered, in words for the person reading the
 * connection's state. `retryAfterSeconds` is set for rate limits, server
 * errors and unreachable providers: the pass waits and tries the call again
 * within its time bound. `permanent` marks failures no retry fixes (a wrong
 * credential). Neither: the pass stops and the next pass tries again
 * (garbage answers).
 */
/**
 * The longest a provider's own word (Retry-After, a rate limit's reset time) holds a connection
 * back: an hour. The API base URL is an admin's to set, so the answer may be a hostile server's,
 * and a reset years away (or no number at all) must neither park the connection for good nor
 * make its next check an invalid date.
 */
export const MAX_PROVIDER_WAIT_SECONDS = 3_600;

export class ProviderError extends Error {
  readonly options: { retryAfterSeconds?: number; permanent?: boolean };

  constructor(
    message: string,
    readonly status: number | null,
    options: { retryAfterSeconds?: number; permanent?: boolean } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
    const wait = options.retryAfterSeconds;
    this.options = wait === undefined ? options : { ...options, retryAfterSeconds: Number.isFinite(wait) ? Math.min(MAX_PROVIDER_WAIT_SECONDS, Math.max(0, Math.ceil(wait))) : 0 };
  }
}
