import 'server-only';
import { randomBytes } from 'node:crypto';
import { prisma, type Db, type Tx } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';
import { log } from '@/lib/platform/log';
import { metrics } from '@/lib/platform/metrics';
import { BoundReached, type Bounds } from '@/lib/domain/connections/fetch';
import { ProviderError, type ProviderDelivery } from '@/lib/domain/connections/provider';
import { connectionRow, moduleFor, openAdapter, type ConnectionRow } from '@/lib/domain/connections/service';
import { enqueueEvent, factoryRef } from '@/lib/domain/notifications/service';
import { importDelivery, importTarget } from '@/lib/domain/connections/import';

// The recovery pass (docs/connections.md, Recovering missed deliveries): for
// one connected webhook, list the provider's deliveries since the watermark
// (within the provider's retention), keep the event types the connection
// subscribes to before reading anything more, compare their identities
// (GitHub: the GUID, per hook) with the log, and ask the provider to send
// again what the log lacks. The redelivery then arrives signed through the
// ingress and is verified and deduplicated like any other delivery, so a
// redelivery that races the live one, or a second redelivery after a pass
// was killed, still makes one entry and one set of runs. A provider that
// cannot send again (Stripe, recovery `import`) lists the events themselves:
// the pass records each through the ingress's own acceptDelivery
// (import.ts), deduplicated by the same identity.
//
// One pass per connection at a time, on any number of instances: a lease on
// the connection's row (leaseOwner, leaseUntil), taken by one conditional
// UPDATE, renewed every 10 s by a timer while the pass runs (the pass checks
// it still holds it after every page and before every redelivery), released
// by the pass's last write; a pass whose instance died is taken over
// once its lease runs out (30 s), and on the embedded database at start
// (docs/decisions/0106-one-recovery-pass-per-connection-by-a-lease-on-its-row.md).
//
// The watermark only moves over what is settled: in the log, not wanted, or
// answered 2xx by Tripline at the time (an entry retention has pruned since
// must not come back). A delivery redelivered in this pass is settled only
// when a later pass finds it in the log, so one whose redelivery failed too is
// asked for again.

const logger = log('connections');

/**
 * How long a pass's lease lasts unless renewed. The pass renews it every
 * LEASE_SECONDS / 3 while it runs (and at most until its time limit), so a
 * pass whose instance died is taken over within LEASE_SECONDS.
 */
export const LEASE_SECONDS = 30;
/** Why a pass stopped without writing its state: another instance's pass took the lease, or a connect took it (service.ts). */
const LEASE_LOST = 'the lease was taken: by another instance, or by a connect that changed the connection';
/** How far behind the pass's start the watermark stays: a delivery made while the pass ran is listed by the next. */
const SKEW_MS = 5 * 60_000;
/** A failing connection's next pass: 1, 2, 4 ... minutes, at most the check interval. */
const backoffMs = (failures: number) => Math.min(env().connectionCheckInterval * 1000, 60_000 * 2 ** Math.max(0, failures - 1));
const RETRIES = 4;

export type PassLimits = { maxPages: number; maxBytes: number; maxMs: number; maxRedeliveries: number };
export const DEFAULT_LIMITS: PassLimits = { maxPages: 300, maxBytes: 50_000_000, maxMs: 120_000, maxRedeliveries: 1_000 };
/**
 * Redeliveries a minute: the provider's own limit where Tripline knows it
 * (ProviderModule.redeliveryRate: GitLab's 5 a minute, or
 * TRIPLINE_GITLAB_RESEND_LIMIT), else within GitHub's secondary limit on
 * requests that create content (80 a minute), and always at most half the
 * webhook's own delivery rate limit (TRIPLINE_DELIVERY_RATE_LIMIT), so
 * redeliveries never crowd out the live deliveries arriving beside them or get
 * 429 from the ingress. An import asks the provider for nothing (the listing
 * carries the payloads): only the ingress's share bounds it.
 */
