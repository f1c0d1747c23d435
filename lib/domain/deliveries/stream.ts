import 'server-only';
import { getDatabase, prisma, type DbOrTx } from '@/lib/platform/db';
import { deliveryJson, webhookIdOrThrow, type DeliverySummary } from '@/lib/domain/deliveries/service';
import type { DeliveryStatusFilter } from '@/lib/domain/deliveries/schemas';
import { onEntry } from '@/lib/domain/deliveries/wake';
import { eventTypesToSql } from '@/lib/ingress/filters/events';
import { AppError } from '@/lib/platform/http/errors';
import { metrics } from '@/lib/platform/metrics';
import { openSpan } from '@/lib/platform/tracing';

// The stream of a webhook's log (GET .../deliveries/stream, server-sent
// events): every entry once, in the order the log wrote them, resumable after
// any entry.
//
// The order is (txid, id): the ID of the transaction that wrote the entry
// (a column default, pg_current_xact_id()), then the entry's ID. A page reads
// only entries whose transaction is older than the oldest transaction still
// running (the horizon, below). Every transaction with a
// smaller ID has ended, and every later one gets a larger ID, so nothing can
// ever appear behind a position the stream has passed: an entry committed
// late, by this instance or another, holds the stream back until it commits
// instead of being skipped. A plain timestamp or sequence cursor cannot do
// this (a row may commit after a later one was read), which
// docs/decisions/0070-the-log-stream-s-cursor.md explains with the test that
// shows it (lib/domain/deliveries/stream.int.test.ts).
//
// Bounds: pages of at most 100 entries and 4 MiB of bodies (a stream resuming
// after a day reads the day page by page, and only as fast as the client
// reads: the route pulls the next page when the last is sent); a heartbeat
// comment every 15 s; a stream ends after 30 minutes (the client reconnects
// with Last-Event-ID); open streams are limited per instance: 5 per API token
// (or session), 10 per account, 25 per factory, 500 in all; all end when the
// server drains.

export const STREAM_PAGE_ENTRIES = 100;
export const STREAM_PAGE_BYTES = 4 * 1024 * 1024;
export const STREAM_HEARTBEAT_MS = 15_000;
export const STREAM_LIFETIME_MS = 30 * 60_000;
/** How often an idle stream reads the log for entries other instances wrote (docs/benchmarks/history.md, "The log stream"). */
export const STREAM_POLL_MS = 1_000;
/** After an in-process wake-up that found nothing (a concurrent transaction still running), read again after these delays. */
const RECHECK_MS = [25, 50, 100, 200, 400];
// A `tripline listen` holds one stream (one webhook). Per token: a developer
// listening to a few webhooks at once. Per account: two tokens' worth, so one
// member cannot take a factory's or the instance's slots by minting tokens
// (the tokens of an account are bounded too: MAX_API_TOKENS_PER_USER). Per
// factory: a listener on each of its at most 20 webhooks with room to spare,
// so it takes members of 20 factories, not one member, to fill an instance.
export const STREAMS_PER_TOKEN = 5;
export const STREAMS_PER_USER = 10;
export const STREAMS_PER_FACTORY = 25;
export const STREAMS_PER_INSTANCE = 500;

/**
 * A stream from `since` starts at the smallest transaction among the entries received within this
 * long of the first one: an entry whose transaction took its ID before another's and began (was
 * received) later is found if it began within this window (a transaction of the ingress lasts well
 * under a second; its answer is a 503 after 10 s).
 */
export const SINCE_WINDOW_MS = 60_000;

export type StreamPosition = { txid: string; id: string };

export type StreamFilters = { status?: DeliveryStatusFilter; event?: string; since?: Date };

export type StreamEntry = DeliverySummary & {
  body: string | null;
  headers: Record<string, string> | null;
  signatureHeaders: Record<string, string> | null;
  txid: string;
};

/**
 * Where a stream starts: after the entry `after` (an entry ID of this
 * webhook's log), at the first entry received at or after `since`, or after
 * the newest entry (only what is written from now on).
 */
