import 'server-only';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { messages, Mutex, types, type PGlite, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { appDir } from '@/lib/platform/app-dir';
import { PGLITE_SESSION_SQL } from '@/lib/platform/db/pglite-extensions';
import { EMBEDDED_THREAD_GONE } from '@/lib/platform/db/unavailable';
import { log } from '@/lib/platform/log';

// The embedded database on a thread of its own (lib/platform/db/pglite-worker.mjs).
//
// Why: PGlite runs PostgreSQL as WebAssembly in whichever thread opened it.
// In the server's thread, each statement stopped everything else: an
// accepted delivery cost the server's one thread 1.7-3.3 ms instead of
// 0.7-0.8 ms on PostgreSQL, and an hourly VACUUM (seconds on a large log)
// froze the ingress, /healthz and /metrics alike (docs/benchmarks/history.md, "The
// route's floor, and the embedded database on its own thread"). On its own
// thread PostgreSQL's work runs on the second core; this thread only sends
// statements and parses results.
//
// The client keeps PGlite's own contract, so the Prisma adapter and the
// ingress's SQL use it unchanged: one statement at a time, and a transaction
// holds the connection until it ends (one mutex, as PGlite's). Results
// cross the thread as PostgreSQL's text and are parsed here, with the
// parsers the caller asked for (Prisma's own, for one); database errors come
// back as PGlite's DatabaseError with every field, so Prisma still tells a
// unique violation (P2002) from any other.

/** What the app uses of an embedded database: PGlite in this thread, or on its own (ThreadedPGlite). */
export type EmbeddedDatabase = {
  readonly waitReady: Promise<void>;
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string, options?: QueryOptions): Promise<Array<Results>>;
  transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T>;
  dumpDataDir(compression?: 'gzip' | 'none' | 'auto'): Promise<Blob>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

type Field = { name: string; dataTypeID: number };
type RawResult = { fields: Field[]; rows: Array<Array<string | null>>; affectedRows: number };
type RemoteError = { database?: Record<string, unknown> & { message: string; name: string; length?: number }; message?: string; name?: string };
type Reply = { id: number; result?: unknown; error?: RemoteError };
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; sql?: string; params?: unknown[] };

const WORKER_FILE = 'lib/platform/db/pglite-worker.mjs';
/** The npm package's new database (scripts/pack/embedded-template.mjs); absent in a clone. */
export const EMBEDDED_TEMPLATE_FILE = 'prisma/embedded-template.tar.gz';
const logger = log('database');

// The element types of PostgreSQL's array types, as PGlite reads them when it opens (BasePGlite._initArrayTypes).
const ARRAY_TYPES_SQL = `SELECT b.oid, b.typarray FROM pg_catalog.pg_type a
  LEFT JOIN pg_catalog.pg_type b ON b.oid = a.typelem
  WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray ORDER BY b.oid`;

function toError(remote: RemoteError, sql?: string, params?: unknown[]): Error {
  if (remote.database) {
    const { message, name, length, ...fields } = remote.database;
    // Shaped as PGlite throws it (makePGliteError): the adapters map it by instanceof and code.
    return Object.assign(new messages.DatabaseError(message, length ?? 0, name as 'error'), fields, { query: sql, params });
  }
  const error = new Error(remote.message ?? 'embedded database error');
  error.name = remote.name ?? 'Error';
  return error;
}

export class ThreadedPGlite implements EmbeddedDatabase {
  readonly waitReady: Promise<void>;
  /** Once ready: whether the folder was new and became a copy of the template. */
  fromTemplate = false;
  #worker: Worker | undefined;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #failure: Error | undefined;
  #closed = false;
  // PGlite's transaction mutex: a statement waits while a transaction holds the connection.
  #mutex = new Mutex();
  #parsers: Record<number | string, types.Parser> = { ...types.parsers };

  /**
   * Opens the database in `dataDir` (in memory when undefined) on a new
   * thread, once `before` has settled: the data folder's lock is held before
   * the database touches a file (lib/platform/db/embedded-lock.ts). `from`: a dump
   * of a data folder (dumpDataDir) to start from instead of a new one.
   * `template`: a dump a folder without a database starts from (the npm
   * package's, EMBEDDED_TEMPLATE_FILE), when the file exists.
   */
  constructor(dataDir: string | undefined, options: { before?: Promise<unknown>; from?: ArrayBuffer; template?: string } = {}) {
    this.waitReady = (async () => {
      await options.before;
      const { startedFrom } = (await this.#start(dataDir, options.from, options.template)) as { startedFrom: string | null };
      this.fromTemplate = startedFrom === 'template';
      if (this.fromTemplate) logger.info({ template: options.template }, 'new embedded database: copied from the package’s template, which holds every migration it was built with');
      const arrays = await this.#query<{ oid: number; typarray: number }>(ARRAY_TYPES_SQL);
      for (const { oid, typarray } of arrays.rows) {
        this.#parsers[typarray] = (text) => types.arrayParser(text, this.#parsers[oid]!, typarray);
      }
    })();
    this.waitReady.catch(() => {});
  }

  #start(dataDir: string | undefined, from: ArrayBuffer | undefined, template: string | undefined): Promise<unknown> {
    // Resolved from Tripline's folder, as the migrations are (lib/platform/db/migrate.ts): the worker is not bundled.
    const worker = new Worker(path.resolve(/*turbopackIgnore: true*/ appDir(), WORKER_FILE), {
      workerData: { dataDir: dataDir ?? null, sessionSql: PGLITE_SESSION_SQL, loadDataDir: from ?? null, template: template ?? null },
    });
    this.#worker = worker;
    // The thread keeps the process alive only while a call waits for it.
    worker.unref();
    worker.on('message', (reply: Reply) => this.#settle(reply));
    // A thread that dies (PostgreSQL aborting in WebAssembly) fails every call
    // with the reason, and so readiness (/readyz answers 503 with it), until
    // the server is restarted and the database recovers from its WAL.
    // Coded so that callers answer 503 with Retry-After (lib/platform/db/unavailable.ts), as /readyz does, not 500.
    const gone = (message: string) => Object.assign(new Error(message), { code: EMBEDDED_THREAD_GONE });
    worker.on('error', (error) => this.#fail(gone(`the embedded database's thread failed: ${error.message}`)));
    worker.on('exit', (code) => this.#fail(gone(`the embedded database's thread exited (code ${code})`)));
    // The worker answers id 0 once the database is open.
    return this.#register(0, {});
  }

  #register(id: number, call: { sql?: string; params?: unknown[] }): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker?.ref();
      this.#pending.set(id, { resolve, reject, ...call });
    });
  }

