import 'server-only';
import Stripe from 'stripe';
import { z } from 'zod';
import { boundedFetch, BoundReached, PROVIDER_API_BASE, REQUEST_TIMEOUT_MS, type Bounds } from '@/lib/domain/connections/fetch';
import { ProviderError, type AdapterOptions, type DeliveryPage, type ProviderAdapter, type ProviderDelivery, type ProviderHook, type ProviderModule } from '@/lib/domain/connections/provider';
import { normaliseSenderId } from '@/lib/ingress/identity';
import { providerBodyDeliveryId } from '@/lib/ingress/signatures/verify';

// A Stripe account's webhook endpoint through stripe-node
// (docs/connections.md, Stripe). Stripe keeps an account's events 30 days and
// lists them account-wide, newest first, filtered by creation time, type and
// `delivery_success=false` (not yet delivered to every endpoint). It has no
// API to send an event again, so a missed event is recovered by import: the
// listing carries the event itself, which the pass records as the delivery
// (lib/domain/connections/import.ts). Stripe makes the endpoint's signing
// secret (`whsec_...`) and returns it once, at creation; it cannot be set or
// read later, so an endpoint is created by Tripline or not used
// (docs/decisions/0111-stripe-connections-recover-by-import.md).

/** `self` (the API key's own account) or a connected account's ID, reached with the Stripe-Account header. */
const TARGET = /^(?:self|acct_[A-Za-z0-9]{1,64})$/;
const PER_PAGE = 100;
/** Stripe takes at most 20 `types[]` in one listing; more, or `*`, lists every type and the pass keeps the wanted ones. */
const MAX_TYPES = 20;

// What Tripline reads of Stripe's answers; anything else is garbage, and said so.
const eventItem = z
  .object({
    id: z.string().min(1).max(200),
    object: z.literal('event'),
    type: z.string().min(1).max(200),
    created: z.number().int(),
    pending_webhooks: z.number().int(),
    api_version: z.string().nullable().optional(),
  })
  .loose();
const eventList = z.object({ object: z.literal('list'), data: z.array(eventItem), has_more: z.boolean() });
const endpointItem = z
  .object({
    id: z.string().min(1).max(200),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    enabled_events: z.array(z.string()),
    status: z.string(),
    created: z.number().int(),
    secret: z.string().optional(),
  })
  .loose();
const endpointList = z.object({ object: z.literal('list'), data: z.array(endpointItem), has_more: z.boolean() });

function parsed<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const result = schema.safeParse(data);
  if (!result.success) throw new ProviderError(`Stripe answered something that is not ${what}`, null);
  return result.data;
}

const hookOf = (endpoint: z.infer<typeof endpointItem>): ProviderHook => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.enabled_events,
  active: endpoint.status === 'enabled',
  ...(endpoint.secret ? { secret: endpoint.secret } : {}),
});

/** Stripe's answer as a ProviderError that says what to do about it. */
function explain(error: unknown): never {
  if (error instanceof ProviderError || error instanceof BoundReached) throw error;
  // stripe-node wraps what its fetch threw (StripeConnectionError.detail); a bound the pass reached stays one.
  const detail = (error as { detail?: unknown }).detail;
  if (detail instanceof BoundReached) throw detail;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof BoundReached) throw cause;
  const status = (error as { statusCode?: number }).statusCode;
  const headers = ((error as { headers?: Record<string, string | undefined> }).headers ?? {}) as Record<string, string | undefined>;
  const message = ((error as Error).message ?? '').slice(0, 300);
  const retryAfter = Number(headers['retry-after'] ?? headers['Retry-After']);
  if (status === 401) {
    throw new ProviderError("Stripe refused the API key (HTTP 401): it is wrong, expired or rolled. Put a valid secret or restricted key in the connection's team secret.", 401, { permanent: true });
  }
  if (status === 403) {
    throw new ProviderError(
      'Stripe refused the request (HTTP 403): the restricted key lacks a permission. It needs "Webhook Endpoints" write and "Events" read.',
      403,
      { permanent: true },
    );
  }
  if (status === 429 || (status !== undefined && status >= 500)) {
    throw new ProviderError(`Stripe answered HTTP ${status}${status === 429 ? ' (rate limit)' : ''}`, status, {
      retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : status === 429 ? 1 : 0,
    });
  }
  if (status === 404) throw new ProviderError(`Stripe answered HTTP 404: ${message}`, 404, { permanent: true });
  if (status === 400) throw new ProviderError(`Stripe refused the request (HTTP 400): ${message}`, 400, { permanent: true });
  if ((error as { type?: string }).type === 'StripeAPIError' && status === undefined) throw new ProviderError('Stripe answered something that is not JSON', null);
  if (status !== undefined) throw new ProviderError(`Stripe answered HTTP ${status}: ${message}`, status, { retryAfterSeconds: 0 });
  throw new ProviderError(`Stripe could not be reached: ${message}`, null, { retryAfterSeconds: 0 });
}

