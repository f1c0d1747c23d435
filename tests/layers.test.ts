import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain ES modules without types, shared with the lint rules.
import { ingressDomainImports } from '../eslint/layers.mjs';
// @ts-expect-error: as above.
import { runtimeImports } from '../eslint/no-transitive-imports.mjs';

// lib/'s folders import each other in one direction only
// (docs/decisions/0082-lib-s-layers-and-their-direction.md). ESLint checks
// each file's imports against its layer (eslint/layers.mjs); this builds the
// graph of folders from every runtime import under lib/ (`import type` does
// not count: it loads nothing) and fails on a cycle between folders, which
// the per-layer rules cannot see among the domains.

const root = path.resolve(import.meta.dirname, '..');

/**
 * Cycles that remain, keyed by their folders (sorted, joined with ' <-> '),
 * each with why it stays. A cycle not listed fails, and so does an entry that
 * is no longer a cycle: the list only shrinks.
 */
const knownCycles: Record<string, string> = {};

/** The folder a file counts in: a domain, a platform module, the ingress wing's parts, an adapter, lib/server. */
function folderOf(file: string): string | null {
  const rel = path.relative(root, file).split(path.sep).join('/');
  if (!rel.startsWith('lib/') || rel.startsWith('lib/generated/')) return null;
  // A domain's actions.ts is its 'use server' adapter, above every domain.
  const actions = rel.match(/^lib\/domain\/([^/]+)\/actions\.ts$/);
  if (actions) return `lib/domain/${actions[1]}/actions.ts`;
  const part = rel.match(/^lib\/(?:ingress\/(?=signatures\/|filters\/)|domain\/|platform\/|adapters\/)?[^/]+/)![0];
  return part.replace(/\.(tsx?|mjs)$/, '');
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(file);
    return /\.(tsx?|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

/** folder -> folder -> one file-level import that makes the edge, for the failure message. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(path.join(root, 'lib'))) {
    const from = folderOf(file)!;
    for (const [specifier, resolved] of runtimeImports(file) as Array<[string, string | null]>) {
      const to = resolved && folderOf(resolved);
      if (!to || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      if (!graph.get(from)!.has(to)) graph.get(from)!.set(to, `${path.relative(root, file)} imports ${specifier}`);
    }
  }
  return graph;
}

/** Strongly connected components of more than one folder (Tarjan). */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("lib/'s folders", () => {
  const graph = folderGraph();

  it('import each other in one direction only', () => {
    // A parser that found nothing would pass vacuously.
    expect(graph.get('lib/domain/webhooks')?.has('lib/domain/health')).toBe(true);
    const found = cycles(graph);
    const unexplained = found
      .filter((component) => !(component.join(' <-> ') in knownCycles))
      .map((component) => {
        const edges = component.flatMap((from) => component.filter((to) => graph.get(from)?.has(to)).map((to) => `  ${graph.get(from)!.get(to)}`));
        return `${component.join(' <-> ')}\n${edges.join('\n')}`;
      });
    expect(unexplained, 'break the cycle (move the shared piece to its own home), or name it with its reason in knownCycles').toEqual([]);
    const names = new Set(found.map((component) => component.join(' <-> ')));
    expect(Object.keys(knownCycles).filter((name) => !names.has(name)), 'no longer cycles: remove them from knownCycles').toEqual([]);
  });

  it("still need each domain module the ingress wing is allowed (eslint/layers.mjs)", () => {
    const used = new Set<string>();
    for (const file of sourceFiles(path.join(root, 'lib/ingress'))) {
      for (const [specifier] of runtimeImports(file) as Array<[string, string | null]>) used.add(specifier);
    }
    expect(Object.keys(ingressDomainImports).filter((name) => !used.has(name)), 'no longer imported: remove from ingressDomainImports').toEqual([]);
  });
});
