// The direction of lib/'s layers (docs/architecture.md, Layers;
// docs/decisions/0082-lib-s-layers-and-their-direction.md), checked on each
// file's own imports. Upward is forbidden: platform < ingress wing < domains
// < adapters < lib/server (the composition root) < app/ and components/.
// Type-only imports are allowed: they are gone at run time and cannot load a
// module. The hot path's transitive rule (no-transitive-imports.mjs) adds
// what the ingress must not reach through any chain; tests/layers.test.ts
// checks that no folders import each other.

/**
 * What the ingress wing imports from the domains today, each with its reason.
 * Anything else under lib/domain is refused there. tests/layers.test.ts fails
 * when an entry is no longer imported, so the list only shrinks.
 */
export const ingressDomainImports = {
  '@/lib/domain/runs/start':
    'the ingress inserts the runs a delivery starts in the statement that records it (runsToStart, newRunId, activeTriggersSql); a replay starts runs by the same rules',
  '@/lib/domain/runs/wake': "after its commit the ingress wakes this process's run workers",
  '@/lib/domain/deliveries/wake': "after its commit the ingress wakes this process's log streams",
  '@/lib/domain/run-control/wake': "after its commit the ingress wakes this process's run control scheduler",
  '@/lib/domain/secrets/service':
    "a verification handshake keeps the secret the provider issues as the factory's team secret (live.ts); applying a webhook's credential reads its team secret (credential.ts)",
  '@/lib/domain/secrets/schemas': 'credential.ts refuses a team secret that cannot stand in a URL for a url_token webhook (isUrlSafe), the rule the secrets form uses',
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const allowedFromIngress = Object.keys(ingressDomainImports).map((name) => escape(name.slice('@/lib/domain/'.length))).join('|');

const upward = {
  parent: { regex: '^\\.\\./', message: 'Import another folder as @/lib/... so the layer rules see where it points.' },
  ui: { regex: '^@/(app|components)(/|$)', message: 'lib/ must not import the UI (app/, components/).' },
  server: { regex: '^@/lib/server(/|$)', message: 'lib/server is the composition root: only server.ts, instrumentation.ts, app/ and lib/server itself import it.' },
  adapters: { regex: '^@/lib/adapters(/|$)', message: 'Adapters (lib/adapters) import the domains, not the reverse; only a domain\'s actions.ts uses the action wrapper.' },
  api: { regex: '^@/lib/adapters/api(/|$)', message: "A domain's actions.ts is a server-action adapter: it uses lib/adapters/actions, not the API's wrapper." },
  domain: { regex: '^@/lib/domain(/|$)', message: 'Platform imports no domain.' },
  ingressToDomain: {
    regex: `^@/lib/domain/(?!(?:${allowedFromIngress})$)`,
    message: 'The ingress wing imports only itself, platform and generated; a domain module it truly needs is named, with why, in eslint/layers.mjs (ingressDomainImports).',
  },
  ingress: { regex: '^@/lib/ingress(/|$)', message: 'Platform does not import the ingress wing.' },
};

// Tests set up whatever they need (a factory, a user, a webhook): they are not
// part of what a layer loads at run time, so the rules skip them.
const tests = ['**/*.test.ts'];
const rule = (...patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns: patterns.map((p) => ({ ...p, allowTypeImports: true })) }] });

/** Flat-config blocks, one per layer; a file matches exactly one of them. */
export const layerRules = [
  { files: ['lib/platform/**'], ignores: tests, rules: rule(upward.parent, upward.ui, upward.server, upward.adapters, upward.domain, upward.ingress) },
  { files: ['lib/ingress/**'], ignores: tests, rules: rule(upward.parent, upward.ui, upward.server, upward.adapters, upward.ingressToDomain) },
  { files: ['lib/domain/**'], ignores: ['lib/domain/*/actions.ts', ...tests], rules: rule(upward.parent, upward.ui, upward.server, upward.adapters) },
  // A domain's actions.ts is its 'use server' adapter, wrapped by lib/adapters/actions.
  { files: ['lib/domain/*/actions.ts'], ignores: tests, rules: rule(upward.parent, upward.ui, upward.server, upward.api) },
  { files: ['lib/adapters/**'], ignores: tests, rules: rule(upward.parent, upward.ui, upward.server) },
  { files: ['lib/server/**'], ignores: tests, rules: rule(upward.parent, upward.ui) },
];
