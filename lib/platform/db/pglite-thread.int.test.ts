import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { messages, PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadedPGlite } from '@/lib/platform/db/pglite-thread';
import { createTestDatabase, type TestDatabase } from '@/tests/support/databases';

// The embedded database runs on a thread of its own (lib/platform/db/pglite-thread.ts).
// What crosses the thread must come back exactly as PGlite in this thread
// gives it: values of every type the app reads, errors with their fields,
// transactions. And the point of the thread: this one keeps running while
// the database works.

const TYPES_SQL = `SELECT 1::int AS "int", 'x'::text AS "text", '2026-01-02T03:04:05.678Z'::timestamptz AS "at",
  '{"a":[1,2],"b":null}'::jsonb AS "jsonb", '{"c":1}'::json AS "json", '\\x00ff10'::bytea AS "bytes",
  ARRAY[1,2,3]::int[] AS "ints", ARRAY['a','b c']::text[] AS "texts", 12345678901234::bigint AS "big",
  1.5::numeric AS "numeric", NULL::text AS "none", true AS "yes", 'accepted'::text AS "status",
  $1::text AS "p_text", $2::jsonb AS "p_json", $3::timestamptz AS "p_at", $4::bytea AS "p_bytes", $5::text[] AS "p_texts", $6::int AS "p_null"`;
const PARAMS = ['p', JSON.stringify({ z: [1, 'two'] }), new Date('2026-03-04T05:06:07.089Z'), Buffer.from([1, 2, 250]), ['q', 'r s'], null];

