import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Every relative link in README.md and docs/ points at a file the repository
// holds, and every #anchor at a heading of that file (as GitHub renders it),
// so moving or renaming a page or a heading fails here until its links follow.

const root = path.resolve(import.meta.dirname, '..');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(file);
    return entry.name.endsWith('.md') ? [file] : [];
  });
}

/** The text outside fenced code blocks. */
function unfenced(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The text outside code, where links are links. */
function prose(text: string): string {
  return unfenced(text).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lowercased, punctuation but `_` and `-` dropped, spaces as hyphens; repeats get -1, -2... */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of unfenced(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const plain = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a (?:name|id)="([^"]+)"/g)) result.add(id!);
  return result;
}

const files = [path.join(root, 'README.md'), ...markdownFiles(path.join(root, 'docs'))];

describe('links in README.md and docs/', () => {
  it.each(files.map((file) => [path.relative(root, file), file]))('%s: every relative link and anchor resolves', (_name, file) => {
    const text = fs.readFileSync(file, 'utf8');
    const broken: string[] = [];
    for (const [, target] of prose(text).matchAll(/\]\(<?([^)\s>]+)>?(?: "[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:
      const [filePart, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = filePart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(filePart));
      if (!resolved.startsWith(root) || !fs.existsSync(resolved)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor === undefined || !resolved.endsWith('.md')) continue;
      if (!anchors(fs.readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${target}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it('finds the pages it checks', () => {
    expect(files.length).toBeGreaterThan(10);
  });
});
