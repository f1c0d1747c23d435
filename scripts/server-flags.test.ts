import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The server entry's first import restarts the process with the server's V8
// settings, in place (same pid), unless the operator chose their own.

const probe = `
await import(${JSON.stringify(path.join(import.meta.dirname, 'server-flags.mjs'))});
const v8 = await import('node:v8');
let keep = [];
for (let i = 0; i < 3e6; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 50000) keep = []; }
const grown = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
console.log(JSON.stringify({ pid: process.pid, argv: process.argv.slice(2), execArgv: process.execArgv, newSpaceMb: grown.space_size / 1048576, arenas: process.env.MALLOC_ARENA_MAX ?? null, mmapThreshold: process.env.MALLOC_MMAP_THRESHOLD_ ?? null }));
`;

const probeFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-flags-')), 'probe.mjs');
fs.writeFileSync(probeFile, probe);

function run(env: Record<string, string> = {}, flags: string[] = []) {
  // This shell's own malloc settings are left out: each test says whether the operator set one.
  const { MALLOC_ARENA_MAX: _arenas, MALLOC_MMAP_THRESHOLD_: _threshold, ...shell } = process.env;
  const result = spawnSync(process.execPath, [...flags, probeFile, 'start', '--x'], { encoding: 'utf8', env: { ...shell, ...env } });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return { ...JSON.parse(result.stdout.trim().split('\n').at(-1)!), spawned: result.pid };
}

const canReplace = typeof (process as { execve?: unknown }).execve === 'function' && process.platform !== 'win32';

describe('the server V8 settings', () => {
  it.runIf(canReplace)('restarts the process in place with a 4 MB semi-space on the embedded database, keeping its arguments', () => {
    const seen = run({ DATABASE_URL: '' });
    expect(seen.execArgv).toEqual(['--max-semi-space-size=4', '--heap-growing-percent=50']);
    expect(seen.argv).toEqual(['start', '--x']);
    expect(seen.pid).toBe(seen.spawned);
    // Two semi-spaces of 4 MB; now and then V8 holds a page beyond them (8.25 MB in 2 of 30 runs on
    // Node.js 24), so the bound is the next setting's size, far below V8's own 32-64 MB.
    expect(seen.newSpaceMb).toBeLessThan(16);
    expect(seen.arenas).toBe('2');
    expect(seen.mmapThreshold).toBe('131072');
  });

  it.runIf(canReplace)('restarts for malloc’s settings even when the operator set both V8 flags, and keeps an operator’s own', () => {
    const flagged = run({ DATABASE_URL: '' }, ['--max-semi-space-size=32', '--heap-growing-percent=100']);
    expect(flagged).toMatchObject({ arenas: '2', mmapThreshold: '131072', pid: flagged.spawned });
    const postgres = run({ DATABASE_URL: 'postgresql://tripline@db.example/tripline' }, ['--max-semi-space-size=32', '--heap-growing-percent=100']);
    expect(postgres).toMatchObject({ arenas: null, mmapThreshold: '131072', pid: postgres.spawned });
    expect(run({ DATABASE_URL: '', MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '65536' })).toMatchObject({ arenas: '8', mmapThreshold: '65536' });
  });

  it.runIf(canReplace)('and with 16 MB on PostgreSQL; the old generation grows by half at most on both', () => {
    const postgres = run({ DATABASE_URL: 'postgresql://tripline@db.example/tripline' });
    expect(postgres.execArgv).toEqual(['--max-semi-space-size=16', '--heap-growing-percent=50']);
    // malloc's arenas are left as glibc sizes them on PostgreSQL (throughput first); large blocks get pages of their own on both.
    expect(postgres.arenas).toBeNull();
    expect(postgres.mmapThreshold).toBe('131072');
  });

  it('leaves an operator’s own setting alone, on the command line or in NODE_OPTIONS', () => {
    const flagged = run({ DATABASE_URL: '' }, ['--max-semi-space-size=32', '--heap_growing_percent=0']);
    expect(flagged.execArgv).toEqual(['--max-semi-space-size=32', '--heap_growing_percent=0']);
    expect(flagged.newSpaceMb).toBeGreaterThan(16);
    const optioned = run({ NODE_OPTIONS: '--max-semi-space-size=32', DATABASE_URL: '' });
    // The flag the operator left out is still added.
    expect(optioned.execArgv).toEqual(['--heap-growing-percent=50']);
    expect(optioned.newSpaceMb).toBeGreaterThan(16);
  });
});
