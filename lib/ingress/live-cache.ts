import 'server-only';
import pg from 'pg';
import { getDatabase, peekDatabase, type Database } from '@/lib/platform/db';
import { log } from '@/lib/platform/log';

// An in-process cache of live webhooks for the ingress, so most deliveries
// skip the lookup query. It must never serve a webhook that was disabled,
// deleted or re-keyed, on any instance:
//   - every change to a Webhook row fires pg_notify('tripline_webhook_changed', uid)
//     from a database trigger (migration webhook_change_notifications), so no
//     code path, and no manual SQL, can forget to announce it;
//   - on PostgreSQL each instance LISTENs on a dedicated connection and drops
//     the entry; while that connection is down the cache is not used at all;
//   - the instance that made the change also drops it synchronously;
//   - a generation counter stops a lookup that raced with a change from
//     storing the stale row it read;
//   - entries expire after a minute regardless, as a last safety net.
// Embedded PGlite is a single process: local invalidation is complete there.
// Only live webhooks are cached (an unknown UID always asks the database).

const CHANNEL = 'tripline_webhook_changed';
const TTL_MS = 60_000;
// Bounded in bytes: a webhook's entry holds its triggers' payload filters (up
// to 100 automations x 20 triggers x 10 KB), so a count of entries alone would
// not bound the memory. An entry is charged the size of its JSON form plus
// ENTRY_OVERHEAD_BYTES for what holding it costs besides (the map's slot, the
// key, the entry and the objects' headers): a webhook without triggers is
// about 370 bytes of JSON and 740 bytes of heap. Past the budget the oldest
// entries go first; an entry larger than MAX_ENTRY_BYTES is not kept at all
// (its webhook is read on each delivery). The number of entries follows from
// the budget (at most MAX_BYTES / ENTRY_OVERHEAD_BYTES, 131,072): 20,000
// webhooks without large filters take about 18 MB, so all of them fit
// (docs/operations.md, Many teams on one instance). It was 10,000 entries before, which
// made an instance of 20,000 webhooks read most of them on each delivery.
const MAX_BYTES = 64 * 1024 * 1024;
const MAX_ENTRY_BYTES = 8 * 1024 * 1024;
export const ENTRY_OVERHEAD_BYTES = 512;
const MAX_ENTRIES = Math.floor(MAX_BYTES / ENTRY_OVERHEAD_BYTES);
/** The app's bounds, exported for the unit test and the docs' figures. */
export const liveCacheLimits = { maxBytes: MAX_BYTES, maxEntryBytes: MAX_ENTRY_BYTES, maxEntries: MAX_ENTRIES } as const;

type Entry<T> = { value: T; expires: number; bytes: number };

/** What an entry is charged against the byte budget. */
const entryBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '') + ENTRY_OVERHEAD_BYTES;

/** Exported for its unit test; the app uses liveWebhookCache(). */
export class LiveWebhookCache<T> {
  private entries = new Map<string, Entry<T>>();
  private bytes = 0;
  private generation = 0;
  private listening = false;
  private starting: Promise<void> | undefined;
  /** The one pending retry: a failed connect is reported twice (its rejection and the client's end), and each used to schedule one. */
  private retry: NodeJS.Timeout | undefined;
  private client: pg.Client | undefined;
  private closesWithDatabase = false;

  constructor(
    private readonly database: Database,
    private readonly limits: { maxBytes: number; maxEntryBytes: number; maxEntries: number } = liveCacheLimits,
  ) {}

  /** The entries kept and their bytes, for tests and the metrics. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  get enabled(): boolean {
    return this.listening;
  }

  /** Starts listening for changes (once); until it succeeds the cache is bypassed. */
  start(): void {
    if (this.database.closed || this.starting) return;
    const attempt: Promise<void> = this.listen().catch((error: unknown) => {
      if (this.starting === attempt) this.starting = undefined;
      if (this.database.closed) return;
      log('live-cache').error({ err: { message: (error as Error).message } }, 'webhook change listener failed; retrying');
      this.retryIn(5_000);
    });
    this.starting = attempt;
  }