export async function streamStart(
  factoryId: string,
  uid: string,
  start: { after?: string; since?: Date },
  db: DbOrTx = prisma,
): Promise<{ webhookId: string; position: StreamPosition }> {
  const webhookId = await webhookIdOrThrow(db, factoryId, uid);
  if (start.after) {
    const [row] = await db.$queryRawUnsafe<{ txid: string | null }[]>(`SELECT "txid"::text AS "txid" FROM "Delivery" WHERE "webhookId" = $1 AND "id" = $2`, webhookId, start.after);
    if (!row) {
      throw new AppError('validation_failed', `The entry ${start.after} is not in this webhook's log (retention may have removed it): resume with since= instead`, {
        after: 'Use the id of an entry of this webhook, or since=',
      });
    }
    // An entry written before the stream existed has no position: everything written since follows it.
    return { webhookId, position: row.txid === null ? { txid: '0', id: '' } : { txid: row.txid, id: start.after } };
  }
  if (start.since) {
    // The smallest transaction ID among the entries received from `since` until SINCE_WINDOW_MS
    // after the first of them (the (webhookId, receivedAt, id) index, then their rows): the stream
    // starts at that transaction and its `since` filter leaves out what was received before. Not
    // the first entry's own: a transaction that began later (a later receivedAt, its now()) may
    // have taken its ID earlier, and it would be behind the start, never sent.
    const [row] = await db.$queryRawUnsafe<{ txid: string | null }[]>(
      `WITH first AS (
         SELECT "receivedAt" FROM "Delivery" WHERE "webhookId" = $1 AND "receivedAt" >= $2 AND "txid" IS NOT NULL ORDER BY "receivedAt", "id" LIMIT 1
       )
       SELECT min(d."txid")::text AS "txid" FROM "Delivery" d, first
        WHERE d."webhookId" = $1 AND d."receivedAt" >= $2 AND d."receivedAt" <= first."receivedAt" + make_interval(secs => $3) AND d."txid" IS NOT NULL`,
      webhookId,
      start.since,
      SINCE_WINDOW_MS / 1000,
    );
    if (row?.txid) return { webhookId, position: { txid: row.txid, id: '' } };
  }
  const [newest] = await db.$queryRawUnsafe<{ txid: string; id: string }[]>(
    `SELECT d."txid"::text AS "txid", d."id" FROM "Delivery" d WHERE d."webhookId" = $1 AND d."txid" IS NOT NULL ORDER BY d."txid" DESC, d."id" DESC LIMIT 1`,
    webhookId,
  );
  return { webhookId, position: newest ?? { txid: '0', id: '' } };
}

// The horizon: entries of transactions below it are final (committed and
// visible, or never to be). PGlite is one connection, so every transaction
// but the reader's own has ended: the snapshot's xmin. On PostgreSQL the
// snapshot's xmin would count transactions of every database on the server
// (another application's hour-long transaction would hold every stream
// back), so the horizon is the oldest transaction still running in this
// database, read in a statement of its own *before* the page's statement
// takes its snapshot: a transaction below it had ended by then, so the page
// sees its entries. Sessions of another role hide their transaction from
// pg_stat_activity: then the server-wide xmin, which is always safe.
const POSTGRES_HORIZON = `
  WITH snap AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS "xmax", pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS "xmin"),
  running AS (
    SELECT a."backend_xid"::text::bigint AS "xid32", a."query" = '<insufficient privilege>' AS "hidden"
      FROM pg_stat_activity a WHERE a."datname" = current_database() AND a."pid" <> pg_backend_pid()
  )
  SELECT (CASE WHEN EXISTS (SELECT 1 FROM running WHERE "hidden") THEN snap."xmin"
          ELSE LEAST(snap."xmax", (
            -- A 32-bit xid in the epoch of xmax (or the one before, past a wraparound).
            SELECT min(CASE WHEN ((snap."xmax" >> 32) << 32) + r."xid32" > snap."xmax" THEN ((snap."xmax" >> 32) << 32) + r."xid32" - 4294967296
                            ELSE ((snap."xmax" >> 32) << 32) + r."xid32" END)
              FROM running r WHERE r."xid32" IS NOT NULL)) END)::text AS "horizon"
    FROM snap`;

async function readHorizon(db: DbOrTx): Promise<string> {
  const embedded = Boolean(getDatabase().adapter.pglite);
  const [row] = await db.$queryRawUnsafe<{ horizon: string }[]>(embedded ? `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS "horizon"` : POSTGRES_HORIZON);
  return row!.horizon;
}

// The horizon only moves forward, so a value read earlier is always safe (it
// can only hold entries back a little longer). The streams of a process share
// one read: a stream takes the value of a read that started at or after
// `notBefore` (when it was woken, or began its turn), joining one in flight.
type HorizonRead = { startedAt: number; value: Promise<string> };
const horizonKey = Symbol.for('tripline.deliveries.horizon');

