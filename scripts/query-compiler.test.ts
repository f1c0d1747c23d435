import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUERY_COMPILER_WASM } from './query-compiler.mjs';
import { budget } from './speed.mjs';

// `npm install` (prisma-generate.mjs) writes the database client's query
// compiler as a binary file that the generated client reads from the app's
// folder, rather than the base64 module that stayed in the server's memory.

const root = path.resolve(import.meta.dirname, '..');
const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-no-compiler-'));
afterAll(() => fs.rmSync(empty, { recursive: true, force: true }));

/** The first query of a client in its own process, with the app's folder given; prints its error. */
function firstQuery(appDir: string): string {
  const code = `
    const { openDatabase } = await import('@/lib/platform/db');
    const db = openDatabase({ kind: 'postgres', url: 'postgresql://nobody@127.0.0.1:1/none' });
    try { await db.prisma.user.count(); } catch (error) { console.log(error.message); } finally { await db.close(); }`;
  const result = spawnSync(process.execPath, ['--conditions=react-server', '--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: root,
    env: { ...process.env, TRIPLINE_APP_DIR: appDir },
    encoding: 'utf8',
    timeout: budget(60_000),
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

describe("the database client's query compiler", () => {
  it('is a WebAssembly file in the app folder, and the generated client imports no base64 copy of it', () => {
    const bytes = fs.readFileSync(path.join(root, QUERY_COMPILER_WASM));
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from('\0asm'));
    expect(WebAssembly.validate(bytes)).toBe(true);
    const generated = fs.readFileSync(path.join(root, 'lib/generated/prisma/internal/class.ts'), 'utf8');
    expect(generated).not.toMatch(/wasm-base64/);
    expect(generated).toContain(QUERY_COMPILER_WASM);
  });

  it('is read from the app folder: a client gets as far as the database', () => {
    expect(firstQuery(root)).toMatch(/Can't reach database server at 127\.0\.0\.1:1/);
  });

  it('missing, fails the first query with what to do', () => {
    const message = firstQuery(empty);
    expect(message).toContain("The database client's query compiler is missing");
    expect(message).toContain(path.join(empty, QUERY_COMPILER_WASM));
    expect(message).toContain('`npm install` generates it');
  });
});