  private retryIn(ms: number): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.start();
    }, ms).unref();
  }

  private async listen(): Promise<void> {
    const { adapter } = this.database;
    if (!adapter.pool || adapter.target.kind !== 'postgres') {
      this.listening = true;
      return;
    }
    const client = new pg.Client({ connectionString: adapter.target.url });
    const lost = (reason: string) => {
      const wasListening = this.listening && this.client === client;
      client.removeAllListeners();
      client.on('error', () => undefined);
      client.end().catch(() => undefined);
      // Lost while connecting: listen() rejects, and start()'s catch retries.
      if (!wasListening) return;
      this.listening = false;
      this.client = undefined;
      this.clear();
      this.starting = undefined;
      if (this.database.closed) return;
      log('live-cache').error({ reason }, 'webhook change listener lost; cache off until it reconnects');
      this.retryIn(1_000);
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('connection closed'));
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) this.invalidate(message.payload);
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    if (this.database.closed) {
      await client.end();
      return;
    }
    this.clear();
    // Closing the database ends the listener of the moment (registered once, not once per reconnect).
    if (!this.closesWithDatabase) {
      this.closesWithDatabase = true;
      closeWith(this.database, () => {
        this.listening = false;
        clearTimeout(this.retry);
        const current = this.client;
        this.client = undefined;
        if (!current) return Promise.resolve();
        current.removeAllListeners();
        current.on('error', () => undefined);
        return current.end().catch(() => undefined);
      });
    }
    this.client = client;
    this.listening = true;
  }

  /** The cached webhook, or undefined when the caller must ask the database. */
  get(uid: string): T | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(uid);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.remove(uid);
      return undefined;
    }
    return entry.value;
  }

  /** Reads through the cache: load() runs when needed; its result is kept only if nothing changed meanwhile. */
  async read(uid: string, load: () => Promise<T | null>): Promise<T | null> {
    const cached = this.get(uid);
    if (cached !== undefined) return cached;
    const generation = this.generation;
    const value = await load();
    if (value !== null && this.listening && generation === this.generation) this.store(uid, value);
    return value;
  }

  private store(uid: string, value: T): void {
    const bytes = entryBytes(value);
    this.remove(uid);
    if (bytes > this.limits.maxEntryBytes) return;
    // Oldest first (a Map iterates in insertion order).
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < this.limits.maxEntries && this.bytes + bytes <= this.limits.maxBytes) break;
      this.remove(oldest);
    }
    this.entries.set(uid, { value, expires: Date.now() + TTL_MS, bytes });
    this.bytes += bytes;
  }

  private remove(uid: string): void {
    const entry = this.entries.get(uid);
    if (!entry) return;
    this.entries.delete(uid);
    this.bytes -= entry.bytes;
  }

  invalidate(uid: string): void {
    this.generation++;
    this.remove(uid);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.bytes = 0;
  }
}

// The listener connection closes with its database.
function closeWith(database: Database, stop: () => Promise<unknown>): void {
  const close = database.close;
  database.close = async () => {
    await stop();
    await close();
  };
}

// On globalThis: Next.js bundles this module separately for route handlers
// and server actions, and both must see the one cache of the process.
const cachesKey = Symbol.for('tripline.liveWebhookCaches');
const caches: WeakMap<Database, LiveWebhookCache<unknown>> = ((globalThis as Record<symbol, unknown>)[cachesKey] ??= new WeakMap()) as WeakMap<
  Database,
  LiveWebhookCache<unknown>
>;

export function liveWebhookCache<T>(): LiveWebhookCache<T> {
  const database = getDatabase();
  let cache = caches.get(database);
  if (!cache) {
    cache = new LiveWebhookCache(database);
    caches.set(database, cache);
    cache.start();
  }
  return cache as LiveWebhookCache<T>;
}

/** Called after a change to a webhook commits, so this instance forgets it at once. */
export function forgetWebhook(uid: string): void {
  const database = peekDatabase();
  if (database) caches.get(database)?.invalidate(uid);
}