async function horizon(db: DbOrTx, notBefore: number): Promise<string> {
  // One shared read per database (tests switch databases within a process).
  const holder = globalThis as Record<symbol, WeakMap<object, HorizonRead> | undefined>;
  const reads = (holder[horizonKey] ??= new WeakMap());
  const database = getDatabase();
  const last = reads.get(database);
  if (last && last.startedAt >= notBefore) {
    try {
      return await last.value;
    } catch {
      // That read failed: read again below.
    }
  }
  const read: HorizonRead = { startedAt: performance.now(), value: readHorizon(db) };
  reads.set(database, read);
  return read.value;
}

type PageRow = StreamEntry & { match: boolean; scanned: bigint | number };

/**
 * The next entries after `position`, in stream order: at most 100 scanned
 * (matching the filters or not) and 4 MiB of matching bodies (at least one
 * entry). `position` advances past entries that do not match too, so a
 * filtered stream does not read them again. `more` says the page was cut.
 */
export async function streamPage(
  webhookId: string,
  position: StreamPosition,
  filters: StreamFilters,
  db: DbOrTx = prisma,
  notBefore = performance.now(),
): Promise<{ entries: StreamEntry[]; position: StreamPosition; more: boolean; lastReceivedAt: Date | null }> {
  const params: unknown[] = [webhookId, position.txid, position.id, await horizon(db, notBefore)];
  const conditions: string[] = [];
  if (filters.status) {
    params.push(filters.status);
    conditions.push(`"status" = $${params.length}::"DeliveryStatus"`);
  }
  if (filters.event) {
    if (filters.event.includes('*')) conditions.push(eventTypesToSql([filters.event], '"eventType"', params));
    else {
      params.push(filters.event);
      conditions.push(`"eventType" = $${params.length}`);
    }
  }
  if (filters.since) {
    params.push(filters.since);
    conditions.push(`"receivedAt" >= $${params.length}`);
  }
  const match = conditions.length ? conditions.join(' AND ') : 'true';
  params.push(STREAM_PAGE_ENTRIES, STREAM_PAGE_BYTES);
  const [limit, bytes] = [`$${params.length - 1}`, `$${params.length}`];
  // Keys first (from the (webhookId, txid, id) index), then the bodies of the
  // matching prefix that fits in the byte budget. (Columns are qualified in
  // ORDER BY: the output's "txid" is text, and "999" sorts after "1000".)
  const rows = await db.$queryRawUnsafe<PageRow[]>(
    `WITH scanned AS (
       SELECT "id", "txid", "size", (${match}) AS "match"
         FROM "Delivery"
        WHERE "webhookId" = $1 AND ("txid", "id") > ($2::bigint, $3::text)
          AND "txid" < $4::bigint
        ORDER BY "txid", "id" LIMIT ${limit}
     ), counted AS (
       SELECT *, sum(CASE WHEN "match" THEN "size" ELSE 0 END) OVER (ORDER BY "txid", "id") AS "running",
              row_number() OVER (ORDER BY "txid", "id") AS "n", count(*) OVER () AS "scanned"
         FROM scanned
     )
     SELECT d."id", d."deliveryId", d."status"::text AS "status", d."size", d."receivedAt", d."detail", d."eventType", d."refusedCount", d."origin",
            CASE WHEN c."match" THEN d."body" END AS "body", CASE WHEN c."match" THEN d."headers" END AS "headers",
            CASE WHEN c."match" THEN d."signatureHeaders" END AS "signatureHeaders", c."txid"::text AS "txid", c."match", c."scanned"
       FROM counted c JOIN "Delivery" d ON d."id" = c."id"
      WHERE c."n" = 1 OR c."running" <= ${bytes}::bigint
      ORDER BY c."txid", c."id"`,
    ...params,
  );
  const last = rows[rows.length - 1];
  const scanned = Number(last?.scanned ?? 0);
  return {
    entries: rows.filter((row) => row.match).map(({ match: _match, scanned: _scanned, ...entry }) => entry),
    position: last ? { txid: last.txid, id: last.id } : position,
    // When the last entry read (matching or not, at `position`) was received: a client resumes there after a page that sent nothing.
    lastReceivedAt: last?.receivedAt ?? null,
    // A full page, or one the byte budget cut: read the next one at once.
    more: scanned === STREAM_PAGE_ENTRIES || rows.length < scanned,
  };
}

