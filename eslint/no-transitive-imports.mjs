import fs from 'node:fs';
import path from 'node:path';

// ESLint's no-restricted-imports sees a file's own imports only. This rule
// follows the project's imports (`@/...` and relative ones, not `import
// type`) through every file they reach and reports an import of the linted
// file that leads to a forbidden module, with the chain that gets there.
// Packages are leaves: what a package imports is not followed.
//
// Options: { forbidden: [{ pattern: string (a module specifier, or a prefix
// ending in '*'), message: string }] }

const root = path.resolve(import.meta.dirname, '..');
const extensions = ['.ts', '.tsx', '.mjs', '.js', '/index.ts', '/index.tsx'];
const importPattern =
  /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The runtime imports of a file: [specifier, resolved project file or null for a package]. Also read by tests/layers.test.ts. */
const importsCache = new Map();
export function runtimeImports(file) {
  const mtime = fs.statSync(file).mtimeMs;
  const cached = importsCache.get(file);
  if (cached?.mtime === mtime) return cached.found;
  const found = [];
  const text = fs.readFileSync(file, 'utf8');
  for (const match of text.matchAll(importPattern)) {
    if (match[1]) continue; // import type / export type
    const specifier = match[2] ?? match[3];
    found.push([specifier, resolve(file, specifier)]);
  }
  importsCache.set(file, { mtime, found });
  return found;
}

function resolve(from, specifier) {
  let base;
  if (specifier.startsWith('@/')) base = path.join(root, specifier.slice(2));
  else if (specifier.startsWith('.')) base = path.resolve(path.dirname(from), specifier);
  else return null;
  if (fs.existsSync(base) && fs.statSync(base).isFile()) return base;
  for (const extension of extensions) if (fs.existsSync(base + extension)) return base + extension;
  return null;
}

function matches(pattern, specifier, file) {
  const name = file ? `@/${path.relative(root, file).replace(/\.(tsx?|mjs|js)$/, '').replace(/\/index$/, '')}` : specifier;
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** The first chain from `file` to a forbidden module, or null. */
function forbiddenChain(start, forbidden) {
  const seen = new Set([start]);
  const queue = [[start, []]];
  while (queue.length) {
    const [file, chain] = queue.shift();
    for (const [specifier, resolved] of runtimeImports(file)) {
      const rule = forbidden.find((f) => matches(f.pattern, specifier, resolved));
      if (rule) return { chain: [...chain, specifier], rule };
      if (resolved && !seen.has(resolved)) {
        seen.add(resolved);
        queue.push([resolved, [...chain, specifier]]);
      }
    }
  }
  return null;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid modules reached through any chain of project imports' },
    schema: [
      {
        type: 'object',
        properties: {
          forbidden: {
            type: 'array',
            items: { type: 'object', properties: { pattern: { type: 'string' }, message: { type: 'string' } }, required: ['pattern', 'message'] },
          },
        },
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const forbidden = context.options[0]?.forbidden ?? [];
    const check = (node) => {
      if (!node.source || node.importKind === 'type' || node.exportKind === 'type') return;
      const specifier = node.source.value;
      const resolved = resolve(context.filename, specifier);
      const direct = forbidden.find((f) => matches(f.pattern, specifier, resolved));
      const found = direct ? { chain: [specifier], rule: direct } : resolved ? forbiddenChain(resolved, forbidden) : null;
      if (!found) return;
      const chain = direct ? specifier : [specifier, ...found.chain].join(' -> ');
      context.report({ node: node.source, message: `${found.rule.message} (${chain})` });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

const plugin = { rules: { 'no-transitive-imports': rule } };

export default plugin;
