import 'server-only';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  bindMigrationAwareSqlAdapterFactory,
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

// Prisma's schema engine compiled to WebAssembly: the same code `prisma
// migrate` runs, driven through our driver adapters, so migrations work on
// PostgreSQL and embedded PGlite without downloading native engines.

export type { SchemaEngine };

type WasmBindings = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

/**
 * Runs fn with a schema engine connected through adapterFactory, then frees
 * the engine and disposes every connection it opened. The caller still owns
 * (and closes) whatever the factory itself holds.
 */
export async function withSchemaEngine<T>(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  schema: { path: string; content: string },
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const bg = await loadBindings();
  const connections = trackConnections(adapterFactory);
  runningEngines += 1;
  try {
    const engine = await bg.SchemaEngine.new(
      { datamodels: [[schema.path, schema.content]] },
      engineLog,
      bindMigrationAwareSqlAdapterFactory(connections.factory),
    );
    try {
      return await fn(engine);
    } finally {
      engine.free();
    }
  } finally {
    runningEngines -= 1;
    if (runningEngines === 0) clearLeftoverTimers();
    await connections.disposeAll();
  }
}

// Engine logs are JSON lines; they are noise unless someone is debugging.
function engineLog(line: string): void {
  if (process.env.TRIPLINE_DEBUG_SCHEMA_ENGINE) console.error(`[schema-engine] ${line}`);
}

// --- Loading the WebAssembly module ------------------------------------------

// The package's entry point does `import * as wasm from './x.wasm'`, which
// Node cannot load, so we instantiate the module ourselves with the JS glue.
// The glue's setTimeout imports are replaced with trackedSetTimeout (below).
// This can go when @prisma/schema-engine-wasm ships an entry point Node can
// import (a wasm-bindgen `--target nodejs` build, or one that reads the .wasm
// with fs as @prisma/query-compiler-wasm's does).
async function instantiate(): Promise<WasmBindings> {
  const bg: WasmBindings = await import('@prisma/schema-engine-wasm/schema_engine_bg');
  const glue: Record<string, unknown> = { ...bg };
  for (const name of Object.keys(glue).filter((key) => key.startsWith('__wbg_setTimeout_'))) {
    glue[name] = trackedSetTimeout;
  }
  const compiled = new WebAssembly.Module(fs.readFileSync(wasmPath()));
  const instance = new WebAssembly.Instance(compiled, { './schema_engine_bg.js': glue as WebAssembly.ModuleImports });
  const exports = instance.exports as WebAssembly.Exports & { __wbindgen_start: () => void };
  bg.__wbg_set_wasm(exports);
  exports.__wbindgen_start();
  return bg;
}

// Resolved from this file (not the cwd) so the CLI works from any folder; the
// cwd is a fallback for bundles where import.meta.url points elsewhere.
function wasmPath(): string {
  for (const base of [import.meta.url, path.join(process.cwd(), 'package.json')]) {
    try {
      // The package exports no ./package.json, so find the JS glue that sits next to the wasm file.
      const glue = createRequire(base).resolve('@prisma/schema-engine-wasm/schema_engine_bg');
      const candidate = path.join(path.dirname(glue), 'schema_engine_bg.wasm');
      if (fs.existsSync(candidate)) return candidate;
    } catch {
      // try the next base
    }
  }
  throw new Error('Cannot find @prisma/schema-engine-wasm/schema_engine_bg.wasm (is the package installed?)');
}

// wasm-bindgen modules are process-wide singletons: instantiate once.
let bindings: Promise<WasmBindings> | undefined;

function loadBindings(): Promise<WasmBindings> {
  bindings ??= instantiate().catch((error: unknown) => {
    bindings = undefined;
    throw error;
  });
  return bindings;
}

// The engine races its operations against timeouts (10 s for the advisory
// lock) and never clears the timers, which kept every CLI run alive for 10 s
// after its work was done. Timers left over once no engine is running guard
// nothing any more and are cleared.
// This can go when the engine clears its own timeouts when an operation ends
// (in prisma-engines, the schema engine's wasm timeout helper dropping its
// JS timer with the future), or frees them in SchemaEngine.free().
const pendingTimers = new Set<NodeJS.Timeout>();
let runningEngines = 0;

function trackedSetTimeout(callback: () => void, ms: number): NodeJS.Timeout {
  const timer = setTimeout(() => {
    pendingTimers.delete(timer);
    callback();
  }, ms >>> 0);
  pendingTimers.add(timer);
  return timer;
}

function clearLeftoverTimers(): void {
  for (const timer of pendingTimers) clearTimeout(timer);
  pendingTimers.clear();
}

// --- Adapting the driver adapters to the engine -------------------------------

