import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';
import { layerRules } from './eslint/layers.mjs';
import hotPath from './eslint/no-transitive-imports.mjs';

// The hot path (lib/ingress, with its signatures/ and filters/) must stay independent of the UI.
const uiImports = {
  patterns: [
    { group: ['react', 'react-dom', 'react/*', 'next/navigation', 'next/headers', 'next-auth', 'next-auth/*'], message: 'The ingress path must not depend on React, pages or next-auth.' },
    { group: ['@/components/*', '**/actions', '@/lib/domain/*/actions'], message: 'The ingress path must not import components or server actions.' },
  ],
};

// ...and, through any chain of imports, of the management code: the ingress
// runs what it needs of webhooks from lib/ingress/live.ts, not service.ts,
// which brings in definition files (yaml) and, through them, the run
// executors (child_process).
const hotPathTransitive = {
  forbidden: [
    { pattern: '@/lib/domain/webhooks/service', message: 'The hot path must not reach the webhook management rules; use lib/ingress/live.ts.' },
    { pattern: '@/lib/domain/definitions/*', message: 'The hot path must not reach the definition files.' },
    { pattern: '@/lib/domain/runs/executors*', message: 'The hot path must not reach the run executors.' },
    { pattern: '@/lib/domain/runs/worker', message: 'The hot path must not reach the run worker.' },
    { pattern: '@/components/*', message: 'The hot path must not reach components.' },
    { pattern: '@/lib/server/*', message: 'The hot path must not reach the composition root (lib/server).' },
    { pattern: 'yaml', message: 'The hot path must not load the YAML parser.' },
    { pattern: 'node:child_process', message: 'The hot path must not spawn processes.' },
    { pattern: 'child_process', message: 'The hot path must not spawn processes.' },
    { pattern: 'react', message: 'The hot path must not load React.' },
    { pattern: 'next-auth*', message: 'The hot path must not load next-auth.' },
  ],
};

const config = [
  { ignores: ['.next/**', '.next-*/**', 'dist/**', 'node_modules/**', 'lib/generated/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts'] },
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The direction of lib/'s layers (eslint/layers.mjs).
  ...layerRules,
  {
    files: ['lib/ingress/**'],
    rules: { 'no-restricted-imports': ['error', uiImports] },
  },
  {
    files: ['lib/ingress/**', 'app/webhooks/**'],
    plugins: { 'hot-path': hotPath },
    rules: { 'hot-path/no-transitive-imports': ['error', hotPathTransitive] },
  },
  // A form submitted through React is a ClientForm: it cannot be submitted
  // natively before hydration (components/forms/client-form.tsx). A GET
  // search form that also works without React (method="get") is exempt.
  {
    files: ['app/**/*.tsx', 'components/**/*.tsx'],
    ignores: ['components/forms/client-form.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXOpeningElement[name.name='form']:not(:has(JSXAttribute[name.name='method'][value.value='get'])) > JSXAttribute[name.name='onSubmit']",
          message: 'Use ClientForm from @/components/forms/client-form: a plain <form> can be submitted natively before React hydrates, putting its values in the URL.',
        },
      ],
    },
  },
  {
    files: ['e2e/**'],
    rules: { 'react-hooks/rules-of-hooks': 'off', 'no-empty-pattern': 'off' },
  },
];

export default config;
