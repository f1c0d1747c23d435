// The Prisma client's query compiler is WebAssembly. Prisma's generated client
// imports it as a module holding the binary in base64 (4.4 MB) and decodes it
// on first query; that module's source and its string then stay in the
// server's memory for good. After `prisma generate` (scripts/prisma-generate.mjs)
// this writes the binary once to QUERY_COMPILER_WASM and makes the generated
// client read that file instead, as the server reads its migrations: from the
// app's folder (lib/platform/app-dir.ts). Idle, the server is 15-30 MB
// smaller: docs/decisions/0092.
import fs from 'node:fs';
import path from 'node:path';

/** The binary, relative to the app's folder; the npm package copies it (scripts/pack.mjs). */
export const QUERY_COMPILER_WASM = 'lib/generated/prisma/query_compiler.wasm';

const root = path.resolve(import.meta.dirname, '..');
const CLASS_FILE = path.join(root, 'lib/generated/prisma/internal/class.ts');
// What the generator writes (prisma-client, Prisma 7): the loader and its decoder.
const LOADER = /getQueryCompilerWasmModule: async \(\) => \{\n\s*const \{ wasm \} = await import\("([^"]+)"\)\n\s*return await decodeBase64AsWasm\(wasm\)\n\s*\}/;
const DECODER = /async function decodeBase64AsWasm\(wasmBase64: string\): Promise<WebAssembly\.Module> \{\n[\s\S]*?\n\}\n/;

const loader = `getQueryCompilerWasmModule: async () => {
    // Written by scripts/query-compiler.mjs: the binary from the app's folder, not base64 held in memory.
    const { readFile } = await import('node:fs/promises')
    const { join } = await import('node:path')
    const { appDir } = await import('../../../platform/app-dir')
    const file = join(/*turbopackIgnore: true*/ appDir(), '${QUERY_COMPILER_WASM}')
    const bytes = await readFile(file).catch((error: Error) => {
      throw new Error(\`The database client's query compiler is missing (\${error.message}): \\\`npm install\\\` generates it\`)
    })
    return await WebAssembly.compile(bytes)
  }`;

export async function loadQueryCompilerFromFile() {
  const source = fs.readFileSync(CLASS_FILE, 'utf8');
  const found = LOADER.exec(source);
  if (!found || !DECODER.test(source)) {
    throw new Error(`${path.relative(root, CLASS_FILE)}: Prisma's generated query compiler loader is not the one scripts/query-compiler.mjs rewrites (a new Prisma version?)`);
  }
  const { wasm } = await import(found[1]);
  fs.writeFileSync(path.join(root, QUERY_COMPILER_WASM), Buffer.from(wasm, 'base64'));
  fs.writeFileSync(CLASS_FILE, source.replace(LOADER, loader).replace(DECODER, ''));
}