describe('the embedded database on its own thread', () => {
  let threaded: ThreadedPGlite;
  let local: PGlite;

  beforeAll(async () => {
    threaded = new ThreadedPGlite(undefined);
    local = new PGlite();
    await Promise.all([threaded.waitReady, local.waitReady]);
    for (const db of [threaded, local]) await db.exec('CREATE TABLE t (id int PRIMARY KEY, note text NOT NULL)');
  });
  afterAll(async () => {
    await threaded?.close();
    await local?.close();
  });

  it('returns every type as PGlite in this thread does, as objects and as arrays', async () => {
    expect(await threaded.query(TYPES_SQL, PARAMS)).toEqual(await local.query(TYPES_SQL, PARAMS));
    expect(await threaded.query(TYPES_SQL, PARAMS, { rowMode: 'array' })).toEqual(await local.query(TYPES_SQL, PARAMS, { rowMode: 'array' }));
    const [row] = (await threaded.query<Record<string, unknown>>(TYPES_SQL, PARAMS)).rows;
    expect(row).toMatchObject({ int: 1, at: new Date('2026-01-02T03:04:05.678Z'), jsonb: { a: [1, 2], b: null }, ints: [1, 2, 3], texts: ['a', 'b c'], none: null });
    expect(row!.bytes).toEqual(new Uint8Array([0, 255, 16]));
  });

  it('applies the parsers the caller passes (the Prisma adapter passes its own)', async () => {
    const options = { parsers: { 1184: (text: string) => `at:${text}`, 23: (text: string) => Number(text) * 10 } };
    const [row] = (await threaded.query<{ at: string; int: number }>(`SELECT 2::int AS "int", '2026-01-01T00:00:00Z'::timestamptz AS "at"`, [], options)).rows;
    expect(row).toEqual({ int: 20, at: expect.stringMatching(/^at:2026-01-01 00:00:00/) });
  });

  it('runs several statements in exec, with their results', async () => {
    const script = `INSERT INTO t VALUES (100, 'script'); SELECT note FROM t WHERE id = 100; DELETE FROM t WHERE id = 100`;
    expect(await threaded.exec(script)).toEqual(await local.exec(script));
  });

  it('throws a database error as PGlite does: a DatabaseError with every field', async () => {
    for (const db of [threaded, local]) await db.query(`INSERT INTO t VALUES (1, 'one')`);
    const [remote, here] = await Promise.all(
      [threaded, local].map((db) => db.query(`INSERT INTO t VALUES (1, 'again')`).then(
        () => null,
        (error: unknown) => error as messages.DatabaseError & { queryOptions?: unknown },
      )),
    );
    expect(remote).toBeInstanceOf(messages.DatabaseError);
    expect(remote).toMatchObject({ code: '23505', constraint: 't_pkey', table: 't', severity: 'ERROR', query: `INSERT INTO t VALUES (1, 'again')` });
    expect({ ...remote, queryOptions: undefined }).toEqual({ ...here, queryOptions: undefined });
    expect(remote!.message).toBe(here!.message);
    // The connection is usable after the error.
    expect((await threaded.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 1 }]);
  });

  it('commits a transaction, and rolls back one that throws or is rolled back', async () => {
    const seen = await threaded.transaction(async (tx) => {
      await tx.query(`INSERT INTO t VALUES (2, 'two')`);
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0]!.n;
    });
    expect(seen).toBe(2);
    await threaded.transaction(async (tx) => {
      await tx.query(`INSERT INTO t VALUES (3, 'three')`);
      await tx.rollback();
      expect(tx.closed).toBe(true);
    });
    await expect(
      threaded.transaction(async (tx) => {
        await tx.query(`INSERT INTO t VALUES (4, 'four')`);
        throw new Error('the caller failed');
      }),
    ).rejects.toThrow('the caller failed');
    expect((await threaded.query<{ id: number }>('SELECT id FROM t ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('keeps a statement out of an open transaction until it ends', async () => {
    let inserted!: () => void;
    const holdsItsRow = new Promise<void>((resolve) => (inserted = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = threaded.transaction(async (tx) => {
      await tx.query(`INSERT INTO t VALUES (5, 'in the transaction')`);
      inserted();
      await held;
      await tx.rollback();
    });
    // Sent while the transaction is open and holds its row: it must neither see nor commit that row.
    await holdsItsRow;
    const outside = threaded.query<{ n: number }>('SELECT count(*)::int AS n FROM t WHERE id = 5');
    // Its way to the thread is promise callbacks only: after them, a statement not held back is on the thread ahead of the ROLLBACK.
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await transaction;
    expect((await outside).rows).toEqual([{ n: 0 }]);
  });

  it("leaves this thread free while the database works (PGlite in this thread stops it)", async () => {
    const heavy = 'SELECT count(*)::int AS n FROM generate_series(1, 4000000) AS g WHERE g % 7 = 0';
    const tickMs = 10;
    const ticksDuring = async (db: ThreadedPGlite | PGlite) => {
      let ticks = 0;
      const timer = setInterval(() => (ticks += 1), tickMs);
      const started = performance.now();
      const { rows } = await db.query<{ n: number }>(heavy);
      const ms = performance.now() - started;
      clearInterval(timer);
      expect(rows).toEqual([{ n: 571428 }]);
      return { ticks, ms };
    };
    const onThread = await ticksDuring(threaded);
    const inThisThread = await ticksDuring(local);
    console.log(`on its thread: ${Math.round(onThread.ms)} ms, ${onThread.ticks} ticks; in this thread: ${Math.round(inThisThread.ms)} ms, ${inThisThread.ticks} ticks (one every ${tickMs} ms)`);
    // The premise: the statement lasts long enough for a free thread to tick many times (a lower bound: a slower machine only lengthens it).
    expect(inThisThread.ms).toBeGreaterThan(10 * tickMs);
    // PGlite here runs the statement in one synchronous call: no timer fires until it returns.
    expect(inThisThread.ticks).toBeLessThanOrEqual(1);
    // On its own thread, this one keeps running its timers throughout: at least a quarter of them, measured against its own duration.
    expect(onThread.ticks).toBeGreaterThanOrEqual(Math.floor(onThread.ms / tickMs / 4));
  });

  it('copies the database, and refuses calls once closed', async () => {
    const copy = await threaded._runExclusiveQuery(() => threaded.dumpDataDir('gzip'));
    expect(copy.size).toBeGreaterThan(1000);
    const restored = new PGlite({ loadDataDir: copy });
    expect((await restored.query<{ id: number }>('SELECT id FROM t ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
    await restored.close();

    const other = new ThreadedPGlite(undefined);
    await other.close();
    await expect(other.query('SELECT 1')).rejects.toThrow('the embedded database is closed');
  });
});

describe('the embedded database on its own thread, in a folder', () => {
  it('keeps what was committed across a close and a reopen', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-thread-'));
    try {
      const first = new ThreadedPGlite(dir);
      await first.exec(`CREATE TABLE kept (note text)`);
      await first.query(`INSERT INTO kept VALUES ($1)`, ['across restarts']);
      await first.close();
      const second = new ThreadedPGlite(dir);
      expect((await second.query<{ note: string }>('SELECT note FROM kept')).rows).toEqual([{ note: 'across restarts' }]);
      await second.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('from the package’s template', () => {
    let dir: string;
    let template: string;
    // A template as the package's (scripts/pack/embedded-template.mjs): a database's dump, with a mark of its own.
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-template-'));
      const source = new ThreadedPGlite(undefined);
      await source.exec(`CREATE TABLE origin (name text); INSERT INTO origin VALUES ('template')`);
      template = path.join(dir, 'template.tar.gz');
      fs.writeFileSync(template, Buffer.from(await (await source._runExclusiveQuery(() => source.dumpDataDir('gzip'))).arrayBuffer()));
      await source.close();
    });
    afterAll(() => {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('starts an empty folder from the template, and opens one with a database as it is', async () => {
      const parent = fs.mkdtempSync(path.join(dir, 'new-'));
      // A new folder (created empty, as openAdapter does) starts from it...
      const folder = path.join(parent, 'data');
      fs.mkdirSync(folder);
      // A copy a killed start left half done beside it is never taken for the database, and is removed.
      const killed = path.join(parent, 'data.template-12345');
      fs.mkdirSync(killed);
      fs.writeFileSync(path.join(killed, 'PG_VERSION'), '17\n');
      const fresh = new ThreadedPGlite(folder, { template });
      expect((await fresh.query<{ name: string }>('SELECT name FROM origin')).rows).toEqual([{ name: 'template' }]);
      expect(fresh.fromTemplate).toBe(true);
      expect(fs.readdirSync(parent)).toEqual(['data']);
      await fresh.query(`INSERT INTO origin VALUES ('written after')`);
      await fresh.close();

      // ...and once it holds a database, the template is not used again: what was written stays.
      const reopened = new ThreadedPGlite(folder, { template });
      expect((await reopened.query<{ name: string }>('SELECT name FROM origin ORDER BY name')).rows).toEqual([{ name: 'template' }, { name: 'written after' }]);
      expect(reopened.fromTemplate).toBe(false);
      await reopened.close();
      // (Without a template file, as in a clone, a new folder runs initdb: the test above, in a folder.)
    });

    it('copies it private: the folder 0700, every folder and file of the template 0700 and 0600, whatever the umask', async () => {
      const parent = fs.mkdtempSync(path.join(dir, 'modes-'));
      const folder = path.join(parent, 'data');
      // The umask a user's shell usually has; the servers' entries set a private one (lib/platform/private-files.ts), this process does not.
      const umask = process.umask(0o022);
      try {
        fs.mkdirSync(folder);
        const copied = new ThreadedPGlite(folder, { template });
        await copied.waitReady;
        expect(copied.fromTemplate).toBe(true);
        // What the copy holds before PGlite writes anything of its own (which the umask governs).
        const modes = (fs.readdirSync(folder, { recursive: true }) as string[])
          .map((name) => [name, fs.statSync(path.join(folder, name))] as const)
          .filter(([, stat]) => (stat.mode & 0o777) !== (stat.isDirectory() ? 0o700 : 0o600))
          .map(([name, stat]) => `${name} ${(stat.mode & 0o777).toString(8)}`);
        await copied.close();
        expect({ folder: (fs.statSync(folder).mode & 0o777).toString(8), modes: modes.slice(0, 20) }).toEqual({ folder: '700', modes: [] });
      } finally {
        process.umask(umask);
      }
    });

    it('is loaded through PGlite when the data folder cannot be replaced (a mount point, a parent it may not write)', async (context) => {
      const parent = fs.mkdtempSync(path.join(dir, 'fixed-'));
      try {
        fs.mkdirSync(path.join(parent, 'data'));
        // An immutable parent: nothing can be created beside the folder, nor the folder renamed, even by root.
        const chattr = spawnSync('chattr', ['+i', parent], { encoding: 'utf8' });
        if (chattr.status !== 0) {
          if (process.env.CI) throw new Error(`chattr +i is needed for this test under CI: ${chattr.stderr || chattr.error}`);
          context.skip(`chattr +i is not available here (${chattr.stderr || chattr.error})`);
        }
        const fixed = new ThreadedPGlite(path.join(parent, 'data'), { template });
        expect((await fixed.query<{ name: string }>('SELECT name FROM origin')).rows).toEqual([{ name: 'template' }]);
        expect(fixed.fromTemplate).toBe(true);
        await fixed.close();
        expect(fs.existsSync(path.join(parent, 'data', 'PG_VERSION'))).toBe(true);
      } finally {
        spawnSync('chattr', ['-i', parent]);
      }
    });
  });

  it('fails every call with the reason when the folder cannot be opened', async () => {
    const busy = Promise.reject(new Error('the data folder is busy'));
    const database = new ThreadedPGlite(os.tmpdir(), { before: busy });
    await expect(database.query('SELECT 1')).rejects.toThrow('the data folder is busy');
    await expect(database.exec('SELECT 1')).rejects.toThrow('the data folder is busy');
  });
});

describe('Prisma on the threaded embedded database', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('pglite');
  });
  afterAll(() => database?.drop());

  it('reports a unique violation as P2002 and rolls back an interactive transaction', async () => {
    const db = database.prisma;
    await db.user.create({ data: { email: 'one@example.com', passwordHash: 'x' } });
    await expect(db.user.create({ data: { email: 'one@example.com', passwordHash: 'x' } })).rejects.toMatchObject({ code: 'P2002' });
    await expect(
      db.$transaction(async (tx) => {
        await tx.user.create({ data: { email: 'two@example.com', passwordHash: 'x' } });
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await db.user.count()).toBe(1);
  });
});
