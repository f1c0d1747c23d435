import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deliveryStatusFilters } from '@/lib/deliveries/schemas';
import { envSchema } from '@/lib/env';
import { schemeIds } from '@/lib/signatures/registry';

// The lists in docs/*.md that name things the code defines:
// signature schemes, delivery statuses, environment variables. Each must
// name exactly what the code has, so a scheme, status or variable added (or
// removed) in code fails here until the docs say so. docs/providers.md is
// kept in step by lib/signatures/providers-doc.test.ts.
// UPDATE_DOCS=1 rewrites the generated row of docs/definitions.md.

const read = (file: string) => fs.readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
const backticked = (text: string) => new Set([...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!));

/** The signatureScheme row of docs/definitions.md's key table, from the registry. */
function signatureSchemeRow(): string {
  const list = schemeIds.map((id) => `\`${id}\``).join(', ');
  return `| \`signatureScheme\` | with \`signature\` only | one of the ${schemeIds.length} schemes of [docs/providers.md](providers.md): ${list} |`;
}

describe('docs/definitions.md', () => {
  it('lists every signatureScheme the registry has', () => {
    const file = new URL('../docs/definitions.md', import.meta.url);
    const current = fs.readFileSync(file, 'utf8');
    const row = current.split('\n').find((line) => line.startsWith('| `signatureScheme` |'));
    expect(row, 'docs/definitions.md has no signatureScheme row').toBeDefined();
    if (process.env.UPDATE_DOCS === '1') {
      fs.writeFileSync(file, current.replace(row!, signatureSchemeRow()));
      return;
    }
    expect(row, 'docs/definitions.md is out of date: run UPDATE_DOCS=1 npx vitest run tests/docs-sync.test.ts').toBe(signatureSchemeRow());
  });
});

describe('docs/ingress.md', () => {
  const ingress = read('docs/ingress.md');

  it('names every provider scheme, with their count', () => {
    const paragraph = /Supported provider schemes \((\d+)\):([\s\S]*?)\. Each one's/.exec(ingress);
    expect(paragraph, 'docs/ingress.md lacks "Supported provider schemes (N): ..."').not.toBeNull();
    expect(Number(paragraph![1])).toBe(schemeIds.length);
    const named = [...backticked(paragraph![2]!)].filter((word) => !word.includes('*'));
    expect(named.sort()).toEqual([...schemeIds].sort());
  });
});

describe('docs/api.md', () => {
  it('names every delivery status the log can be filtered by, in the API table', () => {
    const row = read('docs/api.md').split('\n').find((line) => line.startsWith('| `GET .../webhooks/{uid}/deliveries'));
    expect(row).toBeDefined();
    const named = backticked(row!);
    expect(deliveryStatusFilters.filter((status) => !named.has(status))).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  // Variables the configuration table documents that lib/env.ts does not
  // validate, with the file that reads each.
  const readElsewhere: Record<string, string> = {
    TRIPLINE_LOG_FORMAT: 'lib/log.ts',
    TRIPLINE_LOG_LEVEL: 'lib/log.ts',
    NEXT_DIST_DIR: 'next.config.mjs',
    TEST_DATABASE_URL: 'playwright.config.ts',
    CHROMIUM_PATH: 'playwright.config.ts',
    E2E_PORT_BASE: 'playwright.config.ts',
  };

  it('documents exactly the environment variables Tripline reads', () => {
    const documented = [...read('docs/configuration.md').matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]!);
    const validated = Object.keys(envSchema.shape);
    expect(validated.filter((name) => !documented.includes(name)), 'in lib/env.ts but not in docs/configuration.md').toEqual([]);
    expect(
      documented.filter((name) => !validated.includes(name) && !(name in readElsewhere)),
      'in docs/configuration.md but read nowhere the test knows of',
    ).toEqual([]);
    for (const [name, file] of Object.entries(readElsewhere)) {
      expect(documented, `${name} is no longer documented: drop it from readElsewhere`).toContain(name);
      expect(read(file), `${file} no longer reads ${name}`).toContain(name);
    }
  });
});