/** An entry as the stream sends it: the list's JSON, and for accepted entries what a forwarder needs. */
export function streamEntryJson(entry: StreamEntry, options: { signatures: boolean }) {
  const accepted = entry.status === 'accepted' && entry.body !== null;
  return {
    ...deliveryJson(entry),
    ...(accepted
      ? {
          // The ingress accepts only UTF-8 JSON and stores it as received, so the text's UTF-8 bytes are the bytes received.
          body: entry.body,
          bodyEncoding: 'utf8' as const,
          headers: { ...(entry.headers ?? {}), ...(options.signatures ? (entry.signatureHeaders ?? {}) : {}) },
          signatureHeaders: entry.signatureHeaders === null ? ('none' as const) : options.signatures ? ('original' as const) : ('redacted' as const),
        }
      : {}),
  };
}

// ---------------------------------------------------------------------------
// Open streams: counted per token, per account, per factory and per instance,
// closed together at shutdown. In memory, per instance (decision 74): a count
// shared through the database would cost a write per connect and disconnect.

type Registry = {
  open: Map<string, number>;
  users: Map<string, number>;
  factories: Map<string, number>;
  total: number;
  closing: boolean;
  streams: Set<AbortController>;
};
const registryKey = Symbol.for('tripline.deliveries.streams');

function registry(): Registry {
  const holder = globalThis as Record<symbol, Registry | undefined>;
  holder[registryKey] ??= { open: new Map(), users: new Map(), factories: new Map(), total: 0, closing: false, streams: new Set() };
  return holder[registryKey];
}

/** Who opens a stream: the token or session (its hash), the account behind it, and the factory whose log it reads. */
export type StreamOwner = { key: string; kind: 'token' | 'session'; userId: string; factory: { id: string; name: string } };

const count = (counts: Map<string, number>, key: string) => counts.get(key) ?? 0;

