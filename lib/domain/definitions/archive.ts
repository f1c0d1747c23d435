import { gzipSync } from 'node:zlib';
import type { DefinitionFiles } from '@/lib/domain/definitions/schemas';

// The download of a factory's definition files: a gzipped POSIX (ustar) tar
// whose entries are webhooks/<name>.yaml, so `tar xzf` at a repository's root
// lays the files out as a repository-backed factory expects them. Definition
// paths are short ASCII names (at most 78 characters), so the plain ustar
// header is enough and a few lines replace an archive library.

const BLOCK = 512;

function header(name: string, size: number, type: '0' | '5', mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const put = (offset: number, length: number, value: string) => block.write(value, offset, length, 'ascii');
  const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, '0')}\0`;
  if (Buffer.byteLength(name) > 100) throw new Error(`Archive path too long: ${name}`);
  put(0, 100, name);
  put(100, 8, octal(type === '5' ? 0o755 : 0o644, 8));
  put(108, 8, octal(0, 8));
  put(116, 8, octal(0, 8));
  put(124, 12, octal(size, 12));
  put(136, 12, octal(mtime, 12));
  put(148, 8, '        ');
  put(156, 1, type);
  put(257, 6, 'ustar\0');
  put(263, 2, '00');
  let sum = 0;
  for (const byte of block) sum += byte;
  put(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** A .tar.gz holding the files (directories are added for each folder). */
export function definitionsArchive(files: DefinitionFiles, modified = new Date()): Buffer {
  const mtime = Math.floor(modified.getTime() / 1000);
  const parts: Buffer[] = [];
  const folders = new Set<string>();
  for (const path of Object.keys(files).sort()) {
    const segments = path.split('/').slice(0, -1);
    for (let i = 1; i <= segments.length; i++) {
      const folder = `${segments.slice(0, i).join('/')}/`;
      if (!folders.has(folder)) {
        folders.add(folder);
        parts.push(header(folder, 0, '5', mtime));
      }
    }
    const content = Buffer.from(files[path]!, 'utf8');
    parts.push(header(path, content.length, '0', mtime), content, Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(parts));
}