export function defaultRedeliveryRate(provider?: { burst: number; perMinute: number }, recovery: 'redelivery' | 'import' = 'redelivery'): { burst: number; perMinute: number } {
  // A limit the provider states replaces GitHub's: a self-managed GitLab whose admin allows 600 resends a minute gets them.
  const cap = provider?.perMinute ?? (recovery === 'import' ? Infinity : 80);
  const perMinute = Math.max(1, Math.min(cap, Math.floor(env().deliveryRateLimit / 2)));
  return { burst: Math.max(1, Math.min(20, perMinute, provider?.burst ?? Infinity)), perMinute };
}

export type PassOptions = {
  limits?: Partial<PassLimits>;
  redeliveryRate?: { burst: number; perMinute: number };
  sleep?: (ms: number) => Promise<void>;
  /** The lease's length in seconds (LEASE_SECONDS); tests shorten it. */
  leaseSeconds?: number;
};

export type PassResult = {
  outcome: 'ok' | 'failed' | 'cut' | 'busy' | 'lost';
  /** Provider deliveries (attempts) listed, and the distinct wanted identities among them. */
  listed: number;
  wanted: number;
  missing: number;
  /** Asked for again (redelivery) or recorded (import). */
  redelivered: number;
  requests: number;
  error: string | null;
};

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

class LeaseLost extends Error {}

/** Takes the connection's lease for `owner` if no pass holds it; false when one does. */
export async function takeConnectionLease(db: Db, connectionId: string, owner: string, seconds = LEASE_SECONDS): Promise<boolean> {
  const rows = await db.$queryRawUnsafe<unknown[]>(
    `UPDATE "WebhookConnection" SET "leaseOwner" = $2, "leaseUntil" = now() + make_interval(secs => $3)
      WHERE "id" = $1 AND ("leaseUntil" IS NULL OR "leaseUntil" < now())
      RETURNING 1`,
    connectionId,
    owner,
    seconds,
  );
  return rows.length === 1;
}

/**
 * Releases every connection's lease: for the embedded database at start,
 * where no other process can hold one (the data folder's lock keeps a
 * second server out), so a pass a crash cut part-way resumes at once
 * rather than after its lease runs out.
 */
export async function releaseConnectionLeases(db: Db = prisma): Promise<number> {
  const { count } = await db.webhookConnection.updateMany({ where: { leaseOwner: { not: null } }, data: { leaseOwner: null, leaseUntil: null } });
  return count;
}

/** Renews the lease every LEASE_SECONDS / 3 until `until` or stop(); a failed renewal is kept for the pass to see. */
function heartbeat(db: Db, connectionId: string, owner: string, seconds: number, until: number): { stop: () => void; check: () => void } {
  let failure: Error | null = null;
  const timer = setInterval(() => {
    if (Date.now() > until) return clearInterval(timer);
    renewLease(db, connectionId, owner, seconds).catch((error: unknown) => {
      // Lost, or the database did not answer: a pass that cannot renew stops at its next step.
      failure ??= error instanceof LeaseLost ? error : new LeaseLost(`the lease could not be renewed: ${(error as Error).message}`);
    });
  }, (seconds * 1000) / 3);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    check: () => {
      if (failure) throw failure;
    },
  };
}

async function renewLease(db: Db, connectionId: string, owner: string, seconds: number): Promise<void> {
  const rows = await db.$queryRawUnsafe<unknown[]>(
    `UPDATE "WebhookConnection" SET "leaseUntil" = now() + make_interval(secs => $3) WHERE "id" = $1 AND "leaseOwner" = $2 RETURNING 1`,
    connectionId,
    owner,
    seconds,
  );
  if (rows.length !== 1) throw new LeaseLost(LEASE_LOST);
}

/** The call again after the provider's Retry-After (or a growing pause), while the pass's time allows. */
async function withRetries<T>(call: () => Promise<T>, bounds: Bounds, sleep: (ms: number) => Promise<void>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const retryAfter = error instanceof ProviderError ? error.options.retryAfterSeconds : undefined;
      if (retryAfter === undefined || attempt >= RETRIES) throw error;
      const wait = Math.max(retryAfter * 1000, 500 * 2 ** attempt);
      if (Date.now() + wait >= bounds.deadline) throw error;
      await sleep(wait);
    }
  }
}

const wanted = (eventTypes: string[], delivery: ProviderDelivery) =>
  eventTypes.length === 0 || eventTypes.includes('*') || eventTypes.includes(delivery.event) || eventTypes.includes(delivery.eventType);