function giveBack(counts: Map<string, number>, key: string): void {
  const left = count(counts, key) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/**
 * Takes one of the caller's open-stream slots, or throws 429 (503 while the
 * server drains). The narrowest limit that is reached is the one named. The
 * returned lease gives the slot back, once, and its signal aborts when the
 * server shuts down.
 */
export function openStreamLease(owner: StreamOwner): { signal: AbortSignal; release: () => void } {
  const state = registry();
  if (state.closing) throw new AppError('unavailable', 'The server is shutting down: reconnect in a moment');
  if (count(state.open, owner.key) >= STREAMS_PER_TOKEN) {
    const who = owner.kind === 'token' ? 'This API token' : 'This browser session';
    throw new AppError('rate_limited', `${who} already has ${STREAMS_PER_TOKEN} open streams of delivery logs on this server, the most it may have: close one first`, undefined, 5);
  }
  if (count(state.users, owner.userId) >= STREAMS_PER_USER) {
    throw new AppError(
      'rate_limited',
      `Your account already has ${STREAMS_PER_USER} open streams of delivery logs on this server, counting all its API tokens and browser sessions, the most one account may have: close one first`,
      undefined,
      5,
    );
  }
  if (count(state.factories, owner.factory.id) >= STREAMS_PER_FACTORY) {
    throw new AppError(
      'rate_limited',
      `The factory ${owner.factory.name} already has ${STREAMS_PER_FACTORY} open streams of delivery logs on this server, counting all its members, the most one factory may have: close one, or try again later`,
      undefined,
      30,
    );
  }
  if (state.total >= STREAMS_PER_INSTANCE) throw new AppError('rate_limited', `This server already serves ${STREAMS_PER_INSTANCE} streams of delivery logs, the most it serves: try again later`, undefined, 30);
  state.open.set(owner.key, count(state.open, owner.key) + 1);
  state.users.set(owner.userId, count(state.users, owner.userId) + 1);
  state.factories.set(owner.factory.id, count(state.factories, owner.factory.id) + 1);
  state.total += 1;
  metrics().logStreamsOpen.inc();
  const controller = new AbortController();
  state.streams.add(controller);
  let released = false;
  return {
    signal: controller.signal,
    release: () => {
      if (released) return;
      released = true;
      state.streams.delete(controller);
      state.total -= 1;
      metrics().logStreamsOpen.dec();
      giveBack(state.open, owner.key);
      giveBack(state.users, owner.userId);
      giveBack(state.factories, owner.factory.id);
    },
  };
}

/** Shutdown: every open stream ends (its client reconnects, to another instance), and no new one opens. */
export function closeAllStreams(): void {
  const state = registry();
  state.closing = true;
  for (const controller of state.streams) controller.abort();
}

// ---------------------------------------------------------------------------
// The stream itself.

/**
 * What the stream sends: an entry; a heartbeat; progress past entries the filters leave out (where
 * to resume, so a filtered stream that scans a long stretch of other entries is paced, re-checked
 * and resumable like one that sends); the end.
 */
export type StreamItem =
  | { kind: 'entry'; entry: StreamEntry }
  | { kind: 'heartbeat' }
  | { kind: 'progress'; after: string; receivedAt: Date }
  | { kind: 'end'; reason: 'lifetime' | 'shutdown' | 'aborted' };

export type StreamOptions = {
  webhookId: string;
  position: StreamPosition;
  filters: StreamFilters;
  signal: AbortSignal;
  db?: DbOrTx;
  pollMs?: number;
  heartbeatMs?: number;
  lifetimeMs?: number;
  /** Called after each page read (tests count the reads of a stream nobody reads). */
  onPage?: () => void;
};

/**
 * The items of one stream, produced only as fast as they are consumed: the
 * generator reads the next page when the consumer asks for the next item, so
 * a client that stops reading stops the reads. Ends after the lifetime, on
 * abort (the client left, or shutdown).
 */
export async function* deliveryStream(options: StreamOptions): AsyncGenerator<StreamItem> {
  const { webhookId, filters, signal } = options;
  const pollMs = options.pollMs ?? STREAM_POLL_MS;
  const heartbeatMs = options.heartbeatMs ?? STREAM_HEARTBEAT_MS;
  const endsAt = Date.now() + (options.lifetimeMs ?? STREAM_LIFETIME_MS);
  let position = options.position;
  let lastSent = Date.now();
  let woken = false;
  let wake: (() => void) | null = null;
  const stopListening = onEntry(webhookId, () => {
    woken = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
      if (woken || signal.aborted) done();
    });
  // With traces on, one span from the stream's start until it has sent the backlog its start position left (the catch-up).
  let catchUp = openSpan('tripline.stream.catch_up', { 'tripline.webhook.id': webhookId });
  let caughtUp = 0;
  try {
    // Rechecks left after a wake-up; when the turn began (a page uses a horizon read after it).
    let rechecks: number[] = [];
    let turn = performance.now();
    while (true) {
      if (signal.aborted) return yield { kind: 'end', reason: registry().closing ? 'shutdown' : 'aborted' };
      if (Date.now() >= endsAt) return yield { kind: 'end', reason: 'lifetime' };
      woken = false;
      const page = await streamPage(webhookId, position, filters, options.db, turn);
      options.onPage?.();
      position = page.position;
      for (const entry of page.entries) {
        yield { kind: 'entry', entry };
        lastSent = Date.now();
      }
      // A full page of entries the filters leave out: say how far the stream read.
      if (page.entries.length === 0 && page.more && page.lastReceivedAt) {
        yield { kind: 'progress', after: page.position.id, receivedAt: page.lastReceivedAt };
        lastSent = Date.now();
      }
      if (catchUp) {
        caughtUp += page.entries.length;
        if (!page.more) {
          catchUp.setAttribute('tripline.stream.entries', caughtUp);
          catchUp.end();
          catchUp = undefined;
        }
      }
      turn = performance.now();
      if (page.more || woken) continue;
      // Woken, and the read found nothing: a transaction still running holds the entry back for a moment.
      if (page.entries.length > 0) rechecks = [];
      const recheck = rechecks.shift();
      if (recheck !== undefined) {
        await pause(recheck);
        turn = performance.now();
        continue;
      }
      const untilHeartbeat = lastSent + heartbeatMs - Date.now();
      if (untilHeartbeat <= 0) {
        yield { kind: 'heartbeat' };
        lastSent = Date.now();
        continue;
      }
      await pause(Math.min(pollMs, untilHeartbeat, endsAt - Date.now()));
      turn = performance.now();
      if (woken) rechecks = [...RECHECK_MS];
    }
  } finally {
    // A stream that ended before it caught up (closed, or the database failed) ends its span too.
    catchUp?.end();
    stopListening();
    signal.removeEventListener('abort', onAbort);
  }
}
