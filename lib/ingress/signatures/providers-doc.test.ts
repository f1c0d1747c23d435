import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handshakeOfVector, loadVectors, schemeOf } from './fixtures/vectors';
import { renderEventTypeTable, renderLimitations, renderProviderTable, renderSetup, type VectorTally } from './providers-doc';
import type { SchemeId } from './registry';
import { verifySignature } from './verify';

// docs/providers.md carries the provider table between markers; it must be
// exactly what the registry and the vectors say. UPDATE_DOCS=1 rewrites it.

const DOC = new URL('../../../docs/providers.md', import.meta.url);

function replaceBlock(text: string, name: string, content: string): string {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/providers.md lacks the ${begin} … ${end} block`);
  return `${text.slice(0, from + begin.length)}\n${content}\n${text.slice(to)}`;
}

describe('docs/providers.md', () => {
  it('lists every scheme with its vectors’ results, as the registry says', () => {
    const tallies: Partial<Record<SchemeId, VectorTally>> = {};
    for (const vector of loadVectors()) {
      const scheme = schemeOf(vector);
      const handshake = Object.hasOwn(handshakeOfVector, vector.scheme) ? handshakeOfVector[vector.scheme] : undefined;
      const id = scheme ?? handshake;
      if (!id) continue;
      const tally = (tallies[id] ??= { valid: 0, invalid: 0, handshakes: 0, passed: true });
      if (!scheme || vector.expected_response?.startsWith('200')) tally.handshakes += 1;
      else if (vector.expected === 'valid') tally.valid += 1;
      else tally.invalid += 1;
      // Unsigned handshakes are exercised over HTTP (e2e/api/provider-vectors.spec.ts); the rest verify here.
      if (!scheme) continue;
      const headers = new Headers(vector.headers);
      // A vector whose header whitespace HTTP trims is asserted as such in verify.test.ts.
      if (Object.entries(vector.headers).some(([key, value]) => headers.get(key) !== value)) continue;
      const result = verifySignature(scheme, {
        rawBody: Buffer.from(vector.body, 'utf8'),
        headers,
        secret: vector.secret ?? '',
        now: vector.now ?? 1_700_000_000,
        url: vector.url,
      });
      if (result.ok !== (vector.expected === 'valid')) tally.passed = false;
    }

    const current = fs.readFileSync(DOC, 'utf8');
    const blocks: Array<[string, string]> = [
      ['providers', renderProviderTable(tallies)],
      ['limitations', renderLimitations()],
      ['event-types', renderEventTypeTable()],
      ['setup', renderSetup()],
    ];
    const wanted = blocks.reduce((text, [name, content]) => replaceBlock(text, name, content), current);
    if (process.env.UPDATE_DOCS === '1') {
      fs.writeFileSync(DOC, wanted);
      return;
    }
    expect(current, 'docs/providers.md is out of date: run UPDATE_DOCS=1 npx vitest run lib/ingress/signatures/providers-doc.test.ts').toBe(wanted);
  });
});
