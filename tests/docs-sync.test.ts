import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deliveryStatusFilters } from '@/lib/domain/deliveries/schemas';
import { envSchema } from '@/lib/platform/env';
import { schemeIds } from '@/lib/ingress/signatures/registry';

// The lists in docs/*.md that name things the code defines:
// signature schemes, delivery statuses, environment variables. Each must
// name exactly what the code has, so a scheme, status or variable added (or
// removed) in code fails here until the docs say so. docs/providers.md is
// kept in step by lib/ingress/signatures/providers-doc.test.ts.
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
  // Variables the configuration table documents that lib/platform/env.ts does not
  // validate, with the file that reads each.
  const readElsewhere: Record<string, string> = {
    TRIPLINE_LOG_FORMAT: 'lib/platform/log.ts',
    TRIPLINE_LOG_LEVEL: 'lib/platform/log.ts',
    NEXT_DIST_DIR: 'next.config.mjs',
    TRIPLINE_STANDALONE: 'next.config.mjs',
    TRIPLINE_APP_DIR: 'lib/platform/app-dir.ts',
    TRIPLINE_TRACE_SENDERS: 'lib/platform/tracing.ts',
    TEST_DATABASE_URL: 'playwright.config.ts',
    CHROMIUM_PATH: 'playwright.config.ts',
    E2E_PORT_BASE: 'playwright.config.ts',
  };

  it('documents exactly the environment variables Tripline reads', () => {
    const documented = [...read('docs/configuration.md').matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]!);
    const validated = Object.keys(envSchema.shape);
    expect(validated.filter((name) => !documented.includes(name)), 'in lib/platform/env.ts but not in docs/configuration.md').toEqual([]);
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

// Defaults as the docs state them must be the defaults lib/platform/env.ts applies: a
// page once said sign-up was "on by default" long after it was closed.
describe('defaults stated in README.md and docs/', () => {
  const defaults: Record<string, unknown> = envSchema.parse({});
  const pages = ['README.md', ...fs.readdirSync(new URL('../docs/', import.meta.url), { recursive: true }).map(String).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

  /** Every "`VAR`, on/off by default", "`VAR` (default X" and "`VAR=x` (default)" in a page. */
  function statedDefaults(text: string): Array<{ name: string; stated: string }> {
    const found: Array<{ name: string; stated: string }> = [];
    for (const match of text.matchAll(/`([A-Z][A-Z0-9_]+)`,? (on|off) by default/g)) found.push({ name: match[1]!, stated: match[2] === 'on' ? 'true' : 'false' });
    for (const match of text.matchAll(/`([A-Z][A-Z0-9_]+)`[^`.|]{0,20}\(default:? `?([A-Za-z0-9._-]+)`?/g)) found.push({ name: match[1]!, stated: match[2]! });
    for (const match of text.matchAll(/`([A-Z][A-Z0-9_]+)=([A-Za-z0-9._-]+)` \(default\)/g)) found.push({ name: match[1]!, stated: match[2]! });
    // The configuration table: | `VAR` | `default` | meaning |
    for (const match of text.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| `([^`|]+)` \|/gm)) found.push({ name: match[1]!, stated: match[2]! });
    return found;
  }

  it('finds the statements it checks', () => {
    const all = pages.flatMap((page) => statedDefaults(read(page)));
    expect(all.map((entry) => entry.name)).toEqual(expect.arrayContaining(['TRIPLINE_ALLOW_SIGNUP', 'TRIPLINE_INVITATION_TTL_DAYS', 'TRIPLINE_FACTORY_CREATION']));
  });

  it('states each default as lib/platform/env.ts applies it', () => {
    const wrong = pages.flatMap((page) =>
      statedDefaults(read(page))
        .filter(({ name }) => name in defaults)
        .filter(({ name, stated }) => String(defaults[name]) !== stated)
        .map(({ name, stated }) => `${page}: ${name} stated as ${stated}, lib/platform/env.ts applies ${String(defaults[name])}`),
    );
    expect(wrong).toEqual([]);
  });
});
