import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadedPGlite } from '@/lib/platform/db/pglite-thread';
import { checkpointEmbedded, EMBEDDED_CHECKPOINT_BYTES, walSinceCheckpoint } from '@/lib/platform/db/vacuum';

// The embedded database's checkpoints (lib/platform/db/vacuum.ts). PGlite
// 0.4.3 checkpointed from inside the commit that crossed max_wal_size and
// then waited for that commit forever; the server stalled for good. Here
// max_wal_size is its smallest (32 MB) so that a few thousand commits cross it.

describe('checkpoints of the embedded database', () => {
  let dataDir: string;
  let db: ThreadedPGlite;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-checkpoint-'));
    const first = new ThreadedPGlite(dataDir);
    await first.waitReady;
    await first.exec(`ALTER SYSTEM SET max_wal_size = '32MB'`);
    await first.close();
    db = new ThreadedPGlite(dataDir);
    await db.waitReady;
    await db.exec('CREATE TABLE t (id serial PRIMARY KEY, body text NOT NULL)');
  });
  afterAll(async () => {
    await db?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps committing past max_wal_size, one commit at a time', async () => {
    expect((await db.query<{ max_wal_size: string }>('SHOW max_wal_size')).rows[0]!.max_wal_size).toBe('32MB');
    const body = 'x'.repeat(1_500);
    // About 25 MB of WAL: past the 17 MB (32 MB / 1.9) at which PostgreSQL asks for a checkpoint.
    for (let n = 0; n < 12_000; n++) await db.query('INSERT INTO t (body) VALUES ($1)', [`${body}${n}`]);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0]!.n).toBe(12_000);
    expect(await walSinceCheckpoint(db)).toBeGreaterThan(17 * 1024 * 1024);
  });

  it('checkpoints only past the threshold, and then starts the WAL count again', async () => {
    const before = await walSinceCheckpoint(db);
    expect(before).toBeLessThan(EMBEDDED_CHECKPOINT_BYTES);
    expect(await checkpointEmbedded(db)).toEqual({ walBytes: before, ms: null });
    const done = await checkpointEmbedded(db, 1024 * 1024);
    expect(done.walBytes).toBeGreaterThan(17 * 1024 * 1024);
    expect(done.ms).not.toBeNull();
    expect(await walSinceCheckpoint(db)).toBeLessThan(1024 * 1024);
  });
});