export function stripeAdapter(options: { apiBaseUrl: string; key: string; target: string; bounds: Bounds }): ProviderAdapter {
  const base = new URL(options.apiBaseUrl);
  // Every request goes through boundedFetch: the outbound address rules, the
  // time limit and the pass's byte budget; stripe-node's own retries are off
  // (the pass retries within its bounds, after Retry-After).
  const stripe = new Stripe(options.key, {
    host: base.hostname,
    port: base.port || (base.protocol === 'https:' ? 443 : 80),
    protocol: base.protocol === 'https:' ? 'https' : 'http',
    httpClient: Stripe.createFetchHttpClient(boundedFetch(options.bounds)),
    maxNetworkRetries: 0,
    timeout: REQUEST_TIMEOUT_MS,
    telemetry: false,
    appInfo: { name: 'Tripline-Connections' },
    ...(options.target.startsWith('acct_') ? { stripeAccount: options.target } : {}),
  });
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      explain(error);
    }
  };
  // The endpoint a pass lists events for, read once per pass (adapter).
  const endpoints = new Map<string, z.infer<typeof endpointItem>>();
  const endpoint = async (hookId: string) => {
    const known = endpoints.get(hookId);
    if (known) return known;
    const read = await call(() => stripe.webhookEndpoints.retrieve(hookId)).catch((error: unknown) => {
      if (error instanceof ProviderError && error.status === 404) {
        throw new ProviderError(`Stripe has no webhook endpoint ${hookId} any more (deleted in the Dashboard?): connect the webhook again`, 404, { permanent: true });
      }
      throw error;
    });
    const found = parsed(endpointItem, read, 'a webhook endpoint');
    endpoints.set(hookId, found);
    return found;
  };

  return {
    async listDeliveries(hookId, cursor) {
      const hook = await endpoint(hookId);
      const types = hook.enabled_events.includes('*') || hook.enabled_events.length > MAX_TYPES ? undefined : hook.enabled_events;
      // Account-wide events, only since the endpoint exists: earlier ones were never meant for it.
      const response = await call(() =>
        stripe.events.list({
          limit: PER_PAGE,
          delivery_success: false,
          created: { gte: hook.created },
          ...(types ? { types } : {}),
          ...(cursor ? { starting_after: cursor } : {}),
        }),
      );
      const page = parsed(eventList, { object: response.object, data: response.data, has_more: response.has_more }, 'a list of events');
      const deliveries: ProviderDelivery[] = [];
      for (const event of page.data) {
        const identity = normaliseSenderId(providerBodyDeliveryId('stripe', event) ?? '');
        if (!identity) throw new ProviderError('Stripe answered an event without an ID', null);
        deliveries.push({
          attemptId: event.id,
          identity,
          deliveredAt: new Date(event.created * 1000),
          eventType: event.type,
          event: event.type,
          // Listed with delivery_success=false: not delivered to every endpoint. Whether ours got it is the log's to say.
          outcome: 'failure',
          redelivery: false,
          payload: event,
        });
      }
      const last = page.data[page.data.length - 1];
      return { deliveries, next: page.has_more && last ? last.id : null, bytes: JSON.stringify(page.data).length } satisfies DeliveryPage;
    },
    async fetchDelivery(_hookId, attemptId) {
      const event = parsed(eventItem, await call(() => stripe.events.retrieve(attemptId)), 'an event');
      return { headers: {}, payload: event };
    },
    redeliver() {
      // Stripe has no public API to send an event again (the CLI's retry endpoint is undocumented; stripe-node declined it).
      return Promise.reject(new ProviderError('Stripe cannot be asked to send an event again: its events are imported', null, { permanent: true }));
    },
    async findHook(url) {
      let startingAfter: string | undefined;
      // An account has at most 16 endpoints; a few pages at most.
      for (let page = 0; page < 10; page++) {
        const response = await call(() => stripe.webhookEndpoints.list({ limit: PER_PAGE, ...(startingAfter ? { starting_after: startingAfter } : {}) }));
        const list = parsed(endpointList, { object: response.object, data: response.data, has_more: response.has_more }, 'a list of webhook endpoints');
        const found = list.data.find((item) => item.url === url);
        if (found) return hookOf(found);
        if (!list.has_more || !list.data.length) return null;
        startingAfter = list.data[list.data.length - 1]!.id;
      }
      return null;
    },
    async createHook(settings) {
      const created = await call(() =>
        stripe.webhookEndpoints.create({
          url: settings.url,
          enabled_events: (settings.events.length ? settings.events : ['*']) as Stripe.WebhookEndpointCreateParams.EnabledEvent[],
          description: 'Tripline (connected: events missed are imported by its recovery pass)',
        }),
      );
      const hook = parsed(endpointItem, created, 'a webhook endpoint');
      if (!hook.secret?.startsWith('whsec_')) throw new ProviderError('Stripe created the webhook endpoint without returning its signing secret', null);
      return hookOf(hook);
    },
    async updateHook(hookId, settings) {
      // The URL and the events; the secret is Stripe's and cannot be set.
      const updated = await call(() =>
        stripe.webhookEndpoints.update(hookId, {
          url: settings.url,
          enabled_events: (settings.events.length ? settings.events : ['*']) as Stripe.WebhookEndpointUpdateParams.EnabledEvent[],
          disabled: false,
        }),
      );
      endpoints.delete(hookId);
      return hookOf(parsed(endpointItem, updated, 'a webhook endpoint'));
    },
    async deleteHook(hookId) {
      try {
        await call(() => stripe.webhookEndpoints.del(hookId));
      } catch (error) {
        // Already gone on Stripe's side: what disconnecting wanted.
        if (error instanceof ProviderError && error.status === 404) return;
        throw error;
      }
    },
  };
}

export const stripeAccount: ProviderModule = {
  kinds: ['stripe_account'],
  name: 'Stripe',
  scheme: 'stripe',
  retentionDays: 30,
  recovery: 'import',
  secretMadeBy: 'provider',
  defaultApiBaseUrl: PROVIDER_API_BASE.stripe,
  checkTarget: (_kind, target) => (TARGET.test(target) ? null : 'Enter self (the API key’s own account) or a connected account’s ID (acct_...)'),
  hookPage: (_kind, _apiBaseUrl, _target, hookId) => `https://dashboard.stripe.com/webhooks/${encodeURIComponent(hookId)}`,
  open: (options: AdapterOptions) => {
    if (!TARGET.test(options.target)) throw new ProviderError(`${options.target} is not a Stripe account (self or acct_...)`, null, { permanent: true });
    return stripeAdapter({ apiBaseUrl: options.apiBaseUrl, key: options.credential, target: options.target, bounds: options.bounds });
  },
};