/** The identities among `ids` that the webhook's log has an accepted entry for. */
async function inLog(db: Db, webhookId: string, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db.deliveryIdentity.findMany({ where: { webhookId, deliveryId: { in: ids.slice(i, i + 1000) } }, select: { deliveryId: true } });
    for (const row of rows) found.add(row.deliveryId);
  }
  return found;
}

/**
 * Marks the log entries that arrived by the provider's redelivery (only a
 * redelivery reached Tripline, as the provider recorded the attempts) with
 * origin `provider_redelivery`, so the log shows what was recovered.
 */
async function markRedelivered(db: Db, webhookId: string, byIdentity: Map<string, ProviderDelivery[]>, logged: Set<string>): Promise<void> {
  const redelivered = [...byIdentity.entries()]
    .filter(([identity, list]) => logged.has(identity) && list.some((a) => a.redelivery && a.outcome === 'success') && !list.some((a) => !a.redelivery && a.outcome === 'success'))
    .map(([identity]) => identity);
  for (let i = 0; i < redelivered.length; i += 1000) {
    await db.delivery.updateMany({
      where: { webhookId, deliveryId: { in: redelivered.slice(i, i + 1000) }, status: 'accepted', origin: null },
      data: { origin: 'provider_redelivery' },
    });
  }
}

/** Passes failed in a row after which the factory's notification destinations hear of it (once). */
export const FAILING_AFTER = 3;

async function notify(tx: Tx, row: ConnectionRow, result: PassResult, failures: number): Promise<void> {
  const [factory, webhook] = await Promise.all([
    tx.factory.findUniqueOrThrow({ where: { id: row.factoryId }, select: { slug: true, name: true } }),
    tx.webhook.findUniqueOrThrow({ where: { id: row.webhookId }, select: { uid: true, name: true } }),
  ]);
  const ref = factoryRef(factory);
  const data = { factory: ref, webhook: { uid: webhook.uid, name: webhook.name, url: `${ref.url}/automations/webhooks/${webhook.uid}` }, provider: row.provider };
  if (result.missing > 0) {
    await enqueueEvent(tx, row.factoryId, 'connection.missed_deliveries', { ...data, connection: { missing: result.missing, redelivered: result.redelivered } });
  }
  if (failures === FAILING_AFTER) {
    await enqueueEvent(tx, row.factoryId, 'connection.failing', { ...data, connection: { failures, error: result.error } });
  }
}