// Two things the engine and the adapters get wrong together:
// - The engine never disposes its main connection. With adapter-pg that leaks
//   a pg.Pool whose session still holds the migration advisory lock, so the
//   next engine on the database waited ~10 s for the pool's idle timeout.
//   Every connection is disposed (once) when the engine is done.
// - executeScript, which runs each migration.sql: PGlite's does not await
//   the script (a failing migration was recorded as applied, then crashed the
//   process with an unhandled rejection), and adapter-pg's splits the script on
//   every ';', string literals included, running the pieces in separate
//   transactions. Here the whole script goes out as one simple-protocol query,
//   which PostgreSQL runs as one implicit transaction, as Prisma's native
//   engine does, with a statement that records the migration finished in
//   that transaction (withFinishedMark), so that a process that dies while
//   migrating leaves a history the next start can repair on its own.
// The wrapping (dispose once, executeScript replaced) is done on the adapter
// objects the factory returns, because neither adapter exposes an option for
// it. Each half can go on its own once upstream fixes it:
// - dispose tracking, when the schema engine disposes the connections it
//   opens (SchemaEngine.free() calling adapter.dispose());
// - executeScript, when pglite-prisma-adapter awaits exec() in executeScript
//   and @prisma/adapter-pg sends the script unsplit (as its pool.query(text)
//   would); the finished mark stays ours. To check a new version: on both
//   databases, a failing migration must be recorded as failed, and a ';'
//   inside a string literal must survive.
function trackConnections(factory: SqlMigrationAwareDriverAdapterFactory): {
  factory: SqlMigrationAwareDriverAdapterFactory;
  disposeAll: () => Promise<void>;
} {
  const open = new Set<SqlDriverAdapter>();
  const adapt = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      if (!open.delete(adapter)) return;
      await dispose();
    };
    const runScript = scriptRunner(adapter);
    if (runScript) {
      adapter.executeScript = async (script: string) => {
        try {
          await runScript(withFinishedMark(script));
        } catch (error) {
          throw asDriverAdapterError(error);
        }
      };
    }
    open.add(adapter);
    return adapter;
  };
  return {
    factory: {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: async () => adapt(await factory.connect()),
      connectToShadowDb: async () => adapt(await factory.connectToShadowDb()),
    },
    disposeAll: async () => {
      const results = await Promise.allSettled([...open].map((adapter) => adapter.dispose()));
      const failure = results.find((result) => result.status === 'rejected');
      if (failure) console.error('Could not close a schema engine connection:', failure.reason);
    },
  };
}

/**
 * The script, and after it a statement that records its migration finished, in the script's own
 * transaction: the row the engine wrote for it before running it (`_prisma_migrations`, found by
 * the script's checksum, as Prisma computes it) gets its `finished_at` in the same commit as the
 * migration's changes. The engine records it finished again once the script returns; if the process
 * dies between the two, the history still says finished, so a migration left unfinished is always
 * one whose transaction never committed (migrate.ts, INTERRUPTED). Without a history
 * table (a shadow database, scripts that are no migration), the statement does nothing.
 */
export function withFinishedMark(script: string): string {
  const checksum = createHash('sha256').update(script).digest('hex');
  // A line of its own first: the script may end in a comment or without a semicolon.
  return `${script}
;
DO $tripline_finished$ BEGIN
  IF to_regclass('_prisma_migrations') IS NOT NULL THEN
    UPDATE _prisma_migrations SET finished_at = now() WHERE checksum = '${checksum}' AND finished_at IS NULL AND rolled_back_at IS NULL;
  END IF;
END $tripline_finished$;`;
}

type ScriptClient = { query?: (sql: string) => Promise<unknown>; exec?: (sql: string) => Promise<unknown> };

function scriptRunner(adapter: SqlDriverAdapter): ((script: string) => Promise<unknown>) | undefined {
  // @prisma/adapter-pg exposes its pg.Pool; pool.query(text) without
  // parameters uses the simple protocol, which accepts many statements.
  const withDriver = adapter as SqlDriverAdapter & { underlyingDriver?: () => ScriptClient };
  const pool = typeof withDriver.underlyingDriver === 'function' ? withDriver.underlyingDriver() : undefined;
  if (typeof pool?.query === 'function') return (script) => pool.query!(script);
  // pglite-prisma-adapter keeps its PGlite in `client`; exec() is its simple protocol.
  const pglite = (adapter as SqlDriverAdapter & { client?: ScriptClient }).client;
  if (typeof pglite?.exec === 'function') return (script) => pglite.exec!(script);
  return undefined;
}

// Database errors reach the engine in the adapters' own shape, so its message
// (and _prisma_migrations.logs) names the failing statement's error.
function asDriverAdapterError(error: unknown): unknown {
  const e = error as { code?: unknown; message?: unknown; severity?: unknown; detail?: unknown; column?: unknown; hint?: unknown };
  if (error instanceof DriverAdapterError || typeof e?.code !== 'string' || typeof e.message !== 'string') return error;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return new DriverAdapterError({
    kind: 'postgres',
    code: e.code,
    severity: text(e.severity) ?? 'ERROR',
    // The SQLSTATE too: it lands in _prisma_migrations.logs, where the message may be in the server's language.
    message: `${e.message} (SQLSTATE ${e.code})`,
    detail: text(e.detail),
    column: text(e.column),
    hint: text(e.hint),
  });
}