  #settle(reply: Reply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker?.unref();
    if (reply.error) pending.reject(toError(reply.error, pending.sql, pending.params));
    else pending.resolve(reply.result);
  }

  #fail(error: Error): void {
    if (!this.#closed && !this.#failure) logger.error({ err: { message: error.message } }, 'embedded database stopped: every query fails until the server restarts');
    this.#failure ??= this.#closed ? new Error('the embedded database is closed') : error;
    for (const pending of this.#pending.values()) pending.reject(this.#failure);
    this.#pending.clear();
  }

  #call(message: { op: 'query' | 'exec'; sql: string; params?: unknown[] } | { op: 'dump'; compression: string } | { op: 'close' }): Promise<unknown> {
    const id = this.#nextId++;
    const call = 'sql' in message ? { sql: message.sql, params: message.params } : {};
    const settled = this.#register(id, call);
    if (!this.#failure) this.#worker!.postMessage({ id, ...message });
    return settled;
  }

  #parse<T>(raw: RawResult, options?: QueryOptions): Results<T> {
    const parsers = options?.parsers ? { ...this.#parsers, ...options.parsers } : this.#parsers;
    const values = raw.rows.map((row) => row.map((text, i) => types.parseType(text, raw.fields[i]!.dataTypeID, parsers)));
    const rows = options?.rowMode === 'array' ? values : values.map((row) => Object.fromEntries(row.map((value, i) => [raw.fields[i]!.name, value])));
    return { rows: rows as T[], fields: raw.fields, affectedRows: raw.affectedRows };
  }

  async #query<T>(sql: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    return this.#parse<T>((await this.#call({ op: 'query', sql, params })) as RawResult, options);
  }

  async #exec(sql: string, options?: QueryOptions): Promise<Array<Results>> {
    const results = (await this.#call({ op: 'exec', sql })) as RawResult[];
    return results.map((raw) => this.#parse(raw, options));
  }

  async query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    await this.waitReady;
    return this.#mutex.runExclusive(() => this.#query<T>(sql, params, options));
  }

  async exec(sql: string, options?: QueryOptions): Promise<Array<Results>> {
    await this.waitReady;
    return this.#mutex.runExclusive(() => this.#exec(sql, options));
  }

  /** PGlite's transaction: BEGIN, the callback's statements alone on the connection, then COMMIT (ROLLBACK when it throws). */
  async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    await this.waitReady;
    return this.#mutex.runExclusive(async () => {
      await this.#exec('BEGIN');
      let closed = false;
      const open = () => {
        if (closed) throw new Error('Transaction is closed');
      };
      const tx: Transaction = {
        query: async <R>(sql: string, params?: unknown[], options?: QueryOptions) => {
          open();
          return this.#query<R>(sql, params, options);
        },
        sql: async () => {
          throw new Error('tx.sql is not supported on the embedded database; use tx.query');
        },
        exec: async (sql: string, options?: QueryOptions) => {
          open();
          return this.#exec(sql, options);
        },
        rollback: async () => {
          open();
          await this.#exec('ROLLBACK');
          closed = true;
        },
        listen: async () => {
          throw new Error('LISTEN is not supported on the embedded database');
        },
        get closed() {
          return closed;
        },
      };
      try {
        const result = await callback(tx);
        if (!closed) {
          closed = true;
          await this.#exec('COMMIT');
        }
        return result;
      } catch (error) {
        if (!closed) await this.#exec('ROLLBACK');
        throw error;
      }
    });
  }

  /** Between two statements (callers hold _runExclusiveQuery, as with PGlite): a tar of the data folder, gzipped unless `compression` says 'none'. */
  async dumpDataDir(compression: 'gzip' | 'none' | 'auto' = 'auto'): Promise<Blob> {
    await this.waitReady;
    return new Blob([(await this.#call({ op: 'dump', compression })) as ArrayBuffer]);
  }

  async _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> {
    await this.waitReady;
    return this.#mutex.runExclusive(fn);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.waitReady;
      await this.#mutex.runExclusive(() => this.#call({ op: 'close' }));
    } finally {
      await this.#worker?.terminate();
      this.#fail(new Error('the embedded database is closed'));
    }
  }
}

/** The Prisma adapter's parameter type: it calls only query, exec and transaction, which ThreadedPGlite keeps as PGlite has them. */
export const asPGlite = (database: EmbeddedDatabase) => database as unknown as PGlite;