/** Runs one recovery pass for the connection, unless another holds its lease ('busy'). */
export async function runRecoveryPass(connectionId: string, options: PassOptions = {}, db: Db = prisma): Promise<PassResult> {
  const owner = randomBytes(12).toString('base64url');
  const result: PassResult = { outcome: 'busy', listed: 0, wanted: 0, missing: 0, redelivered: 0, requests: 0, error: null };
  const leaseSeconds = options.leaseSeconds ?? LEASE_SECONDS;
  if (!(await takeConnectionLease(db, connectionId, owner, leaseSeconds))) return result;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const sleep = options.sleep ?? defaultSleep;
  const started = Date.now();
  const bounds: Bounds = { bytesLeft: limits.maxBytes, deadline: started + limits.maxMs, requests: 0 };
  const row: ConnectionRow | null = await db.webhookConnection.findUnique({ where: { id: connectionId }, select: connectionRow });
  if (!row) return { ...result, outcome: 'lost' };
  const provider = row.provider;
  let watermark = row.watermark;
  let cut: string | null = null;
  let providerWaitMs = 0;
  const beat = heartbeat(db, row.id, owner, leaseSeconds, bounds.deadline + 60_000);

  try {
    if (!row.providerHookId) throw new ProviderError('The connection has no provider hook yet: connect it again', null, { permanent: true });
    const adapter = await openAdapter(db, row, bounds);
    const described = moduleFor(provider);
    const providerRate = described.redeliveryRate?.();
    const rate = options.redeliveryRate ?? defaultRedeliveryRate(providerRate, described.recovery);
    const retention = started - described.retentionDays * 86_400_000;
    const lower = Math.max(retention, (row.watermark?.getTime() ?? 0) - SKEW_MS);

    // 1. List newest first until the page reaches the lower bound.
    const attempts: ProviderDelivery[] = [];
    let cursor: string | null = null;
    let complete = false;
    for (let page = 0; page < limits.maxPages; page++) {
      const listed = await withRetries(() => adapter.listDeliveries(row.providerHookId!, cursor), bounds, sleep);
      result.listed += listed.deliveries.length;
      attempts.push(...listed.deliveries.filter((d) => d.deliveredAt.getTime() >= lower));
      beat.check();
      const oldest = listed.deliveries[listed.deliveries.length - 1];
      if (!listed.next || !oldest || oldest.deliveredAt.getTime() < lower) {
        complete = true;
        break;
      }
      cursor = listed.next;
    }
    if (!complete) cut = `the pass stopped after ${limits.maxPages} pages of deliveries; the older ones are checked at the next pass`;

    // 2. Only the wanted event types, grouped by identity (an identity's attempts newest first).
    const byIdentity = new Map<string, ProviderDelivery[]>();
    for (const attempt of attempts) {
      if (!wanted(row.eventTypes, attempt)) continue;
      const list = byIdentity.get(attempt.identity) ?? [];
      list.push(attempt);
      byIdentity.set(attempt.identity, list);
    }
    result.wanted = byIdentity.size;

    // 3. What the log lacks, and that Tripline never answered 2xx (retention may have pruned those).
    const logged = await inLog(db, row.webhookId, [...byIdentity.keys()]);
    await markRedelivered(db, row.webhookId, byIdentity, logged);
    const missing = [...byIdentity.entries()]
      .filter(([identity, list]) => !logged.has(identity) && !list.some((a) => a.outcome === 'success'))
      .map(([identity, list]) => ({ identity, newest: list[0]!, first: list[list.length - 1]! }))
      .sort((a, b) => a.first.deliveredAt.getTime() - b.first.deliveredAt.getTime());
    result.missing = missing.length;

    // 4. Ask for each again (or import it: Stripe), oldest first, at the provider's pace, within the bounds.
    // A provider's own limit counts over a window this pass cannot see (the
    // last pass's requests may be in it): then the pass starts with none in hand.
    const importing = described.recovery === 'import' ? await importTarget(db, row.webhookId, described) : null;
    const refused: string[] = [];
    let tokens = providerRate && !options.redeliveryRate ? 0 : rate.burst;
    let refilled = Date.now();
    let unsettledFrom: number | null = null;
    for (const [index, entry] of missing.entries()) {
      if (index >= limits.maxRedeliveries) {
        cut ??= `the pass asked for ${limits.maxRedeliveries} redeliveries, its bound; the rest at the next pass`;
        unsettledFrom ??= entry.first.deliveredAt.getTime();
        break;
      }
      tokens = Math.min(rate.burst, tokens + ((Date.now() - refilled) / 60_000) * rate.perMinute);
      refilled = Date.now();
      if (tokens < 1) {
        const wait = ((1 - tokens) / rate.perMinute) * 60_000;
        if (Date.now() + wait >= bounds.deadline) {
          cut ??= 'the pass reached its time limit; the rest at the next pass';
          unsettledFrom ??= entry.first.deliveredAt.getTime();
          break;
        }
        await sleep(wait);
        tokens = 1;
        refilled = Date.now();
      }
      tokens -= 1;
      beat.check();
      if (importing) {
        // In the log when this returns (or refused in words): settled at once.
        const payload = entry.newest.payload ?? (await withRetries(() => adapter.fetchDelivery(row.providerHookId!, entry.newest.attemptId), bounds, sleep)).payload;
        const imported = await importDelivery(importing, entry.newest, payload, db);
        if (imported.status === 'refused') refused.push(imported.detail);
        else result.redelivered++;
      } else {
        await withRetries(() => adapter.redeliver(row.providerHookId!, entry.newest.attemptId), bounds, sleep);
        result.redelivered++;
        // Settled only once a later pass finds it in the log.
        unsettledFrom ??= entry.first.deliveredAt.getTime();
      }
    }

    // 5. The watermark: up to the oldest unsettled delivery, never closer to now than the skew.
    if (complete) {
      const next = Math.max(retention, Math.min(started - SKEW_MS, unsettledFrom ?? Infinity));
      if (!watermark || next > watermark.getTime()) watermark = new Date(next);
    }
    result.outcome = cut ? 'cut' : 'ok';
    const notImported = refused.length ? `${refused.slice(0, 3).join('; ')}${refused.length > 3 ? ` (and ${refused.length - 3} more)` : ''}` : null;
    result.error = [cut ? `Incomplete: ${cut}` : null, notImported].filter(Boolean).join('. ') || null;
  } catch (error) {
    if (error instanceof LeaseLost) {
      result.outcome = 'lost';
      result.error = error.message;
    } else {
      result.outcome = 'failed';
      providerWaitMs = ((error instanceof ProviderError && error.options.retryAfterSeconds) || 0) * 1000;
      result.error = error instanceof ProviderError || error instanceof BoundReached ? error.message : `The pass failed: ${(error as Error).message}`;
      if (error instanceof BoundReached) {
        result.outcome = 'cut';
        result.error = `Incomplete: ${error.message}; the rest at the next pass`;
      }
    }
  }
  beat.stop();
  result.requests = bounds.requests;

  const now = new Date();
  const failed = result.outcome === 'failed';
  const failures = failed ? row.consecutiveFailures + 1 : 0;
  // A failing connection backs off (and waits out a rate limit's reset); a cut pass goes on soon.
  const nextMs = failed ? Math.max(backoffMs(failures), providerWaitMs) : result.outcome === 'cut' ? 60_000 : env().connectionCheckInterval * 1000;
  if (result.outcome !== 'lost') {
    await db.$transaction(async (tx) => {
      const { count } = await tx.webhookConnection.updateMany({
        where: { id: row.id, leaseOwner: owner },
        data: {
          watermark,
          lastCheckAt: now,
          nextCheckAt: new Date(now.getTime() + nextMs),
          lastError: result.error,
          consecutiveFailures: failures,
          lastMissing: result.missing,
          lastRecovered: result.redelivered,
          leaseOwner: null,
          leaseUntil: null,
        },
      });
      // Another instance took the lease (this one's renewals failed): its pass's state stands, not this one's.
      if (count === 0) Object.assign(result, { outcome: 'lost', error: LEASE_LOST });
      // A notification when a pass finds missed deliveries, and once when passes have failed three times running.
      else if (result.missing > 0 || failures === FAILING_AFTER) await notify(tx, row, result, failures);
    });
  }
  const counters = metrics();
  counters.connectionPasses.inc({ provider, outcome: result.outcome });
  if (result.redelivered) counters.connectionRecoveries.inc({ provider }, result.redelivered);
  if (failed) counters.connectionFailures.inc({ provider });
  logger[failed ? 'warn' : 'info'](
    { connection: row.id, provider, outcome: result.outcome, listed: result.listed, missing: result.missing, redelivered: result.redelivered, requests: result.requests, ms: Date.now() - started, ...(result.error ? { reason: result.error } : {}) },
    'recovery pass',
  );
  return result;
}

/**
 * One turn of the recovery loop: the passes that are due (or every
 * connection, at start), one after another, each under its own lease.
 */
export async function runDuePasses(options: PassOptions & { all?: boolean; limit?: number } = {}, db: Db = prisma): Promise<PassResult[]> {
  const due = await db.webhookConnection.findMany({
    where: {
      leaseUntil: null,
      // A disabled webhook answers 404 to everything: redelivering to it would only spend the provider's budget.
      webhook: { deletedAt: null, enabled: true },
      ...(options.all ? {} : { OR: [{ nextCheckAt: null }, { nextCheckAt: { lte: new Date() } }] }),
    },
    select: { id: true },
    orderBy: { nextCheckAt: { sort: 'asc', nulls: 'first' } },
    take: options.limit ?? 20,
  });
  // A lease that ran out: its pass died part-way (its instance crashed or was cut off), so it goes on now, whenever it was due.
  const expired = await db.webhookConnection.findMany({
    where: { leaseUntil: { lt: new Date() }, webhook: { deletedAt: null, enabled: true } },
    select: { id: true },
    take: options.limit ?? 20,
  });
  const results: PassResult[] = [];
  for (const { id } of [...due, ...expired]) results.push(await runRecoveryPass(id, options, db));
  return results;
}
